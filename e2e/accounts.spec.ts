import { expect, test, type Page } from '@playwright/test';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn, signOut } from './support/session.ts';
import { expectAccessible } from './support/accessibility.ts';

const PASSWORD = 'Harbour.Watch7';

async function register(page: Page, email: string): Promise<void> {
  await page.goto('/register');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Organization name').fill('Harbour Police Department');
  await page.getByLabel('Organization link').fill('https://harbour-police.example.org');
  await page.getByRole('button', { name: /Organization type/ }).click();
  await page.getByRole('option', { name: 'Police' }).click();
  await page.getByLabel('Accept all').check();
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('Your registration is almost done')).toBeVisible();
  await expectAccessible(page);
}

test('a registration is confirmed by e-mail, approved by an admin, and signs in to the right menus', async ({
  page,
}) => {
  const email = `chief-${Date.now()}@harbour-police.example.org`;
  await register(page, email);

  const link = await mailedLink(email, /confirm/i, '/verify-email/');
  await page.goto(link);
  await expect(page.getByText('Registration Successful')).toBeVisible();
  await expectAccessible(page);

  await signIn(page, email, PASSWORD);
  await expect(page.getByText('Your account is still under our verification process.')).toBeVisible();
  await expectAccessible(page);

  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await page.getByRole('link', { name: 'Admin Panel' }).click();
  await expect(page).toHaveURL(/\/admin\/users$/);
  const row = page.getByRole('row', { name: new RegExp(email) });
  await row.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('row', { name: new RegExp(email) })).toContainText(/active/i);
  await expectAccessible(page, 'admin users');
  await page.getByRole('button', { name: 'Back to home' }).click();
  await signOut(page);

  await signIn(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/home$/);
  const menu = page.getByRole('navigation', { name: 'Main menu' });
  for (const item of [
    'Home',
    'Pricing',
    'Search',
    'AI Data Extractor',
    'Saved Searches',
    'Account',
    'Support',
  ]) {
    await expect(menu.getByRole('link', { name: item, exact: true })).toBeVisible();
  }
  await expect(menu.getByRole('link', { name: 'Admin Panel' })).toHaveCount(0);
  await expectAccessible(page, 'home');
  // Signed in, the login page sends the user home.
  await page.goto('/login');
  await expect(page).toHaveURL(/\/home$/);
  // An admin page sends a non-admin home.
  await page.goto('/admin/users');
  await expect(page).toHaveURL(/\/home$/);
  await signOut(page);
  await page.goto('/account');
  await expect(page).toHaveURL(/\/login$/);
});

test('a forgotten password is reset through the e-mailed link', async ({ page }) => {
  const email = `analyst-${Date.now()}@harbour-police.example.org`;
  await register(page, email);
  await page.goto(await mailedLink(email, /confirm/i, '/verify-email/'));
  await expect(page.getByText('Registration Successful')).toBeVisible();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  // Signed in before leaving: a navigation while the sign-in is under way would cancel it.
  await expect(page).toHaveURL(/\/home$/);
  await page.goto('/admin/users');
  await page
    .getByRole('row', { name: new RegExp(email) })
    .getByRole('button', { name: 'Approve' })
    .click();
  await expect(page.getByRole('row', { name: new RegExp(email) })).toContainText(/active/i);
  await page.getByRole('button', { name: 'Back to home' }).click();
  await signOut(page);

  await page.getByRole('link', { name: /forgot/i }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByText('Reset password link has been successfully sent.')).toBeVisible();
  await expectAccessible(page);

  await page.goto(await mailedLink(email, /reset/i, '/reset-password?token='));
  const newPassword = 'Lighthouse.Keeper9';
  await page.getByLabel('New password').fill(newPassword);
  await expectAccessible(page, 'reset password');
  await page.getByRole('button', { name: 'Save New Password' }).click();
  await expect(page.getByText('The password has been successfully changed.')).toBeVisible();
  await expectAccessible(page);

  await signIn(page, email, PASSWORD);
  await expect(
    page.getByText('Wrong e-mail or password. Please check the provided information.'),
  ).toBeVisible();
  await expectAccessible(page);
  await signIn(page, email, newPassword);
  await expect(page).toHaveURL(/\/home$/);
});

test('the reset page without a token says so', async ({ page }) => {
  await page.goto('/reset-password');
  await expect(
    page.getByText(
      'No token detected. You cannot change your password due to missing access token. Contact our support for more information.',
    ),
  ).toBeVisible();
  await expectAccessible(page);
});

test('the contact form shows its errors, then sends', async ({ page }) => {
  await page.goto('/contact');
  await expect(page.getByRole('heading', { name: 'CONTACT US' })).toBeVisible();
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(page.getByText('Email is required')).toBeVisible();
  await expect(page.getByText('Subject is required')).toBeVisible();
  await expect(page.getByText('Message is required')).toBeVisible();
  await expectAccessible(page);

  await page.getByLabel('Email').fill('someone@gmail.com');
  await expect(page.getByText('Email is required')).toBeHidden();
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(
    page.getByText("We don't support emails from 'gmail.com'. Please use a different email provider."),
  ).toBeVisible();

  await page.getByLabel('Email').fill('investigator@ngo.example.org');
  await page.getByRole('button', { name: /Subject/ }).click();
  await page.getByRole('option', { name: 'Product Support' }).click();
  await page.getByLabel('Message', { exact: true }).fill('How do I export a saved search as a PDF report?');
  await page
    .locator('input[type=file]')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('case 42') });
  await expect(page.getByRole('button', { name: 'Remove notes.txt' })).toBeVisible();
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(
    page.getByText(
      'Please wait for a response from our support team. Any follow-up communication will be sent to the provided email address.',
    ),
  ).toBeVisible();
  await expect(page.getByLabel('Message', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Email')).toHaveValue('investigator@ngo.example.org');
  await expectAccessible(page);
});
