import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlerUserAgent } from '../../src/crawler/crawl-options.ts';
import { Crawler, MAX_SITEMAPS_PER_HOST } from '../../src/crawler/crawler.ts';
import { InMemoryFrontierStore } from '../../src/crawler/frontier.ts';
import { bytes, resolveToLoopback, text, TestServer } from '../crawler/test-server.ts';

// Security round 2, item 3: robots.txt → a sitemap index → gzip files of ~150 KB that expand to 49 MB
// each froze the process that also answers the API for 1.2–2.6 s per file (a synchronous gunzip and
// parse of the whole text). Sitemaps are now gunzipped as a stream, parsed a slice at a time, read no
// further than the URLs the crawl can use, capped in size, in number per host and in nesting; the event
// loop is measured while a real crawl reads them from a real local HTTP server.

/** The longest the event loop may be held at once while the crawler reads hostile sitemaps. */
const MAX_BLOCK_MS = 50;
const EXPANDED_BYTES = 49 * 1024 * 1024;

/**
 * A gzip body expanding to ~49 MB: `unit` repeated inside `open`…`close`. Compressed a megabyte at a
 * time, so that no 49 MB string is left for the garbage collector to sweep during the measurement.
 */
function gzipBomb(open: string, unit: string, close: string): Promise<Buffer> {
  const megabyte = Buffer.from(unit.repeat(Math.floor((1024 * 1024) / unit.length)));
  const gzip = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  gzip.write(open);
  for (let written = 0; written < EXPANDED_BYTES; written += megabyte.length) gzip.write(megabyte);
  gzip.write(close);
  return new Promise<Buffer>((resolve, reject) => {
    gzip.on('end', () => resolve(Buffer.concat(out)));
    gzip.on('error', reject);
    gzip.end();
  });
}

/**
 * The three longest holds of the event loop while `work` ran, longest first. A hold is a 1 ms timer's
 * lateness, but no longer than the CPU time the process used meanwhile: on a busy shared machine the
 * operating system parks the process now and then for tens of milliseconds, which is lateness without
 * work of ours. A synchronous gunzip and parse of each hostile file (the defect) shows as ten holds of
 * 0.1–2.8 s of CPU.
 */
async function holdsDuring(work: () => Promise<unknown>): Promise<number[]> {
  const holds = [0, 0, 0];
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    holds.push(Math.min(now - last - 1, (cpu.user + cpu.system) / 1000));
    holds.sort((x, y) => y - x).splice(3);
    last = now;
    lastCpu = process.cpuUsage();
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return holds;
}

