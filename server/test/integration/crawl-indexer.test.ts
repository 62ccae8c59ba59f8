import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import type { FaceEngine, ImageAnalysis } from '../../src/face/face-engine.ts';
import { isIndexableFace, MIN_INDEX_FACE_PX } from '../../src/face/similarity.ts';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import type { CrawlDetail } from '../../src/services/crawl.service.ts';
import { SearchRepository } from '../../src/repositories/search.repository.ts';
import { TestServer, bytes, html, page, status, text } from '../crawler/test-server.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The crawler wired into the product: an admin queues a crawl of a local site built from the face-api
// sample photos, the `crawl.run` job (in slices of 300 ms, so the crawl also proves it resumes from its
// frontier across jobs) fetches and indexes it, and the rows it leaves are checked one table at a time.

const SAMPLES = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
const sample = (n: number) => sharp(path.join(SAMPLES, `sample${n}.jpg`));

let t: TestApp;
let server: TestServer;
let adminCookie: string;
let engine: FaceEngine;
let analyze: MockInstance<FaceEngine['analyze']>;
let showCopy = false;
const photos = {} as Record<'group' | 'portrait' | 'small' | 'portraitCopy' | 'secret' | 'shared', Buffer>;

beforeAll(async () => {
  // A group photo (3 faces of 47-65 px), a portrait cropped from it, a group photo so small that some
  // of its faces fall under 40 px, and a smaller recompressed copy of the portrait (other bytes).
  photos.group = await sample(1).resize(640).jpeg({ quality: 85 }).toBuffer();
  photos.portrait = await sample(1)
    .extract({ left: 1374, top: 147, width: 390, height: 390 })
    .resize(240)
    .jpeg({ quality: 85 })
    .toBuffer();
  photos.small = await sample(4).resize(400).jpeg({ quality: 85 }).toBuffer();
  photos.portraitCopy = await sharp(photos.portrait).resize(200).jpeg({ quality: 60 }).toBuffer();
  photos.secret = await sample(2).resize(320).jpeg().toBuffer();
  photos.shared = await sample(3).resize(300).jpeg().toBuffer();

  server = await TestServer.start({
    '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
    '/': (req, res) =>
      html(
        page(
          'Riverton home',
          `<a href="/a">A</a> <a href="/b">B</a> <a href="/private/secret">secret</a>
           ${showCopy ? '<a href="/c">C</a>' : ''}
           <figure><img src="/img/group.jpg" alt="Three friends"><figcaption>The launch party</figcaption></figure>`,
        ),
      )(req, res),
    '/a': html(
      page(
        'Page A',
        `<p>Helena at the launch.</p><img src="/img/group.jpg" alt="Group again">
         <figure><img src="/img/portrait.jpg" alt="Helena"><figcaption>Helena, portrait</figcaption></figure>`,
      ),
    ),
    '/b': html(
      page(
        'Page B',
        '<img src="/img/group-copy.jpg" alt="Same bytes, other URL"><img src="/img/small.jpg" alt="Small">',
      ),
    ),
    '/c': html(page('Page C', '<img src="/img/portrait-copy.jpg" alt="Helena again">')),
    '/private/secret': html(page('Secret', '<img src="/img/secret.jpg" alt="hidden">')),
    '/img/group.jpg': bytes(photos.group, 'image/jpeg'),
    '/img/group-copy.jpg': bytes(photos.group, 'image/jpeg'),
    '/img/portrait.jpg': bytes(photos.portrait, 'image/jpeg'),
    '/img/small.jpg': bytes(photos.small, 'image/jpeg'),
    '/img/portrait-copy.jpg': bytes(photos.portraitCopy, 'image/jpeg'),
    '/img/secret.jpg': bytes(photos.secret, 'image/jpeg'),
  });
  t = await createTestApp({
    crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 300 },
  });
  adminCookie = await createAdmin(t);
  // The process's one face engine, started here once for the whole file and watched.
  engine = await t.container.services.faceEngine.get();
  analyze = vi.spyOn(engine, 'analyze');
});

afterAll(async () => {
  await t?.close();
  await server?.close();
});

const home = () => `http://127.0.0.1:${server.port}/`;
const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;

