import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { screenshots, signInToSearchTheDemo, uploadAndChooseMarsh } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

// The search loop: a search has its own address (reload, Back, history reopen it), a report is made from
// a search that was never saved, the viewer outlines the matched face where the API says it is, and
// the chooser numbers the faces on the photo as it numbers the crops.

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where a box given in an image's pixels lands on screen, for an element showing that image with
 * `object-fit: contain` (centred, scaled to fit).
 */
async function expectedOnScreen(element: Locator, image: { width: number; height: number }, box: Box) {
  const frame = (await element.boundingBox())!;
  const scale = Math.min(frame.width / image.width, frame.height / image.height);
  const left = frame.x + (frame.width - image.width * scale) / 2;
  const top = frame.y + (frame.height - image.height * scale) / 2;
  return {
    x: left + box.x * scale,
    y: top + box.y * scale,
    width: box.width * scale,
    height: box.height * scale,
  };
}

/** The drawn box is where expected, give or take its stroke (drawn half outside the geometry). */
async function expectBoxAt(drawn: Locator, expected: Box) {
  const actual = (await drawn.boundingBox())!;
  const near = (value: number, target: number, what: string) =>
    expect(Math.abs(value - target), `${what}: ${value} against ${target}`).toBeLessThanOrEqual(2);
  near(actual.x, expected.x, 'left');
  near(actual.y, expected.y, 'top');
  near(actual.x + actual.width, expected.x + expected.width, 'right');
  near(actual.y + actual.height, expected.y + expected.height, 'bottom');
}

const resultCount = async (page: Page) =>
  Number(/(\d+) results?/.exec((await page.getByLabel('Search summary').textContent()) ?? '')?.[1]);

test('a search has an address, a history, a report and a viewer; the chooser numbers the faces', async ({
  page,
}) => {
  test.setTimeout(300_000);
  // Verified law enforcement, so the demo's mayor, whom the age gate takes for a possible minor, is searched.
  await signInToSearchTheDemo(page);

  // The chooser: the photo with a numbered box per face; the numbers are the crops' numbers.
  const uploaded = page.waitForResponse((r) => r.url().endsWith('/api/upload-image'));
  await uploadAndChooseMarsh(page);
  const faces = ((await (await uploaded).json()) as { faces: { box: Box }[] }).faces;
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  const photo = chooser.getByRole('img', { name: 'Your photo, with the faces found in it numbered' });
  await expect(photo).toBeVisible();
  const natural = await photo.evaluate((img: HTMLImageElement) => ({
    width: img.naturalWidth,
    height: img.naturalHeight,
  }));
  for (const [i, face] of faces.entries()) {
    const crop = chooser.getByRole('button', { name: `Face ${i + 1}`, exact: true });
    await expect(crop).toContainText(String(i + 1));
    // Nothing looks selected before the user selects: no crop pressed, no selected box on the photo.
    await expect(crop).toHaveAttribute('aria-pressed', 'false');
    const mark = chooser.locator(`[data-face="${i + 1}"]`);
    await expect(mark).toHaveText(String(i + 1));
    await expectBoxAt(mark.locator('rect'), await expectedOnScreen(photo, natural, face.box));
  }
  await expect(chooser.locator('.face-option--selected, .chooser-photo__face--selected')).toHaveCount(0);
  await screenshots(page, 'loop-chooser');

  // Search Helena Marsh (face 3): the results get their own address.
  await chooser.getByRole('button', { name: 'Face 3', exact: true }).click();
  await expect(chooser.locator('[data-face="3"]')).toHaveClass(/chooser-photo__face--selected/);
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  await expectAccessible(page, 'the results');
  await expect(page).toHaveURL(/\/search\/results\/[\w-]+$/);
  const searchHash = new URL(page.url()).pathname.split('/').pop()!;
  const total = await resultCount(page);
  expect(total).toBeGreaterThanOrEqual(4);
  const grid = page.getByRole('list', { name: 'Search results' });
  const cardNames = () => grid.getByRole('article').evaluateAll((cards) => cards.map((c) => c.textContent));
  const before = await cardNames();
  await expect(page.getByRole('img', { name: 'Searched face' })).toBeVisible();
  await screenshots(page, 'loop-results');

  // Reload: the same results, the searched face and the extractor card.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
  expect(await resultCount(page)).toBe(total);
  expect(await cardNames()).toEqual(before);
  // The AI data extractor starts from the reopened search (with the searched face kept by the server).
  const card = page.getByRole('complementary', { name: 'AI Data Extractor' });
  await card.getByRole('button', { name: 'Extract data' }).click();
  const start = page.getByRole('dialog', { name: 'AI Data Extractor' });
  const [started] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/data-extractor') && r.request().method() === 'POST'),
    start.getByRole('button', { name: 'Start extraction' }).click(),
  ]);
  expect(started.ok()).toBe(true);
  const extractionRequest = started.request().postDataJSON() as { searchHash: string; image: string };
  expect(extractionRequest.searchHash).toBe(searchHash);
  expect(extractionRequest.image.length).toBeGreaterThan(100);
  const confirmation = page.getByRole('dialog', { name: 'Extraction in progress' });
  await expect(confirmation).toBeVisible();
  await expectAccessible(page, 'the report confirmation');
  await confirmation.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // The viewer: the whole image with the matched face's box where the API puts it.
  const stored = (await (await page.request.get(`/api/search/${searchHash}`)).json()) as {
    results: {
      id: number;
      sourceUrl: string;
      sourceTitle: string;
      faceBox: Box;
      imageSize: { width: number; height: number };
    }[];
  };
  const first = stored.results[0]!;
  const opener = grid.getByRole('button', { name: /^View result 1: .+, similarity \d\.\d{2}$/ }).first();
  await opener.click();
  const viewer = page.getByRole('dialog', { name: `Result 1 of ${total}` });
  await expect(viewer).toBeVisible();
  await expect(viewer).toContainText(first.sourceTitle);
  await expect(viewer.getByRole('link', { name: first.sourceUrl })).toBeVisible();
  const image = viewer.getByRole('img', { name: /the matched face outlined$/ });
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBeTruthy();
  await expectBoxAt(
    viewer.locator('.face-box-overlay__box'),
    await expectedOnScreen(image, first.imageSize, first.faceBox),
  );
  await screenshots(page, 'loop-viewer');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('dialog', { name: `Result 2 of ${total}` })).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(viewer).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(opener).toBeFocused();
  // Moved on with the arrows, Escape leaves the user at the card of the result shown last.
  await opener.click();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('dialog', { name: `Result 2 of ${total}` })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-result-ids')?.split(' ')))
    .toContain(String(stored.results[1]!.id));

  // Back from a result's source page returns to the results. A page of the demo sites, which stay up for
  // the whole run (other specs crawl pages of their own servers, closed when they end).
  const demoSitePort = String(Number(process.env.E2E_PORT) + 1);
  const source = stored.results.find((result) => new URL(result.sourceUrl).port === demoSitePort)!;
  expect(source, 'a result on the demo sites').toBeDefined();
  await page.goto(source.sourceUrl);
  await expect(page).toHaveURL(source.sourceUrl);
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe(`/search/results/${searchHash}`);
  expect(await resultCount(page)).toBe(total);

  // A report of the unsaved search: the saved-search report, read back.
  await page.getByRole('button', { name: 'Generate report' }).click();
  const reportDialog = page.getByRole('dialog', { name: 'Generate report' });
  const exportButton = reportDialog.getByRole('button', { name: 'Export PDF' });
  await expect(exportButton).toBeVisible({ timeout: 60_000 });
  await expectAccessible(page, 'the report dialog');
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
  expect(download.suggestedFilename()).toMatch(
    /^search-report-search-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.pdf$/,
  );
  const file = test.info().outputPath('search-report.pdf');
  await download.saveAs(file);
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  expect(text).toContain('OSINT PLATFORM · SEARCH REPORT');
  expect(text).toMatch(new RegExp(`RESULTS IN THIS REPORT\\s+${total} of ${total}`));
  expect(text).toContain(first.sourceUrl);
  await reportDialog.getByRole('button', { name: 'Close', exact: true }).first().click();

  // History lists the search and reopens it; deleting it removes it.
  await page.getByRole('link', { name: 'Search history' }).click();
  await expect(page).toHaveURL(/\/search\/history$/);
  const entry = page
    .getByRole('article')
    .filter({ has: page.locator(`a[href="/search/results/${searchHash}"]`) });
  await expect(entry).toContainText(`${total} results`);
  await expect(entry).toContainText(E2E_ADMIN.email);
  await expect(entry).toContainText('Standard search');
  await expect(entry.getByRole('img')).toBeVisible();
  await screenshots(page, 'loop-history');
  await entry.getByRole('link', { name: /^Open the results of / }).click();
  await expect(page).toHaveURL(new RegExp(`/search/results/${searchHash}$`));
  expect(await resultCount(page)).toBe(total);
  await page.goBack();
  await entry.getByRole('button', { name: /^Delete / }).click();
  await page.getByRole('dialog', { name: 'Delete search' }).getByRole('button', { name: 'Delete' }).click();
  await expect(entry).toHaveCount(0);
  await page.goto(`/search/results/${searchHash}`);
  await expect(page.getByRole('heading', { name: 'Search not found' })).toBeVisible();
  await expectAccessible(page, 'a search not found');
});

