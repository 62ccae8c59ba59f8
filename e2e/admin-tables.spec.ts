import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';
import { apiLogin, createOrganizationWithPlan, origin } from './support/organization.ts';

// Issue 15 item 11: every admin list and the account's users table at 1440 and 390 px. At 390 px the
// Orders table was 991 px wide and "Mark as paid" was off-screen; now each row is a card and nothing is
// wider than the screen.

const PASSWORD = 'Lakeside.Watch7';
const SCREENS = process.env.E2E_SCREENS_DIR ?? path.join(os.tmpdir(), 'osint-admin-tables-screens');

test.beforeAll(() => {
  fs.mkdirSync(SCREENS, { recursive: true });
});

/** The admin lists: their address, and the caption of their table. */
const ADMIN_LISTS = [
  { path: '/admin/users', caption: 'Users, pending approval first' },
  { path: '/admin/organizations', caption: 'Organizations, newest first' },
  { path: '/admin/orders', caption: 'Orders, newest first' },
  { path: '/admin/payments', caption: 'Payments, newest first' },
  { path: '/admin/audit', caption: 'Audit log entries, newest first' },
  { path: '/admin/crawls', caption: 'Crawls, newest first' },
  { path: '/admin/jobs', caption: 'Failed jobs, most recent failure first' },
  { path: '/admin/opt-outs', caption: 'Opt-outs, newest first' },
] as const;

/** How far the page reaches sideways: more than the viewport means a sideways scroll. */
const pageWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

async function atWidth(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
  // The layout follows the width through a media query listener: give it a frame.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
}

async function screenshot(page: Page, name: string, width: number): Promise<void> {
  await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
}

/**
 * An approved owner with a 3-seat plan, an analyst invited (still pending) and a bank-transfer order
 * (the plan's renewal) waiting for payment: a row with an action in the team panel and in the admin orders.
 */
async function ownerWithPendingOrder(page: Page, browser: Browser) {
  const stamp = Date.now();
  const owner = `owner-${stamp}@lakeside-unit.example.org`;
  const { admin, adminContext } = await createOrganizationWithPlan(page, browser, {
    owner,
    password: PASSWORD,
    organizationName: `Lakeside Unit ${stamp}`,
    seats: 3,
  });
  await apiLogin(page.request, owner, PASSWORD);
  const analyst = `a-rather-long-analyst-address-${stamp}@lakeside-unit.example.org`;
  const invite = await page.request.post('/api/user/invite', { headers: origin(), data: { email: analyst } });
  expect(invite.status()).toBe(200);
  // The renewal of the plan in force: a new plan is not sold while one runs.
  const order = await page.request.post('/api/order/renew', {
    headers: origin(),
    data: {
      seatAmount: 4,
      period: 3,
      buyer: {
        name: 'Lakeside Unit',
        street: '1 Harbour Road',
        cityPostcode: '4021',
        city: 'Lakeside',
        country: 'Norway',
      },
    },
  });
  expect(order.status(), await order.text()).toBe(200);
  const orders = (await (await admin.get('/api/admin/orders?status=PENDING&pageSize=100')).json()) as {
    orderNumber: string;
    organization: { name: string };
  }[];
  const pending = orders.find((o) => o.organization.name === `Lakeside Unit ${stamp}`)!;
  return { owner, analyst, orderNumber: pending.orderNumber, adminContext };
}

