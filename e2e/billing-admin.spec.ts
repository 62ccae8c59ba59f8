import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, request as apiRequest, test, type APIRequestContext, type Page } from '@playwright/test';
import { linkIn, waitForMail } from '../server/test/support/outbox.ts';
import { expectAccessible } from './support/accessibility.ts';
import { E2E_ADMIN, signIn, signInAdmin } from './support/session.ts';

// The provider's side of billing in the browser: an admin revokes a trial with a reason and the owner
// loses access at once; an owner downloads the final invoice once the admin marked the transfer paid; and
// a server without card checkout offers fixed periods by bank transfer only (a second server, started
// here without the FastSpring settings the suite's server has).

const PASSWORD = 'Harbour.Watch7';
const SCREENS = path.join(os.tmpdir(), 'osint-billing-admin-screens');

test.beforeAll(() => {
  fs.mkdirSync(SCREENS, { recursive: true });
});

async function screens(page: Page, name: string, fullPage = true): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

function pdfText(file: string): string {
  const result = spawnSync('pdftotext', ['-layout', file, '-']);
  expect(result.status, result.stderr.toString()).toBe(0);
  return result.stdout.toString('utf8');
}

/** Registers, confirms and approves an owner through the API of the server at `baseUrl` (the trial starts). */
async function approvedOwner(
  request: APIRequestContext,
  server: { baseUrl: string; dataDir: string; admin: { email: string; password: string } },
  email: string,
  organizationName: string,
): Promise<number> {
  const origin = { origin: server.baseUrl };
  const registered = await request.post(`${server.baseUrl}/api/user/register`, {
    headers: origin,
    data: {
      mail: email,
      password: PASSWORD,
      organizationName,
      organizationLink: 'https://harbour-police.example.org',
      organizationType: 'police',
      newsletter: false,
    },
  });
  expect(registered.status()).toBe(201);
  const message = await waitForMail(server.dataDir, email, /confirm/i);
  const hash = linkIn(message, `${server.baseUrl}/verify-email/`).split('/verify-email/')[1]!;
  expect(
    (await request.post(`${server.baseUrl}/api/user/validate/${hash}`, { headers: origin })).status(),
  ).toBe(200);
  const login = await request.post(`${server.baseUrl}/api/user/login`, {
    headers: origin,
    data: { mail: server.admin.email, password: server.admin.password },
  });
  expect(login.status()).toBe(200);
  const users = await (
    await request.get(`${server.baseUrl}/api/admin/users?search=${encodeURIComponent(email)}`)
  ).json();
  const approved = await request.post(`${server.baseUrl}/api/admin/users/${users[0].id}/approve`, {
    headers: origin,
  });
  expect(approved.status()).toBe(200);
  await request.post(`${server.baseUrl}/api/user/logout`, { headers: origin });
  return users[0].id as number;
}

const suiteServer = () => ({
  baseUrl: process.env.E2E_BASE_URL!,
  dataDir: process.env.E2E_DATA_DIR!,
  admin: E2E_ADMIN,
});

async function organizationIdOf(page: Page): Promise<number> {
  return page.evaluate(
    async () => (await (await fetch('/api/user/user-info')).json()).organizationId as number,
  );
}

test('an admin revokes a trial with a reason and the owner loses access at once', async ({
  browser,
  page,
}) => {
  test.setTimeout(120_000);
  const email = `owner-${Date.now()}@misuse.example.org`;
  await approvedOwner(page.request, suiteServer(), email, 'Misuse Investigations');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  const organizationId = await organizationIdOf(page);
  await page.goto('/account');
  await expect(page.getByText('Search access', { exact: true })).toBeVisible();

  const admin = await signInAdmin(browser);
  await admin.goto(`/admin/organizations/${organizationId}`);
  const trialRow = admin.getByRole('row', { name: /Trial/ });
  await expect(trialRow).toContainText('Active');
  await trialRow.getByRole('button', { name: 'End plan' }).click();
  const dialog = admin.getByRole('dialog', { name: 'End the trial plan?' });
  await dialog.getByRole('button', { name: 'End plan' }).click();
  await expect(dialog.getByText('Please give the reason for ending this plan.')).toBeVisible();
  await expectAccessible(admin, 'the end-plan dialog');
  await dialog.getByLabel(/Reason/).fill('Searches of private persons without a case number');
  await screens(admin, 'admin-end-plan-dialog', false);
  await dialog.getByRole('button', { name: 'End plan' }).click();
  await expect(dialog).toBeHidden();
  await expect(trialRow).toContainText('Ended early');
  await expect(trialRow).toContainText('Searches of private persons without a case number');
  await expect(trialRow.getByRole('button', { name: 'End plan' })).toHaveCount(0);
  await expectAccessible(admin, 'the organization with an ended trial');
  await screens(admin, 'admin-organization-ended');
  await admin.context().close();

  // The owner's next request already has no access.
  const info = await page.evaluate(
    async () => (await (await fetch('/api/user/user-info')).json()) as { access: boolean },
  );
  expect(info.access).toBe(false);
  await page.reload();
  await expect(page.getByText('No search access', { exact: true })).toBeVisible();
  await expectAccessible(page, 'the account after the trial was revoked');
  await screens(page, 'account-trial-revoked');
});

