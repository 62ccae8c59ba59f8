import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlDetail, CrawlView } from '../../src/services/crawl.service.ts';
import { TestServer, html, page, status, text } from '../crawler/test-server.ts';
import { createAdmin } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// While a site's robots.txt answers 5xx, the crawl's URLs of that site wait for it without failing: the
// crawl looks idle. The admin's crawl status (last error, in the list and in the detail) says why, over
// the job slices the wait spans, and says nothing more once robots.txt is read and the crawl goes on.

let t: TestApp;
let server: TestServer;
let adminCookie: string;
let robotsDown = true;
let releaseNext!: () => void;
const nextHeld = new Promise<void>((resolve) => (releaseNext = resolve));

beforeAll(async () => {
  server = await TestServer.start({
    '/robots.txt': (req, res) => (robotsDown ? status(503) : text('User-agent: *\nAllow: /\n'))(req, res),
    '/': html(page('home', '<a href="/next">next</a>')),
    // Held, so the crawl is seen going on after the wait, before it ends.
    '/next': async (req, res) => {
      await nextHeld;
      html(page('next', 'text'))(req, res);
    },
  });
  t = await createTestApp({
    crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 300, robotsRetryMs: 100 },
  });
  adminCookie = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
  await server?.close();
});

const get = async <T>(path: string): Promise<T> => {
  const response = await t.request({ method: 'GET', url: `/api${path}`, cookie: adminCookie });
  expect(response.statusCode).toBe(200);
  return response.json<T>();
};

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`a crawl waiting for robots.txt (${TEST_DATABASE_KIND})`, () => {
  it('says which robots.txt it waits for in its status, until it is read and the crawl goes on', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/admin/crawl',
      cookie: adminCookie,
      payload: { urls: [`http://127.0.0.1:${server.port}/`] },
    });
    expect(response.statusCode).toBe(202);
    const { id } = response.json<{ id: string }>();
    const host = `127.0.0.1:${server.port}`;

    const waiting = await until(
      'no robots.txt wait shown',
      () => get<CrawlDetail>(`/admin/crawls/${id}`),
      (detail) => detail.lastError !== null,
    );
    expect(waiting.status).toBe('RUNNING');
    expect(waiting.lastError).toMatch(
      new RegExp(`^Waiting for robots\\.txt of ${host.replace(/\./g, '\\.')} \\(HTTP 503 since `),
    );
    expect(waiting).toMatchObject({ pages: 0, errors: 0 });
    const listed = await get<CrawlView[]>('/admin/crawls');
    expect(listed.find((crawl) => crawl.id === id)?.lastError).toBe(waiting.lastError);

    // Still shown after the slice it was written in has ended (slices of 300 ms), while the wait goes on.
    const reads = server.hits('/robots.txt').length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(server.hits('/robots.txt').length).toBeGreaterThan(reads);
    expect((await get<CrawlDetail>(`/admin/crawls/${id}`)).lastError).toMatch(/^Waiting for robots\.txt of /);

    robotsDown = false;
    const going = await until(
      'robots.txt wait still shown',
      () => get<CrawlDetail>(`/admin/crawls/${id}`),
      (detail) => detail.lastError === null,
    );
    expect(going.status).toBe('RUNNING');
    await until(
      '/next not requested',
      async () => server.hits('/next').length,
      (hits) => hits > 0,
    );
    releaseNext();
    const done = await until(
      'crawl not done',
      () => get<CrawlDetail>(`/admin/crawls/${id}`),
      (detail) => detail.status === 'DONE',
    );
    expect(done).toMatchObject({ pages: 2, errors: 0, lastError: null });
  });
});
