import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COURIER, DIGEST } from '../../src/demo/demo-content.ts';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { startFaultApp, type FaultApp } from '../support/fault-app.ts';

// A worker process (npm run worker) killed with SIGKILL in the middle of a crawl (issue 8): after a
// new worker starts, the crawl completes once — every page and image once, no face twice, one index
// entry per face, nothing left in the frontier. The job of the dead worker is taken over after
// JOB_STALE_AFTER_MS without a heartbeat (3 s here). Runs its own PostgreSQL, on either project.

const ROOT = path.resolve(import.meta.dirname, '../../..');
let fault: FaultApp;
let site: DemoSite;
const workers: ChildProcess[] = [];

function startWorker(): ChildProcess {
  const worker = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/src/worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: fault.postgres.url,
      DATA_DIR: fault.dataDir,
      // One machine: the outbox is where the test could read mail (production mode needs this said).
      MAIL_OUTBOX: '1',
      DEMO_DATA: '0',
      JOB_STALE_AFTER_MS: '3000',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(worker);
  return worker;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  fault = await startFaultApp('osint-fault-worker-');
  site = await startDemoSite({ port: 0 });
}, 60_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await site?.close();
  await fault?.close();
});

const crawlOf = (id: string) =>
  fault.database.db
    .selectFrom('crawls')
    .select(['id', 'status', 'pages'])
    .where('public_id', '=', id)
    .executeTakeFirstOrThrow();

describe('a worker killed in the middle of a crawl', () => {
  it('completes the crawl once after a new worker starts: nothing duplicated, nothing lost', async () => {
    const { id } = await fault.container.services.crawl.startCrawl({
      urls: site.urls,
      requestedBy: null,
      demo: site.crawlTarget,
    });
    const first = startWorker();
    await until(
      'crawl under way',
      () => crawlOf(id),
      (c) => c.status === 'RUNNING' && c.pages >= 2,
      120_000,
    );
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const killedAt = await crawlOf(id);
    expect(killedAt.status).toBe('RUNNING');
    const articlePages = COURIER.articles.length + DIGEST.articles.length + 2;
    expect(killedAt.pages).toBeLessThan(articlePages);

    startWorker();
    const done = await until(
      'crawl done',
      () => crawlOf(id),
      (c) => c.status === 'DONE',
      150_000,
    );
    expect(done.status).toBe('DONE');

    const db = fault.database.db;
    const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
      Number((await query.execute(db)).rows[0]!.n);
    // Every page of both sites once (home pages and articles).
    expect(await count(sql`select count(*)::int as n from pages`)).toBe(articlePages);
    // No face stored twice for one image, no image analysed twice, no occurrence twice.
    expect(
      await count(sql`select count(*)::int as n from (select image_id, box_x, box_y, box_width
        from faces group by 1, 2, 3, 4 having count(*) > 1) d`),
    ).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from (select content_hash from images group by 1
        having count(*) > 1) d`),
    ).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from (select page_id, image_id from image_occurrences
        group by 1, 2 having count(*) > 1) d`),
    ).toBe(0);
    // Every image the pages show was stored and analysed (nothing lost to the kill).
    expect(await count(sql`select count(*)::int as n from images where analyzed_at is null`)).toBe(0);
    const faces = await count(sql`select count(*)::int as n from faces`);
    expect(faces).toBeGreaterThan(5);
    // One 'add' in the change log per face, so every index follows the same faces once.
    expect(
      await count(sql`select count(*)::int as n from (select face_id from face_index_log where op = 'add'
        group by 1 having count(*) > 1) d`),
    ).toBe(0);
    expect(
      await count(sql`select count(distinct face_id)::int as n from face_index_log where op = 'add'`),
    ).toBe(faces);
    // The frontier is worked off, and the crawl's job ran to the end once (one DONE, none left running).
    expect(
      await count(sql`select count(*)::int as n from crawl_frontier where state in ('queued', 'claimed')`),
    ).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from jobs where queue = 'crawl.run' and status <> 'DONE'`),
    ).toBe(0);
    expect(await fault.container.services.faceIndex.size()).toBe(faces);
  });
});
