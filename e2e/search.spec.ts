import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import {
  screenshots,
  signInToSearchTheDemo,
  uploadAndChooseMarsh,
  verifyLawEnforcementOf,
  waitForDemoIndex,
} from './support/demo-search.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn, signOut } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// Face search, saved searches and reports over a real index: the server crawls the bundled demo sites
// on its first start (DEMO_DATA=1 in playwright.config.ts); these tests wait for that crawl to finish.

test('search a face of a group photo, work with the results, save them and report on them', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await signInToSearchTheDemo(page);
  await page.goto('/search');
  await expectAccessible(page, 'the search page');
  await screenshots(page, 'search-upload');

  await uploadAndChooseMarsh(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  // Keyboard: the first face has focus; Tab to the third and select it with Space.
  await expect(chooser.getByRole('button', { name: 'Face 1' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await expect(chooser.getByRole('button', { name: 'Face 3' })).toHaveAttribute('aria-pressed', 'true');
  await screenshots(page, 'search-chooser');
  await expectAccessible(page, 'the face chooser');
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await expect(page.getByText('Face to search')).toBeVisible();
  // Focus moves to the chosen face, then to the results when they arrive.
  await expect(page.getByRole('group', { name: 'Face to search' })).toBeFocused();
  await expectAccessible(page, 'the search page with a chosen face');
  await page.getByRole('button', { name: 'Search', exact: true }).click();

  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('heading', { name: 'Results' })).toBeFocused();
  await expect(page).toHaveTitle('Search results · OSINT Platform');
  const chip = page.getByLabel('Search summary');
  await expect(chip).toContainText('Standard search');
  await expect(chip).toContainText(/\d+\.\d{2} s/);
  const count = async () => Number(/(\d+) results?/.exec((await chip.textContent()) ?? '')?.[1]);
  const total = await count();
  expect(total).toBeGreaterThanOrEqual(4);
  const grid = page.getByRole('list', { name: 'Search results' });
  // Her profile page on the demo news site is among the results, with links to the image and the page.
  // Each result is named by its number, page and similarity as printed on the card.
  const profile = grid
    .getByRole('article', { name: /^Result \d+: .+, similarity \d\.\d{2}$/ })
    .filter({ hasText: 'Helena Marsh' })
    .filter({ hasText: 'news.demo.localhost' });
  await expect(profile.first()).toBeVisible();
  await expect(
    grid.getByRole('link', { name: 'Open source on news.demo.localhost' }).first(),
  ).toHaveAttribute('href', /^http:\/\/news\.demo\.localhost:\d+\//);
  await screenshots(page, 'search-results');

  // Sort by date, then back; group copies of the same photo.
  await page.getByRole('button', { name: /Sort/ }).click();
  await page.getByRole('option', { name: 'Date' }).click();
  await expect(page.getByRole('button', { name: /Sort/ })).toContainText('Date');
  await page.getByRole('switch', { name: 'Grouping' }).click();
  await expect(page.getByRole('switch', { name: 'Grouping' })).toHaveAttribute('aria-checked', 'true');
  const group = grid.getByRole('article', { name: /^Same photo results: \d+$/ }).first();
  await expect(group).toBeVisible();
  const groupSize = Number(/\d+/.exec((await group.getAttribute('aria-label'))!)![0]);
  await screenshots(page, 'search-results-grouped');

  // Remove one copy from the group: the one-time info modal, the group shrinks, the count drops.
  await group
    .getByRole('button', { name: /^Remove result \d+: .+, similarity \d\.\d{2}$/ })
    .first()
    .click();
  const info = page.getByRole('dialog', { name: 'Remove result' });
  await expect(info).toBeVisible();
  await expectAccessible(page, 'the removal info');
  await info.getByLabel("Don't show again").check();
  await info.getByRole('button', { name: 'Remove' }).click();
  await expect(info).toBeHidden();
  await expect.poll(count).toBe(total - 1);
  if (groupSize > 2)
    await expect(grid.getByText(`Same photo results: ${groupSize - 1}`).first()).toBeVisible();
  // Remembered: the next removal asks nothing.
  await page.getByRole('switch', { name: 'Grouping' }).click();
  await grid
    .getByRole('button', { name: /^Remove result \d+: .+, similarity \d\.\d{2}$/ })
    .last()
    .click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect.poll(count).toBe(total - 2);

  // Save.
  await page.getByRole('button', { name: 'Save result' }).click();
  const saveDialog = page.getByRole('dialog', { name: 'Save search' });
  await expect(saveDialog.getByLabel('Name')).toHaveValue(/^SEARCH \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
  await saveDialog.getByLabel('Name').fill('x'.repeat(33));
  await expect(saveDialog.getByText('Save name cannot be longer than 32 characters.')).toBeVisible();
  await expectAccessible(page, 'the save dialog');
  await saveDialog.getByLabel('Name').fill('Mayor Helena Marsh');
  await saveDialog.getByLabel('Note (optional)').fill('Festival photos, checked by the e2e test');
  await saveDialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Saving in progress' })).toBeVisible();
  await page.getByRole('link', { name: 'Go to Saved Searches' }).click();
  await expect(page).toHaveURL(/\/saved-searches$/);

  // The save job completes within seconds; the page refreshes every 90 s, so reload instead of waiting.
  const item = page.getByRole('article', { name: 'Mayor Helena Marsh' });
  await expect(async () => {
    await page.reload();
    await expect(item.getByRole('link', { name: 'Check the results' })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(item).toContainText('Festival photos, checked by the e2e test');
  await expect(item).toContainText(`${total - 2} results`);
  await screenshots(page, 'saved-searches-list');

  await item.getByRole('link', { name: 'Check the results' }).click();
  await expect(page.getByRole('heading', { name: 'Saved Results' })).toBeVisible();
  await expect(page.getByRole('switch', { name: 'Grouping' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('button', { name: `GENERATE REPORT (${total - 2})` })).toBeEnabled();
  await screenshots(page, 'saved-results');

  // Select: none, then two results.
  await page.getByLabel('Select All').uncheck();
  await expect(page.getByRole('button', { name: 'GENERATE REPORT (0)' })).toBeDisabled();
  await page.getByRole('switch', { name: 'Grouping' }).click();
  const savedGrid = page.getByRole('list', { name: 'Search results' });
  const boxes = savedGrid.getByRole('checkbox');
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await page.getByRole('button', { name: 'GENERATE REPORT (2)' }).click();
  const reportDialog = page.getByRole('dialog', { name: 'Generate report' });
  await expect(reportDialog.getByRole('progressbar')).toBeVisible();
  const exportButton = reportDialog.getByRole('button', { name: 'Export PDF' });
  await expect(exportButton).toBeVisible({ timeout: 60_000 });
  await expect(reportDialog.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expectAccessible(page, 'the report dialog');
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
  expect(download.suggestedFilename()).toMatch(
    /^saved-search-report-mayor-helena-marsh-\d{4}-\d{2}-\d{2}\.pdf$/,
  );
  const file = test.info().outputPath('report.pdf');
  await download.saveAs(file);
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  expect(text).toContain('Mayor Helena Marsh');
  expect(text).toContain(E2E_ADMIN.email);
  expect(text).toMatch(/http:\/\/(news|digest)\.demo\.localhost:\d+\/\S+/);
  expect(text).toContain('Results in this report'.toUpperCase());
  expect(text).toMatch(/2 of \d+/);
  expect(text).toMatch(/Page 1 of \d+/);
});

test('a trial user sees the Access Restricted modal instead of the sources', async ({ page }) => {
  test.setTimeout(300_000);
  const email = `trial-${Date.now()}@harbour-police.example.org`;
  const password = 'Harbour.Watch7';
  await page.goto('/register');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Organization name').fill('Harbour Police Department');
  await page.getByLabel('Organization link').fill('https://harbour-police.example.org');
  await page.getByRole('button', { name: /Organization type/ }).click();
  await page.getByRole('option', { name: 'Police' }).click();
  await page.getByLabel('Accept all').check();
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('Your registration is almost done')).toBeVisible();
  await page.goto(await mailedLink(email, /confirm/i, '/verify-email/'));
  await expect(page.getByText('Registration Successful')).toBeVisible();

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await waitForDemoIndex(page);
  await page.goto('/admin/users');
  await page
    .getByRole('row', { name: new RegExp(email) })
    .getByRole('button', { name: 'Approve' })
    .click();
  await expect(page.getByRole('row', { name: new RegExp(email) })).toContainText(/active/i);
  await verifyLawEnforcementOf(page, email);
  await page.getByRole('button', { name: 'Back to home' }).click();
  await signOut(page);

  await signIn(page, email, password);
  await expect(page).toHaveURL(/\/home$/);
  await uploadAndChooseMarsh(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await chooser.getByRole('button', { name: 'Face 3' }).click();
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });

  const grid = page.getByRole('list', { name: 'Search results' });
  await expect(grid.getByRole('link')).toHaveCount(0);
  await grid
    .getByRole('button', { name: /^Source on .* \(subscribers only\)$/ })
    .first()
    .click();
  const modal = page.getByRole('dialog', {
    name: 'Viewing the original source of this image is available only to subscribers.',
  });
  await expect(modal).toBeVisible();
  await expect(
    modal.getByText('Viewing the original source of this image is available only to subscribers.'),
  ).toBeVisible();
  await expect(modal.getByRole('button', { name: 'UPGRADE NOW' })).toBeVisible();
  await expectAccessible(page, 'the Access Restricted modal');
  await screenshots(page, 'access-restricted-modal');
  await modal.getByRole('button', { name: 'BACK TO SEARCH' }).click();
  await expect(modal).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
});
