import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Container } from '../../src/container.ts';
import type { Db } from '../../src/db/database.ts';
import { createTestDatabase } from './test-database.ts';

export const TEST_ORIGIN = 'http://localhost:3000';

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  container: Container;
  config: Config;
  /** A request from the web app: JSON body, our Origin, the given session cookie. */
  request(options: InjectOptions & { cookie?: string | undefined }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The configuration of a test instance: DATA_DIR given, no demo data, rate limits and Wikipedia off. */
export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return loadConfig(
    {},
    {
      dataDir,
      publicUrl: TEST_ORIGIN,
      demoData: false,
      rateLimit: { enabled: false },
      webDistDir: path.join(dataDir, 'no-web'),
      // Unexpected errors (500s) are logged so that a failing test shows their cause.
      logLevel: 'error',
      // Nothing leaves the machine: a test that wants Wikipedia points this at a local server.
      wikipediaUrl: 'off',
      ...overrides,
    },
  );
}

/** A built application as a TestApp: requests carry our Origin and the given cookie. */
export function asTestApp(
  built: Pick<TestApp, 'app' | 'db' | 'container' | 'config'>,
  close: () => Promise<void>,
): TestApp {
  const { app } = built;
  return {
    ...built,
    request: ({ cookie, headers, ...options }) =>
      app.inject({
        ...options,
        headers: { origin: TEST_ORIGIN, ...(cookie ? { cookie } : {}), ...headers },
      }),
    close,
  };
}

/** The real application over a fresh database, its outbox in a temporary folder, its jobs running. */
export async function createTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-test-'));
  const config = testConfig(dataDir, overrides);
  const database = await createTestDatabase();
  const { app, container } = await buildApp(config, database.db);
  await app.ready();
  container.jobRunner.start();
  return asTestApp({ app, db: database.db, container, config }, async () => {
    await app.close();
    await database.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
}

/** The `name=value` pair of the session cookie a response set, for the next request. */
export function sessionCookieOf(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find((c) => c.name === 'osint_session');
  if (!cookie) throw new Error(`no session cookie in response ${response.statusCode}: ${response.body}`);
  return `${cookie.name}=${cookie.value}`;
}
