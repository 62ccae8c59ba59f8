import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { mailedLink } from './support/outbox.ts';
import { apiLogin, createOrganizationWithPlan, origin } from './support/organization.ts';
import { E2E_ADMIN, signIn, signOut } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// Teams, seats and the admin area in the browser: an organization is approved by an admin, its owner
// invites an analyst who sets a password from the e-mail, seats move between them on the trial's single
// seat, an admin creates a billing plan, and every step is found in the audit log.

const PASSWORD = 'Riverside.Watch7';
const ANALYST_PASSWORD = 'Riverside.Analyst8';
const SCREENS = path.join(os.tmpdir(), 'osint-team-screens');
const require = createRequire(import.meta.url);
/** A group photo whose faces the crawled demo sites show. */
const GROUP_PHOTO = path.join(
  path.dirname(require.resolve('@vladmandic/face-api/package.json')),
  'demo',
  'sample1.jpg',
);

test.beforeAll(() => {
  fs.mkdirSync(SCREENS, { recursive: true });
});

/** Screenshots of the whole page at 1440 and 390 px. */
async function screens(page: Page, name: string): Promise<void> {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 });
    await page.evaluate(() => {
      document.documentElement.style.scrollBehavior = 'auto';
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const seatUsage = (page: Page) => page.getByTestId('seat-usage');
const userRow = (page: Page, email: string): Locator =>
  page.locator('.account-table tbody tr').filter({ hasText: email });

test('an owner invites a user, seats follow give and remove, an admin creates a plan and finds it all in the audit log', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const stamp = Date.now();
  const owner = `owner-${stamp}@riverside-police.example.org`;
  const analyst = `analyst-${stamp}@riverside-police.example.org`;
  const organizationName = `Riverside Police ${stamp}`;

  // Registration and e-mail confirmation through the API; the approval through the admin page.
  const origin = { origin: process.env.E2E_BASE_URL! };
  const registered = await page.request.post('/api/user/register', {
    headers: origin,
    data: {
      mail: owner,
      password: PASSWORD,
      organizationName,
      organizationLink: 'https://riverside-police.example.org',
      organizationType: 'police',
      newsletter: false,
    },
  });
  expect(registered.status()).toBe(201);
  await page.goto(await mailedLink(owner, /confirm/i, '/verify-email/'));
  await expect(page.getByText('Registration Successful')).toBeVisible();

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/admin/users');
  await page.getByLabel('Search').fill(owner);
  const ownerAdminRow = page.getByRole('row', { name: new RegExp(owner) });
  await ownerAdminRow.getByRole('button', { name: 'Approve' }).click();
  await expect(ownerAdminRow).toContainText(/active/i);
  await page.getByRole('button', { name: 'Back to home' }).click();
  await signOut(page);

  // The owner invites an analyst.
  await signIn(page, owner, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Account' }).click();
  await expect(page.getByRole('heading', { name: 'Free Trial' })).toBeVisible();
  await expectAccessible(page);
  await expect(seatUsage(page)).toHaveText('1 / 1');
  await page.getByLabel('Invite a user').fill('someone@gmail.com');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(
    page
      .getByText("We don't support emails from 'gmail.com'. Please use a different email provider.")
      .first(),
  ).toBeVisible();
  await page.getByLabel('Invite a user').fill(analyst);
  await page.evaluate(() => window.scrollTo({ top: document.body.scrollHeight, behavior: 'instant' }));
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByText('Invitation sent successfully.')).toBeVisible();
  // The message is a toast in view below the sticky header, whatever the scroll, in a live region.
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  const toast = page.getByRole('region', { name: 'Notifications' }).locator('.banner');
  await expect(toast).toContainText('Invitation sent successfully.');
  await expect(toast).toBeInViewport({ ratio: 1 });
  const headerBox = (await page.locator('.site-header').boundingBox())!;
  expect((await toast.boundingBox())!.y).toBeGreaterThanOrEqual(headerBox.y + headerBox.height);
  await expect(toast.locator('xpath=..')).toHaveAttribute('aria-live', 'polite');
  await page.screenshot({ path: path.join(SCREENS, 'account-toast-scrolled.png') });
  await expectAccessible(page, 'account with the toast');
  await expect(userRow(page, analyst)).toContainText('Invitation has been sent');
  await expect(userRow(page, analyst)).toContainText('Pending');

  // A mistyped address is invited too, then withdrawn: its row goes, its link stops working.
  const mistyped = `anlayst-${stamp}@riverside-police.example.org`;
  await page.getByLabel('Invite a user').fill(mistyped);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(userRow(page, mistyped)).toContainText('Invitation has been sent');
  await userRow(page, mistyped)
    .getByRole('button', { name: `Withdraw invitation: ${mistyped}` })
    .click();
  const withdrawDialog = page.getByRole('dialog', { name: 'Withdraw this invitation?' });
  await expect(withdrawDialog).toContainText(mistyped);
  await expectAccessible(page, 'the withdraw dialog');
  await withdrawDialog.getByRole('button', { name: 'Withdraw invitation' }).click();
  await expect(page.getByText('Invitation withdrawn. Its link no longer works.')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: mistyped })).toHaveCount(0);
  const mistypedPage = await browser.newPage();
  await mistypedPage.goto(await mailedLink(mistyped, /invited/i, '/set-password?token='));
  await expect(
    mistypedPage.getByText('This link is invalid or has expired. Please request a new one.'),
  ).toBeVisible();
  await mistypedPage.close();

  // The analyst sets a password from the e-mail and signs in, without access yet.
  const analystContext = await browser.newContext();
  const analystPage = await analystContext.newPage();
  await analystPage.goto(await mailedLink(analyst, /invited/i, '/set-password?token='));
  await expect(analystPage.getByRole('heading', { name: 'Set Your Password' })).toBeVisible();
  await expectAccessible(analystPage);
  await analystPage.getByLabel('New password').fill(ANALYST_PASSWORD);
  await analystPage.getByRole('button', { name: 'Save New Password' }).click();
  await expect(analystPage.getByText('The password has been successfully set.')).toBeVisible();
  // Signed in at once, and told there is no seat for them yet.
  await expect(analystPage.getByText(/You are signed in as/)).toContainText(organizationName);
  await expect(analystPage.getByText(/You have no access to search yet/)).toBeVisible();
  await analystPage.getByRole('button', { name: 'Go to your home page' }).click();
  await expect(analystPage).toHaveURL(/\/home$/);
  await expect(analystPage.getByText('Search Access Unavailable')).toBeVisible();
  await expectAccessible(analystPage);

  // The trial's one seat is the owner's: the analyst has none left until the owner hands it over.
  await page.reload();
  await expect(userRow(page, analyst)).toContainText('No seats left');
  await expect(userRow(page, analyst)).toContainText('Active');
  await userRow(page, owner)
    .getByRole('button', { name: /Remove access/ })
    .click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove my access' }).click();
  await expect(page.getByText('Access successfully removed.')).toBeVisible();
  await expect(seatUsage(page)).toHaveText('0 / 1');
  await userRow(page, analyst)
    .getByRole('button', { name: /Give access/ })
    .click();
  await expect(page.getByText('Access successfully granted.')).toBeVisible();
  await expect(seatUsage(page)).toHaveText('1 / 1');
  await expect(userRow(page, owner)).toContainText('No seats left');

  await analystPage.reload();
  await expect(analystPage.getByText('Search Access Unavailable')).toHaveCount(0);
  await expect(analystPage.getByLabel('Plan')).toContainText('Trial');

  // Removing access ends the analyst's session at once; signed in again, search is unavailable.
  await userRow(page, analyst)
    .getByRole('button', { name: /Remove access/ })
    .click();
  await expect(page.getByText('Access successfully removed.')).toBeVisible();
  await expect(seatUsage(page)).toHaveText('0 / 1');
  await analystPage.goto('/account');
  await expect(analystPage).toHaveURL(/\/login$/);
  await signIn(analystPage, analyst, ANALYST_PASSWORD);
  await expect(analystPage).toHaveURL(/\/home$/);
  await expect(analystPage.getByText('Search Access Unavailable')).toBeVisible();
  await analystPage.goto('/account');
  await expect(analystPage.getByRole('heading', { name: 'Change password' })).toBeVisible();
  await expectAccessible(analystPage);
  await expect(analystPage.getByRole('heading', { name: 'Users' })).toHaveCount(0);
  await screens(analystPage, 'account-user');
  await analystContext.close();

  // The owner takes the seat back.
  await userRow(page, owner)
    .getByRole('button', { name: /Give access/ })
    .click();
  await expect(seatUsage(page)).toHaveText('1 / 1');
  await screens(page, 'account-owner');
  await signOut(page);

  // An admin opens the organization from the users list and creates a VIRTUAL plan of 5 seats.
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/admin/users');
  await page.getByLabel('Search').fill(owner);
  await page
    .getByRole('row', { name: new RegExp(owner) })
    .getByRole('link', { name: organizationName })
    .click();
  await expect(page.getByRole('heading', { name: organizationName })).toBeVisible();
  await expectAccessible(page, 'admin organization');
  await expect(page.getByTestId('admin-seats')).toContainText('1 / 1');
  await page.getByRole('link', { name: 'Create billing plan' }).click();
  await expect(page.getByRole('heading', { name: 'Create billing plan' })).toBeVisible();
  await expectAccessible(page);
  await page.getByLabel('Seat limit').fill('5');
  await screens(page, 'admin-create-billing-plan');
  await page.getByRole('button', { name: 'Create plan' }).click();
  await expect(page.getByText('The billing plan has been created.')).toBeVisible();
  await expect(page.getByRole('heading', { name: organizationName })).toBeVisible();
  await expect(page.getByTestId('admin-seats')).toContainText('1 / 5');
  const history = page.getByRole('table', { name: 'Billing plans, latest first' });
  await expect(history.getByRole('row').nth(1)).toContainText('Active');
  await expect(history.getByRole('row').nth(1)).toContainText('virtual');
  await expect(history.getByRole('row').nth(2)).toContainText('Trial');
  await screens(page, 'admin-organization');

  await page.getByRole('link', { name: owner }).first().click();
  await expect(page.getByRole('heading', { name: owner })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Live sessions' })).toBeVisible();
  await expectAccessible(page, 'admin user');
  await screens(page, 'admin-user');

  // The audit log of the organization has every step.
  await page.goto('/admin/users');
  await page.getByLabel('Search').fill(owner);
  await page
    .getByRole('row', { name: new RegExp(owner) })
    .getByRole('link', { name: organizationName })
    .click();
  await page.getByRole('link', { name: 'Activity log' }).click();
  await expect(page).toHaveURL(/\/admin\/audit\?organizationId=\d+/);
  const log = page.getByRole('table', { name: 'Audit log entries, newest first' });
  for (const action of [
    'Created a billing plan',
    'Gave access',
    'Removed access',
    'Invited a user',
    'Set password from invitation',
    'Signed in',
    'Approved a registration',
    'Registered',
  ]) {
    await expect(log.getByRole('cell', { name: action, exact: true }).first()).toBeVisible();
  }
  await expectAccessible(page, 'admin audit');
  await screens(page, 'admin-audit');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const csv = fs.readFileSync((await (await download).path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toBe(
    'id,time,action,actor_user_id,actor_email,organization_id,organization_name,target,ip,detail',
  );
  expect(csv).toContain('admin.billing_plan.created');
  expect(csv).toContain(analyst);

  await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Crawls' }).click();
  await expect(page.getByRole('heading', { name: 'Crawls', level: 1 })).toBeVisible();
  await expectAccessible(page);
  // A crawl of an address the SSRF guard refuses: it starts, the list follows it to its end.
  await page.getByLabel('Seed addresses').fill('http://10.0.0.1:9/');
  await page.getByRole('button', { name: 'Start crawl' }).click();
  await expect(page.getByText('The crawl of 1 site has started.')).toBeVisible();
  const crawlRow = page.getByRole('row', { name: /10\.0\.0\.1:9/ });
  await expect(crawlRow).toBeVisible();
  await expect(crawlRow.getByText(/^(Done|Failed)$/)).toBeVisible({ timeout: 30_000 });
  await crawlRow.getByRole('button', { name: 'Details' }).click();
  await expect(page.getByRole('table', { name: 'Addresses by kind and state' })).toBeVisible();
  await expectAccessible(page, 'crawl details');
  await screens(page, 'admin-crawls');
  await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Opt-outs' }).click();
  await expect(page.getByRole('heading', { name: 'Opt-outs', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Opt out this face' }).click();
  await expect(page.getByText('Upload a photo of the person.')).toBeVisible();
  // A photo without a face: the page says so (the photo path itself is proven in the search API tests).
  await page.getByLabel('Photo of the person').setInputFiles({
    name: 'blank.png',
    mimeType: 'image/png',
    buffer: await sharp({ create: { width: 320, height: 240, channels: 3, background: '#8899aa' } })
      .png()
      .toBuffer(),
  });
  await expect(page.getByText('No face of at least 64×64 pixels was found in this photo.')).toBeVisible();
  await page.getByLabel('By face id').check();
  await page.getByRole('button', { name: 'Opt out this face' }).click();
  await expect(page.getByText('Enter the number of an indexed face.')).toBeVisible();
  await page.getByLabel('Face id', { exact: true }).fill('999999');
  await page.getByLabel('Reason').fill('Removal request by the person shown');
  await page.getByRole('button', { name: 'Opt out this face' }).click();
  await expect(page.getByText('Face not found.')).toBeVisible();
  await expectAccessible(page, 'admin opt-outs');
  await screens(page, 'admin-opt-outs');
  await page.getByRole('button', { name: 'Back to home' }).click();
  await signOut(page);

  // The owner sees the new seat limit and the provider's action in the organization's activity.
  await signIn(page, owner, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/account');
  await expect(seatUsage(page)).toHaveText('1 / 5');
  await expect(page.getByRole('heading', { name: 'My Subscription' })).toBeVisible();
  await expectAccessible(page, 'account of a plan');
  const activity = page.getByRole('region', { name: 'Activity' });
  await expect(activity.getByText('Created a billing plan')).toBeVisible();
  await expect(activity.getByText('OSINT Platform staff').first()).toBeVisible();
});

test('deleting a user removes their saved searches', async ({ page, browser }) => {
  test.setTimeout(300_000);
  const stamp = Date.now();
  const owner = `owner-${stamp}@lakeside-unit.example.org`;
  const analyst = `analyst-${stamp}@lakeside-unit.example.org`;
  const analystApi = (await browser.newContext()).request;

  // An approved organization with a VIRTUAL plan of 3 seats, and an analyst with one of them.
  const { organizationId, admin } = await createOrganizationWithPlan(page, browser, {
    owner,
    password: PASSWORD,
    organizationName: `Lakeside Unit ${stamp}`,
    seats: 3,
  });
  await apiLogin(page.request, owner, PASSWORD);
  expect(
    (await page.request.post('/api/user/invite', { headers: origin(), data: { email: analyst } })).status(),
  ).toBe(200);
  const token = new URL(await mailedLink(analyst, /invited/i, '/set-password?token=')).searchParams.get(
    'token',
  );
  const set = await analystApi.post('/api/user/set-password', {
    headers: origin(),
    data: { token, newPassword: ANALYST_PASSWORD },
  });
  expect(set.status()).toBe(200);
  const users = (await (await page.request.get('/api/user/organization/users')).json()) as {
    hashedId: string;
    email: string;
  }[];
  const analystId = users.find((u) => u.email === analyst)!.hashedId;
  const give = await page.request.post('/api/user/give', {
    headers: origin(),
    data: { userHashedId: analystId, organizationId },
  });
  expect(give.status()).toBe(200);

  // The analyst searches a photo over the crawled demo index and saves the result.
  await expect
    .poll(
      async () => {
        const crawls = (await (await admin.get('/api/admin/crawls')).json()) as {
          demo: boolean;
          status: string;
        }[];
        return crawls.find((c) => c.demo)?.status;
      },
      { timeout: 180_000, intervals: [1000] },
    )
    .toBe('DONE');
  await apiLogin(analystApi, analyst, ANALYST_PASSWORD);
  const upload = await analystApi.post('/api/upload-image', {
    headers: origin(),
    data: { img: fs.readFileSync(GROUP_PHOTO).toString('base64') },
    timeout: 120_000,
  });
  expect(upload.status(), await upload.text()).toBe(200);
  const faces = ((await upload.json()) as { faces: { hash: string; base64: string }[] }).faces;
  expect(faces.length).toBeGreaterThan(0);
  const search = await analystApi.post('/api/search', {
    headers: origin(),
    data: { faces: [faces[0]!.hash], type: 'OSINT' },
  });
  expect(search.status(), await search.text()).toBe(200);
  const { searchHash } = (await search.json()) as { searchHash: string };
  const name = `Lakeside ${stamp % 100000}`;
  const saved = await analystApi.post('/api/search/save', {
    headers: origin(),
    data: { name, description: 'Saved by the analyst', hash: searchHash, image: faces[0]!.base64 },
  });
  expect(saved.status(), await saved.text()).toBe(201);
  await expect
    .poll(
      async () => {
        const list = await analystApi.get('/api/saved-search?status=COMPLETED&pageSize=5');
        return ((await list.json()) as { results: { name: string }[] }).results.map((r) => r.name);
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toContain(name);

  // The owner (signed in above: the page shares its cookies with page.request) sees the saved search, takes
  // the analyst's seat back and deletes the analyst: the saved search goes too.
  await page.goto('/saved-searches');
  await expect(page.getByText(name)).toBeVisible();
  await page.goto('/account');
  await userRow(page, analyst)
    .getByRole('button', { name: /Remove access/ })
    .click();
  await expect(page.getByText('Access successfully removed.')).toBeVisible();
  await userRow(page, analyst)
    .getByRole('button', { name: /Delete/ })
    .click();
  await expect(page.getByRole('dialog')).toContainText(analyst);
  await page.getByRole('dialog').getByRole('button', { name: 'Delete user' }).click();
  await expect(page.getByText('User successfully deleted.')).toBeVisible();
  await expect(userRow(page, analyst)).toHaveCount(0);
  await page.goto('/saved-searches');
  await expect(page.getByText("You haven't saved any results yet")).toBeVisible();
  await expectAccessible(page, 'saved searches, empty');
  await expect(page.getByText(name)).toHaveCount(0);
  const again = await analystApi.post('/api/user/login', {
    headers: origin(),
    data: { mail: analyst, password: ANALYST_PASSWORD },
  });
  expect(again.status()).toBe(401);
});
