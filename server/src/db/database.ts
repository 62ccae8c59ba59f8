import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

/** Runs `run` in a transaction: the caller's when `db` already is one, else a new one. */
export function inTransaction<T>(db: Db, run: (tx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** PGlite only: a copy of its data directory, which `openDatabase({ copyOf })` opens again. */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

// Both drivers return bigint columns (counts, bigserial ids) as JS numbers: every id we use stays far
// below 2^53, and one representation on both databases keeps the repositories simple.
pg.types.setTypeParser(INT8_OID, (value) => Number(value));

/**
 * Opens the database: a PostgreSQL server when a URL is given, else PGlite with its files under `dataDir`
 * (or in memory when `dataDir` is ':memory:', for tests).
 */
export async function openDatabase(options: {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** PGlite only: start from this copy of a data directory (`dumpDataDir`) instead of an empty database. */
  copyOf?: Blob;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // While the server is unreachable a request fails within seconds (503) instead of hanging.
      connectionTimeoutMillis: 5_000,
    });
    // An idle connection the server ends (restart, failover, pg_terminate_backend) is already dropped from
    // the pool, and the next query opens a new one; without a listener the pool's 'error' event would crash
    // the process.
    pool.on('error', () => undefined);
    // A connection the server cuts while it is checked out (between two queries of a request, or under a
    // query) also emits 'error' on its client, which nobody listens to there: without this the process
    // would crash when PostgreSQL restarts. The query itself fails and is answered 503.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  let dataDir: string | undefined;
  if (options.dataDir !== ':memory:') {
    dataDir = path.join(options.dataDir, 'pglite');
    await fs.mkdir(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(options.copyOf ? { loadDataDir: options.copyOf } : {}),
    parsers: { [INT8_OID]: (value: string) => Number(value), [NUMERIC_OID]: (value: string) => value },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    dumpDataDir: async () => (await pglite.dumpDataDir('none')) as Blob,
    close: () => db.destroy(),
  };
}
