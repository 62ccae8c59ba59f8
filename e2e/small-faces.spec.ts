import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { screenshots, signInToSearchTheDemo } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// Faces as photos really come: a group photo whose faces are 64–127 px is offered face by face, each
// marked "small face: less reliable", and one of them is searched; faces under 64 px are explained.

const require = createRequire(import.meta.url);
const SAMPLES = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
/** face-api's gala photo (five people, faces of 162–208 px at 1920 px), which the demo sites publish. */
const GALA = path.join(SAMPLES, 'sample5.jpg');

async function galaAt(width: number) {
  const buffer = await sharp(GALA).resize(width).jpeg({ quality: 90 }).toBuffer();
  return { name: `gala-${width}.jpg`, mimeType: 'image/jpeg', buffer };
}

test('a group photo with small faces: each is offered and marked, and one is searched', async ({ page }) => {
  test.setTimeout(300_000);
  await signInToSearchTheDemo(page);
  await page.goto('/search');

  // At 1000 px wide its faces are about 84–108 px: searchable, but under 128 px.
  await page.getByLabel('Photo to search').setInputFiles(await galaAt(1000));
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  const faces = chooser.getByRole('button', { name: /^Face \d$/ });
  await expect(faces).toHaveCount(5);
  await expect(chooser.getByText('small face: less reliable')).toHaveCount(5);
  for (const face of await faces.all()) {
    await expect(face).toHaveAccessibleDescription(/^small face: less reliable \(\d+×\d+ px\)$/);
  }
  await expect(chooser.getByText(/Faces under 128×128 pixels carry less detail/)).toBeVisible();
  await screenshots(page, 'small-faces-chooser');

  // The smallest face, chosen and searched: it finds the gala photo on the demo news sites.
  await chooser.getByRole('button', { name: 'Face 5' }).click();
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await expect(chooser).toBeHidden();
  await expect(page.getByText('Face to search')).toBeVisible();
  await expect(page.getByText('small face: less reliable')).toBeVisible();
  await screenshots(page, 'small-faces-chosen');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  await expectAccessible(page, 'the results');
  const grid = page.getByRole('list', { name: 'Search results' });
  await expect(
    grid
      .getByRole('article')
      .filter({ hasText: /Hospice gala/ })
      .first(),
  ).toBeVisible();
});

test('a photo whose faces are all under 64 px: none offered, and the message says how many and how small', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/search');
  // At 480 px wide its faces are about 41–55 px.
  await page.getByLabel('Photo to search').setInputFiles(await galaAt(480));
  await expect(page.getByText('No faces detected on the image. Try to upload different one.')).toBeVisible({
    timeout: 60_000,
  });
  await expect(
    page.getByText(
      /^5 faces were found but are too small to search \(under 64 px\); the largest is \d+ px\. Try the original, larger photo or a closer shot\.$/,
    ),
  ).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Choose your face' })).toHaveCount(0);
  await screenshots(page, 'small-faces-too-small');
});
