import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Config } from '../../src/config.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { AuditRepository } from '../../src/repositories/audit.repository.ts';
import {
  CrawlFrontierRepository,
  CrawlRepository,
} from '../../src/repositories/crawl-frontier.repository.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { CrawlService } from '../../src/services/crawl.service.ts';
import { TestServer, html, page, type Handler } from '../crawler/test-server.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// One crawl is run by one process at a time. A second run — `npm run crawl -- --resume` while a worker's
// job runs the crawl — used to be let in (resume did nothing on a RUNNING crawl, the run still started)
// and began by putting the first run's claimed URLs back in the queue: fetched twice, counts inflated.
// Each site below holds its page `a` (the first request for it) until the test lets it go, so the first
// run is caught with a URL claimed and a fetch under way.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');

let t: TestApp;
let server: TestServer;
const gates = new Map<string, () => void>();

/** A three-page site under `prefix`: `/`, then `a` (held on its first request) and `b`. */
function site(prefix: string): void {
  server.route(`${prefix}/`, html(page('Home', `<a href="${prefix}/a">A</a> <a href="${prefix}/b">B</a>`)));
  server.route(`${prefix}/b`, html(page('B', 'Page B')));
  let first = true;
  const held: Handler = async (req, res) => {
    if (first) {
      first = false;
      await new Promise<void>((resolve) => gates.set(prefix, resolve));
    }
    html(page('A', 'Page A'))(req, res);
  };
  server.route(`${prefix}/a`, held);
}

beforeAll(async () => {
  server = await TestServer.start();
  // One slice for the whole crawl: the worker holds the crawl from start to end.
  t = await createTestApp({
    crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 60_000 },
  });
});

afterAll(async () => {
  for (const release of gates.values()) release();
  await t?.close();
  await server?.close();
});

const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;
const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** What another process over the same database has: its own repositories and crawl service (as the CLI builds them). */
function otherProcess(overrides: Partial<Config> = {}) {
  const crawls = new CrawlRepository(t.db);
  const service = new CrawlService(
    { ...t.config, ...overrides },
    crawls,
    new CrawlFrontierRepository(t.db),
    t.container.services.indexer,
    new JobQueue(new JobRepository(t.db), undefined),
    new AuditRepository(t.db),
    quietLog,
  );
  return { crawls, service };
}

