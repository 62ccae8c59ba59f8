import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent, type CrawlOptions } from '../../src/crawler/crawl-options.ts';
import {
  Crawler,
  type CrawledImage,
  type CrawledPage,
  type CrawlErrorEvent,
  type CrawlProgress,
  type ImageOccurrence,
  type RobotsOutageEvent,
} from '../../src/crawler/crawler.ts';
import { InMemoryFrontierStore } from '../../src/crawler/frontier.ts';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import {
  TestServer,
  bytes,
  html,
  page,
  redirect,
  resolveToLoopback,
  sequence,
  status,
  text,
  type Handler,
} from './test-server.ts';

const SAMPLES = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
const USER_AGENT = crawlerUserAgent('https://osint.example');

let alice: Buffer;
let bob: Buffer;
let carol: Buffer;
const servers: TestServer[] = [];

beforeAll(async () => {
  const photo = (n: number) =>
    sharp(path.join(SAMPLES, `sample${n}.jpg`))
      .resize(320)
      .jpeg()
      .toBuffer();
  [alice, bob, carol] = await Promise.all([photo(1), photo(2), photo(3)]);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function startServer(routes: Record<string, Handler>): Promise<TestServer> {
  const server = await TestServer.start(routes);
  servers.push(server);
  return server;
}

/** Options for a crawl against the local test server with the SSRF guard ON (only 127.0.0.1 trusted). */
function testOptions(server: TestServer, overrides: Partial<CrawlOptions> = {}): Partial<CrawlOptions> {
  return {
    userAgent: USER_AGENT,
    trustedAddresses: ['127.0.0.1'],
    allowedPorts: [server.port],
    resolveHost: resolveToLoopback(),
    politenessDelayMs: 10,
    retryBaseDelayMs: 20,
    maxRetries: 2,
    connectTimeoutMs: 1_000,
    totalTimeoutMs: 2_000,
    ...overrides,
  };
}

interface Collected {
  pages: CrawledPage[];
  images: Array<{ image: CrawledImage; pages: ImageOccurrence[] }>;
  errors: CrawlErrorEvent[];
  progress: CrawlProgress[];
}

function collector(): Collected & { callbacks: ConstructorParameters<typeof Crawler>[0]['callbacks'] } {
  const collected: Collected = { pages: [], images: [], errors: [], progress: [] };
  return {
    ...collected,
    callbacks: {
      onPage: (p) => void collected.pages.push(p),
      onImage: (image, pages) => void collected.images.push({ image, pages }),
      onError: (e) => void collected.errors.push(e),
      onProgress: (p) => void collected.progress.push(p),
    },
  };
}

const pathsOf = (pages: CrawledPage[]) => pages.map((p) => new URL(p.finalUrl).pathname).sort();

describe('Crawler on a small site', () => {
  it('crawls seeds and sitemaps, obeys robots.txt, stays on the site, fetches and analyses images once', async () => {
    const server = await startServer({});
    const site = (p: string) => server.url(p, 'site.test');
    const cdn = (p: string) => server.url(p, 'cdn.test');
    server.route(
      'site.test/robots.txt',
      text(
        [
          'User-agent: *',
          'Disallow: /',
          '',
          'User-agent: OSINTPlatformBot',
          'Disallow: /private/',
          'Allow: /private/ok.html',
          '',
          `Sitemap: ${site('/sitemap-index.xml')}`,
        ].join('\n'),
      ),
    );
    server.route(
      'site.test/sitemap-index.xml',
      text(
        `<sitemapindex><sitemap><loc>${site('/sitemap-pages.xml')}</loc></sitemap></sitemapindex>`,
        'application/xml',
      ),
    );
    server.route(
      'site.test/sitemap-pages.xml',
      text(
        `<urlset><url><loc>${site('/orphan.html')}</loc></url><url><loc>${site('/about.html')}</loc></url></urlset>`,
        'application/xml',
      ),
    );
    server.route(
      'site.test/',
      html(
        page(
          'Home',
          `<a href="/about.html">About</a> <a href="/team.html">Team</a> <a href="/private/secret.html">Secret</a>
           <a href="/private/ok.html">Allowed</a> <a href="${server.url('/', 'other.test')}">Elsewhere</a>
           <a href="/report.pdf">PDF</a> <a href="/data">Data</a> <a href="/flaky.html">Flaky</a>
           <a href="/moved">Moved</a> <a href="/broken.html">Broken</a>`,
        ),
      ),
    );
    server.route(
      'site.test/team.html',
      html(
        page(
          'Team',
          `<h1>Board</h1>
           <figure><img src="${cdn('/alice.jpg')}" alt="Alice"><figcaption>Alice Example, chair</figcaption></figure>
           <p>Bob Example runs operations <img src="/img/bob.jpg" alt="Bob"></p>
           <p>Same photo again <img src="/img/bob-copy.jpg" alt="Bob again"></p>
           <p><img src="/img/carol.jpg" alt="Carol"> Carol, already indexed elsewhere</p>
           <p><img src="/img/huge.jpg" alt="Too big"> <img src="/img/vector.svg" alt="Logo"></p>`,
        ),
      ),
    );
    server.route(
      'site.test/about.html',
      html(page('About', `<p>About us <img src="${cdn('/alice.jpg')}" alt="Alice at work"></p>`)),
    );
    server.route('site.test/orphan.html', html(page('Orphan', '<p>Only listed in the sitemap</p>')));
    server.route('site.test/private/ok.html', html(page('Allowed', '<p>explicitly allowed</p>')));
    server.route('site.test/private/secret.html', html(page('Secret', 'must never be fetched')));
    server.route('site.test/data', text('{"not":"html"}', 'application/json'));
    server.route(
      'site.test/flaky.html',
      sequence([status(503, { 'retry-after': '0' })], html(page('Flaky', 'ok'))),
    );
    server.route('site.test/moved', redirect('/team.html', 301));
    server.route('site.test/img/bob.jpg', bytes(bob, 'image/jpeg'));
    server.route('site.test/img/bob-copy.jpg', bytes(bob, 'image/jpeg'));
    server.route('site.test/img/carol.jpg', bytes(carol, 'image/jpeg'));
    server.route(
      'site.test/img/huge.jpg',
      bytes(Buffer.concat([alice, Buffer.alloc(200_000)]), 'image/jpeg'),
    );
    server.route(
      'site.test/img/vector.svg',
      text('<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'),
    );
    server.route('cdn.test/alice.jpg', bytes(alice, 'image/jpeg'));
    server.route('other.test/', html(page('Other', 'not ours')));

    const carolHash = sha256Hex(carol);
    const out = collector();
    const store = new InMemoryFrontierStore();
    const crawler = new Crawler({
      crawlId: 'site',
      seeds: [site('/')],
      store,
      options: testOptions(server, { maxImageBytes: 150_000 }),
      callbacks: { ...out.callbacks, isKnownContentHash: (sha) => sha === carolHash },
    });
    const summary = await crawler.run();

    expect(summary.reason).toBe('done');
    expect(pathsOf(out.pages)).toEqual([
      '/',
      '/about.html',
      '/flaky.html',
      '/orphan.html',
      '/private/ok.html',
      '/team.html',
    ]);
    // robots.txt: our group is used (the * group would forbid everything), Disallow is obeyed.
    expect(server.hits('/private/secret.html')).toHaveLength(0);
    // Links to other hosts are not followed; the PDF link is not even requested.
    expect(server.requests.filter((r) => r.hostname === 'other.test')).toHaveLength(0);
    expect(server.hits('/report.pdf')).toHaveLength(0);
    // 503 then 200: retried once.
    expect(server.hits('/flaky.html')).toHaveLength(2);
    expect(server.requests.every((r) => r.userAgent === USER_AGENT)).toBe(true);

    const home = out.pages.find((p) => p.title === 'Home')!;
    expect(home.depth).toBe(0);
    expect(home.links).toContain(server.url('/', 'other.test'));
    const team = out.pages.find((p) => p.title === 'Team')!;
    expect(team.text).toContain('Bob Example runs operations');
    expect(team.images.map((i) => i.url)).toContain(cdn('/alice.jpg'));

    // Images: the CDN image on another host is fetched once although two pages show it.
    const byUrl = new Map(out.images.map((entry) => [entry.image.url, entry]));
    expect(server.hits('/alice.jpg', 'cdn.test')).toHaveLength(1);
    const aliceEntry = byUrl.get(cdn('/alice.jpg'))!;
    expect(aliceEntry.image.analysis).not.toBeNull();
    expect(aliceEntry.image.sha256).toBe(sha256Hex(alice));
    expect(aliceEntry.image.bytes.equals(alice)).toBe(true);
    const figure = aliceEntry.pages.find((o) => o.pageUrl === site('/team.html'))!;
    expect(figure).toMatchObject({ alt: 'Alice', caption: 'Alice Example, chair' });
    expect(figure.nearbyText).toContain('Board');
    const analysis = aliceEntry.image.analysis!;
    expect(analysis.width).toBe(320);
    const thumb = await sharp(analysis.thumbnail).metadata();
    expect(thumb.format).toBe('jpeg');
    expect(Math.max(thumb.width, thumb.height)).toBeLessThanOrEqual(256);
    expect(analysis.phash).toMatch(/^[0-9a-f]{16}$/);

    // The same bytes under two URLs: both reported, analysed once.
    const bobs = [byUrl.get(site('/img/bob.jpg'))!, byUrl.get(site('/img/bob-copy.jpg'))!];
    expect(bobs.map((b) => b.image.sha256)).toEqual([sha256Hex(bob), sha256Hex(bob)]);
    expect(bobs.filter((b) => b.image.analysis !== null)).toHaveLength(1);
    expect(bobs.find((b) => b.image.url.endsWith('/bob.jpg'))!.pages[0]).toMatchObject({
      alt: 'Bob',
      nearbyText: 'Board — Bob Example runs operations',
    });
    // isKnownContentHash: an image indexed by an earlier crawl is reported without a new analysis.
    expect(byUrl.get(site('/img/carol.jpg'))!.image.analysis).toBeNull();

    // Size limit and content-type check for images; 404 for a page.
    const final = out.errors.filter((e) => !e.willRetry);
    const errorCodes = Object.fromEntries(final.map((e) => [new URL(e.url).pathname, e.code]));
    expect(errorCodes).toEqual({
      '/img/huge.jpg': 'too-large',
      '/img/vector.svg': 'content-type',
      '/broken.html': 'http',
    });
    expect(out.errors.find((e) => e.url.endsWith('/flaky.html'))).toMatchObject({
      status: 503,
      willRetry: true,
    });

    const last = out.progress.at(-1)!;
    expect(last).toMatchObject({ pages: 6, images: 4, errors: 3, retries: 1 });
    expect(summary).toMatchObject({ pages: 6, images: 4, sitemaps: 2, errors: 3 });
    expect(summary.frontier.page.queued).toBe(0);
    expect(summary.frontier.image.queued).toBe(0);
  });

  it('gives each host one connection at a time, spaced by the politeness delay', async () => {
    const server = await startServer({});
    const links = Array.from({ length: 5 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    for (const host of ['a.test', 'b.test']) {
      server.route(`${host}/`, html(page(host, links)));
      for (let i = 0; i < 5; i++) {
        // A little server time so overlapping requests would be visible.
        server.route(`${host}/p${i}`, (_req, res) => {
          setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page(`p${i}`, '')), 20);
        });
      }
    }
    const delay = 120;
    const crawler = new Crawler({
      crawlId: 'polite',
      seeds: [server.url('/', 'a.test'), server.url('/', 'b.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { politenessDelayMs: delay, useSitemaps: false, concurrency: 4 }),
    });
    const started = Date.now();
    const summary = await crawler.run();
    expect(summary.pages).toBe(12);
    for (const host of ['a.test', 'b.test']) {
      const requests = server.requests.filter((r) => r.hostname === host).sort((x, y) => x.start - y.start);
      expect(requests).toHaveLength(7); // robots.txt + 6 pages
      expect(server.maxConcurrent.get(host)).toBe(1);
      for (let i = 1; i < requests.length; i++) {
        // Server-side clock: the next request arrives at least `delay` after the previous one ended.
        expect(requests[i]!.start - requests[i - 1]!.end).toBeGreaterThanOrEqual(delay - 5);
      }
    }
    // The two hosts were crawled side by side, not one after the other.
    expect(Date.now() - started).toBeLessThan(7 * (delay + 20) * 2);
  });

  it('hands several images of one host to the indexer at once (up to maxInFlight), fetching one at a time', async () => {
    const count = 6;
    const maxInFlight = 3;
    const images = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 40 * i, g: 90, b: 200 } } })
          .png()
          .toBuffer(),
      ),
    );
    const server = await startServer({
      '/': html(page('gallery', images.map((_, i) => `<img src="/g${i}.png" alt="${i}">`).join(''))),
    });
    images.forEach((body, i) => server.route(`/g${i}.png`, bytes(body, 'image/png')));
    let active = 0;
    let mostActive = 0;
    const waiting: Array<() => void> = [];
    const indexed: string[] = [];
    const delay = 30;
    const crawler = new Crawler({
      crawlId: 'in-flight',
      seeds: [server.url('/', 'gallery.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, politenessDelayMs: delay, maxInFlight }),
      callbacks: {
        // A slow indexer (the face engine): each image is held until maxInFlight of them are in its hands,
        // which only happens if the next images are fetched while the earlier ones are being indexed.
        onImage: async (image) => {
          mostActive = Math.max(mostActive, ++active);
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === maxInFlight) for (const release of waiting.splice(0)) release();
            else setTimeout(resolve, 3_000);
          });
          active--;
          indexed.push(new URL(image.url).pathname);
        },
      },
    });
    const started = Date.now();
    const summary = await crawler.run();
    expect(summary).toMatchObject({ pages: 1, images: count, errors: 0 });
    expect(indexed.sort()).toEqual(images.map((_, i) => `/g${i}.png`).sort());
    expect(mostActive).toBe(maxInFlight);
    expect(Date.now() - started).toBeLessThan(3_000); // no image waited for the time-out
    // The host still saw one request at a time, spaced by the politeness delay.
    const requests = server.requests.sort((x, y) => x.start - y.start);
    expect(server.maxConcurrent.get('gallery.test')).toBe(1);
    for (let i = 1; i < requests.length; i++)
      expect(requests[i]!.start - requests[i - 1]!.end).toBeGreaterThanOrEqual(delay - 5);
  });

  it('tells the indexer of every page showing an image, even pages handled while it is being indexed', async () => {
    const server = await startServer({
      '/': html(page('home', '<img src="/x.jpg" alt="x"><a href="/a">a</a><a href="/b">b</a>')),
      '/a': html(page('a', '<img src="/x.jpg" alt="x again">')),
      '/b': html(page('b', '<img src="/x.jpg" alt="x once more">')),
      '/x.jpg': bytes(alice, 'image/jpeg'),
    });
    const events: string[] = [];
    const crawler = new Crawler({
      crawlId: 'occurrences',
      seeds: [server.url('/', 'occ.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, politenessDelayMs: 0 }),
      callbacks: {
        onPage: (p) => void events.push(`page ${new URL(p.url).pathname}`),
        // A slow indexer: the next pages are fetched meanwhile.
        onImage: async (_image, pages) => {
          events.push(`image ${pages.map((o) => new URL(o.pageUrl).pathname).join(' ')}`);
          await new Promise((resolve) => setTimeout(resolve, 300));
          events.push('image stored');
        },
      },
    });
    expect(await crawler.run()).toMatchObject({ pages: 3, images: 1, errors: 0 });
    // Each page is either handed to the indexer with the image, or handled once the image is stored
    // (its onPage then links it); never in between, where neither would record it.
    const imageEvent = events.find((e) => e.startsWith('image /'))!;
    const stored = events.indexOf('image stored');
    for (const p of ['/', '/a', '/b']) {
      const handedOver = imageEvent.split(' ').includes(p);
      expect(handedOver || events.indexOf(`page ${p}`) > stored, `${p}: ${events.join(', ')}`).toBe(true);
    }
  });

  it('indexes a photo whose URL is also a link (a lightbox), whichever is queued or fetched first', async () => {
    let firstPicThree = true;
    const server = await startServer({});
    const site = (p: string) => server.url(p, 'site.test');
    const picThree = server.url('/pic/3', 'pics.test');
    // /pic/1 is linked and shown by the same page; /pic/2 is linked from the home page and fetched as a
    // page before /gallery shows it; /pic/3 is being fetched as a page (slowly) while /show shows it.
    server.route(
      'site.test/',
      html(
        page(
          'home',
          `<a href="/pic/1"><img src="/pic/1" alt="one"></a> <a href="/pic/2">two</a>
           <a href="${picThree}">three</a> <a href="/gallery">gallery</a> <a href="/show">show</a>`,
        ),
      ),
    );
    server.route('site.test/gallery', html(page('gallery', '<img src="/pic/2" alt="two">')));
    server.route('site.test/show', html(page('show', `<img src="${picThree}" alt="three">`)));
    server.route('site.test/pic/1', bytes(alice, 'image/jpeg'));
    server.route('site.test/pic/2', bytes(bob, 'image/jpeg'));
    server.route('pics.test/pic/3', async (req, res) => {
      if (firstPicThree) await new Promise((resolve) => setTimeout(resolve, 500));
      firstPicThree = false;
      bytes(carol, 'image/jpeg')(req, res);
    });
    const stored: Array<{ url: string; pages: string[] }> = [];
    const dropped: string[] = [];
    const crawler = new Crawler({
      crawlId: 'lightbox',
      seeds: [site('/')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, followExternalLinks: true }),
      callbacks: {
        onImage: (image, pages) =>
          void stored.push({ url: image.url, pages: pages.map((o) => new URL(o.pageUrl).pathname) }),
        onImageDropped: (url) => void dropped.push(url),
      },
    });
    expect(await crawler.run()).toMatchObject({ reason: 'done', images: 3, errors: 0 });
    expect(stored.sort((a, b) => a.url.localeCompare(b.url))).toEqual([
      { url: picThree, pages: ['/show'] },
      { url: site('/pic/1'), pages: ['/'] },
      { url: site('/pic/2'), pages: ['/gallery'] },
    ]);
    expect(dropped).toEqual([]);
    // /pic/2 and /pic/3 were fetched as pages first (that fetch ends at the headers), then as images.
    expect(server.hits('/pic/1')).toHaveLength(1);
    expect(server.hits('/pic/2')).toHaveLength(2);
    expect(server.hits('/pic/3')).toHaveLength(2);
  });

  it('hands a copy of the same bytes to the indexer only once the first copy is stored', async () => {
    const server = await startServer({
      '/': html(page('home', '<img src="/first.jpg" alt="first"><img src="/copy.jpg" alt="copy">')),
      '/first.jpg': bytes(alice, 'image/jpeg'),
      '/copy.jpg': bytes(alice, 'image/jpeg'),
    });
    const storedHashes = new Set<string>();
    const linked: string[] = [];
    const dropped: string[] = [];
    const crawler = new Crawler({
      crawlId: 'copies',
      seeds: [server.url('/', 'copies.test')],
      store: new InMemoryFrontierStore(),
      // Retries far shorter than the indexing: a copy handed over too early would use them all up.
      options: testOptions(server, { useSitemaps: false, politenessDelayMs: 0, maxRetries: 2 }),
      callbacks: {
        // As the indexer: new content takes a while to store; a copy is linked to the stored image.
        onImage: async (image) => {
          if (image.analysis) {
            await new Promise((resolve) => setTimeout(resolve, 400));
            storedHashes.add(image.sha256);
          } else if (!storedHashes.has(image.sha256)) {
            throw new Error(`image ${image.sha256} is not stored yet`);
          }
          linked.push(new URL(image.url).pathname);
        },
        onImageDropped: (url) => void dropped.push(url),
      },
    });
    expect(await crawler.run()).toMatchObject({ images: 2, errors: 0, retries: 0 });
    expect(linked.sort()).toEqual(['/copy.jpg', '/first.jpg']);
    expect(dropped).toEqual([]);
  });

  it('has a copy of the same bytes analysed again when the first copy could not be stored', async () => {
    const server = await startServer({
      '/': html(page('home', '<img src="/first.jpg" alt="first"><img src="/copy.jpg" alt="copy">')),
      '/first.jpg': bytes(alice, 'image/jpeg'),
      '/copy.jpg': bytes(alice, 'image/jpeg'),
    });
    let failures = 1;
    const analysed: string[] = [];
    const storedHashes = new Set<string>();
    const crawler = new Crawler({
      crawlId: 'copies-failed',
      seeds: [server.url('/', 'copies.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, politenessDelayMs: 0 }),
      callbacks: {
        onImage: async (image) => {
          if (!image.analysis) {
            if (!storedHashes.has(image.sha256)) throw new Error(`image ${image.sha256} is not stored yet`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
          if (failures-- > 0) throw new Error('database down');
          analysed.push(new URL(image.url).pathname);
          storedHashes.add(image.sha256);
        },
      },
    });
    // The copy waiting for the first one analyses the bytes itself; the first one's retry is linked to it.
    expect(await crawler.run()).toMatchObject({ images: 2, errors: 0, retries: 1 });
    expect(analysed).toHaveLength(1);
  });

  it('after a restart, keeps the occurrence stored with an image entry when later pages show it too', async () => {
    const server = await startServer({
      '/': html(page('home', '<img src="/x.jpg" alt="first"><a href="/a">a</a>')),
      '/a': html(page('a', '<img src="/x.jpg" alt="second">')),
      '/x.jpg': bytes(alice, 'image/jpeg'),
    });
    const store = new InMemoryFrontierStore();
    const options = testOptions(server, { useSitemaps: false, politenessDelayMs: 0 });
    const first = new Crawler({
      crawlId: 'restart-occurrences',
      seeds: [server.url('/', 'restart.test')],
      store,
      options,
      callbacks: { onPage: () => void first.stop() }, // stops once the home page is handled
    });
    expect((await first.run()).reason).toBe('stopped');

    const handed: string[][] = [];
    const second = new Crawler({
      crawlId: 'restart-occurrences',
      seeds: [server.url('/', 'restart.test')],
      store,
      options,
      callbacks: {
        // A slow look-up: page /a is handled while the image waits for it.
        isKnownContentHash: () => new Promise((resolve) => setTimeout(() => resolve(false), 300)),
        onImage: (_image, pages) => void handed.push(pages.map((o) => new URL(o.pageUrl).pathname).sort()),
      },
    });
    expect(await second.run()).toMatchObject({ reason: 'done', pages: 1, images: 1 });
    expect(handed).toEqual([['/', '/a']]);
  });

  it('honours Crawl-delay from robots.txt', async () => {
    const server = await startServer({
      '/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n'),
      '/': html(page('home', '<a href="/1">1</a><a href="/2">2</a>')),
      '/1': html(page('1', '')),
      '/2': html(page('2', '')),
    });
    const crawler = new Crawler({
      crawlId: 'crawl-delay',
      seeds: [server.url('/', 'slow.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { politenessDelayMs: 10, useSitemaps: false }),
    });
    await crawler.run();
    const requests = [...server.requests].sort((x, y) => x.start - y.start);
    expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/', '/1', '/2']);
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i]!.start - requests[i - 1]!.end).toBeGreaterThanOrEqual(295);
    }
  });
});

describe('Crawler page directives and indexer failures', () => {
  it('respects noindex, nofollow, noimageindex and X-Robots-Tag', async () => {
    const server = await startServer({
      '/': html(
        page(
          'home',
          '<a href="/hidden">h</a><a href="/nofollow">n</a><a href="/noimg">i</a><a href="/header">x</a><a href="/header2">y</a><a href="/header3">z</a>',
        ),
      ),
      '/hidden': html(
        `<html><head><meta name="robots" content="noindex"></head><body><a href="/via-hidden">v</a><img src="/a.jpg"></body></html>`,
      ),
      '/via-hidden': html(page('via hidden', '')),
      '/nofollow': html(
        `<html><head><meta name="OSINTPlatformBot" content="nofollow"></head><body><a href="/never">n</a></body></html>`,
      ),
      '/never': html(page('never', '')),
      '/noimg': html(
        `<html><head><meta name="robots" content="noimageindex"><title>noimg</title></head><body><img src="/b.jpg"></body></html>`,
      ),
      // Directives for another robot do not apply to us; ours do.
      '/header': html(page('header', '<a href="/via-header">v</a>'), {
        'x-robots-tag': 'otherbot: noindex, nofollow',
      }),
      '/via-header': html(page('via header', '')),
      '/header2': html(page('header2', '<a href="/never2">n</a>'), {
        'x-robots-tag': 'OSINTPlatformBot: nofollow',
      }),
      '/never2': html(page('never2', '')),
      // Two header lines, one for another robot and one for all: ours applies (joined with a comma, the
      // second read as the other robot's).
      '/header3': (_req, res) => {
        res.setHeader('x-robots-tag', ['otherbot: noindex', 'noimageindex']);
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(page('header3', '<img src="/c.jpg">'));
      },
    });
    const out = collector();
    const crawler = new Crawler({
      crawlId: 'directives',
      seeds: [server.url('/', 'meta.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false }),
      callbacks: out.callbacks,
    });
    await crawler.run();
    expect(pathsOf(out.pages)).toEqual([
      '/',
      '/header',
      '/header2',
      '/header3',
      '/nofollow',
      '/noimg',
      '/via-header',
      '/via-hidden',
    ]);
    expect(out.pages.find((p) => p.title === 'noimg')!.images).toEqual([]);
    expect(out.pages.find((p) => p.title === 'header3')!.images).toEqual([]);
    for (const p of ['/never', '/never2', '/a.jpg', '/b.jpg', '/c.jpg'])
      expect(server.hits(p), p).toHaveLength(0);
  });

  it('tells the indexer of pages taken down or opted out, and not of failures that may pass', async () => {
    const server = await startServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
      '/': html(
        page(
          'home',
          ['/missing', '/removed', '/meta', '/header', '/private/page', '/down', '/reset', '/ok', '/moved']
            .map((p) => `<a href="${p}">${p}</a>`)
            .join(' '),
        ),
      ),
      '/removed': status(410),
      '/meta': html(`<html><head><meta name="robots" content="noindex"></head><body>gone</body></html>`),
      '/header': html(page('header', ''), { 'x-robots-tag': 'noindex' }),
      '/private/page': html(page('private', '')),
      '/down': status(503),
      '/reset': (req) => void req.socket.destroy(),
      '/ok': html(page('ok', '')),
      '/moved': redirect('/moved-to'),
      '/moved-to': html(page('moved', ''), { 'x-robots-tag': 'noindex' }),
    });
    const gone: string[] = [];
    const crawler = new Crawler({
      crawlId: 'gone',
      seeds: [server.url('/', 'gone.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, maxRetries: 1 }),
      callbacks: { onPageGone: (url) => void gone.push(new URL(url).pathname) },
    });
    await crawler.run();
    expect(gone.sort()).toEqual(
      ['/missing', '/removed', '/meta', '/header', '/private/page', '/moved', '/moved-to'].sort(),
    );
    expect(server.hits('/down')).toHaveLength(2); // tried again, and never called gone
  });

  it('retries a page whose onPage failed, and reports undecodable images', async () => {
    const server = await startServer({
      '/': html(page('home', '<img src="/broken.jpg"><img src="/ok.jpg">')),
      '/broken.jpg': bytes(Buffer.from('definitely not a jpeg'), 'image/jpeg'),
      '/ok.jpg': bytes(bob, 'image/jpeg'),
    });
    let failures = 1;
    let imageFailures = 1;
    const analysed: Array<boolean> = [];
    const errors: CrawlErrorEvent[] = [];
    const crawler = new Crawler({
      crawlId: 'indexer-down',
      seeds: [server.url('/', 'db.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false }),
      callbacks: {
        onPage: () => {
          if (failures-- > 0) throw new Error('database unavailable');
        },
        onImage: (image) => {
          if (imageFailures-- > 0) throw new Error('database unavailable');
          analysed.push(image.analysis !== null);
        },
        onError: (e) => void errors.push(e),
      },
    });
    const summary = await crawler.run();
    expect(summary.pages).toBe(1);
    expect(server.hits('/')).toHaveLength(2);
    // The image whose first hand-over failed is analysed again on retry, not reported as known.
    expect(analysed).toEqual([true]);
    expect(errors.map((e) => [new URL(e.url).pathname, e.code, e.willRetry])).toEqual(
      expect.arrayContaining([
        ['/', 'callback', true],
        ['/ok.jpg', 'callback', true],
        ['/broken.jpg', 'analysis', false],
      ]),
    );
  });

  it('indexes a page that redirects after its first indexing failed, and follows its links', async () => {
    const server = await startServer({
      '/': redirect('/home', 301),
      '/home': html(page('home', '<a href="/next">next</a>')),
      '/next': html(page('next', '')),
    });
    let failures = 1;
    const indexed: string[] = [];
    const crawler = new Crawler({
      crawlId: 'redirect-retry',
      seeds: [server.url('/', 'moved.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false }),
      callbacks: {
        onPage: (p) => {
          if (failures-- > 0) throw new Error('database unavailable');
          indexed.push(`${new URL(p.url).pathname} as ${new URL(p.finalUrl).pathname}`);
        },
      },
    });
    const summary = await crawler.run();
    expect(indexed.sort()).toEqual(['/ as /home', '/next as /next']);
    expect(summary).toMatchObject({ reason: 'done', pages: 2, errors: 0, retries: 1 });
    expect(server.hits('/next')).toHaveLength(1);
  });
});

describe('Crawler scope after a seed moved', () => {
  it('keeps following the site a seed redirected to in a later run of the crawl (a slice, a resume)', async () => {
    const server = await startServer({});
    server.route('old.test/', redirect(server.url('/', 'new.test'), 301));
    server.route('new.test/', html(page('home', '<a href="/p1">one</a>')));
    server.route('new.test/p1', html(page('one', '<a href="/p2">two</a>')));
    server.route('new.test/p2', html(page('two', '')));
    const store = new InMemoryFrontierStore();
    const run = (maxPages: number) =>
      new Crawler({
        crawlId: 'moved-site',
        seeds: [server.url('/', 'old.test')],
        store,
        options: testOptions(server, { useSitemaps: false, maxPages }),
      }).run();
    // The first run ends after the seed's page (at its new address), the next one picks up from there.
    await run(1);
    expect(server.hits('/', 'new.test')).toHaveLength(1);
    await run(10);
    expect(server.hits('/p1', 'new.test')).toHaveLength(1);
    expect(server.hits('/p2', 'new.test')).toHaveLength(1);
  });
});

describe('Crawler images given up', () => {
  it('names each image it will never hand to the indexer, once its entry says so, and no other', async () => {
    const server = await startServer({
      '/robots.txt': text('User-agent: *\nDisallow: /private/\n'),
      '/': html(
        page(
          'home',
          `<img src="/missing.jpg"><img src="/page.jpg"><img src="/huge.jpg"><img src="/broken.jpg">
           <img src="/private/hidden.jpg"><img src="/noindex.jpg"><img src="/down.jpg">
           <img src="http://10.0.0.8/photo.jpg"><img src="/ok.jpg">`,
        ),
      ),
      '/page.jpg': html(page('not an image', '')),
      '/huge.jpg': bytes(Buffer.alloc(64 * 1024, 1), 'image/jpeg'),
      '/broken.jpg': bytes(Buffer.from('definitely not a jpeg'), 'image/jpeg'),
      '/private/hidden.jpg': bytes(alice, 'image/jpeg'),
      '/noindex.jpg': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/jpeg', 'x-robots-tag': 'noindex' }).end(carol);
      },
      '/down.jpg': status(503),
      '/ok.jpg': bytes(bob, 'image/jpeg'),
    });
    const store = new InMemoryFrontierStore();
    const dropped: Array<{ path: string; state: string | undefined }> = [];
    const stored: string[] = [];
    const crawler = new Crawler({
      crawlId: 'dropped',
      seeds: [server.url('/', 'drop.test')],
      store,
      options: testOptions(server, { useSitemaps: false, maxImageBytes: 32 * 1024, maxRetries: 1 }),
      callbacks: {
        onImage: (image) => void stored.push(new URL(image.url).pathname),
        onImageDropped: async (url) => {
          const { hostname, pathname } = new URL(url);
          // The indexer checks the frontier: the entry must no longer be queued or claimed.
          const entry = await store.findOne('dropped', url);
          dropped.push({ path: hostname === '10.0.0.8' ? url : pathname, state: entry?.state });
        },
      },
    });
    await crawler.run();
    expect(stored).toEqual(['/ok.jpg']);
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(dropped.sort(byPath)).toEqual(
      [
        { path: '/missing.jpg', state: 'failed' },
        { path: '/page.jpg', state: 'failed' },
        { path: '/huge.jpg', state: 'failed' },
        { path: '/broken.jpg', state: 'failed' },
        { path: '/private/hidden.jpg', state: 'skipped' },
        { path: '/noindex.jpg', state: 'skipped' },
        // Retried first: named once, when its retries are used up.
        { path: '/down.jpg', state: 'failed' },
        { path: 'http://10.0.0.8/photo.jpg', state: 'failed' },
      ].sort(byPath),
    );
    expect(server.hits('/down.jpg')).toHaveLength(2);
  });
});

describe('Crawler frontier failures', () => {
  it('stops and rejects when the frontier cannot record what happened to an entry', async () => {
    const server = await startServer({
      '/': html(page('home', '<a href="/s0">s0</a><a href="/s1">s1</a>')),
      '/s0': html(page('s0', '')),
      '/s1': html(page('s1', '')),
    });
    // The database goes away: no outcome of a fetch can be written, not even the failure.
    class BrokenStore extends InMemoryFrontierStore {
      override markDone(): Promise<void> {
        return Promise.reject(new Error('frontier unavailable'));
      }
      override markFailed(): Promise<void> {
        return Promise.reject(new Error('frontier unavailable'));
      }
    }
    const crawler = new Crawler({
      crawlId: 'broken-store',
      seeds: [server.url('/', 'broken.test')],
      store: new BrokenStore(),
      options: testOptions(server, { useSitemaps: false }),
    });
    await expect(crawler.run()).rejects.toThrow('frontier unavailable');
    expect(server.hits('/s0')).toHaveLength(0);
    expect(server.hits('/s1')).toHaveLength(0);
  });

  it('settles its fetches under way before rejecting when the frontier fails in the loop', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await startServer({
      'one.test/': async (req, res) => {
        await held;
        html(page('one', ''))(req, res);
      },
      'two.test/': html(page('two', '')),
    });
    let calls = 0;
    class FailingLoopStore extends InMemoryFrontierStore {
      override dueHosts(...args: Parameters<InMemoryFrontierStore['dueHosts']>) {
        // The first look starts both hosts; a later one fails while one.test is still being fetched.
        if (++calls > 1) return Promise.reject(new Error('frontier unavailable'));
        return super.dueHosts(...args);
      }
    }
    const store = new FailingLoopStore();
    const crawler = new Crawler({
      crawlId: 'failing-loop',
      seeds: [server.url('/', 'one.test'), server.url('/', 'two.test')],
      store,
      options: testOptions(server, { useSitemaps: false, totalTimeoutMs: 10_000 }),
    });
    const outcome = crawler.run().then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    setTimeout(release, 3_000).unref();
    expect(await outcome).toBe('frontier unavailable');
    // The fetch under way was aborted and its entry put back, before run() gave up.
    expect((await store.findOne('failing-loop', server.url('/', 'one.test')))?.state).toBe('queued');
  });
});

describe('Crawler limits', () => {
  it('stops following links beyond maxDepth', async () => {
    const routes: Record<string, Handler> = {};
    for (let i = 0; i < 6; i++) routes[`/c${i}`] = html(page(`c${i}`, `<a href="/c${i + 1}">next</a>`));
    const server = await startServer(routes);
    const out = collector();
    const crawler = new Crawler({
      crawlId: 'depth',
      seeds: [server.url('/c0', 'deep.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { maxDepth: 2, useSitemaps: false }),
      callbacks: out.callbacks,
    });
    const summary = await crawler.run();
    expect(pathsOf(out.pages)).toEqual(['/c0', '/c1', '/c2']);
    expect(out.pages.map((p) => p.depth).sort()).toEqual([0, 1, 2]);
    expect(server.hits('/c3')).toHaveLength(0);
    expect(summary.reason).toBe('done');
  });

  it('stops at maxPages, and a resumed crawl with a larger budget finishes without refetching', async () => {
    const routes: Record<string, Handler> = {
      '/': html(page('hub', Array.from({ length: 12 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(''))),
    };
    for (let i = 0; i < 12; i++) routes[`/p${i}`] = html(page(`p${i}`, ''));
    const server = await startServer(routes);
    const store = new InMemoryFrontierStore();
    const first = collector();
    const limited = new Crawler({
      crawlId: 'budget',
      seeds: [server.url('/', 'wide.test')],
      store,
      options: testOptions(server, { maxPages: 5, useSitemaps: false }),
      callbacks: first.callbacks,
    });
    const summary = await limited.run();
    expect(summary.reason).toBe('limit');
    expect(first.pages).toHaveLength(5);
    expect(server.requests.filter((r) => r.path !== '/robots.txt')).toHaveLength(5);
    expect(summary.frontier.page).toMatchObject({ done: 5, queued: 8 });

    const second = collector();
    const resumed = new Crawler({
      crawlId: 'budget',
      seeds: [server.url('/', 'wide.test')],
      store,
      options: testOptions(server, { maxPages: 100, useSitemaps: false }),
      callbacks: second.callbacks,
    });
    expect((await resumed.run()).reason).toBe('done');
    expect(second.pages).toHaveLength(8);
    for (const p of ['/', ...Array.from({ length: 12 }, (_, i) => `/p${i}`)])
      expect(server.hits(p)).toHaveLength(1);
  });
});

describe('Crawler stop and resume', () => {
  function siteOf(count: number): Record<string, Handler> {
    const routes: Record<string, Handler> = {
      '/': html(
        page('start', Array.from({ length: count }, (_, i) => `<a href="/s${i}">s${i}</a>`).join('')),
      ),
    };
    for (let i = 0; i < count; i++) routes[`/s${i}`] = html(page(`s${i}`, `<p>page ${i}</p>`));
    return routes;
  }

  it('stops on request and resumes after a restart from the persisted frontier', async () => {
    const server = await startServer(siteOf(8));
    const store = new InMemoryFrontierStore();
    const seen: string[] = [];
    const first = new Crawler({
      crawlId: 'resume',
      seeds: [server.url('/', 'resume.test')],
      store,
      options: testOptions(server, { useSitemaps: false }),
      callbacks: {
        onPage: (p) => {
          seen.push(p.url);
          if (seen.length === 3) void first.stop(); // not awaited: run() is waiting for this callback
        },
      },
    });
    const stopped = await first.run();
    expect(stopped.reason).toBe('stopped');
    expect(seen).toHaveLength(3);

    // "Restart the process": a new store from the persisted state, a new crawler.
    const restored = InMemoryFrontierStore.fromSnapshot(JSON.parse(JSON.stringify(store.snapshot())));
    const second = new Crawler({
      crawlId: 'resume',
      seeds: [server.url('/', 'resume.test')],
      store: restored,
      options: testOptions(server, { useSitemaps: false }),
      callbacks: { onPage: (p) => void seen.push(p.url) },
    });
    const finished = await second.run();
    expect(finished.reason).toBe('done');
    expect(finished.pages).toBe(6);
    expect(new Set(seen).size).toBe(9);
    expect(seen).toHaveLength(9);
    for (const p of ['/', ...Array.from({ length: 8 }, (_, i) => `/s${i}`)])
      expect(server.hits(p)).toHaveLength(1);
  });

  it('aborts an in-flight fetch on stop and fetches it on the next run', async () => {
    let slow = true;
    const server = await startServer({
      '/': html(page('start', '<a href="/slow">slow</a>')),
      '/slow': (_req, res) => {
        const delay = slow ? 5_000 : 0;
        const timer = setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/html' }).end(page('slow', '')),
          delay,
        );
        res.on('close', () => clearTimeout(timer));
      },
    });
    const store = new InMemoryFrontierStore();
    const options = testOptions(server, { useSitemaps: false, totalTimeoutMs: 10_000 });
    const crawler = new Crawler({ crawlId: 'abort', seeds: [server.url('/', 'abort.test')], store, options });
    const running = crawler.run();
    while (server.hits('/slow').length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const stoppedAt = Date.now();
    await crawler.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect((await running).reason).toBe('stopped');
    expect(await store.findOne('abort', server.url('/slow', 'abort.test'))).toMatchObject({
      state: 'queued',
      attempts: 0,
    });

    slow = false;
    const titles: string[] = [];
    const resumed = new Crawler({
      crawlId: 'abort',
      seeds: [server.url('/', 'abort.test')],
      store,
      options,
      callbacks: { onPage: (p) => void titles.push(p.title) },
    });
    expect((await resumed.run()).reason).toBe('done');
    expect(titles).toEqual(['slow']);
  });

  it('after a crash, refetches only the page that was in flight', async () => {
    const server = await startServer(siteOf(4));
    const store = new InMemoryFrontierStore();
    let crashSnapshot: ReturnType<InMemoryFrontierStore['snapshot']> | undefined;
    let count = 0;
    const doomed = new Crawler({
      crawlId: 'crash',
      seeds: [server.url('/', 'crash.test')],
      store,
      options: testOptions(server, { useSitemaps: false }),
      callbacks: {
        onPage: () => {
          // The process dies while handling its second page: that page is still `claimed`.
          if (++count === 2) {
            crashSnapshot = store.snapshot();
            void doomed.stop();
          }
        },
      },
    });
    await doomed.run();
    const restored = InMemoryFrontierStore.fromSnapshot(crashSnapshot!);
    expect((await restored.counts('crash')).page.claimed).toBe(1);
    const pages: string[] = [];
    const recovered = new Crawler({
      crawlId: 'crash',
      seeds: [server.url('/', 'crash.test')],
      store: restored,
      options: testOptions(server, { useSitemaps: false }),
      callbacks: { onPage: (p) => void pages.push(new URL(p.url).pathname) },
    });
    expect((await recovered.run()).reason).toBe('done');
    expect(pages).toHaveLength(4); // the in-flight page again, plus the three never fetched
    const refetched = ['/', '/s0', '/s1', '/s2', '/s3'].filter((p) => server.hits(p).length === 2);
    expect(refetched).toHaveLength(1);
  });
});

describe('Crawler retries', () => {
  it('retries 429 after Retry-After and network errors with backoff, then gives up', async () => {
    let dropped = false;
    const server = await startServer({
      '/': html(page('home', '<a href="/busy">busy</a><a href="/drop">drop</a><a href="/down">down</a>')),
      '/busy': sequence([status(429, { 'retry-after': '1' })], html(page('busy', 'ok'))),
      '/drop': (_req, res) => {
        if (!dropped) {
          dropped = true;
          res.socket?.destroy(); // connection reset before any response
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' }).end(page('drop', 'ok'));
      },
      '/down': status(503),
    });
    const out = collector();
    const crawler = new Crawler({
      crawlId: 'retry',
      seeds: [server.url('/', 'retry.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, maxRetries: 2 }),
      callbacks: out.callbacks,
    });
    const summary = await crawler.run();
    expect(pathsOf(out.pages)).toEqual(['/', '/busy', '/drop']);
    const busy = server.hits('/busy');
    expect(busy).toHaveLength(2);
    expect(busy[1]!.start - busy[0]!.end).toBeGreaterThanOrEqual(990);
    expect(server.hits('/drop')).toHaveLength(2);
    expect(server.hits('/down')).toHaveLength(3); // first try + maxRetries
    const down = out.errors.filter((e) => e.url.endsWith('/down'));
    expect(down.map((e) => e.willRetry)).toEqual([true, true, false]);
    expect(down[0]).toMatchObject({ code: 'http', status: 503 });
    expect(summary).toMatchObject({ errors: 1, retries: 4 });
    expect(summary.frontier.page.failed).toBe(1);
  });
  it('a host that asked to be left alone (Retry-After) is left alone in the next run of the crawl too', async () => {
    const runs: { first?: Crawler } = {};
    const server = await startServer({
      '/': html(page('home', '<a href="/busy">busy</a><a href="/b">b</a><a href="/c">c</a>')),
      '/busy': (req, res) => {
        status(429, { 'retry-after': '3600' })(req, res);
        setTimeout(() => void runs.first?.stop(), 100);
      },
      '/b': html(page('b', '')),
      '/c': html(page('c', '')),
      '/d': html(page('d', '')),
    });
    const store = new InMemoryFrontierStore();
    const crawler = (paths: string[]) =>
      new Crawler({
        crawlId: 'retry-after-kept',
        seeds: paths.map((path) => server.url(path, 'busy.test')),
        store,
        options: testOptions(server, { useSitemaps: false }),
      });
    runs.first = crawler(['/']);
    await runs.first.run();
    expect(server.hits('/busy', 'busy.test')).toHaveLength(1);
    // The next slice of the crawl starts at once: the host's hour is not over, for the URLs queued before
    // and for one queued now (/d).
    const next = crawler(['/', '/d']);
    const running = next.run();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await next.stop();
    await running;
    for (const path of ['/b', '/c', '/d']) expect(server.hits(path, 'busy.test'), path).toEqual([]);
    // Due when the wait asked for is over, as far as the crawler waits for a host (maxRetryDelayMs).
    const b = await store.findOne('retry-after-kept', server.url('/b', 'busy.test'));
    expect(b?.dueAt).toBeGreaterThan(Date.now() + 5 * 60_000);
  });

  it('waits out a short robots.txt outage without using up the retries of the URLs', async () => {
    const server = await startServer({
      '/robots.txt': sequence([status(503), status(503), status(503), status(503)], status(404)),
      '/': html(page('home', '<a href="/next">next</a>')),
      '/next': html(page('next', '')),
    });
    const out = collector();
    const outages: RobotsOutageEvent[] = [];
    const crawler = new Crawler({
      crawlId: 'robots-outage',
      seeds: [server.url('/', 'outage.test')],
      store: new InMemoryFrontierStore(),
      // Fewer retries than robots.txt fails: each failed read used to cost the seed one.
      options: testOptions(server, { useSitemaps: false, maxRetries: 2, robotsRetryMs: 50 }),
      callbacks: { ...out.callbacks, onRobotsOutage: (event) => void outages.push(event) },
    });
    const started = Date.now();
    const summary = await crawler.run();
    expect(server.hits('/robots.txt')).toHaveLength(5);
    expect(pathsOf(out.pages)).toEqual(['/', '/next']);
    expect(summary).toMatchObject({ reason: 'done', pages: 2, errors: 0 });
    expect(summary.frontier.page).toMatchObject({ done: 2, failed: 0 });
    // Told while the host waits (the read at start-up, for sitemaps, is not a URL waiting), then once read.
    const host = `outage.test:${server.port}`;
    expect(outages.length).toBeGreaterThanOrEqual(2);
    const waiting = outages.slice(0, -1);
    for (const event of waiting) {
      expect(event).toMatchObject({ host, waiting: true, status: 503 });
      if (!event.waiting) continue;
      expect(event.since).toBeGreaterThanOrEqual(started);
      expect(event.since).toBe((waiting[0] as typeof event).since); // counted from the outage's start
      expect(event.retryAt).toBeGreaterThan(event.since);
      expect(event.giveUpAt).toBe(event.since + 30 * 60_000);
    }
    expect(outages.at(-1)).toEqual({ host, waiting: false, reason: 'read' });
  });

  it('gives up on a site whose robots.txt stays unreachable past maxRobotsWaitMs', async () => {
    const server = await startServer({
      '/robots.txt': status(503),
      '/': html(page('home', 'never fetched')),
    });
    const out = collector();
    const outages: RobotsOutageEvent[] = [];
    const crawler = new Crawler({
      crawlId: 'robots-down',
      seeds: [server.url('/', 'down.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, {
        useSitemaps: false,
        maxRetries: 2,
        robotsRetryMs: 50,
        maxRobotsWaitMs: 300,
      }),
      callbacks: { ...out.callbacks, onRobotsOutage: (event) => void outages.push(event) },
    });
    const started = Date.now();
    const summary = await crawler.run();
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(server.hits('/')).toHaveLength(0);
    expect(summary).toMatchObject({ reason: 'done', pages: 0, errors: 1 });
    expect(summary.frontier.page.failed).toBe(1);
    // Past the wait, the seed used its retries as after any other retryable failure.
    const counted = out.errors.filter((e) => e.code === 'robots' && e.willRetry === false);
    expect(counted).toHaveLength(1);
    // The wait is over once given up, though the seed's retries still read robots.txt: told once.
    const host = `down.test:${server.port}`;
    expect(outages.filter((e) => !e.waiting)).toEqual([{ host, waiting: false, reason: 'given-up' }]);
    expect(outages.at(-1)).toEqual({ host, waiting: false, reason: 'given-up' });
    expect(outages.slice(0, -1).every((e) => e.waiting && e.host === host)).toBe(true);
  });
});

describe('Crawler SSRF guard', () => {
  it('refuses a private seed unless allowPrivate is set', async () => {
    const server = await startServer({ '/': html(page('local', 'hello')) });
    const out = collector();
    const guarded = new Crawler({
      crawlId: 'guarded',
      seeds: [server.url('/', 'localhost')],
      store: new InMemoryFrontierStore(),
      options: {
        userAgent: USER_AGENT,
        allowedPorts: [server.port],
        useSitemaps: false,
        politenessDelayMs: 0,
      },
      callbacks: out.callbacks,
    });
    const summary = await guarded.run();
    expect(summary.pages).toBe(0);
    expect(out.errors).toMatchObject([{ code: 'blocked', willRetry: false }]);
    expect(server.requests).toHaveLength(0);

    const open = collector();
    const allowed = new Crawler({
      crawlId: 'allowed',
      seeds: [server.url('/', 'localhost')],
      store: new InMemoryFrontierStore(),
      options: {
        userAgent: USER_AGENT,
        allowPrivate: true,
        allowedPorts: [server.port],
        useSitemaps: false,
        politenessDelayMs: 0,
      },
      callbacks: open.callbacks,
    });
    expect((await allowed.run()).pages).toBe(1);
    expect(open.pages[0]!.title).toBe('local');
  });

  it('tries a redirect again later while its target host cannot give its robots.txt, and fetches it then', async () => {
    const server = await startServer({
      'hop.test/': html(page('hop', '<img src="/p.jpg" alt="P">')),
      'cdn-down.test/robots.txt': sequence([status(503)], text('User-agent: *\nAllow: /\n')),
      'cdn-down.test/p.jpg': bytes(bob, 'image/jpeg'),
    });
    server.route('hop.test/p.jpg', redirect(server.url('/p.jpg', 'cdn-down.test')));
    const out = collector();
    const crawler = new Crawler({
      crawlId: 'redirect-robots-down',
      seeds: [server.url('/', 'hop.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, robotsRetryMs: 50 }),
      callbacks: out.callbacks,
    });
    await crawler.run();
    const errors = out.errors.filter((e) => e.url.endsWith('/p.jpg'));
    expect(errors.map((e) => [e.code, e.willRetry])).toEqual([['robots', true]]);
    // Fetched once its robots.txt could be read: the image came from the CDN, under the address linked.
    expect(out.images.map(({ image }) => [image.url, image.finalUrl])).toEqual([
      [server.url('/p.jpg', 'hop.test'), server.url('/p.jpg', 'cdn-down.test')],
    ]);
  });

  it('keeps the pause of a host that other sites redirect to', async () => {
    const server = await startServer({
      'one.test/': html(page('one', '<img src="/a.jpg" alt="A"><img src="/b.jpg" alt="B">')),
      'two.test/': html(page('two', '<img src="/c.jpg" alt="C"><img src="/d.jpg" alt="D">')),
      'cdn.test/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n'),
    });
    for (const [site, name] of [
      ['one.test', 'a'],
      ['one.test', 'b'],
      ['two.test', 'c'],
      ['two.test', 'd'],
    ] as const) {
      server.route(`cdn.test/${name}.jpg`, bytes(bob, 'image/jpeg'));
      server.route(`${site}/${name}.jpg`, redirect(server.url(`/${name}.jpg`, 'cdn.test')));
    }
    const crawler = new Crawler({
      crawlId: 'redirect-politeness',
      seeds: [server.url('/', 'one.test'), server.url('/', 'two.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false }),
    });
    await crawler.run();
    const photos = server.requests
      .filter((r) => r.hostname === 'cdn.test' && r.path !== '/robots.txt')
      .sort((x, y) => x.start - y.start);
    expect(photos.map((r) => r.path).sort()).toEqual(['/a.jpg', '/b.jpg', '/c.jpg', '/d.jpg']);
    // The CDN's own Crawl-delay between its requests, though they came through two other sites' turns.
    for (let i = 1; i < photos.length; i++)
      expect(photos[i]!.start - photos[i - 1]!.end).toBeGreaterThanOrEqual(290);
  });

  it('refuses links and redirects to private addresses during a crawl', async () => {
    const server = await startServer({});
    server.route(
      '/',
      html(
        page(
          'home',
          `<a href="/jump">jump</a> <a href="http://169.254.169.254/latest/meta-data/">meta</a>
           <img src="http://10.0.0.8/photo.jpg">`,
        ),
      ),
    );
    server.route('/jump', redirect(`http://127.0.0.2:${server.port}/`));
    const out = collector();
    const crawler = new Crawler({
      crawlId: 'ssrf',
      seeds: [server.url('/', 'public.test')],
      store: new InMemoryFrontierStore(),
      options: testOptions(server, { useSitemaps: false, followExternalLinks: true }),
      callbacks: out.callbacks,
    });
    await crawler.run();
    const blocked = out.errors.filter((e) => e.code === 'blocked').map((e) => e.url);
    expect(blocked.sort()).toEqual(
      [
        'http://10.0.0.8/photo.jpg',
        'http://169.254.169.254/latest/meta-data/',
        server.url('/jump', 'public.test'),
      ].sort(),
    );
    expect(out.pages.map((p) => p.title)).toEqual(['home']);
  });
});
