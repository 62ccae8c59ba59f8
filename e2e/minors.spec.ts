import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { screenshots } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';

// The minors gate in the browser: a child's face (from ../shared/faces/age-dev, or FACES_AGE_DIR) is shown
// in the chooser with the notice and cannot be chosen; once the admin verifies the organization as law
// enforcement on its admin page, it can.

const NOTICE =
  'This face may belong to a person under 18. Searching for minors is available only to verified law-enforcement organizations.';
const ageDir =
  process.env.FACES_AGE_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/faces/age-dev');
const haveAgeDev = existsSync(path.join(ageDir, 'labels.csv'));

test.describe.configure({ mode: 'serial' });
test.skip(!haveAgeDev, `the age-dev photos are not at ${ageDir} (FACES_AGE_DIR)`);

/** The first photo of a 7-year-old in age-dev, on a grey border as a photo would frame the face. */
async function childPhoto() {
  const lines = readFileSync(path.join(ageDir, 'labels.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  const file = lines.find((l) => l.split(',')[1] === '7')!.split(',')[0]!;
  const buffer = await sharp(path.join(ageDir, file))
    .extend({ top: 100, bottom: 100, left: 100, right: 100, background: { r: 128, g: 128, b: 128 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { name: 'child.jpg', mimeType: 'image/jpeg', buffer };
}

async function uploadChild(page: Page) {
  await page.goto('/search');
  await page.getByLabel('Photo to search').setInputFiles(await childPhoto());
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  return chooser;
}

async function ownOrganizationId(page: Page): Promise<number> {
  const info = await page.request.get('/api/user/user-info');
  expect(info.status()).toBe(200);
  return ((await info.json()) as { organizationId: number }).organizationId;
}

/** Sets the admin's own organization's verification through the API (other specs verify it). */
async function setVerified(page: Page, verified: boolean) {
  const response = await page.request.post(
    `/api/admin/organizations/${await ownOrganizationId(page)}/law-enforcement`,
    {
      headers: { origin: process.env.E2E_BASE_URL! },
      data: verified ? { verified, note: 'Verified for the demo search tests' } : { verified },
    },
  );
  expect(response.status()).toBe(200);
}

/** Whether the admin's organization was verified before this spec, to leave it as it was found. */
let verifiedBefore = false;

async function organizationPage(page: Page) {
  const organizationId = await ownOrganizationId(page);
  await page.goto(`/admin/organizations/${organizationId}`);
  const panel = page.locator('.card', { has: page.getByRole('heading', { name: 'Law enforcement' }) });
  await expect(panel).toBeVisible();
  return panel;
}

test('the chooser shows the notice on a possible minor and does not let the face be searched', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  const detail = await page.request.get(`/api/admin/organizations/${await ownOrganizationId(page)}`);
  verifiedBefore = ((await detail.json()) as { lawEnforcement: { verified: boolean } }).lawEnforcement
    .verified;
  if (verifiedBefore) await setVerified(page, false);
  const chooser = await uploadChild(page);
  const face = chooser.getByRole('button', { name: 'Face 1' });
  // Even the only face of the photo is not chosen for the user: the chooser shows why.
  await expect(chooser.getByText(NOTICE)).toBeVisible();
  await expect(face).toBeDisabled();
  await expect(face).toHaveAccessibleDescription(NOTICE);
  await expect(chooser.getByRole('button', { name: 'Proceed to the face search' })).toBeDisabled();
  await screenshots(page, 'minors-chooser');
});

test('the admin verifies the organization as law enforcement; then the face can be chosen', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  const panel = await organizationPage(page);
  await expect(panel.getByTestId('law-enforcement-status')).toHaveText(
    'Not verified: faces that may belong to minors cannot be searched.',
  );
  // A note of the evidence is required.
  await panel.getByRole('button', { name: 'Verify as law enforcement' }).click();
  await expect(
    panel.getByText('A note of the evidence is required to verify an organization as law enforcement.'),
  ).toBeVisible();
  await panel
    .getByLabel(/Evidence of law-enforcement status/)
    .fill('Agency letter of 3 March checked by phone');
  await panel.getByRole('button', { name: 'Verify as law enforcement' }).click();
  await expect(page.getByText('The organization is now verified as law enforcement.')).toBeVisible();
  await expect(panel.getByTestId('law-enforcement-status')).toContainText('Verified law enforcement');
  await expect(panel.getByText('Evidence: Agency letter of 3 March checked by phone')).toBeVisible();
  await screenshots(page, 'minors-admin-verified');

  // Now the photo's only face is chosen for the user, as any face is, and searched.
  await page.goto('/search');
  await page.getByLabel('Photo to search').setInputFiles(await childPhoto());
  await expect(page.getByText('Face to search')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(NOTICE)).toHaveCount(0);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  // Searched, not refused (the demo index holds no child, so nothing is found).
  await expect(page.getByRole('heading', { name: 'Results', exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(NOTICE)).toHaveCount(0);

  // Withdrawn on the page too; then the organization is left as this spec found it.
  const again = await organizationPage(page);
  await again.getByRole('button', { name: 'Withdraw verification' }).click();
  await expect(again.getByTestId('law-enforcement-status')).toContainText('Not verified');
  if (verifiedBefore) await setVerified(page, true);
});