async function until<T>(what: string, read: () => Promise<T> | T, ok: (value: T) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const crawlRow = (publicId: string) =>
  t.db.selectFrom('crawls').selectAll().where('public_id', '=', publicId).executeTakeFirstOrThrow();
const frontierState = (publicId: string, p: string) =>
  t.db
    .selectFrom('crawl_frontier')
    .select('state')
    .where('crawl_id', '=', publicId)
    .where('url', '=', url(p))
    .executeTakeFirst()
    .then((row) => row?.state);

describe(`one crawl, one process at a time (${TEST_DATABASE_KIND})`, () => {
  it('refuses --resume of a crawl a worker runs, and takes none of its claimed URLs back', async () => {
    site('/one');
    const { id: publicId } = await t.container.services.crawl.startCrawl({
      urls: [url('/one/')],
      requestedBy: null,
    });
    await until(
      'worker fetching /one/a',
      () => server.hits('/one/a').length,
      (n) => n === 1,
    );
    const { id } = await crawlRow(publicId);
    expect(await frontierState(publicId, '/one/a')).toBe('claimed');

    // The CLI's `--resume` in another process while the worker's job runs the crawl.
    const cli = otherProcess();
    const refusal = await cli.service.resume(publicId).then(
      () => undefined,
      (error: unknown) => error as { statusCode: number; message: string },
    );
    expect(refusal?.statusCode).toBe(409);
    expect(refusal?.message).toContain(`Crawl ${publicId} is running in another process`);
    expect(refusal?.message).toMatch(/lease expires at \d{4}-\d\d-\d\dT[\d:.]+Z/);
    // Its run is refused too (a run started without resume() first, or racing it).
    expect(await cli.service.run(id)).toBe('busy');
    expect(await frontierState(publicId, '/one/a')).toBe('claimed');
    expect(await crawlRow(publicId)).toMatchObject({ status: 'RUNNING' });

    gates.get('/one')!();
    const done = await until(
      'crawl done',
      () => crawlRow(publicId),
      (row) => row.status === 'DONE',
    );
    // Every page fetched once and counted once; the lease given back with the end.
    for (const p of ['/one/', '/one/a', '/one/b']) expect(server.hits(p)).toHaveLength(1);
    expect(done).toMatchObject({ pages: 3, errors: 0, lease_owner: null, lease_expires_at: null });
  });

  it('lets a resume take the crawl over once the first run has gone silent past its lease', async () => {
    site('/two');
    // Long enough that a stall of the loaded test machine (renewals are due every quarter) cannot let it run out.
    const leaseMs = 4_000;
    const first = otherProcess({ jobStaleAfterMs: leaseMs });
    const created = await first.service.create({ urls: [url('/two/')], requestedBy: null });
    const publicId = created.public_id;
    const firstRun = first.service.run(created.id);
    await until(
      'first run fetching /two/a',
      () => server.hits('/two/a').length,
      (n) => n === 1,
    );

    // While the first run renews its lease, a second is refused however long it tries.
    const second = otherProcess({ jobStaleAfterMs: leaseMs });
    await expect(second.service.resume(publicId)).rejects.toMatchObject({ statusCode: 409 });
    await new Promise((resolve) => setTimeout(resolve, leaseMs * 1.5));
    await expect(second.service.resume(publicId)).rejects.toMatchObject({ statusCode: 409 });
    expect(await second.service.run(created.id)).toBe('busy');
    expect(await frontierState(publicId, '/two/a')).toBe('claimed');
    expect(server.hits('/two/a')).toHaveLength(1);

    // The first process stops reaching the database (as a process that died or hangs would): its lease
    // is no longer renewed. It does not know, and its fetch of /two/a is still under way.
    const silent = vi.spyOn(first.crawls, 'renewLease').mockResolvedValue(true);
    expect(await second.service.runningElsewhere(created.id)).toMatch(/running in another process/);

    // Once the lease has run out, the first run counts as gone: resume works and fetches /two/a again.
    const lease = await crawlRow(publicId);
    await until(
      'lease run out',
      () => second.service.runningElsewhere(created.id),
      (busy) => !busy,
      5_000,
    );
    // Not before it ran out (the database and this process share a clock here; 0.5 s for rounding).
    expect(Date.now()).toBeGreaterThanOrEqual(lease.lease_expires_at!.getTime() - 500);
    expect(await second.service.resume(publicId)).toBe(created.id);
    expect(await second.service.run(created.id)).toBe('done');
    expect(server.hits('/two/a')).toHaveLength(2);
    expect(server.hits('/two/b')).toHaveLength(1);
    expect(await crawlRow(publicId)).toMatchObject({ status: 'DONE', pages: 3, lease_owner: null });

    // The first process reaches the database again: its next renewal finds the crawl no longer its own,
    // and it stops without touching the crawl's end.
    silent.mockRestore();
    expect(await firstRun).toBe('busy');
    gates.get('/two')!();
    expect(await crawlRow(publicId)).toMatchObject({ status: 'DONE', pages: 3, lease_owner: null });
    expect(await frontierState(publicId, '/two/a')).toBe('done');
  });

  it('a run whose lease another run took claims and records no further URL, before any renewal tells it', async () => {
    site('/four');
    // A long lease: no renewal falls within the test, so only the fence can stop the first run.
    const first = otherProcess({ jobStaleAfterMs: 600_000 });
    const created = await first.service.create({ urls: [url('/four/')], requestedBy: null });
    const publicId = created.public_id;
    const firstRun = first.service.run(created.id);
    await until(
      'first run fetching /four/a',
      () => server.hits('/four/a').length,
      (n) => n === 1,
    );
    expect(await frontierState(publicId, '/four/b')).toBe('queued');

    // Another run takes the crawl over (as one does once a silent run's lease has run out), and puts what
    // the first run had claimed back in the queue, as its crawler does at its start.
    await t.db
      .updateTable('crawls')
      .set({ lease_owner: 'another-run', lease_expires_at: new Date(Date.now() + 600_000) })
      .where('public_id', '=', publicId)
      .execute();
    const taken = await crawlRow(publicId);
    expect(await new CrawlFrontierRepository(t.db).requeueClaimed(publicId)).toBe(1);

    // The first run's fetch of /four/a ends: it claims no other URL, and leaves /four/a as the new run has
    // it (queued, to be fetched by that run) instead of writing its own outcome over it. The pages it
    // fetched are counted once each; the crawl's end stays the other run's.
    gates.get('/four')!();
    expect(await firstRun).toBe('busy');
    expect(server.hits('/four/b')).toHaveLength(0);
    expect(await frontierState(publicId, '/four/b')).toBe('queued');
    expect(await frontierState(publicId, '/four/a')).toBe('queued');
    expect(await crawlRow(publicId)).toMatchObject({
      status: taken.status,
      pages: 2,
      lease_owner: 'another-run',
    });
  });

  // A real `npm run crawl` process needs a database two processes can open: PostgreSQL.
  it.runIf(TEST_DATABASE_KIND === 'postgres')(
    '`npm run crawl -- --resume` exits 1 saying the crawl runs elsewhere and until when',
    async () => {
      site('/three');
      const { id: publicId } = await t.container.services.crawl.startCrawl({
        urls: [url('/three/')],
        requestedBy: null,
      });
      await until(
        'worker fetching /three/a',
        () => server.hits('/three/a').length,
        (n) => n === 1,
      );

      const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(t.db);
      const databaseUrl = new URL(process.env.TEST_DATABASE_URL!);
      databaseUrl.pathname = `/${rows[0]!.name}`;
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-crawl-lease-'));
      try {
        const cli = await run(
          process.execPath,
          ['--import', 'tsx', 'server/src/cli/crawl.ts', '--resume', publicId],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              DATA_DIR: dataDir,
              DATABASE_URL: databaseUrl.toString(),
              CRAWL_ALLOW_PRIVATE: '1',
            },
            timeout: 50_000,
          },
        ).then(
          ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
          (error: { code: number; stdout: string; stderr: string }) => error,
        );
        expect(cli.code).toBe(1);
        expect(cli.stderr).toContain(`Crawl ${publicId} is running in another process`);
        expect(cli.stderr).toMatch(/lease expires at \d{4}-\d\d-\d\dT[\d:.]+Z/);
        expect(cli.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      } finally {
        await fs.rm(dataDir, { recursive: true, force: true });
      }
      expect(await frontierState(publicId, '/three/a')).toBe('claimed');
      expect(server.hits('/three/a')).toHaveLength(1);

      gates.get('/three')!();
      const done = await until(
        'crawl done',
        () => crawlRow(publicId),
        (row) => row.status === 'DONE',
      );
      for (const p of ['/three/', '/three/a', '/three/b']) expect(server.hits(p)).toHaveLength(1);
      expect(done).toMatchObject({ pages: 3, errors: 0 });
    },
  );
});
