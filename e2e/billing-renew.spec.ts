import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';

// Owners beyond the first purchase: the pricing page says and applies the annual discount; an owner cancels
// an order waiting for payment and orders again; an owner whose fixed period is in force renews it.

const PASSWORD = 'Harbour.Watch7';
const SCREENS = path.join(os.tmpdir(), 'osint-billing-renew-screens');

test.beforeAll(() => {
  fs.mkdirSync(SCREENS, { recursive: true });
});

/** Screenshots at 1440 and 390 px, each checked for accessibility at that width. */
async function screens(page: Page, name: string): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
    await page.evaluate(() => {
      document.documentElement.style.scrollBehavior = 'auto';
      window.scrollTo(0, 0);
    });
    await expectAccessible(page, `${name} at ${width} px`);
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const origin = () => ({ origin: process.env.E2E_BASE_URL! });

/** An organization owner, registered, confirmed and approved through the API (the trial starts at approval). */
async function approvedOwner(request: APIRequestContext, email: string, organizationName: string) {
  const registered = await request.post('/api/user/register', {
    headers: origin(),
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
  expect((await request.post(`/api/user/validate/${hash}`, { headers: origin() })).status()).toBe(200);
  await asAdmin(request, async () => {
    const users = await (await request.get(`/api/admin/users?search=${encodeURIComponent(email)}`)).json();
    expect(
      (await request.post(`/api/admin/users/${users[0].id}/approve`, { headers: origin() })).status(),
    ).toBe(200);
  });
}

async function asAdmin(request: APIRequestContext, work: () => Promise<void>) {
  const login = await request.post('/api/user/login', {
    headers: origin(),
    data: { mail: E2E_ADMIN.email, password: E2E_ADMIN.password },
  });
  expect(login.status()).toBe(200);
  await work();
  await request.post('/api/user/logout', { headers: origin() });
}

/** The admin marks the organization's pending order paid, in a context of its own. */
async function markPaid(browser: Browser, organizationName: string) {
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL! });
  await asAdmin(context.request, async () => {
    const orders = await (
      await context.request.get(
        `/api/admin/orders?status=PENDING&search=${encodeURIComponent(organizationName)}`,
      )
    ).json();
    expect(orders).toHaveLength(1);
    const paid = await context.request.post(`/api/admin/orders/${orders[0].id}/mark-paid`, {
      headers: origin(),
    });
    expect(paid.status()).toBe(200);
  });
  await context.close();
}

async function openPricing(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Pricing', exact: true })
    .click();
  await expect(page.getByRole('heading', { name: 'Select plan' })).toBeVisible();
}

/** Bank transfer in the payment modal: the buyer's address, then the proforma invoice downloads. */
async function payByBankTransfer(page: Page) {
  await page
    .getByRole('dialog', { name: 'Choose payment method' })
    .getByRole('button', { name: /Bank transfer/ })
    .click();
  const form = page.getByRole('dialog', { name: 'Bank details' });
  await form.getByLabel('Street').fill('1 Quay Road');
  await form.getByLabel('Postal code').fill('12-345');
  await form.getByLabel('City').fill('Port Town');
  await form.getByLabel('Country').fill('Freedonia');
  const download = page.waitForEvent('download');
  await form.getByRole('button', { name: 'Confirm order' }).click();
  await download;
  await page.getByRole('dialog', { name: 'Order confirmed' }).getByRole('button', { name: 'Done' }).click();
}

