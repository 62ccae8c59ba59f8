import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { screenshots, searchMarsh, signInToSearchTheDemo } from './support/demo-search.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// The AI data extractor over the crawled demo sites: Helena Marsh, the mayor of the fictional town, is on
// the demo watch-list as a politically exposed person, so her extraction has a politician flag with its
// evidence. Screenshots of every page at 1440 and 390 px go with the test's output.

const NAME = 'Helena Marsh e2e extraction';

/** The done extraction of the list; the list polls every 180 s, so the test reloads instead of waiting. */
async function waitUntilDone(page: Page): Promise<void> {
  const item = page.getByRole('article', { name: NAME });
  await expect(async () => {
    await page.reload();
    await expect(item.getByRole('link', { name: `Open ${NAME}` })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 120_000 });
  // Done, not given up after its retries.
  await expect(item.getByText('Failed', { exact: true })).toHaveCount(0);
}

test('start an extraction from a search, follow it to done, work with the extracted data and report on it', async ({
  page,
}) => {
  test.setTimeout(420_000);
  await signInToSearchTheDemo(page);
  await searchMarsh(page);

  // The card on the results view and its start modal.
  const card = page.getByRole('complementary', { name: 'AI Data Extractor' });
  await expect(card).toBeVisible();
  await screenshots(page, 'extractor-card');
  await card.getByRole('button', { name: 'Extract data' }).click();
  const start = page.getByRole('dialog', { name: 'AI Data Extractor' });
  await expect(start.getByLabel('Name')).toHaveValue(/^AI DATA EXTRACTION \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
  await start.getByLabel('Name').fill(NAME);
  await start.getByLabel('Description (optional)').fill('Mayor, festival photos');
  await screenshots(page, 'extractor-start-modal');
  const [started] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/data-extractor') && r.request().method() === 'POST'),
    start.getByRole('button', { name: 'Start extraction' }).click(),
  ]);
  expect(started.ok()).toBe(true);
  const startedItem = (await started.json()) as { id: string; state: string; estimatedEndAt: string };
  expect(startedItem.state).toBe('PENDING');
  await expect(page.getByRole('dialog', { name: 'Extraction in progress' })).toBeVisible();
  await page.getByRole('link', { name: 'Go to AI Data Extractor' }).click();
  await expect(page).toHaveURL(/\/data-extractor$/);

  // In progress while the job runs: PENDING, progress and the estimated end 10 minutes after the start.
  const item = page.getByRole('article', { name: NAME });
  await expect(item).toBeVisible();
  if (await page.getByRole('heading', { name: 'In progress' }).isVisible()) {
    const pending = page.getByRole('region', { name: 'In progress' }).getByRole('article', { name: NAME });
    if (await pending.isVisible()) {
      await expect(pending).toContainText('PENDING');
      await expect(pending).toContainText(/estimated end \d{2}:\d{2}/);
      await expect(pending.getByRole('progressbar')).toHaveAttribute(
        'aria-valuetext',
        /\d+ of \d+ results analysed/,
      );
      await screenshots(page, 'extractor-list-pending');
    }
  }

  // Done: the e-mail, the New highlight and the menu alert.
  await waitUntilDone(page);
  const mailLink = await mailedLink(E2E_ADMIN.email, /extract/i, '/data-extractor/');
  expect(mailLink).toContain(`/data-extractor/${startedItem.id}`);
  const done = page.getByRole('article', { name: NAME });
  await expect(done.getByText('New', { exact: true })).toBeVisible();
  await expect(done).toContainText('Mayor, festival photos');
  const menuItem = page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: /AI Data Extractor/ });
  await expect(menuItem.locator('.main-menu__marker')).toBeVisible();
  await expect(menuItem).toHaveAccessibleName('AI Data Extractor new results');
  await screenshots(page, 'extractor-list');

  // Edit the extraction: the name cannot be empty.
  await done.getByRole('button', { name: `Edit ${NAME}` }).click();
  const edit = page.getByRole('dialog', { name: 'Edit extraction' });
  await edit.getByLabel('Name').fill('   ');
  await expect(edit.getByText('Name cannot be empty.')).toBeVisible();
  await expectAccessible(page, 'the rename dialog');
  await expect(edit.getByRole('button', { name: 'Save' })).toBeDisabled();
  await edit.getByRole('button', { name: 'Cancel' }).click();

  // Search box of Done.
  await page.getByLabel('Search extractions').fill('no such extraction anywhere');
  await expect(page.getByText('No extraction matches “no such extraction anywhere”.')).toBeVisible();
  await expectAccessible(page, 'the extractor list searched');
  await page.getByLabel('Search extractions').fill('festival');
  await expect(page.getByRole('article', { name: NAME })).toBeVisible();

  // Open it: the alert goes, the detail shows the names summary.
  await page.getByRole('link', { name: `Open ${NAME}` }).click();
  await expect(page.getByRole('heading', { name: 'Extracted Data' })).toBeVisible();
  await expect(menuItem.locator('.main-menu__marker')).toHaveCount(0);
  await expect(menuItem).toHaveAccessibleName('AI Data Extractor');
  const results = page.getByRole('list', { name: 'Extracted results' });
  await expect(results.getByRole('article').first()).toBeVisible({ timeout: 30_000 });
  const countChip = page.getByLabel('Result count');
  const resultCount = async () => Number(/(\d+) results?/.exec((await countChip.textContent()) ?? '')?.[1]);
  const total = await resultCount();
  expect(total).toBeGreaterThanOrEqual(2);
  const names = page.getByRole('navigation', { name: 'Names found' });
  await expect(names.getByRole('button', { name: /ALL RESULTS/ })).toBeVisible();
  const marsh = names.getByRole('button', { name: /^Helena Marsh/ });
  /** Runs a filter change and waits for the results it asks for. */
  const reloading = async (action: () => Promise<void>, query = '') => {
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('/results/details/') && r.url().includes(query)),
      action(),
    ]);
    await page.waitForTimeout(100);
  };
  await expect(marsh).toBeVisible();
  await screenshots(page, 'extractor-detail');

  // The politician flag of the watch-list, with its evidence.
  const flagged = results.getByRole('article', { name: 'Helena Marsh', exact: true }).first();
  await expect(flagged.getByRole('list', { name: 'Flags' })).toContainText('Politician');
  await flagged.getByText(/Why flagged/).click();
  await expect(flagged.getByText(/Helena Marsh/).last()).toBeVisible();
  await expect(flagged).toContainText(/Watch-list|Page/);
  // The people seen with her on a page (her portrait's teaser on a home page has none), with their flags.
  const together = results
    .getByRole('article', { name: 'Helena Marsh', exact: true })
    .filter({ hasText: 'Seen with:' })
    .first();
  await together.getByRole('button', { name: 'Show connections' }).click();
  const connections = together.getByRole('list', { name: 'Connections of Helena Marsh' });
  await expect(connections.getByRole('listitem').first()).toBeVisible();
  expect(await connections.getByRole('listitem').count()).toBeGreaterThanOrEqual(1);
  // The Wikipedia article of her name says why it is flagged too: the article's sentences.
  const wikipedia = results.getByRole('article', { name: 'Wikipedia: Helena Marsh' });
  await expect(wikipedia.getByRole('list', { name: 'Flags' })).toContainText('Politician');
  await wikipedia.getByText(/Why flagged/).click();
  await expect(wikipedia.locator('.extractor-evidence')).toContainText(/Page.*politician/);
  await screenshots(page, 'extractor-detail-evidence');

  // Filters: remembered; Politician only, then Unchecked.
  await page.getByRole('button', { name: 'Filters' }).click();
  const filters = page.getByRole('group', { name: 'Filters' });
  await expect(filters).toBeVisible();
  await expect(filters.getByRole('button', { name: /Seen with/ })).toContainText('None');
  await reloading(() => filters.getByLabel('Politician').check(), 'politician=true');
  await expect(results.getByRole('article').first()).toBeVisible();
  for (const article of await results.getByRole('article').all())
    await expect(article.getByRole('list', { name: 'Flags' })).toContainText(/Politician/);
  await screenshots(page, 'extractor-detail-filters');
  await reloading(() => filters.getByLabel('Politician').uncheck());
  // Every result names her (home-page teasers by their photo's caption): the one name is preselected.
  await expect(names.getByRole('button')).toHaveCount(2);
  await expect(marsh).toHaveAttribute('aria-pressed', 'true');
  // The name's results are as many as its link count in the summary.
  const marshCount = await resultCount();
  expect(marshCount).toBeGreaterThanOrEqual(1);
  await expect(marsh).toContainText(`${marshCount} link`);

  // Check a result with its switch; under Unchecked it leaves the list.
  await reloading(() => filters.getByText('Unchecked', { exact: true }).click(), 'checked=false');
  await expect(results.getByRole('article').first()).toBeVisible();
  const before = await resultCount();
  const toCheck = results.getByRole('article', { name: 'Helena Marsh', exact: true }).first();
  const firstSwitch = toCheck.getByRole('switch');
  await expect(firstSwitch).toHaveAttribute('aria-checked', 'false');
  await firstSwitch.click();
  await expect.poll(resultCount).toBe(before - 1);
  await reloading(() => filters.getByText('Checked', { exact: true }).click(), 'checked=true');
  await expect(results.getByRole('switch', { checked: true })).toHaveCount(1);
  await reloading(() => filters.getByText('All', { exact: true }).click());
  await expect.poll(resultCount).toBe(marshCount);

  // Edit a result's name: blank refused, then a new name; under the Helena Marsh filter it leaves the list.
  const target = results.getByRole('article', { name: 'Helena Marsh', exact: true }).last();
  await target.getByRole('button', { name: 'Edit Helena Marsh' }).click();
  const editResult = page.getByRole('dialog', { name: 'Edit result' });
  await editResult.getByLabel('Name', { exact: true }).fill('');
  await expect(editResult.getByText('Name cannot be empty.')).toBeVisible();
  await expect(editResult.getByRole('button', { name: 'Save' })).toBeDisabled();
  await editResult.getByLabel('Name', { exact: true }).fill('H. Marsh (renamed by e2e)');
  await screenshots(page, 'extractor-edit-result');
  await editResult.getByRole('button', { name: 'Save' }).click();
  await expect(editResult).toBeHidden();
  await expect.poll(resultCount).toBe(marshCount - 1);
  await names.getByRole('button', { name: /ALL RESULTS/ }).click();
  await expect(
    results.getByRole('article', { name: 'H. Marsh (renamed by e2e)', exact: true }),
  ).toBeVisible();
  await expect.poll(resultCount).toBe(total);

  // Delete a result: the one-time removal info, then the count drops.
  await results.getByRole('button', { name: 'Delete H. Marsh (renamed by e2e)' }).click();
  const removal = page.getByRole('dialog', { name: 'Remove result' });
  await expect(removal).toBeVisible();
  await expectAccessible(page, 'the removal dialog');
  await removal.getByLabel("Don't show again").check();
  await removal.getByRole('button', { name: 'Remove' }).click();
  await expect(removal).toBeHidden();
  await expect.poll(resultCount).toBe(total - 1);
  await expect(results.getByRole('article', { name: 'H. Marsh (renamed by e2e)', exact: true })).toHaveCount(
    0,
  );

  // Report of the selected results.
  const reportButton = page.getByRole('button', { name: /^GENERATE REPORT \(\d+\)$/ });
  await page.getByLabel('Select All').uncheck();
  await expect(page.getByRole('button', { name: 'GENERATE REPORT (0)' })).toBeDisabled();
  await results
    .getByRole('article', { name: 'Helena Marsh', exact: true })
    .first()
    .getByRole('checkbox')
    .check();
  await expect(reportButton).toHaveText('GENERATE REPORT (1)');
  await reportButton.click();
  const reportDialog = page.getByRole('dialog', { name: 'Generate report' });
  await expect(reportDialog.getByRole('progressbar')).toBeVisible();
  const exportButton = reportDialog.getByRole('button', { name: 'Export PDF' });
  await expect(exportButton).toBeVisible({ timeout: 60_000 });
  await expectAccessible(page, 'the report dialog');
  await expect(reportDialog.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
  expect(download.suggestedFilename()).toMatch(/\.pdf$/);
  const file = test.info().outputPath('extractor-report.pdf');
  await download.saveAs(file);
  expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe('%PDF-');
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  expect(text).toContain('Helena Marsh');
  expect(text).toMatch(/politician/i);
  expect(text).not.toContain('H. Marsh (renamed by e2e)');
  await page.keyboard.press('Escape');
  await expect(reportDialog).toBeHidden();

  // The admin views: every organization, read-only.
  await page.goto('/admin/data-extractor');
  const adminItem = page.getByRole('article', { name: NAME });
  await expect(adminItem).toBeVisible();
  await expect(adminItem.getByRole('button', { name: /Delete|Edit/ })).toHaveCount(0);
  await screenshots(page, 'admin-extractor-list');
  await adminItem.getByRole('link', { name: `Open ${NAME}` }).click();
  await expect(page).toHaveURL(/\/admin\/data-extractor\/\d+$/);
  await expect(page.getByRole('heading', { name: 'Extracted Data' })).toBeVisible();
  const adminResults = page.getByRole('list', { name: 'Extracted results' });
  await expect(adminResults.getByRole('article').first()).toBeVisible();
  await expect(adminResults.getByRole('switch')).toHaveCount(0);
  await expect(adminResults.getByRole('button', { name: /^(Edit|Delete) / })).toHaveCount(0);
  await expect(page.getByRole('note')).toHaveCount(0);
  await screenshots(page, 'admin-extractor-detail');
});

