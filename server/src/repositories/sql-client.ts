import { CompiledQuery, type Kysely } from 'kysely';
import type { SqlClient } from '../face/index/pgvector-face-index.ts';

/**
 * The database as the plain SQL client the pgvector face index speaks (text + positional parameters),
 * on PostgreSQL and PGlite alike. A transaction's statements run on the transaction's connection; a
 * transaction begun inside one (e.g. a migration's) is that same transaction.
 */
export function kyselySqlClient<DB>(db: Kysely<DB>): SqlClient {
  const client: SqlClient = {
    async query<T>(text: string, params: unknown[] = []) {
      const result = await db.executeQuery<T>(CompiledQuery.raw(text, params));
      return { rows: result.rows };
    },
    transaction: (run) =>
      db.isTransaction ? run(client) : db.transaction().execute((tx) => run(kyselySqlClient(tx))),
  };
  return client;
}
