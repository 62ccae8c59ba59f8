import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { waitForMail } from '../server/test/support/outbox.ts';
import { screenshots } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';

// Review by the platform of a face the minors gate refused: in the chooser the analyst asks for a review
// with a reason; the admin sees the face in the queue at /admin/minor-reviews and approves one search;
// the analyst uploads the photo again and searches the face once, and then it is refused again. The
// admin's own organization (not law enforcement here) plays the analyst's. A child's photo from
// ../shared/faces/age-dev (or FACES_AGE_DIR) is the face.

const NOTICE =
  'This face may belong to a person under 18. Searching for minors is available only to verified law-enforcement organizations.';
const ageDir =
  process.env.FACES_AGE_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/faces/age-dev');
const haveAgeDev = existsSync(path.join(ageDir, 'labels.csv'));

test.describe.configure({ mode: 'serial' });
test.skip(!haveAgeDev, `the age-dev photos are not at ${ageDir} (FACES_AGE_DIR)`);

/** A 15-year-old of age-dev, on a grey border as a photo would frame the face. */
async function teenagerPhoto() {
  const lines = readFileSync(path.join(ageDir, 'labels.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  const file = lines.find((l) => l.split(',')[1] === '15')!.split(',')[0]!;
  const buffer = await sharp(path.join(ageDir, file))
    .extend({ top: 100, bottom: 100, left: 100, right: 100, background: { r: 128, g: 128, b: 128 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { name: 'teenager.jpg', mimeType: 'image/jpeg', buffer };
}

async function ownOrganizationId(page: Page): Promise<number> {
  const info = await page.request.get('/api/user/user-info');
  return ((await info.json()) as { organizationId: number }).organizationId;
}

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

async function uploadTeenager(page: Page) {
  await page.goto('/search');
  await page.getByLabel('Photo to search').setInputFiles(await teenagerPhoto());
}

let verifiedBefore = false;

test('the analyst asks for a review of a refused face in the chooser', async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  const detail = await page.request.get(`/api/admin/organizations/${await ownOrganizationId(page)}`);
  verifiedBefore = ((await detail.json()) as { lawEnforcement: { verified: boolean } }).lawEnforcement
    .verified;
  if (verifiedBefore) await setVerified(page, false);

  await uploadTeenager(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  await expect(chooser.getByText(NOTICE)).toBeVisible();
  await expect(chooser.getByRole('button', { name: 'Face 1' })).toBeDisabled();

  await chooser.getByRole('button', { name: 'Ask for a review' }).click();
  // A reason is required.
  await chooser.getByRole('button', { name: 'Send for review' }).click();
  await expect(chooser.getByText('Please say why this person is an adult.')).toBeVisible();
  await chooser
    .getByLabel('Why is the person of face 1 an adult?')
    .fill('Job applicant, 24 according to the passport we checked.');
  await screenshots(page, 'minor-review-request');
  await chooser.getByRole('button', { name: 'Send for review' }).click();
  await expect(chooser.getByText(/^Review pending: the platform is reviewing this face/)).toBeVisible();
  await expect(chooser.getByRole('button', { name: 'Ask for a review' })).toHaveCount(0);
  await expect(chooser.getByRole('button', { name: 'Face 1' })).toBeDisabled();
  // The chooser scrolls on its own: its face list into view for the screenshots.
  await chooser.getByText(/^Review pending/).scrollIntoViewIfNeeded();
  await screenshots(page, 'minor-review-pending');

  // Uploaded again, the face still shows its review.
  await uploadTeenager(page);
  await expect(page.getByText(/^Review pending: the platform is reviewing this face/)).toBeVisible({
    timeout: 60_000,
  });
});

test('the admin approves one search in the queue; the analyst searches the face once', async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/admin/minor-reviews');
  await expect(page).toHaveTitle('Face reviews · Admin · OSINT Platform');
  const card = page.getByRole('article').filter({
    hasText: 'Job applicant, 24 according to the passport we checked.',
  });
  await expect(card).toBeVisible();
  const face = card.getByRole('img', { name: /^Face sent for review #\d+$/ });
  await expect(face).toBeVisible();
  await expect.poll(() => face.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await screenshots(page, 'minor-review-queue');

  await card.getByRole('button', { name: 'Approve one search' }).click();
  await expect(card.getByText('Please give the reason for the decision.')).toBeVisible();
  await card.getByLabel('Reason for the decision').fill('Adult features; passport date consistent.');
  await card.getByRole('button', { name: 'Approve one search' }).click();
  await expect(page.getByText(/approved: one search of this face is allowed/)).toBeVisible();
  await expect(page.getByText('No face is waiting for review.')).toBeVisible();
  await page.getByLabel('Approved').check();
  const decided = page.getByRole('article').filter({ hasText: 'Adult features; passport date consistent.' });
  await expect(decided.getByText('Face image deleted')).toBeVisible();
  await expect(decided.getByText('Approved for one search')).toBeVisible();
  await waitForMail(process.env.E2E_DATA_DIR!, E2E_ADMIN.email, /^Face review approved$/);

  // The analyst uploads the photo again: the approved face is chosen and searched, once.
  await uploadTeenager(page);
  await expect(page.getByText('Face to search')).toBeVisible({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results', exact: true })).toBeVisible({ timeout: 60_000 });

  await uploadTeenager(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  await expect(chooser.getByText(NOTICE)).toBeVisible();
  await expect(chooser.getByText('The search approved after the last review has been made.')).toBeVisible();
  await expect(chooser.getByRole('button', { name: 'Face 1' })).toBeDisabled();
  await chooser.getByRole('button', { name: 'Ask for a review' }).scrollIntoViewIfNeeded();
  await screenshots(page, 'minor-review-used');

  if (verifiedBefore) await setVerified(page, true);
});
