import { expect, test } from '@playwright/test';
import { screenshots, verifyLawEnforcementOf, waitForDemoIndex } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// The rest of the specification: search by image URL (fetched by the server), the login page's
// messages for declined, blocked and unverified accounts, and renamed extraction results.

/** The demo sites run next to the product (playwright.config.ts DEMO_SITE_PORT). */
const demoPhotoUrl = (file: string) =>
  `http://news.demo.localhost:${Number(process.env.E2E_PORT) + 1}/images/${file}`;

test('search by a pasted image URL, then search a result image from the viewer', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await waitForDemoIndex(page);
  await verifyLawEnforcementOf(page, E2E_ADMIN.email);
  await page.goto('/search');
  const field = page.getByLabel('or paste an image URL');
  await expect(field).toBeVisible();
  await screenshots(page, 'search-url-field');

  // Not a web address: the page says so and sends nothing.
  await field.fill('javascript:alert(1)');
  await page.getByRole('button', { name: 'Find faces' }).click();
  await expect(
    page.getByText('Please enter a valid image address starting with http:// or https://.'),
  ).toBeVisible();

  // The demo portrait: the server fetches it (the browser could not: the page's CSP allows no other
  // origin), finds her one face, and the search runs like an upload's.
  await field.fill(demoPhotoUrl('helena-marsh.jpg'));
  await page.getByRole('button', { name: 'Find faces' }).click();
  await expect(page.getByText('Face to search')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText(/^Photo at http:\/\/news\.demo\.localhost/)).toBeVisible();
  await expectAccessible(page, 'the search page with a photo from an address');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  const grid = page.getByRole('list', { name: 'Search results' });
  await expect(grid.getByRole('article').filter({ hasText: 'Helena Marsh' }).first()).toBeVisible();

  // The result viewer's "Search this image": the result's image is fetched by the server and searched.
  await grid
    .getByRole('button', { name: /^View result 1: / })
    .first()
    .click();
  const viewer = page.getByRole('dialog', { name: /^Result 1 of \d+$/ });
  await expect(viewer).toBeVisible();
  await screenshots(page, 'search-url-viewer');
  await viewer.getByRole('link', { name: 'Search this image' }).click();
  await expect(page).toHaveURL(/\/search(\/results\/[\w-]+)?$/);
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  await expect(page).toHaveURL(/\/search\/results\/[\w-]+$/);

  // A page, not an image: the upload's own message.
  await page.goto('/search');
  await page.getByLabel('or paste an image URL').fill(demoPhotoUrl('missing.jpg'));
  await page.getByRole('button', { name: 'Find faces' }).click();
  await expect(
    page.getByText('The address did not return an image: its server answered with an error.'),
  ).toBeVisible({
    timeout: 30_000,
  });
});
