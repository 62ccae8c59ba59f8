import { expect, test, type Page } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';

// Spec 000 §9: wide layout breakpoint 1440 px, content width cap 1300 px (outside the admin layout).
const CONTENT_CAP = 1300;

/** Each content container of the page: its content box (inside the gutters) and the viewport width. */
async function containers(page: Page) {
  return page.locator('main .container').evaluateAll((elements) =>
    elements
      .filter((element) => element.getClientRects().length > 0)
      .map((element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        const left = box.left + parseFloat(style.paddingLeft);
        const right = box.right - parseFloat(style.paddingRight);
        return { left, right, width: right - left, viewport: document.documentElement.clientWidth };
      }),
  );
}

for (const width of [1440, 1920]) {
  test(`at ${width} px the main content is ${CONTENT_CAP} px wide and centred`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ['/', '/faq', '/about-us', '/terms-of-service']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const boxes = await containers(page);
      expect(boxes.length, `content containers on ${path}`).toBeGreaterThan(0);
      for (const box of boxes) {
        // From the wide breakpoint the content has its whole cap, never more.
        expect(box.width, `content width on ${path}`).toBeCloseTo(CONTENT_CAP, 0);
        expect(Math.abs(box.left - (box.viewport - box.right)), `centred on ${path}`).toBeLessThanOrEqual(1);
      }
    }
  });
}

test('below the wide breakpoint the gutters stay inside the cap', async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto('/faq');
  await expect(page.getByRole('heading', { level: 1, name: 'FAQ' })).toBeVisible();
  for (const box of await containers(page)) {
    expect(box.width).toBeLessThan(CONTENT_CAP);
    expect(Math.abs(box.left - (box.viewport - box.right))).toBeLessThanOrEqual(1);
  }
});

test('the landing page and the FAQ say what the product does: trial without source links, shared saves', async ({
  page,
}) => {
  await page.goto('/');
  const main = page.locator('main');
  await expect(main).toContainText('7-day free trial, no credit card required');
  await expect(main).toContainText(
    'The trial searches like a paid plan but hides the source links of results: opening the original image and its page is for subscribers.',
  );
  await expect(main).not.toContainText('1 TB');
  await expect(main).not.toContainText(/terabyte/i);
  await expect(main).toContainText('indexed by our own crawler');

  await page.goto('/faq');
  const team = page.getByRole('button', { name: 'Can my whole team use one account?' });
  await team.click();
  const teamAnswer = page.locator(`[id="${await team.getAttribute('aria-controls')}"]`);
  await expect(teamAnswer).toContainText(
    'Saved searches and AI data extractions belong to the organization: every user of your organization sees them, whoever started them.',
  );
  await expect(teamAnswer).not.toContainText('own login');
  const trial = page.getByRole('button', { name: 'Is there a free trial?' });
  await trial.click();
  const trialAnswer = page.locator(`[id="${await trial.getAttribute('aria-controls')}"]`);
  await expect(trialAnswer).toContainText('no credit card is required');
  await expect(trialAnswer).toContainText('The trial ends by itself on its last day.');
  await expect(trialAnswer).not.toContainText(/cancel in writing/);
});

test('home and FAQ at 1440 and 390 px: screenshots, accessible', async ({ page }) => {
  for (const path of ['/', '/faq']) {
    for (const size of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expectAccessible(page, `${path} at ${size.width} px`);
      const name = `${path === '/' ? 'home' : 'faq'}-${size.width}`;
      const file = test.info().outputPath(`${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await test.info().attach(name, { path: file, contentType: 'image/png' });
    }
  }
});
