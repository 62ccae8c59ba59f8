import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent, type CrawlOptions } from '../../src/crawler/crawl-options.ts';
import { Crawler } from '../../src/crawler/crawler.ts';
import { IMAGE_NOT_PAGE } from '../../src/crawler/frontier.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { CrawlFrontierRepository } from '../../src/repositories/crawl-frontier.repository.ts';
import { TestServer, html, page, resolveToLoopback, status, type Handler } from '../crawler/test-server.ts';
import { createTestDatabase, TEST_DATABASE_KIND } from '../support/test-database.ts';

// The database frontier, held to the contract the in-memory one is tested against, then driven by the
// crawler itself across a stop, a "process restart" (a new store object over the same rows) and a crash.

let database: DatabaseHandle;
const servers: TestServer[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const freshStore = () => new CrawlFrontierRepository(database.db);

describe(`CrawlFrontierRepository (${TEST_DATABASE_KIND})`, () => {
  it('dedupes by URL across states and batches, per crawl, and reports what was new', async () => {
    const store = freshStore();
    expect(
      await store.enqueue('dedupe', [
        { url: 'https://a.test/', kind: 'page', depth: 0 },
        { url: 'https://a.test/', kind: 'page', depth: 3 },
      ]),
    ).toEqual(['https://a.test/']);
    const claimed = await store.claimNext('dedupe', 'a.test', Date.now());
    expect(claimed).toMatchObject({ url: 'https://a.test/', depth: 0, state: 'claimed', attempts: 0 });
    await store.markDone('dedupe', claimed!.url);
    expect(await store.enqueue('dedupe', [{ url: 'https://a.test/', kind: 'page', depth: 1 }])).toEqual([]);
    expect(
      await store.enqueue('dedupe-2', [{ url: 'https://a.test/', kind: 'page', depth: 0 }]),
    ).toHaveLength(1);
    // Large batches are split below the bind-parameter limit.
    const many = Array.from({ length: 1_200 }, (_, i) => ({
      url: `https://a.test/p${i}`,
      kind: 'page' as const,
      depth: 1,
    }));
    expect(await store.enqueue('dedupe', many)).toHaveLength(1_200);
    expect((await store.counts('dedupe')).page).toMatchObject({ queued: 1_200, done: 1 });
    // The seeds (and where they moved) are its pages of depth 0, whatever their state.
    await store.enqueue('dedupe', [
      { url: 'https://b.test/', kind: 'page', depth: 0 },
      { url: 'https://b.test/sitemap.xml', kind: 'sitemap', depth: 0 },
    ]);
    expect((await store.seedPages('dedupe')).sort()).toEqual(['https://a.test/', 'https://b.test/']);
  });

  it('lets an image take over the page entry of its URL while queued or once it answered with a photo', async () => {
    const store = freshStore();
    const crawl = 'takeover';
    const image = (path: string) => ({
      url: `https://a.test${path}`,
      kind: 'image' as const,
      depth: 0,
      referrer: 'https://a.test/',
      data: { pageUrl: 'https://a.test/', alt: path },
    });
    const linked = (path: string) => ({ url: `https://a.test${path}`, kind: 'page' as const, depth: 1 });
    // A page linking the photo it shows: the image wins within the batch, whatever the order.
    expect(await store.enqueue(crawl, [linked('/same'), image('/same')])).toEqual(['https://a.test/same']);
    await store.enqueue(crawl, [linked('/claimed'), linked('/queued'), linked('/photo'), linked('/html')]);
    await store.enqueue(crawl, [linked('/gone'), linked('/pdf')]);
    expect(await store.claimNext(crawl, 'a.test', Date.now(), ['page'])).toMatchObject({
      url: 'https://a.test/claimed',
    });
    await store.markSkipped(crawl, 'https://a.test/photo', IMAGE_NOT_PAGE);
    await store.markSkipped(crawl, 'https://a.test/pdf', 'unexpected content type "application/pdf"');
    await store.markDone(crawl, 'https://a.test/html');
    await store.markFailed(crawl, 'https://a.test/gone', 'HTTP 404', null);
    const paths = ['/queued', '/photo', '/html', '/gone', '/pdf'];

    expect(await store.enqueue(crawl, [...paths, '/claimed'].map(image))).toEqual([
      'https://a.test/queued',
      'https://a.test/photo',
    ]);
    const entry = (path: string) => store.findOne(crawl, `https://a.test${path}`);
    for (const path of ['/same', '/queued', '/photo']) {
      expect(await entry(path), path).toMatchObject({
        kind: 'image',
        state: 'queued',
        depth: 0,
        attempts: 0,
        referrer: 'https://a.test/',
        data: { pageUrl: 'https://a.test/', alt: path },
      });
      expect((await entry(path))!.lastError, path).toBeUndefined();
    }
    for (const [path, state] of [
      ['/html', 'done'],
      ['/gone', 'failed'],
      ['/pdf', 'skipped'],
      ['/claimed', 'claimed'],
    ] as const) {
      expect(await entry(path), path).toMatchObject({ kind: 'page', state });
    }
    // A page item never takes over an image entry.
    expect(await store.enqueue(crawl, [linked('/same')])).toEqual([]);
    expect(await entry('/same')).toMatchObject({ kind: 'image' });
  });

  it('claims per host, shallowest then oldest, only what is due and of the allowed kinds', async () => {
    const store = freshStore();
    const now = Date.now();
    await store.enqueue(
      'order',
      [
        { url: 'https://a.test/deep', kind: 'page', depth: 2 },
        { url: 'https://a.test/one', kind: 'page', depth: 1 },
        { url: 'https://a.test/two', kind: 'page', depth: 1 },
        {
          url: 'https://b.test:8080/x.jpg',
          kind: 'image',
          depth: 0,
          data: { pageUrl: 'https://b.test:8080/', alt: 'x' },
        },
      ],
      now,
    );
    expect((await store.dueHosts('order')).map((h) => h.host).sort()).toEqual(['a.test', 'b.test:8080']);
    expect((await store.dueHosts('order', ['image'])).map((h) => h.host)).toEqual(['b.test:8080']);
    expect((await store.dueHosts('order'))[0]!.dueAt).toBe(now); // timestamptz keeps milliseconds
    expect((await store.claimNext('order', 'a.test', now))!.url).toBe('https://a.test/one');
    expect((await store.claimNext('order', 'a.test', now))!.url).toBe('https://a.test/two');
    expect(await store.claimNext('order', 'b.test:8080', now, ['page'])).toBeNull();
    expect(await store.claimNext('order', 'b.test:8080', now - 1_000)).toBeNull(); // not due yet then
    const image = await store.claimNext('order', 'b.test:8080', now, ['image']);
    expect(image).toMatchObject({ kind: 'image', data: { pageUrl: 'https://b.test:8080/', alt: 'x' } });

    await store.markFailed('order', 'https://a.test/one', 'HTTP 503', now + 60_000);
    expect((await store.claimNext('order', 'a.test', now))!.url).toBe('https://a.test/deep');
    expect(await store.claimNext('order', 'a.test', now)).toBeNull();
    expect(await store.dueHosts('order', ['page'])).toEqual([{ host: 'a.test', dueAt: now + 60_000 }]);
    // A host backing off holds back all its queued entries, never brings one forward, and is remembered.
    expect(await store.hostPauses('order', now)).toEqual(new Map());
    await store.postponeHost('order', 'a.test', now + 30_000);
    expect(await store.hostPauses('order', now)).toEqual(new Map([['a.test', now + 30_000]]));
    expect(await store.hostPauses('order', now + 30_000)).toEqual(new Map());
    expect(await store.dueHosts('order', ['page'])).toEqual([{ host: 'a.test', dueAt: now + 60_000 }]);
    await store.enqueue('order', [{ url: 'https://a.test/new', kind: 'page', depth: 1 }], now);
    await store.postponeHost('order', 'a.test', now + 30_000);
    expect(await store.dueHosts('order', ['page'])).toEqual([{ host: 'a.test', dueAt: now + 30_000 }]);
    await store.markSkipped('order', 'https://a.test/new', 'not needed here');
    const retried = await store.claimNext('order', 'a.test', now + 60_000);
    expect(retried).toMatchObject({ url: 'https://a.test/one', attempts: 1, lastError: 'HTTP 503' });
    await store.markFailed('order', retried!.url, 'HTTP 503', null);
    await store.markSkipped('order', 'https://a.test/two', 'disallowed by robots.txt');
    expect(await store.findOne('order', 'https://a.test/one')).toMatchObject({
      state: 'failed',
      attempts: 2,
    });
    expect(await store.findOne('order', 'https://a.test/two')).toMatchObject({
      state: 'skipped',
      lastError: 'disallowed by robots.txt',
    });
    expect(await store.findFailed('order', 10)).toEqual([
      { url: 'https://a.test/one', kind: 'page', attempts: 2, last_error: 'HTTP 503' },
    ]);
  });

  it('recovers the claims of a crashed run and releases a stopped fetch', async () => {
    const store = freshStore();
    await store.enqueue('crash', [
      { url: 'https://a.test/1', kind: 'page', depth: 0 },
      { url: 'https://a.test/2', kind: 'page', depth: 1 },
    ]);
    await store.claimNext('crash', 'a.test', Date.now());
    await store.claimNext('crash', 'a.test', Date.now());
    const restarted = freshStore();
    expect((await restarted.counts('crash')).page).toMatchObject({ claimed: 2, queued: 0 });
    await restarted.release('crash', 'https://a.test/1');
    expect(await restarted.requeueClaimed('crash')).toBe(1);
    expect((await restarted.counts('crash')).page).toMatchObject({ claimed: 0, queued: 2 });
  });

  it('puts a claim back due later without an attempt, and keeps when robots.txt became unreadable', async () => {
    const store = freshStore();
    await store.enqueue('wait', [{ url: 'https://w.test/', kind: 'page', depth: 0 }]);
    const now = Date.now();
    await store.claimNext('wait', 'w.test', now);
    await store.release('wait', 'https://w.test/', now + 60_000);
    expect(await store.claimNext('wait', 'w.test', now + 59_000)).toBeNull();
    expect(await store.claimNext('wait', 'w.test', now + 60_000)).toMatchObject({ attempts: 0 });

    // The outage's start is kept until robots.txt is read again, for every store over the same rows.
    expect(await store.markRobotsUnreachable('wait', 'w.test', now)).toBe(now);
    expect(await freshStore().markRobotsUnreachable('wait', 'w.test', now + 5_000)).toBe(now);
    expect(await store.markRobotsUnreachable('other-crawl', 'w.test', now + 5_000)).toBe(now + 5_000);
    await freshStore().markRobotsReachable('wait', 'w.test');
    expect(await store.markRobotsUnreachable('wait', 'w.test', now + 9_000)).toBe(now + 9_000);
  });

  it('never hands the same entry to two concurrent claims', async () => {
    const store = freshStore();
    const urls = Array.from({ length: 20 }, (_, i) => `https://c.test/${i}`);
    await store.enqueue(
      'race',
      urls.map((url) => ({ url, kind: 'page' as const, depth: 0 })),
    );
    // On PostgreSQL these run on separate pool connections; SKIP LOCKED keeps them apart.
    const claims = await Promise.all(urls.map(() => freshStore().claimNext('race', 'c.test', Date.now())));
    const claimed = claims.map((c) => c?.url).filter(Boolean);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.length).toBe(20);
  });
});

