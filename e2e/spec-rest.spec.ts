import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { linkIn, readOutbox } from '../server/test/support/outbox.ts';
import { screenshots, verifyLawEnforcementOf, waitForDemoIndex } from './support/demo-search.ts';
import { mailedLink } from './support/outbox.ts';
import { E2E_ADMIN, signIn, signOut } from './support/session.ts';
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

const PASSWORD = 'Harbour.Watch7';

/** The confirmation link of the `n`-th confirmation e-mail to `to` (1: the first), once it is written. */
async function mailedLinkNumber(to: string, n: number): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(async () => {
      const mails = (await readOutbox(process.env.E2E_DATA_DIR!)).filter(
        (m) => m.to.includes(to) && /confirm/i.test(m.subject),
      );
      link = mails[n - 1] && linkIn(mails[n - 1]!, `${process.env.E2E_BASE_URL}/verify-email/`);
      return link;
    })
    .toBeTruthy();
  return link!;
}

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
}

/** Signed in as the admin: approves, rejects or blocks the user `email` through the admin API. */
async function adminAction(page: Page, email: string, action: 'approve' | 'reject' | 'block') {
  const users = await page.request.get(`/api/admin/users?search=${encodeURIComponent(email)}`);
  const [row] = (await users.json()) as { id: number }[];
  const response = await page.request.post(`/api/admin/users/${row!.id}/${action}`, {
    headers: { origin: process.env.E2E_BASE_URL! },
  });
  expect(response.status(), await response.text()).toBeLessThan(300);
}

test('the login page tells an unconfirmed registrant to confirm (and resends the link), a declined and a blocked user why', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  const unconfirmed = `unconfirmed-${stamp}@harbour-police.example.org`;
  await register(page, unconfirmed);
  await mailedLink(unconfirmed, /confirm/i, '/verify-email/');

  await signIn(page, unconfirmed, PASSWORD);
  await expect(
    page.getByText(
      'Please confirm your e-mail address first: open the link we sent you, or send it again below.',
    ),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Resend e-mail' }).click();
  await expect(page.getByText('The email has been resent successfully.')).toBeVisible();
  await screenshots(page, 'login-unconfirmed');
  // The resent link confirms the address: the account then waits for approval.
  const resent = await mailedLinkNumber(unconfirmed, 2);
  await page.goto(resent);
  await expect(page.getByText('Registration Successful')).toBeVisible();
  await signIn(page, unconfirmed, PASSWORD);
  await expect(page.getByText('Your account is still under our verification process.')).toBeVisible();

  // Declined: confirmed, then rejected by the admin.
  const declined = `declined-${stamp}@harbour-police.example.org`;
  await register(page, declined);
  await page.goto(await mailedLink(declined, /confirm/i, '/verify-email/'));
  await expect(page.getByText('Registration Successful')).toBeVisible();
  // Blocked: confirmed, approved, then blocked.
  const blocked = `blocked-${stamp}@harbour-police.example.org`;
  await register(page, blocked);
  await page.goto(await mailedLink(blocked, /confirm/i, '/verify-email/'));
  await expect(page.getByText('Registration Successful')).toBeVisible();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await adminAction(page, declined, 'reject');
  await adminAction(page, blocked, 'approve');
  await adminAction(page, blocked, 'block');
  await signOut(page);

  await signIn(page, declined, PASSWORD);
  await expect(
    page.getByText('Your access request was declined. Contact our support for more information.'),
  ).toBeVisible();
  await expect(page.getByText('Your account is still under our verification process.')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Resend e-mail' })).toHaveCount(0);
  await screenshots(page, 'login-declined');
  await signIn(page, blocked, PASSWORD);
  await expect(
    page.getByText('Your account has been blocked. Contact our support for more information.'),
  ).toBeVisible();
  await expectAccessible(page, 'the login page of a blocked user');
});

test('a renamed extraction result shows and prints the flags of its new name', async ({ page }) => {
  test.setTimeout(300_000);
  const origin = { origin: process.env.E2E_BASE_URL! };
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);
  await waitForDemoIndex(page);
  await verifyLawEnforcementOf(page, E2E_ADMIN.email);
  // Her portrait, by its address; searched, and extracted.
  const faces = await page.request.post('/api/upload-image-url', {
    headers: origin,
    data: { url: demoPhotoUrl('helena-marsh.jpg') },
  });
  expect(faces.status(), await faces.text()).toBe(200);
  const face = ((await faces.json()) as { faces: { hash: string; base64: string }[] }).faces[0]!;
  const search = await page.request.post('/api/search', {
    headers: origin,
    data: { faces: [face.hash], type: 'OSINT' },
  });
  const { searchHash } = (await search.json()) as { searchHash: string };
  const started = await page.request.post('/api/data-extractor', {
    headers: origin,
    data: { searchHash, image: face.base64, name: 'Rename check' },
  });
  expect(started.status(), await started.text()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  await expect
    .poll(
      async () => {
        const list = (await (
          await page.request.get('/api/data-extractor?status=DONE&pageSize=100')
        ).json()) as {
          dataExtractorListItemList: { id: string }[];
        };
        return list.dataExtractorListItemList.some((item) => item.id === id);
      },
      { timeout: 120_000, intervals: [1000] },
    )
    .toBe(true);

  await page.goto(`/data-extractor/${id}`);
  const results = page.getByRole('list', { name: 'Extracted results' });
  // A result of hers flagged as a politician (the pages call her the mayor).
  const profile = results
    .getByRole('article', { name: 'Helena Marsh', exact: true })
    .filter({ has: page.getByLabel('Flags').filter({ hasText: 'Politician' }) })
    .filter({ has: page.getByRole('button', { name: 'Edit Helena Marsh' }) })
    .first();
  await expect(profile.getByLabel('Flags')).toContainText('Politician');
  await profile.getByRole('button', { name: 'Edit Helena Marsh' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit result' });
  await edit.getByLabel('Name', { exact: true }).fill('Priya Anand');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  // The list shows the best name's results: the renamed one is under all results.
  await page
    .getByRole('navigation', { name: 'Names found' })
    .getByRole('button', { name: /ALL RESULTS/ })
    .click();
  const renamed = results.getByRole('article', { name: 'Priya Anand', exact: true });
  await expect(renamed).toBeVisible();
  // Her flag and its evidence were hers: the page says nothing of the kind about Priya Anand.
  await expect(renamed.getByLabel('Flags')).toHaveCount(0);
  await expect(renamed.getByText(/Why flagged/)).toHaveCount(0);
  await screenshots(page, 'extractor-renamed-result');

  const details = (await (
    await page.request.get(`/api/data-extractor/results/details/${id}?pageSize=100`)
  ).json()) as { responses: { hashedId: string; personName: string }[] };
  const priya = details.responses.find((r) => r.personName === 'Priya Anand')!;
  const report = await page.request.post(`/api/data-extractor/results/${id}/generate-report`, {
    headers: origin,
    data: { hashedId: [priya.hashedId], containWikipediaData: false },
  });
  expect(report.status()).toBe(200);
  const text = execFileSync('pdftotext', ['-layout', '-', '-'], {
    input: await report.body(),
    encoding: 'utf8',
  });
  expect(text).toContain('Priya Anand');
  expect(text).not.toContain('Politically exposed person');
});
