import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { SHIPPED_MODEL } from '../../src/services/face-index.service.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line of a Prometheus text answer, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function unitVector(seed: number): Float32Array {
  const v = new Float32Array(SHIPPED_MODEL.dimensions);
  for (let i = 0; i < v.length; i++) v[i] = Math.sin(seed * 7 + i);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe(`metrics (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let admin: string;
  let user: string;

  const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
    const response = await t.request({ method: 'GET', url: '/api/metrics', headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    t = await createTestApp({ metricsToken: TOKEN });
    await t.container.jobRunner.stop();
    admin = await createAdmin(t);
    await createUser(t, { email: 'analyst@metrics.example.org' });
    user = await login(t, 'analyst@metrics.example.org');
  });
  afterAll(() => t.close());

  it('answers admins and the configured bearer token only, in the error shape otherwise', async () => {
    const asAdmin = await t.request({ method: 'GET', url: '/api/metrics', cookie: admin });
    expect(asAdmin.statusCode).toBe(200);
    expect(asAdmin.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(asAdmin.body).toContain('# TYPE osint_http_requests_total counter');
    expect(
      (await t.request({ method: 'GET', url: '/api/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
        .statusCode,
    ).toBe(200);
    for (const [cookie, authorization, status] of [
      [undefined, undefined, 401],
      [undefined, `Bearer ${TOKEN}x`, 401],
      [undefined, `Bearer ${TOKEN.slice(0, -1)}`, 401],
      [undefined, TOKEN, 401],
      [user, undefined, 403],
      [user, 'Bearer wrong', 403],
    ] as const) {
      const response = await t.request({
        method: 'GET',
        url: '/api/metrics',
        cookie,
        headers: authorization ? { authorization } : {},
      });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ statusCode: status });
      expect(response.body).not.toContain('osint_');
    }
  });

  it('refuses every token when METRICS_TOKEN is unset', async () => {
    const plain = await createTestApp();
    try {
      const response = await plain.request({
        method: 'GET',
        url: '/api/metrics',
        headers: { authorization: 'Bearer ' },
      });
      expect(response.statusCode).toBe(401);
    } finally {
      await plain.close();
    }
  });

  it('counts requests per route pattern and status, with latency histograms', async () => {
    const before = await scrape();
    const healthSeries = 'osint_http_requests_total{method="GET",route="/api/health",status="200"}';
    const countBefore = sample(before, healthSeries) ?? 0;
    for (let i = 0; i < 3; i++) await t.request({ method: 'GET', url: '/api/health' });
    await t.request({ method: 'GET', url: '/api/admin/users/123456', cookie: admin });
    await t.request({ method: 'GET', url: '/api/no/such/route/42' });
    const after = await scrape();
    expect(sample(after, healthSeries)).toBe(countBefore + 3);
    expect(
      sample(after, 'osint_http_requests_total{method="GET",route="/api/admin/users/:id",status="404"}'),
    ).toBe(1);
    expect(
      sample(after, 'osint_http_requests_total{method="GET",route="unmatched",status="404"}'),
    ).toBeGreaterThanOrEqual(1);
    // Ids never become label values.
    expect(after).not.toContain('123456');
    expect(after).not.toContain('/no/such/route');
    const count = sample(
      after,
      'osint_http_request_duration_seconds_count{method="GET",route="/api/health"}',
    )!;
    expect(count).toBeGreaterThanOrEqual(3);
    expect(
      sample(after, 'osint_http_request_duration_seconds_bucket{method="GET",route="/api/health",le="+Inf"}'),
    ).toBe(count);
    expect(
      sample(after, 'osint_http_request_duration_seconds_sum{method="GET",route="/api/health"}'),
    ).toBeGreaterThan(0);
    expect(
      sample(
        after,
        'osint_http_request_duration_seconds_bucket{method="GET",route="/api/health",le="0.005"}',
      ),
    ).toBeLessThanOrEqual(count);
  });

  it('reports queue depths per queue and state, crawl counters and index sizes from the database', async () => {
    const hour = 3_600_000;
    await t.container.queue.enqueue(QUEUES.sendMail, { to: 'a@b.c' }, { runAt: new Date(Date.now() + hour) });
    await t.container.queue.enqueue(QUEUES.sendMail, { to: 'd@e.f' }, { runAt: new Date(Date.now() + hour) });
    await t.db
      .insertInto('jobs')
      .values({
        queue: QUEUES.saveSearch,
        payload: JSON.stringify({}),
        status: 'DEAD',
        last_error: 'boom',
        attempts: 5,
      })
      .execute();
    await t.db
      .insertInto('crawls')
      .values([
        {
          public_id: 'c1',
          seeds: JSON.stringify(['https://a.example']),
          options: JSON.stringify({}),
          status: 'DONE',
          pages: 7,
          images: 5,
          faces: 3,
          errors: 1,
        },
        {
          public_id: 'c2',
          seeds: JSON.stringify(['https://b.example']),
          options: JSON.stringify({}),
          status: 'RUNNING',
          pages: 2,
          images: 1,
          faces: 1,
          errors: 0,
        },
      ])
      .execute();
    const webIndex = t.container.repositories.webIndex;
    await webIndex.transaction(async (tx) => {
      await tx.lockFaceIndexLog();
      const pageId = await tx.upsertPage({
        url: 'https://a.example/p',
        title: 'P',
        text: '',
        lang: null,
        contentHash: 'p1',
        crawledAt: new Date(),
      });
      const imageId = (await tx.insertImage({
        contentHash: 'img1',
        phash: null,
        width: 100,
        height: 100,
        mimeType: 'image/jpeg',
        thumbnailPath: null,
        faceCount: 2,
        indexedAt: new Date(),
      }))!;
      expect(pageId).toBeGreaterThan(0);
      await tx.insertFaces(
        [1, 2].map((seed) => ({
          imageId,
          box: { x: 0, y: 0, width: 50, height: 50 },
          score: 0.9,
          quality: 1,
          descriptor: unitVector(seed),
          modelId: SHIPPED_MODEL.modelId,
        })),
      );
    });

    const text = await scrape();
    expect(sample(text, `osint_jobs{queue="${QUEUES.sendMail}",state="QUEUED"}`)).toBe(2);
    expect(sample(text, `osint_jobs{queue="${QUEUES.saveSearch}",state="DEAD"}`)).toBe(1);
    expect(sample(text, `osint_jobs{queue="${QUEUES.runCrawl}",state="QUEUED"}`)).toBe(0);
    expect(sample(text, 'osint_crawls{state="RUNNING"}')).toBe(1);
    expect(sample(text, 'osint_crawls{state="DONE"}')).toBe(1);
    expect(sample(text, 'osint_crawl_pages')).toBe(9);
    expect(sample(text, 'osint_crawl_images')).toBe(6);
    expect(sample(text, 'osint_crawl_faces')).toBe(4);
    expect(sample(text, 'osint_crawl_errors')).toBe(1);
    expect(sample(text, 'osint_index_pages')).toBe(1);
    expect(sample(text, 'osint_index_images')).toBe(1);
    expect(sample(text, 'osint_index_faces')).toBe(2);
    expect(sample(text, 'osint_face_index_size')).toBe(2);
  });

  it('writes every line in the text format: comments, or a series and a number', async () => {
    const text = await scrape();
    for (const line of text.trimEnd().split('\n')) {
      expect(line).toMatch(
        /^(# (HELP|TYPE) \w+ .+|\w+(\{(\w+="(?:[^"\\]|\\.)*",?)+\})? (-?[\d.e+-]+|\+Inf|NaN))$/,
      );
    }
  });
});