describe(`Crawler over the database frontier (${TEST_DATABASE_KIND})`, () => {
  function siteOf(count: number): Record<string, Handler> {
    const links = Array.from({ length: count }, (_, i) => `<a href="/s${i}">s${i}</a>`).join('');
    const routes: Record<string, Handler> = { '/': html(page('start', links)) };
    for (let i = 0; i < count; i++) routes[`/s${i}`] = html(page(`s${i}`, `<p>page ${i}</p>`));
    return routes;
  }

  async function startServer(routes: Record<string, Handler>): Promise<TestServer> {
    const server = await TestServer.start(routes);
    servers.push(server);
    return server;
  }

  function options(server: TestServer): Partial<CrawlOptions> {
    return {
      userAgent: crawlerUserAgent('https://osint.example'),
      trustedAddresses: ['127.0.0.1'],
      allowedPorts: [server.port],
      resolveHost: resolveToLoopback(),
      politenessDelayMs: 5,
      useSitemaps: false,
    };
  }

  it('resumes after a restart: a new crawler over the same rows fetches only what is left', async () => {
    const server = await startServer(siteOf(8));
    const seen: string[] = [];
    const seeds = [server.url('/', 'resume.test')];
    const first = new Crawler({
      crawlId: 'db-resume',
      seeds,
      store: freshStore(),
      options: options(server),
      callbacks: {
        onPage: (p) => {
          seen.push(p.url);
          if (seen.length === 3) void first.stop();
        },
      },
    });
    expect((await first.run()).reason).toBe('stopped');
    expect(seen).toHaveLength(3);

    const second = new Crawler({
      crawlId: 'db-resume',
      seeds,
      store: freshStore(),
      options: options(server),
      callbacks: { onPage: (p) => void seen.push(p.url) },
    });
    const finished = await second.run();
    expect(finished.reason).toBe('done');
    expect(finished.pages).toBe(6);
    expect(finished.frontier.page).toMatchObject({ done: 9, queued: 0, claimed: 0 });
    expect(new Set(seen).size).toBe(9);
    expect(seen).toHaveLength(9);
    for (const p of ['/', ...Array.from({ length: 8 }, (_, i) => `/s${i}`)])
      expect(server.hits(p)).toHaveLength(1);
  });

  it('counts the wait for an unreadable robots.txt from its start, across runs', async () => {
    const server = await startServer({ '/robots.txt': status(503), '/': html(page('home', '')) });
    const seeds = [server.url('/', 'robots-down.test')];
    const waiting = { ...options(server), robotsRetryMs: 50, maxRetries: 2, retryBaseDelayMs: 20 };
    const first = new Crawler({
      crawlId: 'db-robots',
      seeds,
      store: freshStore(),
      options: { ...waiting, maxRobotsWaitMs: 600_000 },
      callbacks: {
        onError: () => {
          if (server.hits('/robots.txt').length === 2) void first.stop();
        },
      },
    });
    expect((await first.run()).reason).toBe('stopped');
    // Waiting used none of the seed's retries.
    expect(await freshStore().findOne('db-robots', seeds[0]!)).toMatchObject({
      state: 'queued',
      attempts: 0,
    });

    // The next run (a job's next slice) allows a wait that the outage has already exceeded: the seed
    // fails after its retries, instead of waiting that long again.
    const outage = await database.db
      .selectFrom('crawl_robots_outages')
      .select('since')
      .where('crawl_id', '=', 'db-robots')
      .executeTakeFirstOrThrow();
    await new Promise((resolve) => setTimeout(resolve, outage.since.getTime() + 300 - Date.now()));
    const hitsBefore = server.hits('/robots.txt').length;
    const second = new Crawler({
      crawlId: 'db-robots',
      seeds,
      store: freshStore(),
      options: { ...waiting, maxRobotsWaitMs: 300 },
    });
    expect(await second.run()).toMatchObject({ reason: 'done', errors: 1 });
    expect(server.hits('/robots.txt').length - hitsBefore).toBeLessThanOrEqual(3); // first try + retries
    expect(server.hits('/')).toHaveLength(0);
  });

  it('after a crash, the page that was being indexed is fetched again, and nothing else', async () => {
    const server = await startServer(siteOf(4));
    const seeds = [server.url('/', 'crash.test')];
    let count = 0;
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    let reachedBlock!: () => void;
    const atBlock = new Promise<void>((resolve) => (reachedBlock = resolve));
    // The "dying" process hangs inside the indexer of its second page: that row stays `claimed`.
    const doomed = new Crawler({
      crawlId: 'db-crash',
      seeds,
      store: freshStore(),
      options: options(server),
      callbacks: {
        onPage: async () => {
          if (++count === 2) {
            reachedBlock();
            await blocked;
          }
        },
      },
    });
    const doomedRun = doomed.run();
    await atBlock;
    expect((await freshStore().counts('db-crash')).page.claimed).toBe(1);

    const pages: string[] = [];
    const recovered = new Crawler({
      crawlId: 'db-crash',
      seeds,
      store: freshStore(),
      options: options(server),
      callbacks: { onPage: (p) => void pages.push(new URL(p.url).pathname) },
    });
    expect((await recovered.run()).reason).toBe('done');
    expect(pages).toHaveLength(4); // the page in the indexer at the crash, plus the three never fetched
    const refetched = ['/', '/s0', '/s1', '/s2', '/s3'].filter((p) => server.hits(p).length === 2);
    expect(refetched).toHaveLength(1);

    // Let the "dead" crawler go without touching the outcome.
    const stopping = doomed.stop();
    unblock();
    await Promise.all([stopping, doomedRun]);
    expect((await freshStore().counts('db-crash')).page).toMatchObject({ done: 5, claimed: 0, queued: 0 });
  });
});