async function waitForCrawl(id: string, timeoutMs = 50_000): Promise<CrawlDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await t.request({ method: 'GET', url: `/api/admin/crawls/${id}`, cookie: adminCookie });
    expect(response.statusCode).toBe(200);
    const detail = response.json<CrawlDetail>();
    if (detail.status === 'DONE' || detail.status === 'FAILED') return detail;
    if (Date.now() > deadline)
      throw new Error(`crawl ${id} still ${detail.status}: ${JSON.stringify(detail)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function crawl(urls: string[]): Promise<CrawlDetail> {
  const response = await t.request({
    method: 'POST',
    url: '/api/admin/crawl',
    cookie: adminCookie,
    payload: { urls },
  });
  expect(response.statusCode).toBe(202);
  return waitForCrawl(response.json<{ id: string }>().id);
}

const imageByBytes = (buffer: Buffer) =>
  t.db
    .selectFrom('images')
    .selectAll()
    .where('content_hash', '=', sha256Hex(buffer))
    .executeTakeFirstOrThrow();
const facesOf = (imageId: number) =>
  t.db.selectFrom('faces').selectAll().where('image_id', '=', imageId).orderBy('id').execute();
const analysedBytes = () => analyze.mock.calls.map(([buffer]) => sha256Hex(buffer));

describe(`crawl and index through the job (${TEST_DATABASE_KIND})`, () => {
  it('answers 401 signed out and 403 to a non-admin on every crawl and opt-out route', async () => {
    await createUser(t, { email: 'analyst@customer.example.org' });
    const member = await login(t, 'analyst@customer.example.org');
    const calls = [
      { method: 'POST' as const, url: '/api/admin/crawl', payload: { urls: [home()] } },
      { method: 'GET' as const, url: '/api/admin/crawls' },
      { method: 'GET' as const, url: '/api/admin/crawls/whatever' },
      { method: 'POST' as const, url: '/api/admin/opt-outs', payload: { faceId: 1, reason: 'asked' } },
      { method: 'GET' as const, url: '/api/admin/opt-outs' },
    ];
    for (const call of calls) {
      expect((await t.request(call)).statusCode).toBe(401);
      expect((await t.request({ ...call, cookie: member })).statusCode).toBe(403);
    }
    expect(await t.db.selectFrom('crawls').select('id').execute()).toEqual([]);
  });

  it('refuses seed lists that are empty, too long or not http(s)', async () => {
    const post = (urls: unknown) =>
      t.request({ method: 'POST', url: '/api/admin/crawl', cookie: adminCookie, payload: { urls } });
    expect((await post([])).statusCode).toBe(400);
    expect((await post(Array.from({ length: 101 }, (_, i) => `https://site${i}.example/`))).statusCode).toBe(
      400,
    );
    const notHttp = await post(['ftp://files.example/', 'example.org']);
    expect(notHttp.statusCode).toBe(400);
    expect(notHttp.json<{ message: string }>().message).toMatch(/http or https/);
    expect(await t.db.selectFrom('crawls').select('id').execute()).toEqual([]);
  });

  it('indexes pages, images, occurrences and faces of 40 px and more, obeying robots.txt', async () => {
    const detail = await crawl([home()]);
    expect(detail).toMatchObject({ status: 'DONE', demo: false, errors: 0, pages: 3, lastError: null });

    // Pages: the three allowed ones; robots.txt kept the private page (and its image) out.
    const pages = await t.db.selectFrom('pages').selectAll().orderBy('url').execute();
    expect(pages.map((p) => p.url)).toEqual([url('/'), url('/a'), url('/b')]);
    expect(pages.find((p) => p.url === url('/a'))).toMatchObject({ title: 'Page A' });
    expect(pages.find((p) => p.url === url('/a'))!.text).toContain('Helena at the launch.');
    expect(server.hits('/private/secret')).toHaveLength(0);
    expect(server.hits('/img/secret.jpg')).toHaveLength(0);

    // Images: one row per distinct content; the group photo under two URLs on three pages is one image,
    // analysed once, with three occurrences.
    const images = await t.db.selectFrom('images').selectAll().execute();
    expect(images).toHaveLength(3);
    const group = await imageByBytes(photos.group);
    expect(group).toMatchObject({ width: 640, mime_type: 'image/jpeg' });
    expect(group.phash).toMatch(/^[0-9a-f]{16}$/);
    const occurrences = await t.db
      .selectFrom('image_occurrences')
      .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
      .select([
        'pages.url',
        'image_occurrences.image_url',
        'image_occurrences.alt',
        'image_occurrences.caption',
      ])
      .where('image_id', '=', group.id)
      .orderBy('pages.url')
      .execute();
    expect(occurrences).toEqual([
      { url: url('/'), image_url: url('/img/group.jpg'), alt: 'Three friends', caption: 'The launch party' },
      { url: url('/a'), image_url: url('/img/group.jpg'), alt: 'Group again', caption: '' },
      { url: url('/b'), image_url: url('/img/group-copy.jpg'), alt: 'Same bytes, other URL', caption: '' },
    ]);
    expect(analysedBytes().sort()).toEqual(
      [photos.group, photos.portrait, photos.small].map(sha256Hex).sort(),
    );

    // Faces: every face of the photos at least 40×40 px, with its descriptor, model, age verdict and log row.
    const faces = await t.db.selectFrom('faces').selectAll().execute();
    for (const face of faces) {
      expect(face.box_width).toBeGreaterThanOrEqual(MIN_INDEX_FACE_PX);
      expect(face.box_height).toBeGreaterThanOrEqual(MIN_INDEX_FACE_PX);
      expect(face.model_id).toBe(engine.modelId);
      expect(face.descriptor.byteLength).toBe(engine.dimensions * 4);
      const vector = new Float32Array(new Uint8Array(face.descriptor).buffer);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 3);
      // The age estimate's verdict is stored with every indexed face (the minors gate's index filter).
      expect(typeof face.possible_minor).toBe('boolean');
    }
    expect(await facesOf(group.id)).toHaveLength(3);
    expect((await imageByBytes(photos.portrait)).face_count).toBe(1);
    // The small photo: the detector sees faces on both sides of 40 px; only the large enough are kept.
    const small = await imageByBytes(photos.small);
    const detected = (await (analyze.mock.results.find(
      (_, i) => sha256Hex(analyze.mock.calls[i]![0]) === small.content_hash,
    )!.value as Promise<ImageAnalysis>))!.faces;
    expect(detected.some((f) => !isIndexableFace(f.box))).toBe(true);
    expect(await facesOf(small.id)).toHaveLength(detected.filter((f) => isIndexableFace(f.box)).length);
    expect(small.face_count).toBe(detected.filter((f) => isIndexableFace(f.box)).length);

    const log = await t.db.selectFrom('face_index_log').selectAll().orderBy('seq').execute();
    expect(log.map((l) => [l.face_id, l.op])).toEqual(
      faces.map((f) => [f.id, 'add']).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    expect(detail.faces).toBe(faces.length);
    expect(detail.images).toBe(4); // four image URLs fetched, three contents

    // Thumbnails: keyed thumbnails/<2 hex>/<sha256>.jpg in the database (none in DATA_DIR), JPEG, at most 256 px.
    for (const image of images) {
      expect(image.thumbnail_path).toBe(
        `thumbnails/${image.content_hash.slice(0, 2)}/${image.content_hash}.jpg`,
      );
      const thumbnail = (await t.container.blobs.get(image.thumbnail_path!))!;
      expect(fs.existsSync(path.join(t.config.dataDir, image.thumbnail_path!))).toBe(false);
      const meta = await sharp(thumbnail).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(256);
    }

    // The crawl ran as several `crawl.run` jobs (300 ms slices), each resuming the frontier.
    const jobs = await t.db.selectFrom('jobs').selectAll().where('queue', '=', QUEUES.runCrawl).execute();
    expect(jobs.length).toBeGreaterThan(1);
    expect(jobs.every((j) => j.status === 'DONE')).toBe(true);
    expect(detail.frontier.page).toMatchObject({ done: 3, queued: 0, claimed: 0 });
    expect(detail.frontier.page.skipped).toBeGreaterThanOrEqual(1); // /private/secret

    const list = await t.request({ method: 'GET', url: '/api/admin/crawls', cookie: adminCookie });
    expect(list.json()).toEqual([
      expect.objectContaining({ id: detail.id, status: 'DONE', pages: 3, images: 4, faces: faces.length }),
    ]);
  });

  it('re-crawling keeps the first-indexed times and analyses nothing again', async () => {
    const before = {
      images: await t.db.selectFrom('images').select(['id', 'first_indexed_at']).orderBy('id').execute(),
      occurrences: await t.db
        .selectFrom('image_occurrences')
        .select(['id', 'first_seen_at', 'last_seen_at'])
        .orderBy('id')
        .execute(),
      pages: await t.db
        .selectFrom('pages')
        .select(['id', 'first_crawled_at', 'last_crawled_at'])
        .orderBy('id')
        .execute(),
      faces: await t.db.selectFrom('faces').select('id').orderBy('id').execute(),
    };
    analyze.mockClear();
    const detail = await crawl([home()]);
    expect(detail).toMatchObject({ status: 'DONE', pages: 3, images: 4, faces: 0, errors: 0 });
    expect(analyze).not.toHaveBeenCalled();

    expect(
      await t.db.selectFrom('images').select(['id', 'first_indexed_at']).orderBy('id').execute(),
    ).toEqual(before.images);
    expect(await t.db.selectFrom('faces').select('id').orderBy('id').execute()).toEqual(before.faces);
    const occurrences = await t.db
      .selectFrom('image_occurrences')
      .select(['id', 'first_seen_at', 'last_seen_at'])
      .orderBy('id')
      .execute();
    expect(occurrences.map((o) => [o.id, o.first_seen_at])).toEqual(
      before.occurrences.map((o) => [o.id, o.first_seen_at]),
    );
    occurrences.forEach((o, i) =>
      expect(o.last_seen_at.getTime()).toBeGreaterThan(before.occurrences[i]!.last_seen_at.getTime()),
    );
    const pages = await t.db
      .selectFrom('pages')
      .select(['id', 'first_crawled_at', 'last_crawled_at'])
      .orderBy('id')
      .execute();
    expect(pages.map((p) => [p.id, p.first_crawled_at])).toEqual(
      before.pages.map((p) => [p.id, p.first_crawled_at]),
    );
    pages.forEach((p, i) =>
      expect(p.last_crawled_at.getTime()).toBeGreaterThan(before.pages[i]!.last_crawled_at.getTime()),
    );
  });

  it('an opt-out removes the face for good: a later crawl refuses it in other bytes too', async () => {
    const portrait = await imageByBytes(photos.portrait);
    const [face] = await facesOf(portrait.id);
    const facesBefore = await t.db.selectFrom('faces').select('id').execute();

    const response = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: adminCookie,
      payload: { faceId: face!.id, reason: 'Request of the person (ticket 4711)' },
    });
    expect(response.statusCode).toBe(201);
    const { removedFaces } = response.json<{ id: number; removedFaces: number }>();
    expect(removedFaces).toBeGreaterThanOrEqual(1); // the portrait, and the same face in the group photo
    const facesAfter = await t.db.selectFrom('faces').select('id').execute();
    expect(facesAfter).toHaveLength(facesBefore.length - removedFaces);
    expect(await facesOf(portrait.id)).toEqual([]);
    expect((await imageByBytes(photos.portrait)).face_count).toBe(0);
    const removals = await t.db
      .selectFrom('face_index_log')
      .select('face_id')
      .where('op', '=', 'remove')
      .execute();
    expect(removals).toHaveLength(removedFaces);
    expect(removals.map((r) => r.face_id)).toContain(face!.id);

    const list = await t.request({ method: 'GET', url: '/api/admin/opt-outs', cookie: adminCookie });
    expect(list.json()).toEqual([
      expect.objectContaining({
        reason: 'Request of the person (ticket 4711)',
        modelId: engine.modelId,
        createdBy: 'admin@provider.example.org',
      }),
    ]);
    const again = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: adminCookie,
      payload: { faceId: face!.id, reason: 'twice' },
    });
    expect(again.statusCode).toBe(404);

    // A new page shows a smaller, recompressed copy of the portrait: new bytes, analysed, face refused.
    showCopy = true;
    analyze.mockClear();
    const detail = await crawl([home()]);
    expect(detail).toMatchObject({ status: 'DONE', pages: 4, faces: 0, errors: 0 });
    expect(analysedBytes()).toEqual([sha256Hex(photos.portraitCopy)]);
    const seen = (await (analyze.mock.results[0]!.value as Promise<ImageAnalysis>)).faces;
    expect(seen.filter((f) => isIndexableFace(f.box))).toHaveLength(1);
    const copy = await imageByBytes(photos.portraitCopy);
    expect(copy.face_count).toBe(0);
    expect(await facesOf(copy.id)).toEqual([]);
    expect(await t.db.selectFrom('faces').select('id').execute()).toHaveLength(facesAfter.length);
  });

  it('links an image to every page that showed it, though the run stopped before the image was fetched', async () => {
    // /links/a and /links/b show one image not stored yet. The run stops while the image is being
    // fetched; the next run must still know both pages showed it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let imageRequests = 0;
    server.route('/links/', html(page('Links', '<a href="/links/a">A</a> <a href="/links/b">B</a>')));
    server.route('/links/a', html(page('Links A', '<img src="/links/img.jpg" alt="on a">')));
    server.route('/links/b', html(page('Links B', '<img src="/links/img.jpg" alt="on b">')));
    server.route('/links/img.jpg', async (req, res) => {
      if (imageRequests++ === 0) await held;
      bytes(photos.shared, 'image/jpeg')(req, res);
    });
    const crawls = t.container.services.crawl;
    const created = await crawls.create({ urls: [url('/links/')], requestedBy: null });
    const first = crawls.run(created.id);
    for (let i = 0; imageRequests === 0; i++) {
      if (i > 400) throw new Error('the image was never requested');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await crawls.stop(created.id);
    expect(await first).toBe('stopped');
    release();

    expect(await crawls.run(created.id)).toBe('done');
    const image = await imageByBytes(photos.shared);
    const linked = await t.db
      .selectFrom('image_occurrences')
      .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
      .select(['pages.url', 'image_occurrences.alt'])
      .where('image_id', '=', image.id)
      .orderBy('pages.url')
      .execute();
    expect(linked).toEqual([
      { url: url('/links/a'), alt: 'on a' },
      { url: url('/links/b'), alt: 'on b' },
    ]);
    // Nothing left waiting for the image.
    expect(
      await t.db
        .selectFrom('pending_image_occurrences')
        .select('page_id')
        .where('image_url', '=', url('/links/img.jpg'))
        .execute(),
    ).toEqual([]);
  });

  const pendingOf = (imageUrl: string) =>
    t.db
      .selectFrom('pending_image_occurrences')
      .innerJoin('pages', 'pages.id', 'pending_image_occurrences.page_id')
      .select('pages.url')
      .where('image_url', '=', imageUrl)
      .orderBy('pages.url')
      .execute()
      .then((rows) => rows.map((row) => row.url));

  it('forgets where images were seen that the crawl will never store', async () => {
    // The home page shows images that cannot be stored: gone, not an image, on an address the SSRF guard
    // refuses. /gone/a shows the gone one again, once it has failed already: only the crawl's end forgets it.
    const blocked = `http://127.0.0.2:${server.port}/gone/blocked.jpg`;
    server.route(
      '/gone/',
      html(
        page(
          'Gone',
          `<a href="/gone/a">A</a> <img src="/gone/missing.jpg" alt="missing">
           <img src="/gone/not-image.jpg" alt="a page"> <img src="${blocked}" alt="blocked">`,
        ),
      ),
    );
    server.route('/gone/a', html(page('Gone A', '<img src="/gone/missing.jpg" alt="missing again">')));
    server.route('/gone/not-image.jpg', html(page('Not an image', '')));
    const detail = await crawl([url('/gone/')]);
    expect(detail).toMatchObject({ status: 'DONE', pages: 2, images: 0, errors: 3 });
    expect(detail.frontier.image).toMatchObject({ failed: 3, queued: 0 });
    const pages = await t.db
      .selectFrom('pages')
      .select('url')
      .where('url', 'in', [url('/gone/'), url('/gone/a')])
      .execute();
    expect(pages).toHaveLength(2);
    for (const image of [url('/gone/missing.jpg'), url('/gone/not-image.jpg'), blocked]) {
      expect(await pendingOf(image), image).toEqual([]);
    }
  });

  it('keeps where an image was seen while a crawl that may resume still has it queued', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let imageRequests = 0;
    let gone = false;
    const image = url('/keep/img.jpg');
    server.route('/keep/', html(page('Keep', '<a href="/keep/a">A</a> <a href="/keep/b">B</a>')));
    server.route('/keep/a', html(page('Keep A', '<img src="/keep/img.jpg" alt="on a">')));
    server.route('/keep/b', html(page('Keep B', '<img src="/keep/img.jpg" alt="on b">')));
    server.route('/keep/other', html(page('Keep other', '<img src="/keep/img.jpg" alt="elsewhere">')));
    server.route('/keep/img.jpg', async (req, res) => {
      if (imageRequests++ === 0) await held;
      if (gone) res.writeHead(404).end();
      else bytes(photos.shared, 'image/jpeg')(req, res);
    });
    const crawls = t.container.services.crawl;
    // Stopped (as the CLI stops it) while its image is being fetched: the crawl ends STOPPED, resumable.
    const first = await crawls.create({ urls: [url('/keep/')], requestedBy: null });
    const run = crawls.run(first.id, { endStopped: true });
    for (let i = 0; imageRequests === 0; i++) {
      if (i > 400) throw new Error('the image was never requested');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await crawls.stop(first.id);
    expect(await run).toBe('stopped');
    expect((await crawls.get(first.public_id)).status).toBe('STOPPED');
    expect(await pendingOf(image)).toEqual([url('/keep/a'), url('/keep/b')]);

    // Another crawl finds the image gone meanwhile: every occurrence stays, its own page's too, since the
    // stopped crawl may still store the image.
    gone = true;
    const second = await crawls.create({ urls: [url('/keep/other')], requestedBy: null });
    expect(await crawls.run(second.id)).toBe('done');
    expect((await crawls.get(second.public_id)).frontier.image.failed).toBe(1);
    const all = [url('/keep/a'), url('/keep/b'), url('/keep/other')];
    expect(await pendingOf(image)).toEqual(all);

    // Resumed, the first crawl stores the image and links every page that showed it.
    gone = false;
    release();
    await crawls.resume(first.public_id);
    expect(await crawls.run(first.id)).toBe('done');
    const stored = await imageByBytes(photos.shared);
    const linked = await t.db
      .selectFrom('image_occurrences')
      .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
      .select('pages.url')
      .where('image_id', '=', stored.id)
      .where('image_url', '=', image)
      .orderBy('pages.url')
      .execute();
    expect(linked.map((row) => row.url)).toEqual(all);
    expect(await pendingOf(image)).toEqual([]);
  });

  it('indexes a photo whose URL is also a link: on the page linking it, and on a page showing it later', async () => {
    // Lightbox photos under extension-less URLs: /pic/1 is linked and shown by the same page; /pic/2 is
    // linked from the home page, fetched as a page first, and shown by /lightbox/gallery afterwards.
    const [one, two] = await Promise.all(
      [40, 200].map((r) =>
        sharp({ create: { width: 64, height: 48, channels: 3, background: { r, g: 120, b: 90 } } })
          .jpeg()
          .toBuffer(),
      ),
    );
    server.route(
      '/lightbox/',
      html(
        page(
          'Lightbox',
          `<a href="/lightbox/pic/1"><img src="/lightbox/pic/1" alt="one"></a>
           <a href="/lightbox/pic/2">two</a> <a href="/lightbox/gallery">gallery</a>`,
        ),
      ),
    );
    server.route('/lightbox/gallery', html(page('Gallery', '<img src="/lightbox/pic/2" alt="two">')));
    server.route('/lightbox/pic/1', bytes(one!, 'image/jpeg'));
    server.route('/lightbox/pic/2', bytes(two!, 'image/jpeg'));
    const detail = await crawl([url('/lightbox/')]);
    expect(detail).toMatchObject({ status: 'DONE', pages: 2, images: 2, errors: 0 });
    for (const [bytesOf, imageUrl, shownOn, alt] of [
      [one!, '/lightbox/pic/1', '/lightbox/', 'one'],
      [two!, '/lightbox/pic/2', '/lightbox/gallery', 'two'],
    ] as const) {
      const image = await imageByBytes(bytesOf);
      const linked = await t.db
        .selectFrom('image_occurrences')
        .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
        .select(['pages.url', 'image_occurrences.image_url', 'image_occurrences.alt'])
        .where('image_id', '=', image.id)
        .execute();
      expect(linked).toEqual([{ url: url(shownOn), image_url: url(imageUrl), alt }]);
      expect(await pendingOf(url(imageUrl))).toEqual([]);
    }
  });

  it('forgets a page taken down or opted out on a later crawl, and search no longer finds its faces', async () => {
    // /taken/a answers 410, /taken/b says noindex and robots.txt disallows /taken/c on the second crawl;
    // /taken/d still shows the photo of /taken/b.
    const photoA = await sample(5).resize(800).jpeg().toBuffer();
    const [photoB, photoC] = await Promise.all(
      [70, 230].map((g) =>
        sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g, b: 10 } } })
          .jpeg()
          .toBuffer(),
      ),
    );
    let gone = false;
    const robots = 'User-agent: *\nDisallow: /private/\n';
    server.route('/robots.txt', (req, res) =>
      text(gone ? `${robots}Disallow: /taken/c\n` : robots)(req, res),
    );
    server.route(
      '/taken/',
      html(page('Taken', ['a', 'b', 'c', 'd'].map((p) => `<a href="/taken/${p}">${p}</a>`).join(' '))),
    );
    server.route('/taken/a', (req, res) =>
      (gone ? status(410) : html(page('A', '<img src="/taken/a.jpg" alt="a">')))(req, res),
    );
    server.route('/taken/b', (req, res) =>
      html(page('B', '<img src="/taken/b.jpg" alt="b">'), gone ? { 'x-robots-tag': 'noindex' } : {})(
        req,
        res,
      ),
    );
    server.route('/taken/c', html(page('C', '<img src="/taken/c.jpg" alt="c">')));
    server.route('/taken/d', html(page('D', '<img src="/taken/b.jpg" alt="b on d">')));
    server.route('/taken/a.jpg', bytes(photoA, 'image/jpeg'));
    server.route('/taken/b.jpg', bytes(photoB!, 'image/jpeg'));
    server.route('/taken/c.jpg', bytes(photoC!, 'image/jpeg'));
    const shownOn = async (buffer: Buffer) =>
      (
        await t.db
          .selectFrom('image_occurrences')
          .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
          .select('pages.url')
          .where('image_id', '=', (await imageByBytes(buffer)).id)
          .orderBy('pages.url')
          .execute()
      ).map((row) => row.url);
    const takenPages = async () =>
      (
        await t.db
          .selectFrom('pages')
          .select('url')
          .where('url', 'like', `${url('/taken/')}%`)
          .orderBy('url')
          .execute()
      ).map((row) => row.url);

    try {
      expect(await crawl([url('/taken/')])).toMatchObject({ status: 'DONE', pages: 5, errors: 0 });
      expect(await shownOn(photoA)).toEqual([url('/taken/a')]);
      expect(await shownOn(photoB!)).toEqual([url('/taken/b'), url('/taken/d')]);
      expect(await shownOn(photoC!)).toEqual([url('/taken/c')]);
      const faceIds = (await facesOf((await imageByBytes(photoA)).id)).map((face) => face.id);
      expect(faceIds.length).toBeGreaterThan(0);
      const searches = new SearchRepository(t.db);
      expect(await searches.findSightings(faceIds)).toHaveLength(faceIds.length);

      gone = true;
      expect(await crawl([url('/taken/')])).toMatchObject({ status: 'DONE', pages: 2 });
      expect(await takenPages()).toEqual([url('/taken/'), url('/taken/d')]);
      expect(await shownOn(photoA)).toEqual([]);
      expect(await shownOn(photoB!)).toEqual([url('/taken/d')]);
      expect(await shownOn(photoC!)).toEqual([]);
      // Its faces stay stored, but a search finds them on no page, and so shows them nowhere.
      expect(await searches.findSightings(faceIds)).toEqual([]);
    } finally {
      server.route('/robots.txt', text(robots));
    }
  });

  it('keeps the SSRF guard: only the configured address is trusted', async () => {
    analyze.mockClear();
    const detail = await crawl([`http://127.0.0.2:${server.port}/`]);
    expect(detail).toMatchObject({ status: 'DONE', pages: 0, images: 0 });
    expect(detail.errors).toBeGreaterThanOrEqual(1);
    const seed = detail.failures.find((f) => f.url === `http://127.0.0.2:${server.port}/`);
    expect(seed?.error).toMatch(/127\.0\.0\.2/);
    expect(analyze).not.toHaveBeenCalled();
  });
});
