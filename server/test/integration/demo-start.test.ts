import type { SearchResponse, UploadImageResponse } from '@osint/contract/search';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { DEMO_OWNER_EMAIL, SeedService } from '../../src/services/seed.service.ts';
import { demoPhoto } from '../face/image-fixtures.ts';
import { crawlDemoSites, login, searchFace } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// A newcomer's first minutes: the first start creates the demo organization and crawls the demo sites;
// its owner uploads the group photo and searches the mayor, the person the demo is built around.

let t: TestApp;
let site: DemoSite;
let password: string;

beforeAll(async () => {
  site = await startDemoSite({ port: 0 });
  t = await createTestApp();
  const seeded = await new SeedService(t.db, { ...t.config, demoData: true }).run();
  password = seeded.find((account) => account.email === DEMO_OWNER_EMAIL)!.password;
  await crawlDemoSites(t, site.crawlTarget);
}, 240_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

it(`the demo owner searches the mayor in the group photo and finds her pages (${TEST_DATABASE_KIND})`, async () => {
  const cookie = await login(t, DEMO_OWNER_EMAIL, password);
  const upload = await t.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie,
    payload: { img: demoPhoto(1).toString('base64') },
  });
  expect(upload.statusCode, upload.body).toBe(200);
  const answer = upload.json<UploadImageResponse>();
  expect(answer.faces).toHaveLength(3);
  // Helena Marsh is on the right. The age gate takes her for a possible minor (as it does one adult in
  // three among celebrities), so only a verified law-enforcement organization may search her: the demo's is.
  const marsh = answer.faces.reduce((right, face) => (face.box.x > right.box.x ? face : right));
  expect(marsh.possibleMinor).toBe(true);
  expect(answer.minorsSearchable).toBe(true);

  const search = await searchFace<SearchResponse>(t, cookie, marsh.hash);
  const sources = search.results.map((result) => result.sourceUrl);
  expect(sources.some((url) => url !== null && new URL(url).pathname === '/people/helena-marsh')).toBe(true);
});
