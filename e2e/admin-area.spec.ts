import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import type { AdminDashboard, AdminOrganizationPage } from '@osint/contract/admin';
import { GROUP_PHOTO, screenshots, waitForDemoIndex } from './support/demo-search.ts';
import { E2E_ADMIN, signIn } from './support/session.ts';

// The admin area's dashboard, organizations list and every organization's saved searches, in the
// browser over the crawled demo index. The saved search is made through the API, as an analyst would.

const origin = () => ({ origin: process.env.E2E_BASE_URL! });

test('the admin dashboard, the organizations list and admin saved searches', async ({ page }) => {
  test.setTimeout(300_000);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await expect(page).toHaveURL(/\/home$/);

  // /admin: the dashboard's counts are the API's.
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  const dashboard = (await (await page.request.get('/api/admin/dashboard')).json()) as AdminDashboard;
  const tile = (label: string) => page.getByRole('link', { name: new RegExp(`^${label}`) });
  await expect(tile('Pending registrations')).toContainText(String(dashboard.pendingRegistrations));
  await expect(tile('Failed jobs')).toContainText(String(dashboard.failedJobs));
  await expect(tile('Index size')).toContainText('faces');
  await expect(page.getByRole('link', { name: 'Dashboard', exact: true })).toHaveAttribute(
    'aria-current',
    'page',
  );
  await screenshots(page, 'admin-dashboard');
  await tile('Failed jobs').click();
  await expect(page).toHaveURL(/\/admin\/jobs$/);

  // /admin/organizations: every organization; a search finds one; its row opens the organization.
  await page.getByRole('link', { name: 'Organizations', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/organizations$/);
  await expect(page.getByRole('heading', { name: 'Organizations' })).toBeVisible();
  const all = (await (
    await page.request.get('/api/admin/organizations?pageSize=100')
  ).json()) as AdminOrganizationPage;
  expect(all.totalResultCount).toBeGreaterThanOrEqual(1);
  const table = page.getByRole('table', { name: 'Organizations, newest first' });
  await expect(table.getByRole('row')).toHaveCount(Math.min(all.totalResultCount, 25) + 1);
  await screenshots(page, 'admin-organizations');
  const own = all.results.find((row) => row.owner?.email === E2E_ADMIN.email) ?? all.results[0]!;
  await page.getByLabel('Search').fill(own.owner?.email ?? own.name);
  await expect(table.getByRole('row')).toHaveCount(2);
  const row = table.getByRole('row').nth(1);
  await expect(row).toContainText(own.name);
  await expect(row).toContainText(`${own.seats.used} / ${own.seats.limit}`);
  await expect(page.getByText(/Page 1 of 1 · 1 organization$/)).toBeVisible();
  await page.getByLabel('Search').fill('no-such-organization-anywhere');
  await expect(page.getByText('No organization matches “no-such-organization-anywhere”.')).toBeVisible();
  await page.getByLabel('Search').fill(own.owner?.email ?? own.name);
  await table.getByRole('link', { name: own.name }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/organizations/${own.id}$`));
  await expect(page.getByRole('heading', { name: own.name })).toBeVisible();

  // A saved search of the admin's own organization, made through the API over the demo index.
  await waitForDemoIndex(page);
  const upload = await page.request.post('/api/upload-image', {
    headers: origin(),
    data: { img: fs.readFileSync(GROUP_PHOTO).toString('base64') },
    timeout: 120_000,
  });
  expect(upload.status(), await upload.text()).toBe(200);
  const faces = (
    (await upload.json()) as { faces: { hash: string; base64: string; possibleMinor: boolean }[] }
  ).faces;
  // A face the age gate lets this (not law-enforcement) organization search; the gate has its own spec.
  const adult = faces.findLast((face) => !face.possibleMinor);
  expect(adult, 'a face of the group photo that is not flagged as a possible minor').toBeDefined();
  const search = await page.request.post('/api/search', {
    headers: origin(),
    data: { faces: [adult!.hash], type: 'OSINT' },
  });
  expect(search.status(), await search.text()).toBe(200);
  const { searchHash, numberOfResults } = (await search.json()) as {
    searchHash: string;
    numberOfResults: number;
  };
  const name = `Pier suspect ${Date.now() % 100000}`;
  const saved = await page.request.post('/api/search/save', {
    headers: origin(),
    data: { name, description: 'Seen at the pier', hash: searchHash, image: adult!.base64 },
  });
  expect(saved.status(), await saved.text()).toBe(201);
  const { hash } = (await saved.json()) as { hash: string };

  // /admin/saved-searches: the list names the organization and offers no edit or delete.
  await page.getByRole('link', { name: 'Saved Searches', exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/saved-searches$/);
  await expect(page.getByRole('heading', { name: 'Saved Searches' })).toBeVisible();
  const item = page.getByRole('listitem').filter({ hasText: name });
  await expect(item.getByRole('link', { name: 'Check the results' })).toBeVisible({ timeout: 60_000 });
  await expect(item).toContainText(own.name);
  await expect(item.getByRole('button', { name: /Delete/ })).toHaveCount(0);
  await expect(item.getByRole('button', { name: /Edit/ })).toHaveCount(0);
  await screenshots(page, 'admin-saved-searches');

  // /admin/saved-searches/{hash}: the results, read-only (no delete), with selection and the report.
  await item.getByRole('link', { name: 'Check the results' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/saved-searches/${hash}$`));
  await expect(page.getByRole('heading', { name: 'Saved Results' })).toBeVisible();
  await expect(page.getByText(name)).toBeVisible();
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results.getByRole('article').first()).toBeVisible();
  expect(numberOfResults).toBeGreaterThan(0);
  await expect(page.getByRole('button', { name: 'Delete selected' })).toHaveCount(0);
  await expect(page.getByRole('checkbox', { name: 'Select All' })).toBeChecked();
  // Thumbnails come through the admin calls.
  await expect(results.locator('img').first()).toHaveAttribute('src', /^\/api\/admin\/saved-search\//);
  await screenshots(page, 'admin-saved-search');
  // The admin menu's thirteen entries fit one row on a 1440-px screen.
  await page.setViewportSize({ width: 1440, height: 900 });
  const adminMenu = page.getByRole('navigation', { name: 'Main menu' });
  const firstTop = (await adminMenu.getByRole('link', { name: 'Dashboard' }).boundingBox())!.y;
  const lastTop = (await adminMenu.getByRole('link', { name: 'Audit log' }).boundingBox())!.y;
  expect(Math.abs(lastTop - firstTop)).toBeLessThan(2);
  await page.getByRole('button', { name: /^GENERATE REPORT \(\d+\)$/ }).click();
  const reportDialog = page.getByRole('dialog', { name: 'Generate report' });
  const exportButton = reportDialog.getByRole('button', { name: 'Export PDF' });
  await expect(exportButton).toBeVisible({ timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
  expect(download.suggestedFilename()).toMatch(/^saved-search-report-.*\.pdf$/);
  await reportDialog.getByRole('button', { name: 'Close' }).first().click();

  // The opening is in the audit log.
  const audit = await page.request.get('/api/admin/audit?action=admin.saved_search.viewed');
  expect(await audit.text()).toContain(name);

  // Back returns to the list.
  await page.getByRole('button', { name: '← Back' }).click();
  await expect(page).toHaveURL(/\/admin\/saved-searches$/);
});
