import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';
import { screenshots, searchMarsh, verifyLawEnforcementOf, waitForDemoIndex } from './support/demo-search.ts';
import { createOrganizationWithPlan } from './support/organization.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn, signOut } from './support/session.ts';

// The team flow of an organization with free seats: the owner invites an analyst with "Give access now",
// the analyst sets a password from the e-mail, lands signed in on a page that names the organization and
// searches at once; an owner who gave their own seat away is offered "Give yourself access", never told
// that the subscription expired.

const PASSWORD = 'Harbour.Watch7';
const ANALYST_PASSWORD = 'Harbour.Analyst8';

test('invite with "Give access now": the analyst sets a password, is signed in and searches at once; a seatless owner gives themselves access', async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const stamp = Date.now();
  const owner = `owner-${stamp}@harbour-unit.example.org`;
  const analyst = `analyst-${stamp}@harbour-unit.example.org`;
  const organizationName = `Harbour Unit ${stamp}`;
  await createOrganizationWithPlan(page, browser, { owner, password: PASSWORD, organizationName, seats: 3 });
  // The demo faces searched below are flagged by the age gate; only verified law enforcement may search them.
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await waitForDemoIndex(page);
  await verifyLawEnforcementOf(page, owner);
  await signOut(page);

  // The owner invites the analyst; with seats free, "Give access now" is ticked.
  await signIn(page, owner, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/account');
  const giveNow = page.getByRole('checkbox', { name: 'Give access now' });
  await expect(giveNow).toBeChecked();
  await expect(
    page.getByText('2 seats free: the new user can search as soon as they have set a password.'),
  ).toBeVisible();
  await page.getByLabel('Invite a user').fill(analyst);
  await screenshots(page, 'invite-form');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByText('Invitation sent successfully.')).toBeVisible();
  await expect(page.getByTestId('seat-usage')).toHaveText('2 / 3');

  // The analyst opens the link: the page names the account and the organization.
  const analystContext = await browser.newContext();
  const analystPage = await analystContext.newPage();
  await analystPage.goto(await mailedLink(analyst, /invited/i, '/set-password?token='));
  await expect(analystPage.getByRole('heading', { name: 'Set Your Password' })).toBeVisible();
  await expect(analystPage.getByText(/You have been invited to join/)).toContainText(organizationName);
  await expect(analystPage.getByText(/You have been invited to join/)).toContainText(analyst);
  await screenshots(analystPage, 'set-password-invitation');
  await analystPage.getByLabel('New password').fill(ANALYST_PASSWORD);
  await analystPage.getByRole('button', { name: 'Save New Password' }).click();
  await expect(analystPage.getByText('You have access to search.')).toBeVisible();
  await expect(analystPage.getByText(/You are signed in as/)).toContainText(analyst);
  await screenshots(analystPage, 'set-password-done');
  await analystPage.getByRole('button', { name: 'Start searching' }).click();
  await expect(analystPage).toHaveURL(/\/search$/);
  await searchMarsh(analystPage);
  await analystContext.close();

  // The owner hands their own seat over: with the plan in force, the search page offers the seat back.
  await page.reload();
  const ownerRow = page.locator('.account-table tbody tr').filter({ hasText: owner });
  await ownerRow.getByRole('button', { name: /Remove access/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove my access' }).click();
  await expect(page.getByText('Access successfully removed.')).toBeVisible();
  for (const path of ['/search', '/saved-searches', '/data-extractor']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'You Hold No Seat' })).toBeVisible();
    await expect(page.getByText('Your Subscription Has Expired')).toHaveCount(0);
    await expectAccessible(page, `${path} without a seat`);
  }
  await screenshots(page, 'owner-without-seat');
  await page.getByRole('button', { name: 'Give yourself access' }).click();
  await expect(page.getByRole('heading', { name: 'You Hold No Seat' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'AI Data Extractor', level: 1 })).toBeVisible();
  await page.goto('/search');
  await expect(page.getByText('Upload photo and find out where images are published')).toBeVisible();
});
