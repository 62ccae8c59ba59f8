import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import {
  GROUP_PHOTO,
  screenshots,
  searchMarsh,
  signInToSearchTheDemo,
  uploadAndChooseMarsh,
} from './support/demo-search.ts';

// Several photos of one person searched together (their descriptors are averaged: more photos of a person
// find more of their pages). A photo without a face changes nothing; a face of another photo can be removed.

/** Helena Marsh's face cut out of the group photo: a portrait with one face, other bytes than the group's. */
async function marshPortrait() {
  const buffer = await sharp(GROUP_PHOTO)
    .extract({ left: 1374, top: 147, width: 390, height: 390 })
    .resize(300)
    .jpeg({ quality: 88 })
    .toBuffer();
  return { name: 'marsh-portrait.jpg', mimeType: 'image/jpeg', buffer };
}

async function facelessPhoto() {
  const buffer = await sharp({
    create: { width: 480, height: 360, channels: 3, background: { r: 120, g: 140, b: 160 } },
  })
    .png()
    .toBuffer();
  return { name: 'wall.png', mimeType: 'image/png', buffer };
}

test('another photo of the person joins the search; a faceless one is refused and changes nothing', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await signInToSearchTheDemo(page);

  await uploadAndChooseMarsh(page);
  const chooser = page.getByRole('dialog', { name: 'Choose your face' });
  await chooser.getByRole('button', { name: 'Face 3' }).click();
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await expect(page.getByRole('group', { name: 'Face to search' })).toBeVisible();
  const anotherPhoto = page.getByLabel('Another photo of this person');

  // A photo without a face: the message says so, and the chosen face stays.
  await anotherPhoto.setInputFiles(await facelessPhoto());
  await expect(page.getByText('No faces detected on the image. Try to upload different one.')).toBeVisible({
    timeout: 60_000,
  });
  await expect(page.getByRole('group', { name: 'Face to search' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Selected face 1' })).toBeVisible();

  // A portrait with one face joins at once.
  await anotherPhoto.setInputFiles(await marshPortrait());
  const faces = page.getByRole('group', { name: 'Faces to search (2)' });
  await expect(faces).toBeVisible({ timeout: 60_000 });
  await expect(faces.getByRole('img', { name: 'Face from another photo 1' })).toBeVisible();
  await expect(page.getByText('No faces detected on the image.')).toBeHidden();
  await screenshots(page, 'multi-photo-chosen');

  // Removed, then the group photo added again: its faces are offered in the chooser, one is chosen.
  await page.getByRole('button', { name: 'Remove face from another photo 1' }).click();
  await expect(page.getByRole('group', { name: 'Face to search' })).toBeVisible();
  await anotherPhoto.setInputFiles(GROUP_PHOTO);
  await expect(chooser).toBeVisible({ timeout: 60_000 });
  await screenshots(page, 'multi-photo-added-chooser');
  await chooser.getByRole('button', { name: 'Face 3' }).click();
  await chooser.getByRole('button', { name: 'Proceed to the face search' }).click();
  await expect(chooser).toBeHidden();
  await anotherPhoto.setInputFiles(await marshPortrait());
  await expect(page.getByRole('group', { name: 'Faces to search (3)' })).toBeVisible({ timeout: 60_000 });

  // The search sends the three faces and finds her pages.
  const request = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/search'));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const sent = JSON.parse((await request).postData() ?? '{}') as { faces: string[]; otherImages: string[] };
  expect(sent.faces).toHaveLength(3);
  expect(sent.otherImages).toHaveLength(2);
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible({ timeout: 60_000 });
  const grid = page.getByRole('list', { name: 'Search results' });
  const marshOnHerPage = grid
    .getByRole('article')
    .filter({ hasText: 'Helena Marsh' })
    .filter({ hasText: 'news.demo.localhost' })
    .first();
  await expect(marshOnHerPage).toBeVisible();

  // The search keeps every face: its page says so, and searching it again with a result keeps them all.
  const bar = page.getByRole('group', { name: 'Search again with selected results' });
  await expect(
    bar.getByText(/Searched with the face above and 2 other uploaded faces of this person\./),
  ).toBeVisible();
  await marshOnHerPage.getByRole('checkbox').check();
  await bar.getByRole('button', { name: 'Search again with this face' }).click();
  await expect(
    bar.getByText(
      /Searched with the face above, 2 other uploaded faces of this person and 1 result selected before\./,
    ),
  ).toBeVisible({ timeout: 60_000 });
  await screenshots(page, 'multi-photo-search-again');
});

test('results the analyst selects as the person are searched again with the face, as a new search', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await signInToSearchTheDemo(page);
  await searchMarsh(page);
  const firstSearch = page.url();
  const bar = page.getByRole('group', { name: 'Search again with selected results' });
  await expect(bar.getByText(/Select them to search again with their faces too/)).toBeVisible();

  // Her portrait on her own page is surely her: selected, then searched again with the chosen face.
  const grid = page.getByRole('list', { name: 'Search results' });
  const portrait = grid.getByRole('article').filter({ hasText: 'Helena Marsh' }).first();
  await portrait.getByRole('checkbox').check();
  await expect(bar.getByText('1 result selected as this person')).toBeVisible();
  await screenshots(page, 'search-again-selected');
  const request = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/with-results'));
  await bar.getByRole('button', { name: 'Search again with this face' }).click();
  expect(
    (JSON.parse((await request).postData() ?? '{}') as { recordHashes: string[] }).recordHashes,
  ).toHaveLength(1);

  // A new search with its own address; the first one still opens at its own.
  await expect(page).not.toHaveURL(firstSearch, { timeout: 60_000 });
  await expect(page).toHaveURL(/\/search\/results\//);
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
  await expect(grid.getByRole('article').filter({ hasText: 'Helena Marsh' }).first()).toBeVisible();
  // The new search says what it was searched with; more results can be added to it the same way.
  await expect(bar.getByText(/Searched with the face above and 1 result selected before/)).toBeVisible();
  await screenshots(page, 'search-again-answer');
  const secondSearch = page.url();
  await page.goto(firstSearch);
  await expect(page.getByRole('heading', { name: 'Results' })).toBeVisible();
  await expect(bar.getByText(/Searched with the face above/)).toBeHidden();
  expect(secondSearch).not.toBe(firstSearch);
});
