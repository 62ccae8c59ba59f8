import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import type { FaceAlertsResponse } from '@osint/contract/face-alerts';
import { GROUP_PHOTO, screenshots, searchMarsh, signInToSearchTheDemo } from './support/demo-search.ts';

// Face alerts in the browser (issue 17): from a search's results "Watch this face"; the admin crawls a new
// page with another photo of Helena Marsh; the menu badge appears; the alerts page shows the new image with
// the face's box in the viewer; "Save as search" runs the watched face as a regular search.

const origin = () => ({ origin: process.env.E2E_BASE_URL! });

test('watch a face, a crawl finds it on a new page: badge, alerts page with its box, save as search', async ({
  page,
}) => {
  test.setTimeout(300_000);
  // Another photo of Helena Marsh (the right of the group photo): a wider crop, smaller, other bytes.
  const photo = await sharp(GROUP_PHOTO)
    .extract({ left: 1280, top: 60, width: 600, height: 600 })
    .resize(420)
    .jpeg({ quality: 82 })
    .toBuffer();
  const site = http.createServer((request, response) => {
    if (request.url === '/photo.jpg') {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    } else if (request.url === '/') {
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><html><head><title>Riverton Gazette: the regatta</title></head><body><h1>The regatta</h1><img src="/photo.jpg" alt="At the regatta"></body></html>',
        );
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

  try {
    await signInToSearchTheDemo(page);

    // From the results: Watch this face.
    await searchMarsh(page);
    await page.getByRole('button', { name: 'Watch this face' }).click();
    const dialog = page.getByRole('dialog', { name: 'Watch this face' });
    await dialog.getByLabel('Name').fill('Helena Marsh, case 17');
    await dialog.getByRole('button', { name: 'Watch' }).click();
    const confirmation = page.getByRole('dialog', { name: 'Watching this face' });
    await expect(confirmation).toBeVisible();
    await confirmation.getByRole('button', { name: 'Close', exact: true }).last().click();

    // The owner's activity log on the Account page lists it, with where the face came from.
    await page.goto('/account');
    // (Earlier specs may have watched faces of saved searches in this organization too.)
    const started = page
      .getByRole('listitem')
      .filter({ hasText: 'Started watching a face' })
      .filter({ hasText: 'From: search ·' })
      .first();
    await expect(started).toBeVisible();
    await expect(started).toContainText(/Ends at: \d{1,2} \w{3} \d{4}/);

    // The admin crawls a new page; the worker's matcher raises the alert.
    const crawl = await page.request.post('/api/admin/crawl', {
      headers: origin(),
      data: { urls: [siteUrl] },
    });
    expect(crawl.status(), await crawl.text()).toBe(202);
    await expect
      .poll(
        async () =>
          ((await (await page.request.get('/api/alerts?status=NEW')).json()) as FaceAlertsResponse)
            .totalResultCount,
        { timeout: 120_000, intervals: [1000] },
      )
      .toBe(1);

    // The menu badge (the layout asks again on a fresh load).
    await page.reload();
    const menuLink = page
      .getByRole('navigation', { name: 'Main menu' })
      .getByRole('link', { name: /^Alerts/ });
    await expect(menuLink.locator('.main-menu__marker')).toBeVisible();
    await expect(menuLink).toHaveAccessibleName('Alerts new alerts');
    await menuLink.click();
    await expect(page).toHaveURL(/\/alerts$/);
    await expect(page.getByRole('heading', { name: 'Alerts', exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Helena Marsh, case 17' })).toBeVisible();
    await expect(page.getByText('1 alert, 1 new')).toBeVisible();
    await screenshots(page, 'alerts');

    // The viewer: the new image with the face's box; opening it marks it seen.
    await page
      .getByRole('button', { name: /^View / })
      .first()
      .click();
    const viewer = page.getByRole('dialog', { name: /^Result 1 of/ });
    await expect(viewer).toBeVisible();
    await expect(viewer.locator('.face-box-overlay__box')).toBeVisible();
    await expect(viewer).toContainText('Riverton Gazette: the regatta');
    await screenshots(page, 'alerts-viewer');
    await viewer.getByRole('button', { name: 'Close' }).first().click();
    await expect
      .poll(
        async () =>
          ((await (await page.request.get('/api/alerts?status=NEW')).json()) as FaceAlertsResponse)
            .totalResultCount,
      )
      .toBe(0);

    // Save as search: the watched face searched now, its results open with the save dialog.
    await page.getByRole('button', { name: 'Save as search' }).click();
    await expect(page).toHaveURL(/\/search\/results\//, { timeout: 60_000 });
    await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
    const saveDialog = page.getByRole('dialog', { name: 'Save search' });
    await expect(saveDialog).toBeVisible();
    await screenshots(page, 'alerts-save-as-search');
    await page.keyboard.press('Escape');
    await expect(saveDialog).toBeHidden();
    // A reload shows the results only: the dialog was asked for once.
    await page.reload();
    await expect(page.getByRole('button', { name: 'Save result' })).toBeVisible();
    await expect(saveDialog).toBeHidden();

    // Extract data: the same, with the data extractor's dialog.
    await page.goto('/alerts');
    await page.getByRole('button', { name: 'Extract data' }).click();
    await expect(page).toHaveURL(/\/search\/results\//, { timeout: 60_000 });
    await expect(page.getByRole('dialog', { name: 'AI Data Extractor' })).toBeVisible();
  } finally {
    site.close();
  }
});
