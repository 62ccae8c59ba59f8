import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import {
  fsEvents,
  fsId,
  startFastSpringStandIn,
  type FastSpringStandIn,
  type StoreSession,
} from '../server/test/support/fastspring-stand-in.ts';
import { E2E_FS_API } from './support/fastspring.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn, signInAdmin } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// Pricing and payment in the browser: a trial owner buys 3 months for 4 users by bank transfer, an admin
// marks the transfer as paid; another owner subscribes monthly by card through the local FastSpring
// stand-in, whose signed webhook activates the subscription.

const PASSWORD = 'Harbour.Watch7';
const SCREENS = path.join(os.tmpdir(), 'osint-billing-screens');
let standIn: FastSpringStandIn;

test.beforeAll(async () => {
  fs.mkdirSync(SCREENS, { recursive: true });
  standIn = await startFastSpringStandIn({
    publicKey: process.env.E2E_FS_PUBLIC_KEY!,
    secret: process.env.E2E_FS_SECRET!,
    port: Number(process.env.E2E_FS_PORT),
    api: E2E_FS_API,
  });
});

test.afterAll(async () => {
  await standIn?.close();
});

/** Screenshots at 1440 and 390 px: the whole page, or what the viewport shows (dialogs). */
async function screens(page: Page, name: string, fullPage = true): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
    if (fullPage)
      await page.evaluate(() => {
        document.documentElement.style.scrollBehavior = 'auto';
        window.scrollTo(0, 0);
      });
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** An organization owner, registered, confirmed and approved through the API (the trial starts at approval). */
async function approvedOwner(
  request: APIRequestContext,
  email: string,
  organizationName: string,
): Promise<void> {
  const origin = { origin: process.env.E2E_BASE_URL! };
  const registered = await request.post('/api/user/register', {
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
  const link = await mailedLink(email, /confirm/i, '/verify-email/');
  const hash = link.split('/verify-email/')[1]!;
  expect((await request.post(`/api/user/validate/${hash}`, { headers: origin })).status()).toBe(200);
  expect(
    (
      await request.post('/api/user/login', {
        headers: origin,
        data: { mail: E2E_ADMIN.email, password: E2E_ADMIN.password },
      })
    ).status(),
  ).toBe(200);
  const users = await (await request.get(`/api/admin/users?search=${encodeURIComponent(email)}`)).json();
  expect((await request.post(`/api/admin/users/${users[0].id}/approve`, { headers: origin })).status()).toBe(
    200,
  );
  await request.post('/api/user/logout', { headers: origin });
}

function pdfText(file: string): string {
  const result = spawnSync('pdftotext', ['-layout', file, '-']);
  expect(result.status, result.stderr.toString()).toBe(0);
  return result.stdout.toString('utf8');
}

test('a trial owner buys 3 months for 4 users by bank transfer; an admin marks it paid', async ({
  browser,
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const email = `owner-${Date.now()}@harbour-police.example.org`;
  await approvedOwner(page.request, email, 'Harbour Police Department');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);

  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Pricing', exact: true })
    .click();
  await expect(page.getByRole('heading', { name: 'Select plan' })).toBeVisible();
  await expect(page.getByText(/You are on the 7-day free trial until/)).toBeVisible();
  await expect(page.getByText('Unlimited face search')).toBeVisible();
  await expect(page.getByText('Billed monthly')).toBeVisible();
  await expectAccessible(page, 'pricing');
  await screens(page, 'pricing-monthly');

  await page.getByRole('tab', { name: 'Fixed period' }).click();
  const months = page.getByRole('slider');
  await months.focus();
  await months.press('ArrowRight');
  await months.press('ArrowRight');
  await expect(page.getByText('Period: 3 months')).toBeVisible();
  const users = page.getByLabel('Number of users');
  await users.fill('4');
  // Typing above 100 is blocked: the field keeps its value.
  await users.press('End');
  await users.pressSequentially('00');
  await expect(users).toHaveValue('40');
  await users.fill('4');
  await expect(page.getByTestId('order-total')).toHaveText('$750 USD');
  await expect(page.getByText('One time payment')).toBeVisible();
  await expect(page.getByText('$450')).toBeVisible();
  await expect(page.getByText('(3 × $50 × 3 months)')).toBeVisible();
  await expectAccessible(page, 'the one-time plan');
  await expect(page.getByText(/\$100 per additional user/)).toHaveCount(0);

  // The start date picker: past days are disabled, weeks start on Monday.
  await page.getByRole('button', { name: /Start date/ }).click();
  const calendar = page.getByRole('dialog', { name: 'Choose start date' });
  await expect(calendar.getByRole('columnheader').first()).toHaveText('Mon');
  await screens(page, 'pricing-date-picker', false);
  // Nothing beyond MAX_START_MONTHS_AHEAD (12) months: the server would refuse it.
  const nextMonth = calendar.getByRole('button', { name: 'Next month' });
  for (let month = 0; month < 12; month++) await nextMonth.click();
  await expect(nextMonth).toBeDisabled();
  await screens(page, 'pricing-date-picker-last-month', false);
  const day = (d: Date) =>
    `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  const today = new Date();
  const lastDay = new Date(today.getFullYear() + 1, today.getMonth(), today.getDate());
  const dayAfter = new Date(today.getFullYear() + 1, today.getMonth(), today.getDate() + 1);
  // (On 29 February, and on a month's last day, one of these days is in another month's page.)
  if (lastDay.getMonth() === today.getMonth())
    await expect(calendar.locator(`[data-date="${day(lastDay)}"]`)).toBeEnabled();
  if (dayAfter.getMonth() === today.getMonth())
    await expect(calendar.locator(`[data-date="${day(dayAfter)}"]`)).toBeDisabled();
  await calendar.getByRole('button', { name: 'Cancel' }).click();
  await expect(calendar).toBeHidden();
  await screens(page, 'pricing-fixed');

  await page.getByRole('button', { name: 'Buy Now!' }).click();
  const modal = page.getByRole('dialog', { name: 'Choose payment method' });
  await expect(modal.getByText('$750 USD')).toBeVisible();
  await expectAccessible(page, 'the payment modal');
  await modal.getByRole('button', { name: /Bank transfer/ }).click();
  const form = page.getByRole('dialog', { name: 'Bank details' });
  await expect(form.getByLabel('Organisation')).toHaveValue('Harbour Police Department');
  await form.getByRole('button', { name: 'Confirm order' }).click();
  await expect(form.getByText('Street is required')).toBeVisible();
  await form.getByLabel('Street').fill('1 Quay Road');
  await form.getByLabel('Postal code').fill('AB 12');
  await expect(form.getByText('Postal code must contain only numbers')).toBeVisible();
  await expectAccessible(page, 'the billing form with errors');
  await form.getByLabel('Postal code').fill('12-345');
  await form.getByLabel('City').fill('Port Town');
  await form.getByLabel('Country').fill('Freedonia');
  await screens(page, 'payment-bank-details', false);
  const download = page.waitForEvent('download');
  await form.getByRole('button', { name: 'Confirm order' }).click();
  const invoice = await download;
  expect(invoice.suggestedFilename()).toMatch(/^proforma-invoice-\d{4}-\d{6}\.pdf$/);
  const invoiceText = pdfText(await invoice.path());
  expect(invoiceText).toContain('$750 USD');
  expect(invoiceText).toContain('OSINT, 3 months, Harbour Police Department');

  const finalize = page.getByRole('dialog', { name: 'Order confirmed' });
  await expect(
    finalize.getByText(
      'Your order has been successfully confirmed. To access the platform, please complete your payment. Please note that bank transfers may take 1–5 business days to process.',
    ),
  ).toBeVisible();
  await expect(finalize.getByText('OSINT, 3 months, Harbour Police Department')).toBeVisible();
  await expectAccessible(page, 'the order to pay');
  await finalize.getByRole('button', { name: 'Copy transfer title' }).click();
  await expect(finalize.getByText('Copied to clipboard')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
    'OSINT, 3 months, Harbour Police Department',
  );
  await expect(finalize.getByText('Copied to clipboard')).toBeHidden({ timeout: 2_000 });
  await screens(page, 'payment-finalize', false);
  await finalize.getByRole('button', { name: 'Done' }).click();

  await expect(page.getByTestId('subscription-status')).toHaveText('CONFIRMING');
  await expect(
    page.getByText('We are awaiting confirmation of your payment.', { exact: false }),
  ).toBeVisible();
  const again = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download proforma invoice' }).click();
  expect(pdfText(await (await again).path())).toContain('$750 USD');
  await screens(page, 'pricing-confirming');

  // The provider's admin marks the transfer as paid.
  const admin = await signInAdmin(browser);
  await admin.goto('/admin/orders');
  const row = admin.getByRole('row', { name: /Harbour Police Department/ }).first();
  await expect(row).toContainText('$750 USD');
  await screens(admin, 'admin-orders');
  await row.getByRole('button', { name: 'Mark as paid' }).click();
  await admin
    .getByRole('dialog', { name: 'Mark this order as paid?' })
    .getByRole('button', { name: 'Mark as paid' })
    .click();
  await expect(admin.getByText(/is paid\./)).toBeVisible();
  await expectAccessible(admin, 'admin orders');
  await admin.goto('/admin/payments');
  await expect(admin.getByRole('row', { name: /Bank transfer/ }).first()).toContainText('$750 USD');
  await expectAccessible(admin, 'admin payments');
  await screens(admin, 'admin-payments');
  await admin.context().close();

  await page.reload();
  await expect(page.getByTestId('subscription-status')).toHaveText(/Active|APPROVED/);
  await expect(page.getByTestId('seat-usage')).toHaveText('1 / 4');
  await expect(page.getByRole('heading', { name: 'Fixed Period' })).toBeVisible();
  await expectAccessible(page, 'the account with a fixed-period plan');
  await screens(page, 'pricing-active');
});

test('a monthly card checkout is completed by a signed FastSpring webhook and activates the subscription; an admin ending the plan cancels it', async ({
  browser,
  page,
}) => {
  test.setTimeout(120_000);
  const email = `owner-${Date.now()}@coast-guard.example.org`;
  await approvedOwner(page.request, email, 'Coast Guard Intelligence');
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/pricing');
  await expect(page.getByRole('tab', { name: 'Monthly subscription' })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.getByLabel('Number of users').fill('2');
  await expect(page.getByTestId('order-total')).toHaveText('$150 USD');

  // The page pushes the session 500 ms after the last change; the stand-in decrypts it with the public key.
  const organizationId = await page.evaluate(
    async () => (await (await fetch('/api/user/user-info')).json()).organizationId as number,
  );
  let session: StoreSession | undefined;
  await expect
    .poll(() => {
      session = standIn.sessions.findLast((s) => s.tags.organizationId === String(organizationId));
      return session?.items.map((item) => `${item.product}×${item.quantity}`).join(', ');
    })
    .toBe('osint-license-subscription×1, additional-seat×1');
  const opened = standIn.checkoutsOpened;
  await page.getByRole('button', { name: 'Subscribe Now!' }).click();
  await expect.poll(() => standIn.checkoutsOpened).toBe(opened + 1);

  // FastSpring completes the order and tells the product through its signed webhook.
  const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
  const now = Date.now();
  const webhook = `${process.env.E2E_BASE_URL}/api/fastspring/webhook`;
  const delivered = await standIn.deliver(webhook, [
    fsEvents.orderCompleted(session!, ids, now),
    fsEvents.subscriptionActivated(session!, ids, { begin: now, next: now + 30 * 86_400_000 }, now),
  ]);
  expect(delivered.status).toBe(200);
  // The Store Builder tells the page its popup closed after a purchase.
  await page.evaluate((orderId) => {
    const closed = (window as unknown as { osintFastSpringPopupClosed?: (order: { id: string }) => void })
      .osintFastSpringPopupClosed;
    closed?.({ id: orderId });
  }, ids.orderId);
  await expect(page.getByTestId('subscription-status')).toHaveText('Active', { timeout: 15_000 });
  await expect(page.getByRole('heading', { name: 'Subscription' })).toBeVisible();
  await expectAccessible(page, 'the account with a subscription');
  await expect(page.getByTestId('seat-usage')).toHaveText('1 / 2');
  await screens(page, 'pricing-subscription-active');

  // The provider's admin ends the plan (a disputed payment): the card subscription is cancelled at
  // FastSpring, so the card is not charged again, and the organization page says so.
  standIn.subscriptions.set(ids.subscriptionId, 'active');
  const admin = await signInAdmin(browser);
  await admin.goto(`/admin/organizations/${organizationId}`);
  const planRow = admin.getByRole('row', { name: /Subscription/ });
  await expect(planRow).toContainText(`Paid by card subscription ${ids.subscriptionId}.`);
  await planRow.getByRole('button', { name: 'End plan' }).click();
  const dialog = admin.getByRole('dialog', { name: 'End the subscription plan?' });
  await expect(dialog).toContainText(
    `Its card subscription (${ids.subscriptionId}) will be cancelled at FastSpring, so the card is not charged again.`,
  );
  // The trial the subscription replaced still covers today, but billing started after it: it does not
  // take over, and the admin is told the users lose access.
  await expect(dialog).toContainText('the organization’s users lose search access at once');
  await expect(dialog).not.toContainText('also covers today');
  await dialog.getByLabel(/Reason/).fill('Payment disputed by the card holder');
  await dialog.getByRole('button', { name: 'End plan' }).click();
  await expect(dialog).toBeHidden();
  await expect(planRow).toContainText('Ended early');
  // The job runner polls every second; the page shows the outcome once reloaded.
  await expect
    .poll(
      async () => {
        await admin.reload();
        return planRow.textContent();
      },
      { timeout: 20_000 },
    )
    .toContain(`The card subscription ${ids.subscriptionId} was cancelled at FastSpring`);
  expect(standIn.subscriptions.get(ids.subscriptionId)).toBe('deactivated');
  expect(standIn.cancelRequests.filter((r) => r.id === ids.subscriptionId)).toMatchObject([
    { billingPeriod: '0', authorized: true },
  ]);
  await expectAccessible(admin, 'the organization with a cancelled card subscription');
  await screens(admin, 'admin-subscription-cancelled');
  await admin.context().close();
});
