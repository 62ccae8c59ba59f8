import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { asTestApp, testConfig, type TestApp } from './test-app.ts';
import { TEST_DATABASE_KIND, withClient } from './test-database.ts';

export interface AppCluster {
  /** The instances in the order of `roles`: a 'worker' runs jobs and writes the face index, an 'api' does not. */
  apps: TestApp[];
  /** The DATA_DIR of the first instance (of every instance unless `separateDataDirs`). */
  dataDir: string;
  /** Each instance's DATA_DIR, in the order of `roles`. */
  dataDirs: string[];
  close(): Promise<void>;
}

/**
 * Several instances of the real application over one fresh database and one DATA_DIR (or one each: `separateDataDirs`), as production
 * runs N API processes (WORKERS=0) beside worker processes. On PostgreSQL every instance has its own
 * connection pool; PGlite admits one connection, so there the instances share it (they still have their
 * own services, face index, rate limiter and job runner).
 */
export async function createAppCluster(
  roles: ('worker' | 'api')[],
  overrides: Partial<Config> = {},
  /** Every instance on its own DATA_DIR, as on separate machines with PostgreSQL the only shared part. */
  options: { separateDataDirs?: boolean } = {},
): Promise<AppCluster> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-cluster-'));
  const dataDirs = [dataDir];
  for (const _ of roles.slice(1)) {
    dataDirs.push(
      options.separateDataDirs ? await fs.mkdtemp(path.join(os.tmpdir(), 'osint-cluster-')) : dataDir,
    );
  }
  const handles: DatabaseHandle[] = [];
  let dropDatabase = async () => undefined as unknown;
  if (TEST_DATABASE_KIND === 'pglite') {
    const handle = await openDatabase({ dataDir: ':memory:' });
    await migrateToLatest(handle.db);
    handles.push(...roles.map(() => handle));
  } else {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL (set by the global setup).');
    const name = `test_${randomBytes(6).toString('hex')}`;
    await withClient(adminUrl, (client) => client.query(`create database ${name}`));
    dropDatabase = () => withClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    for (const _ of roles) {
      handles.push(await openDatabase({ databaseUrl: url.toString(), dataDir: ':memory:', poolSize: 5 }));
    }
    await migrateToLatest(handles[0]!.db);
  }
  const apps: TestApp[] = [];
  for (const [i, role] of roles.entries()) {
    const config = testConfig(dataDirs[i]!, { ...overrides, runWorkers: role === 'worker' });
    const db = handles[i]!.db;
    const { app, container } = await buildApp(config, db);
    await app.ready();
    if (role === 'worker') container.jobRunner.start();
    apps.push(asTestApp({ app, db, container, config }, () => app.close()));
  }
  return {
    apps,
    dataDir,
    dataDirs,
    close: async () => {
      for (const app of apps) await app.close();
      for (const handle of new Set(handles)) await handle.close();
      await dropDatabase();
      for (const dir of new Set(dataDirs)) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
