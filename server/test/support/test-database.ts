import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Which database the integration tests run on: PGlite in memory, or a PostgreSQL server. */
export const TEST_DATABASE_KIND = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/**
 * A fresh, migrated database for one test file. On PostgreSQL each file gets its own database on the
 * server named by TEST_DATABASE_URL (the suite's global setup starts a throwaway server when it is unset).
 */
export async function createTestDatabase(): Promise<DatabaseHandle> {
  if (TEST_DATABASE_KIND === 'pglite') {
    const handle = await openDatabase({ dataDir: ':memory:' });
    await migrateToLatest(handle.db);
    return handle;
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL (set by the global setup).');
  const name = `test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: ':memory:', poolSize: 5 });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await withClient(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** Runs `run` with a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