describe('sitemaps: hostile sitemaps never block the event loop', () => {
  let server: TestServer;
  const site = (path: string) => server.url(path, 'site.test');
  const many = (path: string) => server.url(path, 'many.test');
  const deep = (path: string) => server.url(path, 'deep.test');

  beforeAll(async () => {
    // Built once: 10 files, as in the report, half of them URLs without end, half blank space.
    const urlBomb = await gzipBomb('<urlset>', '<url><loc>https://site.test/page</loc></url>', '</urlset>');
    const blankBomb = await gzipBomb('<urlset>', ' '.repeat(1024), '</urlset>');
    server = await TestServer.start({});
    const index = (locs: string[]) =>
      text(
        `<sitemapindex>${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`,
        'application/xml',
      );
    server.route('site.test/robots.txt', text(`Sitemap: ${site('/sitemap-index.xml')}\n`));
    server.route(
      'site.test/sitemap-index.xml',
      index(Array.from({ length: 10 }, (_, i) => site(`/bomb-${i}.xml.gz`))),
    );
    for (let i = 0; i < 10; i++) {
      server.route(`site.test/bomb-${i}.xml.gz`, bytes(i % 2 ? blankBomb : urlBomb, 'application/gzip'));
    }
    // An index of 500 sitemaps: only MAX_SITEMAPS_PER_HOST of the host's are read.
    server.route('many.test/robots.txt', text(`Sitemap: ${many('/sitemap-index.xml')}\n`));
    server.route(
      'many.test/sitemap-index.xml',
      index(Array.from({ length: 500 }, (_, i) => many(`/small-${i}.xml`))),
    );
    // An index that lists sitemaps of 40 other hosts, each also reachable here, and one of its own.
    const foreign = (i: number) => server.url('/sitemap.xml', `foreign-${i}.test`);
    server.route(
      'wide.test/robots.txt',
      text(
        `Sitemap: ${server.url('/sitemap-index.xml', 'wide.test')}\n` +
          `Sitemap: ${server.url('/sitemaps/wide-index.xml', 'maps.test')}\n`,
      ),
    );
    server.route(
      'wide.test/sitemap-index.xml',
      index([...Array.from({ length: 40 }, (_, i) => foreign(i)), server.url('/own.xml', 'wide.test')]),
    );
    // An index on a sitemap host that the site's robots.txt names: its parts on that host are read, and
    // the site's pages they list.
    server.route(
      'maps.test/sitemaps/wide-index.xml',
      index([server.url('/sitemaps/wide-1.xml', 'maps.test'), foreign(41)]),
    );
    server.route(
      'maps.test/sitemaps/wide-1.xml',
      text(`<urlset><url><loc>${server.url('/listed', 'wide.test')}</loc></url></urlset>`, 'application/xml'),
    );
    // Indexes nested 6 deep: only the first levels are followed.
    server.route('deep.test/robots.txt', text(`Sitemap: ${deep('/level-0.xml')}\n`));
    for (let level = 0; level < 6; level++) {
      server.route(`deep.test/level-${level}.xml`, index([deep(`/level-${level + 1}.xml`)]));
    }
  });
  afterAll(() => server.close());

  function crawlerFor(seed: string): Crawler {
    return new Crawler({
      crawlId: `sitemaps-${seed}`,
      seeds: [seed],
      store: new InMemoryFrontierStore(),
      options: {
        userAgent: crawlerUserAgent('https://osint.example'),
        trustedAddresses: ['127.0.0.1'],
        allowedPorts: [server.port],
        resolveHost: resolveToLoopback(),
        politenessDelayMs: 0,
        connectTimeoutMs: 5_000,
        totalTimeoutMs: 30_000,
        maxRetries: 0,
        maxPages: 20,
      },
    });
  }

  it('reads 10 gzip bombs of 49 MB each without holding the event loop for more than 50 ms', async () => {
    const crawler = crawlerFor(site('/'));
    let summary: Awaited<ReturnType<Crawler['run']>> | undefined;
    const holds = await holdsDuring(async () => {
      summary = await crawler.run();
    });
    for (let i = 0; i < 10; i++) expect(server.hits(`/bomb-${i}.xml.gz`, 'site.test')).toHaveLength(1);
    // The index and the ten files were read (robots' /sitemap.xml probe is a 404, skipped).
    expect(summary!.sitemaps).toBe(11);
    const context = `longest holds: ${holds.map((ms) => ms.toFixed(1)).join(', ')} ms`;
    // One pause may be a collection of the garbage the ten bombs leave (a clean-clone run on a busy 2-core
    // machine measured 59.8 ms, then 27.8 and 24.2): the longest is allowed twice the limit, the next must
    // keep it. The defect fails both: each of the ten files held the loop 0.1–2.8 s.
    expect(holds[0], context).toBeLessThanOrEqual(2 * MAX_BLOCK_MS);
    expect(holds[1], context).toBeLessThanOrEqual(MAX_BLOCK_MS);
  }, 300_000);

  it(`reads at most ${MAX_SITEMAPS_PER_HOST} sitemaps of one host`, async () => {
    await crawlerFor(many('/')).run();
    const read = server.requests.filter((r) => r.hostname === 'many.test' && r.path.startsWith('/small-'));
    // robots.txt's index and the /sitemap.xml probe count too.
    expect(read.length).toBe(MAX_SITEMAPS_PER_HOST - 2);
  }, 120_000);

  it('reads only the sitemaps an index lists on the crawl’s own sites, none on other hosts', async () => {
    await crawlerFor(server.url('/', 'wide.test')).run();
    expect(server.requests.filter((r) => r.hostname.startsWith('foreign-'))).toEqual([]);
    expect(server.hits('/own.xml', 'wide.test')).toHaveLength(1);
    expect(server.hits('/sitemaps/wide-1.xml', 'maps.test')).toHaveLength(1);
    expect(server.hits('/listed', 'wide.test')).toHaveLength(1);
  }, 120_000);

  it('follows sitemap indexes only a few levels deep', async () => {
    await crawlerFor(deep('/')).run();
    const levels = server.requests
      .filter((r) => r.hostname === 'deep.test' && r.path.startsWith('/level-'))
      .map((r) => r.path);
    expect(levels).toEqual(['/level-0.xml', '/level-1.xml', '/level-2.xml', '/level-3.xml']);
  }, 120_000);
});