test('an owner downloads the final invoice after the admin marks the transfer paid', async ({ page }) => {
  test.setTimeout(120_000);
  const email = `owner-${Date.now()}@invoice.example.org`;
  await approvedOwner(page.request, suiteServer(), email, 'Invoice Harbour Unit');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);

  // The order is placed in the payment modal, with a VAT ID and a purchase-order number.
  await page.goto('/pricing');
  await page.getByRole('tab', { name: 'Fixed period' }).click();
  await page.getByRole('button', { name: 'Buy Now!' }).click();
  await page
    .getByRole('dialog', { name: 'Choose payment method' })
    .getByRole('button', { name: /Bank transfer/ })
    .click();
  const form = page.getByRole('dialog', { name: 'Bank details' });
  await form.getByLabel('Street').fill('1 Quay Road');
  await form.getByLabel('Postal code').fill('12-345');
  await form.getByLabel('City').fill('Port Town');
  await form.getByLabel('Country', { exact: true }).fill('Freedonia');
  await form.getByLabel('VAT ID (optional)').fill('12');
  await form.getByRole('button', { name: 'Confirm order' }).click();
  await expect(form.getByText(/VAT ID must be a two-letter country code/)).toBeVisible();
  await form.getByLabel('VAT ID (optional)').fill('DE 123 456 789');
  await form.getByLabel('Purchase-order number (optional)').fill('PO-77/2026');
  await expectAccessible(page, 'the billing form with VAT ID');
  const proforma = page.waitForEvent('download');
  await form.getByRole('button', { name: 'Confirm order' }).click();
  expect(pdfText(await (await proforma).path())).toContain('VAT ID: DE123456789');
  const finalize = page.getByRole('dialog', { name: 'Order confirmed' });
  const config = await (await page.request.get('/api/billing/config')).json();
  await expect(finalize.getByText(config.bank.swift, { exact: true })).toBeVisible();
  await expect(finalize.getByText(config.bank.address, { exact: true })).toBeVisible();
  await expectAccessible(page, 'the order to pay with SWIFT and bank address');
  await screens(page, 'payment-finalize-swift', false);
  await finalize.getByRole('button', { name: 'Done' }).click();

  // The admin marks the transfer as paid (through the API: the orders page has its own test).
  const admin = await apiRequest.newContext({ baseURL: process.env.E2E_BASE_URL });
  const origin = { origin: process.env.E2E_BASE_URL! };
  await admin.post('/api/user/login', {
    headers: origin,
    data: { mail: E2E_ADMIN.email, password: E2E_ADMIN.password },
  });
  const orders = await (
    await admin.get('/api/admin/orders?status=PENDING&search=Invoice%20Harbour%20Unit')
  ).json();
  expect(
    (await admin.post(`/api/admin/orders/${orders[0].id}/mark-paid`, { headers: origin })).status(),
  ).toBe(200);
  await admin.dispose();

  await page.goto('/account');
  const invoices = page.getByRole('region', { name: 'Invoices' });
  await expect(invoices).toContainText(/INV-\d{4}-\d{6}/);
  await expectAccessible(page, 'the account with an invoice');
  await screens(page, 'account-invoices');
  const download = page.waitForEvent('download');
  await invoices.getByRole('button', { name: 'Download invoice' }).click();
  const invoice = await download;
  expect(invoice.suggestedFilename()).toMatch(/^invoice-INV-\d{4}-\d{6}\.pdf$/);
  const text = pdfText(await invoice.path());
  expect(text).toMatch(/PAID by bank transfer on/);
  expect(text).toContain('VAT ID: DE123456789');
  expect(text).toContain('Purchase order: PO-77/2026');
  expect(text).not.toContain('PROFORMA');
});

