import { afterAll, beforeAll, expect, test } from 'vitest';
import { SearchRepository } from '../../src/repositories/search.repository.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// A photo shown on many pages of a site (a byline, a header) must not bring every one of its sightings
// into a search, which keeps at most 1,000 results in all: the oldest sightings per face are read.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

test('reads the oldest sightings of each face, at most as many as asked', async () => {
  const image = await t.db
    .insertInto('images')
    .values({
      content_hash: 'byline',
      phash: null,
      width: 100,
      height: 100,
      mime_type: 'image/jpeg',
      thumbnail_path: null,
      analyzed_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const face = await t.db
    .insertInto('faces')
    .values({
      image_id: image.id,
      box_x: 10,
      box_y: 10,
      box_width: 50,
      box_height: 50,
      score: 0.9,
      quality: 0.9,
      descriptor: Buffer.alloc(8),
      model_id: 'test-model',
      previous_face_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let day = 1; day <= 5; day++) {
    const page = await t.db
      .insertInto('pages')
      .values({ url: `https://news.example.org/story-${day}`, lang: null, content_hash: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('image_occurrences')
      .values({
        image_id: image.id,
        page_id: page.id,
        image_url: 'https://news.example.org/byline.jpg',
        first_seen_at: new Date(Date.UTC(2026, 0, 6 - day)),
      })
      .execute();
  }
  const repository = new SearchRepository(t.db);
  const two = await repository.findSightings([face.id], 2);
  expect(two.map((s) => s.sourceUrl).sort()).toEqual([
    'https://news.example.org/story-4',
    'https://news.example.org/story-5',
  ]);
  expect(await repository.findSightings([face.id])).toHaveLength(5);
});