test('an admin imports a watch-list file, sees the counts and deletes the list', async ({ page }) => {
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/admin/users');
  await page
    .getByRole('navigation', { name: 'Main menu' })
    .getByRole('link', { name: 'Watch-lists' })
    .click();
  await expect(page.getByRole('heading', { name: 'Watch-lists' })).toBeVisible();
  await expectAccessible(page, 'admin watch-lists');

  const csv = [
    '"id","schema","name","aliases","birth_date","countries","addresses","identifiers","sanctions","phones","emails","dataset","first_seen","last_seen","last_change"',
    '"e2e-1","Person","Orla Fenwick","","1970","gb","","","","","","E2E Politically Exposed Persons","2024-01-01T00:00:00","2024-10-01T00:00:00","2024-01-01T00:00:00"',
    '"e2e-2","Person","Tobias Crane","","1965","gb","","","Frozen assets","","","E2E Sanctions","2024-01-01T00:00:00","2024-10-01T00:00:00","2024-01-01T00:00:00"',
  ].join('\n');
  await page.getByLabel('List name').fill('e2e list');
  await page
    .getByLabel('File')
    .setInputFiles({ name: 'targets.simple.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Import' }).click();
  const result = page.getByRole('status', { name: 'Import result' });
  await expect(result).toContainText('Imported “e2e list” (Simple CSV)');
  await expect(result).toContainText('2 entries');
  const row = page.getByRole('row', { name: /e2e list/ });
  await expect(row).toContainText('Simple CSV');
  await expect(row).toContainText(E2E_ADMIN.email);
  await screenshots(page, 'admin-watchlists');

  // A file in no known format is refused with the contract's message.
  await page.getByLabel('List name').fill('broken');
  await page
    .getByLabel('File')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some words\n') });
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByRole('alert').filter({ hasText: /neither FollowTheMoney|no person/ })).toBeVisible();

  await row.getByRole('button', { name: 'Delete e2e list' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete watch-list' });
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByRole('row', { name: /e2e list/ })).toHaveCount(0);
});
