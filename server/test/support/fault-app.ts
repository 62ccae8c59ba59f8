import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import type { Container } from '../../src/container.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from './postgres-server.ts';
import { asTestApp, testConfig, type TestApp } from './test-app.ts';

export interface FaultApp {
  postgres: ThrowawayPostgres;
  dataDir: string;
  database: DatabaseHandle;
  /** The application's services; it runs no jobs itself (the test's worker processes do). */
  container: Container;
  /** The application, requests as from the web app. */
  t: TestApp;
  /** Closes the application, the database and PostgreSQL; removes DATA_DIR. */
  close(): Promise<void>;
}

/**
 * For fault tests: the real application without workers (the test's worker processes run the jobs) over
 * its own throwaway PostgreSQL and a fresh DATA_DIR (named `<dirPrefix>…`).
 */
export async function startFaultApp(dirPrefix: string): Promise<FaultApp> {
  const postgres = await startThrowawayPostgres();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), dirPrefix));
  const database = await openDatabase({ databaseUrl: postgres.url, dataDir: ':memory:', poolSize: 4 });
  await migrateToLatest(database.db);
  const config = testConfig(dataDir, { databaseUrl: postgres.url, runWorkers: false, logLevel: 'silent' });
  const { app, container } = await buildApp(config, database.db);
  await app.ready();
  const t = asTestApp({ app, db: database.db, container, config }, () => app.close());
  return {
    postgres,
    dataDir,
    database,
    container,
    t,
    close: async () => {
      await app.close();
      await database.close();
      postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