test('newsletter: "Accept all" leaves it off; the account settings subscribe and unsubscribe; the footer follows', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await page.goto('/register');
  await page.getByLabel('Accept all').check();
  await expect(page.getByLabel(/I agree to the Terms of Service/)).toBeChecked();
  await expect(page.getByLabel(/Send me the newsletter/)).not.toBeChecked();

  const email = `reader-${Date.now()}@newsletter.example.org`;
  await approvedOwner(page.request, suiteServer(), email, 'Newsletter Readers');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/account');
  const setting = page.getByRole('region', { name: 'Settings' });
  const footer = page.getByRole('contentinfo');
  await expect(page.getByTestId('newsletter-state')).toHaveText(/You are not subscribed/);
  await expect(footer.getByRole('button', { name: 'Subscribe' })).toBeVisible();
  await setting.getByRole('button', { name: 'Subscribe' }).click();
  await expect(page.getByTestId('newsletter-state')).toHaveText(/You are subscribed/);
  await expect(footer.getByTestId('footer-newsletter-state')).toContainText('You are subscribed.');
  await expect(footer.getByRole('button', { name: 'Subscribe' })).toHaveCount(0);
  await expectAccessible(page, 'the account settings with the newsletter on');
  await screens(page, 'account-newsletter-on');
  await setting.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(page.getByTestId('newsletter-state')).toHaveText(/You are not subscribed/);
  await expect(footer.getByRole('button', { name: 'Subscribe' })).toBeVisible();
  const info = await page.evaluate(
    async () => (await (await fetch('/api/user/user-info')).json()) as { newsletter: boolean },
  );
  expect(info.newsletter).toBe(false);
});

test.describe('a server without card checkout', () => {
  let server: ChildProcess | undefined;
  const port = Number(process.env.E2E_PORT) + 2;
  const other = {
    baseUrl: `http://localhost:${port}`,
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'osint-e2e-nocard-')),
    admin: { email: 'admin@nocard.example.org', password: 'NoCard.Admin.Pass1' },
  };

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('FASTSPRING_')) delete env[key];
    server = spawn('node', ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: path.resolve(import.meta.dirname, '..'),
      env: {
        ...env,
        PORT: String(port),
        DATA_DIR: other.dataDir,
        PUBLIC_URL: other.baseUrl,
        ADMIN_EMAIL: other.admin.email,
        ADMIN_PASSWORD: other.admin.password,
        DEMO_DATA: '0',
        RATE_LIMIT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const deadline = Date.now() + 150_000;
    for (;;) {
      const up = await fetch(`${other.baseUrl}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error('the server without card checkout did not start');
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  test.afterAll(() => {
    server?.kill('SIGTERM');
  });

  test('the pricing page offers fixed periods by bank transfer only, and the admin dashboard warns', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const email = `owner-${Date.now()}@nocard.example.org`;
    await approvedOwner(page.request, other, email, 'Bank Only Unit');
    await page.goto(`${other.baseUrl}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/home$/);
    await page.goto(`${other.baseUrl}/pricing`);
    await expect(page.getByRole('tab', { name: 'Fixed period' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tab', { name: 'Monthly subscription' })).toHaveCount(0);
    await expect(page.getByText('Pay once, by bank transfer, for 1 to 12 months.')).toBeVisible();
    await expect(page.getByText(/Pay once for a fixed period by bank transfer;/)).toBeVisible();
    await expect(page.getByText(/by card/)).toHaveCount(0);
    await expect(page.getByText(/not configured/i)).toHaveCount(0);
    await expectAccessible(page, 'pricing without card checkout');
    await screens(page, 'pricing-no-card');
    await page.getByRole('button', { name: 'Buy Now!' }).click();
    // No method to choose: the modal starts at the buyer's details and never mentions cards.
    const form = page.getByRole('dialog', { name: 'Bank details' });
    await expect(form.getByLabel('Organisation')).toHaveValue('Bank Only Unit');
    await expect(form.getByText(/card/i)).toHaveCount(0);
    await expect(page.getByText(/not configured/i)).toHaveCount(0);
    await expectAccessible(page, 'the bank-only payment modal');
    await screens(page, 'payment-no-card', false);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.getByLabel('Email').fill(other.admin.email);
    await page.getByLabel('Password', { exact: true }).fill(other.admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Wait for the session before leaving the page: a navigation would cancel the sign-in request.
    await expect(page).toHaveURL(/\/home$/);
    await page.goto(`${other.baseUrl}/admin`);
    await expect(page.getByText(/Card checkout is not configured \(FASTSPRING_STOREFRONT/)).toBeVisible();
    await expectAccessible(page, 'the admin dashboard with a configuration warning');
    await screens(page, 'admin-dashboard-no-card');
  });
});
