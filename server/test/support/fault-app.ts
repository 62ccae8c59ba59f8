import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Container } from '../../src/container.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from './postgres-server.ts';

export interface FaultApp {
  postgres: ThrowawayPostgres;
  dataDir: string;
  database: DatabaseHandle;
  /** The application's services; it runs no jobs itself (the test's worker processes do). */
  container: Container;
  site: DemoSite;
  /** Closes the application, the demo site, the database and PostgreSQL; removes DATA_DIR. */
  close(): Promise<void>;
}

/**
 * For fault tests of worker processes: the real application without workers over its own throwaway
 * PostgreSQL and a fresh DATA_DIR (named `<dirPrefix>…`), and the demo site to crawl.
 */
export async function startFaultApp(dirPrefix: string): Promise<FaultApp> {
  const postgres = await startThrowawayPostgres();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), dirPrefix));
  const database = await openDatabase({ databaseUrl: postgres.url, dataDir: ':memory:', poolSize: 4 });
  await migrateToLatest(database.db);
  const config = loadConfig(
    {},
    { dataDir, databaseUrl: postgres.url, demoData: false, runWorkers: false, logLevel: 'silent' },
  );
  const { app, container } = await buildApp(config, database.db);
  const site = await startDemoSite({ port: 0 });
  return {
    postgres,
    dataDir,
    database,
    container,
    site,
    close: async () => {
      await app.close();
      await site.close();
      await database.close();
      postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