test('the chooser greys the faces too small to search on the photo, with their size', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/search');
  // face-api's gala photo at 700 px: faces of about 59–76 px, some searchable, some under 64 px.
  const gala = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')),
    'demo',
    'sample5.jpg',
  );
  const buffer = await sharp(gala).resize(700).jpeg({ quality: 90 }).toBuffer();
  const uploaded = page.waitForResponse((r) => r.url().endsWith('/api/upload-image'));
  await page
    .getByLabel('Photo to search')
    .setInputFiles({ name: 'gala-700.jpg', mimeType: 'image/jpeg', buffer });
  const answer = (await (await uploaded).json()) as {
    faces: { box: Box }[];
    smallFaceSizes: number[];
    smallFaceBoxes: Box[];
  };
  expect(answer.faces.length).toBeGreaterThanOrEqual(2);
  expect(answer.smallFaceBoxes.length).toBeGreaterThanOrEqual(1);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  const photo = chooser.getByRole('img', { name: 'Your photo, with the faces found in it numbered' });
  await expect(photo).toBeVisible();
  const natural = { width: 700, height: await photo.evaluate((img: HTMLImageElement) => img.naturalHeight) };
  const small = chooser.locator('.chooser-photo__small');
  await expect(small).toHaveCount(answer.smallFaceBoxes.length);
  for (const [i, box] of answer.smallFaceBoxes.entries()) {
    await expect(small.nth(i)).toHaveText(`${answer.smallFaceSizes[i]} px`);
    await expectBoxAt(small.nth(i).locator('rect'), await expectedOnScreen(photo, natural, box));
  }
  await expect(chooser.locator('[data-face]')).toHaveCount(answer.faces.length);
  await expect(chooser.getByText('grey: too small to search')).toBeVisible();
  await screenshots(page, 'loop-chooser-small');
});
