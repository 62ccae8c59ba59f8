import type pg from 'pg';
import type { SqlClient } from '../../server/src/face/index/pgvector-face-index.ts';

/** A `pg` pool as the SQL client the pgvector face index speaks; a transaction holds one connection. */
export function poolSqlClient(pool: pg.Pool): SqlClient {
  return {
    async query<T>(text: string, params?: unknown[]) {
      const result = await pool.query(text, params);
      return { rows: result.rows as T[] };
    },
    async transaction(run) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await run({
          async query<T>(text: string, params?: unknown[]) {
            const answer = await client.query(text, params);
            return { rows: answer.rows as T[] };
          },
        });
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
