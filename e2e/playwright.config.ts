import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

// The product runs once for the whole browser suite, on its own port and a fresh data folder whose
// outbox the tests read. Workers inherit the folder through the environment set here.
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'osint-e2e-'));
// Per run, so that two runs on one machine never delete each other's traces and screenshots.
process.env.E2E_OUTPUT_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'osint-e2e-results-'));
process.env.E2E_PORT ??= '3310';
import { fastspringEnv } from './support/fastspring.ts';
import { E2E_ADMIN } from './support/session.ts';

const baseURL = `http://localhost:${process.env.E2E_PORT}`;
process.env.E2E_BASE_URL = baseURL;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: process.env.E2E_OUTPUT_DIR,
  fullyParallel: false,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: [['list'], ['json']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-quic',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
  webServer: {
    command: 'node --import tsx server/src/main.ts',
    cwd: path.resolve(import.meta.dirname, '..'),
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    env: {
      PORT: process.env.E2E_PORT,
      DATA_DIR: process.env.E2E_DATA_DIR,
      PUBLIC_URL: baseURL,
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      // The demo sites are served and crawled on first start, so search has a real index to search
      // (with ADMIN_EMAIL set, no demo organization is created).
      DEMO_DATA: '1',
      DEMO_SITE_PORT: String(Number(process.env.E2E_PORT) + 1),
      RATE_LIMIT: '0',
      // e2e/face-alerts.spec.ts serves a page of its own on the loopback address for the admin to crawl.
      CRAWL_TRUSTED_ADDRESSES: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // Card checkout against the local FastSpring stand-in of e2e/billing.spec.ts.
      ...fastspringEnv(),
    },
  },
});
