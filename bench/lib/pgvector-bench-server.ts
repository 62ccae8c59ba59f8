import pg from 'pg';
import type { SqlClient } from '../../server/src/face/index/pgvector-face-index.ts';
import { startThrowawayPostgres } from '../../server/test/support/postgres-server.ts';

/**
 * The server's memory settings for a run: the index must fit the build memory (a 1M-face f32 graph of m = 32
 * needs ≈ 3 GB; past the setting pgvector builds far slower), and the cache should hold table and index.
 */
const BENCH_SERVER_SETTINGS = { shared_buffers: '6GB', maintenance_work_mem: '5GB', work_mem: '16MB' };

/**
 * The PostgreSQL server a pgvector bench runs on: `databaseUrl` as it is, else a throwaway cluster (the
 * suite's PostgreSQL binaries, the vector extension installed) restarted with BENCH_SERVER_SETTINGS.
 */
export async function benchPostgres(
  databaseUrl: string | undefined,
): Promise<{ url: string; stop: () => void }> {
  if (databaseUrl) return { url: databaseUrl, stop: () => undefined };
  const throwaway = await startThrowawayPostgres();
  const admin = new pg.Client({ connectionString: throwaway.url });
  await admin.connect();
  for (const [name, value] of Object.entries(BENCH_SERVER_SETTINGS)) {
    await admin.query(`alter system set ${name} = '${value}'`);
  }
  await admin.end();
  throwaway.halt();
  await throwaway.resume();
  return throwaway;
}

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
