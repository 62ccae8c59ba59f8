import { expect, test } from '@playwright/test';
import { expectAccessible } from './support/accessibility.ts';

/** Every page a signed-out visitor can reach, with its document title. */
const PUBLIC_PAGES: [path: string, title: string][] = [
  ['/', 'Face search for verified organizations · OSINT Platform'],
  ['/about-us', 'About us · OSINT Platform'],
  ['/faq', 'FAQ · OSINT Platform'],
  ['/contact', 'Contact · OSINT Platform'],
  ['/privacy-policy', 'Privacy policy · OSINT Platform'],
  ['/terms-of-service', 'Terms of service · OSINT Platform'],
  ['/login', 'Log in · OSINT Platform'],
  ['/register', 'Register · OSINT Platform'],
  ['/forgot-password', 'Forgot password · OSINT Platform'],
  ['/no-such-page', 'Page not found · OSINT Platform'],
];

test('every public page has its own title and no serious or critical accessibility violation', async ({
  page,
}) => {
  for (const [path, title] of PUBLIC_PAGES) {
    await page.goto(path);
    await expect(page.locator('main')).toBeVisible();
    await expect(page).toHaveTitle(title);
    await expectAccessible(page, path);
  }
});

test('the skip link is the first stop of the keyboard and moves focus to the main content', async ({
  page,
}) => {
  await page.goto('/about-us');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to main content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#content')).toBeFocused();
  await expect(page).toHaveURL(/\/about-us$/);
});

test('FAQ questions open and close by click and keyboard, with the photo requirements', async ({ page }) => {
  await page.goto('/faq');
  await expect(page.getByRole('heading', { name: 'FAQ', level: 1 })).toBeVisible();
  const question = page.getByRole('button', { name: /photo/i }).first();
  await expect(question).toHaveAttribute('aria-expanded', 'false');
  await question.click();
  await expect(question).toHaveAttribute('aria-expanded', 'true');
  const answerId = await question.getAttribute('aria-controls');
  const answer = page.locator(`[id="${answerId}"]`);
  await expect(answer).toContainText('1.5 MB');
  await expect(answer).toContainText('128x128');
  await question.click();
  await expect(question).toHaveAttribute('aria-expanded', 'false');
  await question.focus();
  await page.keyboard.press('Enter');
  await expect(question).toHaveAttribute('aria-expanded', 'true');
});

test('an unknown path shows the 404 page and Go back returns to the previous page', async ({ page }) => {
  await page.goto('/about-us');
  await page.goto('/no-such-page');
  await expect(page.getByRole('img', { name: '404' })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Go back' }).click();
  await expect(page).toHaveURL(/\/about-us$/);
});

test('the burger menu opens the menu on a phone and closes on navigation', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
  const page = await context.newPage();
  await page.goto('/');
  const menu = page.getByRole('navigation', { name: 'Main menu' });
  await expect(menu).toBeHidden();
  const burger = page.getByRole('button', { name: 'Open menu' });
  await burger.click();
  await expect(menu).toBeVisible();
  await expectAccessible(page, 'the open menu at 390 px');
  await menu.getByRole('link', { name: 'FAQ' }).click();
  await expect(page).toHaveURL(/\/faq$/);
  await expect(menu).toBeHidden();
  await expect(page.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  await context.close();
});

test('the hero sends signed-out visitors to registration', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('link', { name: 'REQUEST ACCESS' }).first().click();
  await expect(page).toHaveURL(/\/register$/);
});

test('signed-out visitors of a user or admin page are sent to login', async ({ page }) => {
  await page.goto('/search');
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/admin/users');
  await expect(page).toHaveURL(/\/login$/);
});
