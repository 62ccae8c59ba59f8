import { expect, test } from '@playwright/test';
import type { FaceWatch } from '@osint/contract/face-alerts';
import { screenshots, searchMarsh, signInToSearchTheDemo } from './support/demo-search.ts';

// Face alerts (issue 17): "Watch this face" from a saved search's results: the watch is made from the face
// the saved search keeps.

test('watch the face of a saved search from its saved results', async ({ page }) => {
  test.setTimeout(240_000);
  await signInToSearchTheDemo(page);

  await searchMarsh(page);
  await page.getByRole('button', { name: 'Save result' }).click();
  const saveDialog = page.getByRole('dialog', { name: 'Save search' });
  await saveDialog.getByLabel('Name').fill('Marsh, saved to watch');
  await saveDialog.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('link', { name: 'Go to Saved Searches' }).click();
  const item = page.getByRole('article', { name: 'Marsh, saved to watch' });
  await expect(async () => {
    await page.reload();
    await expect(item.getByRole('link', { name: 'Check the results' })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await item.getByRole('link', { name: 'Check the results' }).click();
  await expect(page.getByRole('heading', { name: 'Saved Results' })).toBeVisible();
  await screenshots(page, 'saved-results-watch');

  await page.getByRole('button', { name: 'Watch this face' }).click();
  const dialog = page.getByRole('dialog', { name: 'Watch this face' });
  await dialog.getByLabel('Name').fill('Helena Marsh, from the saved search');
  await dialog.getByRole('button', { name: 'Watch' }).click();
  await expect(page.getByRole('dialog', { name: 'Watching this face' })).toBeVisible();

  const watches = (await (await page.request.get('/api/watches')).json()) as { results: FaceWatch[] };
  const watch = watches.results.find((w) => w.name === 'Helena Marsh, from the saved search');
  expect(watch).toMatchObject({
    endedAt: null,
    image: expect.stringMatching(/^\/api\/watches\/\d+\/image$/),
  });
  // The watched face is the saved search's: its crop is kept with the watch.
  expect((await page.request.get(watch!.image!)).headers()['content-type']).toBe('image/jpeg');

  // The watch ends here: the admin's organization is shared by the other alert specs, which count the
  // alerts their own watch raises.
  const ended = await page.request.delete(`/api/watches/${watch!.id}`, {
    headers: { origin: process.env.E2E_BASE_URL! },
  });
  expect(ended.ok(), await ended.text()).toBe(true);
});
