import { expect, type Browser, type Page } from '@playwright/test';

export const E2E_ADMIN = { email: 'admin@e2e-provider.example.org', password: 'E2e.Admin.Pass1' };

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** The suite's admin, signed in on a browser context of its own beside the test's page; close() ends it. */
export async function signInAdmin(browser: Browser): Promise<Page> {
  const admin = await (await browser.newContext()).newPage();
  await signIn(admin, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(admin).toHaveURL(/\/home$/);
  return admin;
}
