import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_ADMIN } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// Admin → Jobs in the browser, over a product whose jobs really fail: a second server of its own (no demo
// data, retries a few milliseconds apart) whose outbox folder is blocked by a file, so that forwarding a
// contact message fails on every attempt and dies. The admin sees it with its error, the cause is removed,
// Retry runs it again, and the message is then delivered.

const PORT = Number(process.env.E2E_PORT ?? 3310) + 7;
const BASE = `http://localhost:${PORT}`;
const DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-e2e-jobs-'));
const OUTBOX = path.join(DATA_DIR, 'outbox');
const SCREENS = path.join(os.tmpdir(), 'osint-admin-jobs-screens');
let server: ChildProcess;

test.beforeAll(async () => {
  test.setTimeout(200_000);
  fs.mkdirSync(SCREENS, { recursive: true });
  fs.writeFileSync(OUTBOX, 'a file where the outbox folder should be');
  server = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR,
      PUBLIC_URL: BASE,
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      DEMO_DATA: '0',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'error',
      JOB_RETRY_BASE_MS: '20',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  server.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const deadline = Date.now() + 180_000;
  while (
    !(await fetch(`${BASE}/api/health`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`the jobs server did not start: ${errors}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
});

async function screens(page: Page, name: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test('an admin sees a job that failed every attempt and retries it once its cause is fixed', async ({
  page,
}) => {
  await page.goto(`${BASE}/login`);
  await page.getByLabel('Email').fill(E2E_ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/home$/);
  await page.goto(`${BASE}/admin/users`);

  // Nothing has failed yet.
  await page.getByRole('link', { name: 'Jobs' }).first().click();
  await expect(page).toHaveURL(`${BASE}/admin/jobs`);
  await expect(page.getByRole('heading', { name: 'Failed jobs' })).toBeVisible();
  await expect(page.getByText('No failed jobs.')).toBeVisible();
  await screens(page, 'admin-jobs-empty');

  // A visitor writes to support; forwarding the message to the support address fails five times.
  const contact = await fetch(`${BASE}/api/support/contact-support`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: BASE },
    body: JSON.stringify({
      email: 'visitor@newsroom.example.org',
      subject: 'General Inquiry',
      message: 'Hello.',
    }),
  });
  expect(contact.status).toBe(200);

  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('row')).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  const row = page.getByRole('row').nth(1);
  await expect(row).toContainText('Support message');
  await expect(row).toContainText('support.forward');
  await expect(row).toContainText('5 of 5');
  await expect(row).toContainText(/ENOTDIR|not a directory|EEXIST/);
  await expect(page.getByRole('heading', { name: '1 failed job' })).toBeVisible();
  await expectAccessible(page, 'admin jobs with a failed job');
  await screens(page, 'admin-jobs-failed');

  // The cause is removed; Retry runs the job again and it is delivered.
  fs.rmSync(OUTBOX);
  await row.getByRole('button', { name: /Retry job/ }).click();
  await expect(page.getByText(/is queued again/)).toBeVisible();
  await expectAccessible(page, 'admin jobs after a retry');
  await expect(page.getByText('No failed jobs.')).toBeVisible();
  await expect
    .poll(
      () => (fs.existsSync(OUTBOX) ? fs.readdirSync(OUTBOX).filter((f) => f.endsWith('.eml')).length : 0),
      {
        timeout: 15_000,
      },
    )
    .toBe(1);
  await page.reload();
  await expect(page.getByText('No failed jobs.')).toBeVisible();
});