test('every admin list and the team panel fit a 390 px screen with their row actions; 1440 px shows tables', async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const { analyst, orderNumber, adminContext } = await ownerWithPendingOrder(page, browser);

  // The owner's users: a table on a wide screen, cards on a phone with "Delete" and the seat buttons.
  await page.goto('/account');
  const team = page.getByRole('region', { name: 'Users' });
  await atWidth(page, 1440);
  await expect(team.getByRole('table', { name: 'Users of your organization' })).toBeVisible();
  await expect(team.getByRole('row', { name: new RegExp(analyst) })).toContainText('Pending');
  await expectAccessible(page, 'the team panel at 1440 px');
  await screenshot(page, 'account-team', 1440);
  await atWidth(page, 390);
  await expect(team.getByRole('table')).toHaveCount(0);
  const analystCard = team
    .getByRole('list', { name: 'Users of your organization' })
    .getByRole('listitem')
    .filter({ hasText: analyst });
  await expect(analystCard).toContainText('Status');
  await expect(analystCard).toContainText('Pending');
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await expectAccessible(page, 'the team panel at 390 px');
  await screenshot(page, 'account-team', 390);

  // The admin lists, in the context the admin signed in to above.
  const adminPage = await adminContext.newPage();
  for (const list of ADMIN_LISTS) {
    await test.step(list.path, async () => {
      await atWidth(adminPage, 1440);
      await adminPage.goto(list.path);
      const name = list.path.slice(1).replace('/', '-');
      const table = adminPage.getByRole('table', { name: list.caption });
      const empty = adminPage.locator('.data-table__state');
      await expect(table.or(empty)).toBeVisible();
      const hasRows = await table.isVisible();
      if (hasRows) await expect(table.getByRole('columnheader').first()).toBeVisible();
      await expectAccessible(adminPage, `${list.path} at 1440 px`);
      await screenshot(adminPage, name, 1440);

      await atWidth(adminPage, 390);
      await expect(adminPage.getByRole('table', { name: list.caption })).toHaveCount(0);
      if (hasRows) await expect(adminPage.getByRole('list', { name: list.caption })).toBeVisible();
      expect(await pageWidth(adminPage), `${list.path} is no wider than the screen`).toBeLessThanOrEqual(390);
      await expectAccessible(adminPage, `${list.path} at 390 px`);
      await screenshot(adminPage, name, 390);
    });
  }

  // At 390 px the pending order's card has "Mark as paid" on screen, and it works.
  await atWidth(adminPage, 390);
  await adminPage.goto('/admin/orders');
  const card = adminPage
    .getByRole('list', { name: 'Orders, newest first' })
    .getByRole('listitem')
    .filter({ hasText: orderNumber });
  const markPaid = card.getByRole('button', { name: 'Mark as paid' });
  await markPaid.scrollIntoViewIfNeeded();
  await expect(markPaid).toBeInViewport({ ratio: 1 });
  const box = (await markPaid.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await markPaid.click();
  await adminPage
    .getByRole('dialog', { name: 'Mark this order as paid?' })
    .getByRole('button', { name: 'Mark as paid' })
    .click();
  await expect(adminPage.getByText(`Order ${orderNumber} is paid.`)).toBeVisible();
  await expect(card.getByRole('button', { name: 'Mark as paid' })).toHaveCount(0);
  expect(await pageWidth(adminPage)).toBeLessThanOrEqual(390);

  // The crawls' details open inside the card at 390 px.
  await adminPage.goto('/admin/crawls');
  const crawl = adminPage.getByRole('list', { name: 'Crawls, newest first' }).getByRole('listitem').first();
  await crawl.getByRole('button', { name: 'Details' }).click();
  await expect(crawl.getByRole('table', { name: 'Addresses by kind and state' })).toBeVisible();
  expect(await pageWidth(adminPage)).toBeLessThanOrEqual(390);
  await screenshot(adminPage, 'admin-crawls-details', 390);

  // Admin saved searches: its list fits too.
  await adminPage.goto('/admin/saved-searches');
  await expect(adminPage.getByRole('heading', { name: /Saved searches/i }).first()).toBeVisible();
  expect(await pageWidth(adminPage)).toBeLessThanOrEqual(390);
  await expectAccessible(adminPage, '/admin/saved-searches at 390 px');
  await screenshot(adminPage, 'admin-saved-searches', 390);
  await atWidth(adminPage, 1440);
  await screenshot(adminPage, 'admin-saved-searches', 1440);
  await adminContext.close();
});
