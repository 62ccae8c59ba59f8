import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';
import { screenshots } from './support/demo-search.ts';
import { apiLogin, createOrganizationWithPlan, origin } from './support/organization.ts';
import { mailedLink } from './support/outbox.ts';
import { signIn, signInAdmin } from './support/session.ts';

// A platform admin blocks an organization's owner: the organization is suspended (the admin's list says
// Blocked), its analysts are told so instead of being sent to the owner, and unblocking restores their work.

const PASSWORD = 'Suspended.Unit7';
const ANALYST_PASSWORD = 'Suspended.Analyst8';

test("blocking an organization's owner suspends its analysts' work until the owner is unblocked", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  const owner = `owner-${stamp}@suspended-unit.example.org`;
  const analyst = `analyst-${stamp}@suspended-unit.example.org`;
  const { adminContext } = await createOrganizationWithPlan(page, browser, {
    owner,
    password: PASSWORD,
    organizationName: `Suspended Unit ${stamp}`,
    seats: 2,
  });
  await adminContext.close();
  // The owner invites an analyst with a seat; the analyst sets a password and is signed in.
  await apiLogin(page.request, owner, PASSWORD);
  const invited = await page.request.post('/api/user/invite', {
    headers: origin(),
    data: { email: analyst, giveAccess: true },
  });
  expect(invited.status(), await invited.text()).toBe(200);
  const token = (await mailedLink(analyst, /invited/i, '/set-password?token=')).split('token=')[1]!;
  const set = await page.request.post('/api/user/set-password', {
    headers: origin(),
    data: { token: decodeURIComponent(token), newPassword: ANALYST_PASSWORD },
  });
  expect(set.status(), await set.text()).toBe(200);
  await page.context().clearCookies();
  await signIn(page, analyst, ANALYST_PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/search');
  await expect(page.getByText('Upload photo and find out where images are published')).toBeVisible();

  // The admin opens the owner's page and blocks them; the dialog says what that does.
  const admin = await signInAdmin(browser);
  await admin.goto(`/admin/users?search=${encodeURIComponent(owner)}`);
  await admin.getByRole('link', { name: owner }).first().click();
  await admin.getByRole('button', { name: 'Block user' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Block this user?' });
  await expect(dialog.getByText(/blocking them suspends the whole organization/)).toBeVisible();
  await screenshots(admin, 'block-owner-dialog');
  await dialog.getByRole('button', { name: 'Block user' }).click();
  await expect(dialog).toBeHidden();

  // The analyst is told the organization is blocked, and where to turn.
  await page.goto('/search');
  await expect(page.getByRole('heading', { name: 'Your Organization’s Account Is Blocked' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Contact support' })).toBeVisible();
  await expectAccessible(page, 'search of a blocked organization');
  await screenshots(page, 'organization-blocked');

  // Unblocked, the analyst works again.
  await admin.getByRole('button', { name: 'Unblock user' }).click();
  const unblock = admin.getByRole('dialog', { name: 'Unblock this user?' });
  await expect(unblock.getByText(/lifts the suspension of the organization/)).toBeVisible();
  await unblock.getByRole('button', { name: 'Unblock user' }).click();
  await expect(unblock).toBeHidden();
  await page.goto('/search');
  await expect(page.getByText('Upload photo and find out where images are published')).toBeVisible();
  await admin.context().close();
});
