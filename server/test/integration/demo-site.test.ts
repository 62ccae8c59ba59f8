import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hammingDistance, NEAR_DUPLICATE_MAX_DISTANCE } from '../../src/crawler/perceptual-hash.ts';
import { safeFetch } from '../../src/crawler/safe-fetch.ts';
import { COURIER, DEMO_NOTICE, DEMO_PHOTOS, DIGEST } from '../../src/demo/demo-content.ts';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { vectorFromBytes } from '../../src/face/index/face-index.ts';
import { similarity, SIMILARITY_THRESHOLD } from '../../src/face/similarity.ts';
import type { CrawlDetail } from '../../src/services/crawl.service.ts';
import { createAdmin } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The first start's demo: the bundled fictional sites are served on loopback and crawled through the
// SSRF guard, which lets the demo crawl (and only it) reach that one address and port.

let t: TestApp;
let site: DemoSite;
let adminCookie: string;

beforeAll(async () => {
  site = await startDemoSite({ port: 0 });
  // Default crawl settings: nothing trusted, the usual politeness; only the demo crawl's own options open the way.
  t = await createTestApp();
  adminCookie = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
  await site?.close();
});

async function waitForCrawl(id: string, timeoutMs = 100_000): Promise<CrawlDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await t.request({ method: 'GET', url: `/api/admin/crawls/${id}`, cookie: adminCookie });
    const detail = response.json<CrawlDetail>();
    if (detail.status === 'DONE' || detail.status === 'FAILED') return detail;
    if (Date.now() > deadline)
      throw new Error(`demo crawl still ${detail.status}: ${JSON.stringify(detail)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe(`demo site (${TEST_DATABASE_KIND})`, () => {
  it('labels every page as demo data and serves the photos', async () => {
    const fetchOptions = {
      userAgent: 'test',
      allowPrivate: true,
      allowedPorts: [site.port],
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
      connectTimeoutMs: 2_000,
      totalTimeoutMs: 5_000,
      maxBytes: 5_000_000,
      maxRedirects: 0,
    };
    for (const s of [COURIER, DIGEST]) {
      for (const path of ['/', ...s.articles.map((a) => a.path)]) {
        const page = await safeFetch(`http://${s.host}:${site.port}${path}`, fetchOptions);
        expect(page.status).toBe(200);
        expect(page.body.toString()).toContain(DEMO_NOTICE);
      }
    }
    const photo = await safeFetch(
      `http://${COURIER.host}:${site.port}/images/${DEMO_PHOTOS.marsh.file}`,
      fetchOptions,
    );
    expect(photo.mimeType).toBe('image/jpeg');
  });

  it('queues the demo crawl once on an empty index, and the crawl indexes faces', async () => {
    const crawl = t.container.services.crawl;
    const id = await crawl.startDemoCrawlIfIndexEmpty(site.crawlTarget);
    expect(id).toBeDefined();
    // A second start before the crawl has finished must not queue another.
    expect(await crawl.startDemoCrawlIfIndexEmpty(site.crawlTarget)).toBeUndefined();

    const started = Date.now();
    const detail = await waitForCrawl(id!);
    const seconds = (Date.now() - started) / 1000;
    const articles = COURIER.articles.length + DIGEST.articles.length;
    expect(detail).toMatchObject({ status: 'DONE', demo: true, errors: 0, pages: articles + 2 });
    expect(detail.images).toBe(Object.keys(DEMO_PHOTOS).length);
    expect(detail.faces).toBeGreaterThanOrEqual(25);
    console.info(
      `demo crawl (${TEST_DATABASE_KIND}): ${detail.pages} pages, ${detail.images} images, ${detail.faces} faces, ${seconds.toFixed(1)} s`,
    );

    const pages = await t.db.selectFrom('pages').select(['url', 'text']).execute();
    expect(pages).toHaveLength(articles + 2);
    for (const page of pages) expect(page.text).toContain(DEMO_NOTICE);

    // "Same photo" across sites: the digest's smaller, recompressed copy lands within the
    // near-duplicate distance of the Courier's original.
    const images = await t.db
      .selectFrom('images')
      .select(['id', 'content_hash', 'phash', 'face_count'])
      .execute();
    const occurrences = await t.db
      .selectFrom('image_occurrences')
      .select(['image_id', 'image_url'])
      .execute();
    const imageOf = (file: string) => {
      const occurrence = occurrences.find((o) => o.image_url.endsWith(`/images/${file}`))!;
      return images.find((image) => image.id === occurrence.image_id)!;
    };
    expect(images).toHaveLength(Object.keys(DEMO_PHOTOS).length);
    for (const [original, copy] of [
      ['festival', 'festivalCopy'],
      ['gala', 'galaCopy'],
      ['northwind', 'northwindCopy'],
    ] as const) {
      const a = imageOf(DEMO_PHOTOS[original].file);
      const b = imageOf(DEMO_PHOTOS[copy].file);
      expect(a.content_hash).not.toBe(b.content_hash);
      expect(hammingDistance(a.phash!, b.phash!)).toBeLessThanOrEqual(NEAR_DUPLICATE_MAX_DISTANCE);
      expect(b.face_count).toBe(a.face_count);
    }
    expect(imageOf(DEMO_PHOTOS.marsh.file).face_count).toBe(1);
    expect(imageOf(DEMO_PHOTOS.mendes.file).face_count).toBe(1);

    // The fictional names hold across photos: the mayor's portrait matches a face in every photo whose
    // caption names her, and not the company director's portrait.
    const descriptors = async (file: string) =>
      (
        await t.db.selectFrom('faces').select('descriptor').where('image_id', '=', imageOf(file).id).execute()
      ).map((f) => vectorFromBytes(f.descriptor));
    const [marsh] = await descriptors(DEMO_PHOTOS.marsh.file);
    const best = async (file: string) =>
      Math.max(...(await descriptors(file)).map((d) => similarity(marsh!, d)));
    for (const photo of ['festival', 'northwind', 'festivalCopy', 'northwindCopy'] as const) {
      expect(await best(DEMO_PHOTOS[photo].file)).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    }
    expect(await best(DEMO_PHOTOS.mendes.file)).toBeLessThan(SIMILARITY_THRESHOLD);

    // The index is no longer empty: a later start queues nothing.
    expect(await crawl.startDemoCrawlIfIndexEmpty(site.crawlTarget)).toBeUndefined();
  });

  it('opens the SSRF guard for the demo crawl only: an admin crawl of the same URLs is refused', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/admin/crawl',
      cookie: adminCookie,
      payload: { urls: [`http://127.0.0.1:${site.port}/`] },
    });
    expect(response.statusCode).toBe(202);
    const detail = await waitForCrawl(response.json<{ id: string }>().id, 20_000);
    expect(detail).toMatchObject({ status: 'DONE', demo: false, pages: 0 });
    expect(detail.failures.find((f) => f.url === `http://127.0.0.1:${site.port}/`)?.error).toMatch(
      /127\.0\.0\.1/,
    );
  });
});