test('the annual discount shows on the pricing page; an owner cancels a pending order and orders again', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const email = `owner-cancel-${Date.now()}@harbour-police.example.org`;
  const organization = `Cancel Bureau ${Date.now()}`;
  // The promo site says it: the home page and the FAQ.
  await page.goto('/');
  await expect(
    page.getByText('Annual is 20% cheaper: 12 months for one user cost $960 USD instead of $1,200 USD.'),
  ).toBeVisible();
  await expectAccessible(page, 'home');
  await page.screenshot({ path: path.join(SCREENS, 'home-1280.png') });
  await page.goto('/faq');
  await page.getByRole('button', { name: 'How much does it cost?' }).click();
  await expect(
    page.getByText(/Annual is 20% cheaper: a fixed period of 12 months costs 20% less/),
  ).toBeVisible();
  await expectAccessible(page, 'faq');

  await approvedOwner(page.request, email, organization);
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await openPricing(page);
  await expect(page.getByText(/annual \(12 months\) is 20% cheaper/)).toBeVisible();

  await page.getByRole('tab', { name: 'Fixed period' }).click();
  await expect(page.getByText('12 months cost 20% less.')).toBeVisible();
  const months = page.getByRole('slider');
  await months.focus();
  await months.press('End');
  await expect(page.getByText('Period: 12 months')).toBeVisible();
  await expect(page.getByText('Annual discount (20%)')).toBeVisible();
  await expect(page.getByTestId('order-discount')).toHaveText('−$240');
  await expect(page.getByTestId('order-total')).toHaveText('$960 USD');
  await screens(page, 'pricing-trial-owner');

  await page.getByRole('button', { name: 'Buy Now!' }).click();
  const modal = page.getByRole('dialog', { name: 'Choose payment method' });
  await expect(modal.getByText('$960 USD')).toBeVisible();
  await expect(modal.getByTestId('modal-discount')).toHaveText(
    'Annual discount (20%): −$240 (instead of $1,200 USD)',
  );
  await expectAccessible(page, 'the payment modal with the annual discount');
  await payByBankTransfer(page);

  await expect(page.getByTestId('subscription-status')).toHaveText('CONFIRMING');
  await expect(page.getByText('−$240')).toBeVisible();
  await screens(page, 'pricing-pending-order');

  await page.getByRole('button', { name: 'Cancel order' }).click();
  const confirm = page.getByRole('dialog', { name: 'Cancel order' });
  await expect(confirm.getByText(/Cancel order \d{4}-\d{6} \(\$960 USD\)\?/)).toBeVisible();
  await expectAccessible(page, 'the cancel confirmation');
  await expect(confirm.getByRole('button', { name: 'Keep order' })).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel order' }).click();
  await expect(page.getByText('Your order has been cancelled. You can place a new order.')).toBeVisible();

  // The chooser is back: order again, 1 month for 2 users.
  await page.getByRole('tab', { name: 'Fixed period' }).click();
  await page.getByLabel('Number of users').fill('2');
  await expect(page.getByTestId('order-total')).toHaveText('$150 USD');
  await expect(page.getByTestId('order-discount')).toHaveCount(0);
  await page.getByRole('button', { name: 'Buy Now!' }).click();
  await payByBankTransfer(page);
  await expect(page.getByTestId('subscription-status')).toHaveText('CONFIRMING');
  await expect(page.getByText('$150 USD')).toBeVisible();
});

test('an owner with a fixed period in force renews it from the day after it ends', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const email = `owner-renew-${Date.now()}@harbour-police.example.org`;
  const organization = `Renew Bureau ${Date.now()}`;
  await approvedOwner(page.request, email, organization);
  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await openPricing(page);
  await page.getByRole('tab', { name: 'Fixed period' }).click();
  await page.getByLabel('Number of users').fill('3');
  await page.getByRole('button', { name: 'Buy Now!' }).click();
  await payByBankTransfer(page);
  await markPaid(browser, organization);

  await page.reload();
  await expect(page.getByTestId('subscription-status')).toHaveText('Active');
  await expect(page.getByTestId('seat-usage')).toHaveText('1 / 3');
  await screens(page, 'pricing-active-owner');

  await page.getByRole('button', { name: 'Renew', exact: true }).click();
  const renewal = page.getByRole('region', { name: 'Renew your plan' });
  await expect(
    renewal.getByText(/when your current plan ends, so access continues without a break/),
  ).toBeVisible();
  await expect(renewal.getByLabel('Number of users')).toHaveValue('3');
  // 12 months × (100 + 2 × 50) = 2,400, 20 % less.
  await expect(renewal.getByTestId('extension-total')).toHaveText('$1,920 USD');
  await expectAccessible(page, 'the renewal form');
  await screens(page, 'pricing-renew');
  await renewal.getByRole('button', { name: 'Renew', exact: true }).click();
  const modal = page.getByRole('dialog', { name: 'Choose payment method' });
  await expect(modal.getByText(/Renewal: 12 months for 3 users/)).toBeVisible();
  await expect(modal.getByRole('button', { name: /Card/ })).toBeDisabled();
  await payByBankTransfer(page);

  await expect(page.getByTestId('subscription-status')).toHaveText('Active');
  await expect(page.getByText(/Order \d{4}-\d{6} \(\$1,920 USD\) is waiting for payment/)).toBeVisible();
  await markPaid(browser, organization);
  const plans = await (await page.request.get('/api/user/organization/all-billing-plans')).json();
  expect(plans.futureBillingPlan).toMatchObject({ seatLimit: 3, planType: 'ONE_TIME_PAYMENT' });
  expect(plans.futureBillingPlan.startDate).toBe(plans.activeBillingPlan.endDate);
});
