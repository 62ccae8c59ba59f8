import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility.ts';
import { E2E_ADMIN, signIn } from './session.ts';

// Face search over the real index: the server crawls the bundled demo sites on its first start
// (DEMO_DATA=1 in playwright.config.ts); the tests wait for that crawl to finish.

const require = createRequire(import.meta.url);
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
/** A group photo of three women; Helena Marsh of the demo sites is the one on the right. */
export const GROUP_PHOTO = path.join(SAMPLES, 'sample1.jpg');
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

/**
 * Screenshots of the current page at 1440 and 390 px wide, kept with the test's output; the page is
 * checked for accessibility at each width too.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.waitForTimeout(150);
    // A full-page capture does not scroll: lazy images far below the fold would stay unloaded (empty
    // boxes). Load them all first, as a reader scrolling down would.
    await page.evaluate(async () => {
      const images = [...document.images];
      for (const image of images) image.loading = 'eager';
      await Promise.all(images.map((image) => (image.complete ? null : image.decode().catch(() => null))));
    });
    await expectAccessible(page, `${name} at ${size.width} px`);
    const file = test.info().outputPath(`${name}-${size.width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await test.info().attach(`${name}-${size.width}`, { path: file, contentType: 'image/png' });
  }
  if (original) await page.setViewportSize(original);
}

/** Waits for the demo crawl that the server started on its first start. */
export async function waitForDemoIndex(page: Page): Promise<void> {
  await expect
    .poll(
      async () => {
        const response = await page.request.get('/api/admin/crawls');
        const crawls = (await response.json()) as { demo: boolean; status: string }[];
        return crawls.find((c) => c.demo)?.status;
      },
      { timeout: 180_000, intervals: [1000] },
    )
    .toBe('DONE');
}

export async function uploadAndChooseMarsh(page: Page): Promise<void> {
  await page.goto('/search');
  await expect(page.getByText('Upload photo and find out where images are published')).toBeVisible();
  await page.getByLabel('Photo to search').setInputFiles(GROUP_PHOTO);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  await expect(chooser.getByText('Select photo(s) of your face to proceed with the search')).toBeVisible();
  await expect(chooser.getByRole('button', { name: /^Face \d$/ })).toHaveCount(3);
}

/** Searches Helena Marsh's face (the third of the group photo) and waits for the results. */
export async function searchMarsh(page: Page): Promise<void> {
  await uploadAndChooseMarsh(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await chooser.getByRole('button', { name: 'Face 3' }).click();
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
}

/**
 * Helena Marsh of the demo sites is an adult whom the age gate flags as a possible minor in face-api's
 * group photo (the gate errs on the side of the child: server/src/face/age/README.md), so an organization
 * that searches her must be verified law enforcement. Signed in as the admin, verifies the organization of
 * the user `email` through the admin API.
 */
export async function verifyLawEnforcementOf(page: Page, email: string): Promise<void> {
  const users = await page.request.get(`/api/admin/users?search=${encodeURIComponent(email)}`);
  const [row] = (await users.json()) as { organization: { id: number } }[];
  const verified = await page.request.post(
    `/api/admin/organizations/${row!.organization.id}/law-enforcement`,
    {
      headers: { origin: process.env.E2E_BASE_URL! },
      data: { verified: true, note: 'Verified for the demo search tests' },
    },
  );
  expect(verified.status()).toBe(200);
}

/**
 * Signs in as the admin, waits for the demo index and verifies the admin's organization as law enforcement
 * (the demo people the tests search are flagged as possible minors: see verifyLawEnforcementOf).
 */
export async function signInToSearchTheDemo(page: Page): Promise<void> {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await waitForDemoIndex(page);
  await verifyLawEnforcementOf(page, E2E_ADMIN.email);
}
