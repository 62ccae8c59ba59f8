import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Which database the integration tests run on: PGlite in memory, or a PostgreSQL server. */
export const TEST_DATABASE_KIND = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/**
 * A fresh, migrated database for one test file (or a benchmark). On PostgreSQL each gets its own database,
 * dropped on close, on the server of `adminUrl`: TEST_DATABASE_URL by default (the suite's global setup
 * starts a throwaway server when it is unset).
 */
export async function createTestDatabase(
  kind: 'pglite' | 'postgres' = TEST_DATABASE_KIND,
  adminUrl = process.env.TEST_DATABASE_URL,
): Promise<DatabaseHandle> {
  if (kind === 'pglite') {
    return openDatabase({ dataDir: ':memory:', copyOf: await migratedPglite() });
  }
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

// A PGlite database is migrated once per test process and each test file gets a copy of it: opening a
// copy takes ≈ 0.6 s, an empty database ≈ 1.7 s and its migrations 0.2–0.6 s more, for every database the
// suite opens. The copy is the state the migrations left, so every file still starts from a freshly
// migrated database; the migrations themselves still run from empty here once per process, for every
// file-backed test instance (app clusters, fault tests, the CLIs) and for every PostgreSQL test database.
let migratedPgliteDump: Promise<Blob> | undefined;

function migratedPglite(): Promise<Blob> {
  migratedPgliteDump ??= (async () => {
    const handle = await openDatabase({ dataDir: ':memory:' });
    try {
      await migrateToLatest(handle.db);
      return await handle.dumpDataDir!();
    } finally {
      await handle.close();
    }
  })();
  return migratedPgliteDump;
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
