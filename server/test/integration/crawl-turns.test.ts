import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestServer, html, page } from '../crawler/test-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// A process runs one crawl at a time, a slice (config.crawl.jobSliceMs) at a time. Two crawls queued
// together take turns: a crawl whose job was turned away while the other ran must get the next slice,
// instead of waiting until the other crawl has ended.

let t: TestApp;
let server: TestServer;

/** A site of a home page and `count` pages under `prefix`. */
function site(prefix: string, count: number): void {
  const links = Array.from({ length: count }, (_, i) => `<a href="${prefix}/p${i}">p${i}</a>`).join(' ');
  server.route(`${prefix}/`, html(page(`${prefix} home`, links)));
  for (let i = 0; i < count; i++) server.route(`${prefix}/p${i}`, html(page(`${prefix} p${i}`, 'text')));
}

beforeAll(async () => {
  server = await TestServer.start();
  // Short slices against a polite pace: each crawl needs several slices.
  t = await createTestApp({
    crawl: { politenessDelayMs: 100, trustedAddresses: ['127.0.0.1'], jobSliceMs: 400 },
  });
});

afterAll(async () => {
  await t?.close();
  await server?.close();
});

const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;

describe(`crawls queued together (${TEST_DATABASE_KIND})`, () => {
  it('take turns, one slice at a time, instead of one running to its end first', async () => {
    site('/first', 12);
    site('/second', 12);
    const service = t.container.services.crawl;
    const run = service.run.bind(service);
    const slices: Array<{ crawl: number; start: number; end: number }> = [];
    vi.spyOn(service, 'run').mockImplementation(async (crawlId, options) => {
      const start = Date.now();
      try {
        return await run(crawlId, options);
      } finally {
        slices.push({ crawl: crawlId, start, end: Date.now() });
      }
    });

    const first = await service.startCrawl({ urls: [url('/first/')], requestedBy: null });
    const second = await service.startCrawl({ urls: [url('/second/')], requestedBy: null });
    const deadline = Date.now() + 50_000;
    for (;;) {
      const rows = await t.db.selectFrom('crawls').select(['public_id', 'status', 'pages']).execute();
      if (rows.every((row) => row.status === 'DONE')) {
        expect(rows.map((row) => row.pages)).toEqual([13, 13]);
        break;
      }
      if (Date.now() > deadline) throw new Error(`crawls not done: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ids = await t.db
      .selectFrom('crawls')
      .select(['id', 'public_id'])
      .where('public_id', 'in', [first.id, second.id])
      .execute();
    const idOf = (publicId: string) => ids.find((row) => row.public_id === publicId)!.id;

    const worked = slices.filter((s) => s.end - s.start > 50).sort((x, y) => x.start - y.start);
    // One crawl at a time in the process, and the next slice (of either) starts as soon as one ends: no
    // crawl sits out the 15 s a turned-away job waits before it looks again.
    for (let i = 1; i < worked.length; i++) {
      expect(worked[i]!.start).toBeGreaterThanOrEqual(worked[i - 1]!.end);
      expect(worked[i]!.start - worked[i - 1]!.end).toBeLessThan(5_000);
    }
    // Turns: each crawl's slices alternate with the other's, rather than one crawl's all coming first.
    const order = worked.map((s) => (s.crawl === idOf(first.id) ? 'first' : 'second'));
    const turns = order.filter((crawl, i) => i === 0 || crawl !== order[i - 1]).length;
    expect(turns, order.join(' ')).toBeGreaterThanOrEqual(4);
  });
});
