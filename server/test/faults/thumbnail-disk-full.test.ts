import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { startFaultApp, type FaultApp } from '../support/fault-app.ts';
import { startWorkerProcess, until, type WorkerProcess } from '../support/worker-process.ts';

// A full disk while a crawl saves thumbnails (issue 8). The worker process (npm run worker) runs in its
// own mount namespace (`unshare`, no privileges needed) where DATA_DIR/thumbnails is a 4 KiB tmpfs that
// a filler file has filled: every thumbnail write fails with a real ENOSPC from the kernel. The test
// shows a clear error (logged, recorded on the crawl's frontier entries), no partial file left behind,
// no image, face or face-index-log row without its thumbnail; then the worker is restarted without the
// full disk and the same crawl indexes every image, each with its thumbnail file.

let fault: FaultApp;
let site: DemoSite;
let thumbnails: string;
const workers: WorkerProcess[] = [];

function startWorker(fullDisk: boolean): WorkerProcess {
  const worker = startWorkerProcess(
    {
      DATABASE_URL: fault.postgres.url,
      DATA_DIR: fault.dataDir,
      LOG_LEVEL: 'warn',
      THUMBNAILS_DIR: thumbnails,
    },
    fullDisk
      ? {
          wrap: [
            'unshare',
            '--user',
            '--map-root-user',
            '--mount',
            'sh',
            '-c',
            'mount -t tmpfs -o size=4k tmpfs "$THUMBNAILS_DIR" && head -c 4096 /dev/zero > "$THUMBNAILS_DIR/filler" && exec "$@"',
            'sh',
          ],
        }
      : {},
  );
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  fault = await startFaultApp('osint-fault-disk-');
  site = await startDemoSite({ port: 0 });
  thumbnails = path.join(fault.dataDir, 'thumbnails');
  await fs.mkdir(thumbnails, { recursive: true });
}, 60_000);

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await site?.close();
  await fault?.close();
});

const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
  Number((await query.execute(fault.database.db)).rows[0]!.n);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Image rows whose thumbnail file is missing or empty on the disk this process sees. */
async function imagesWithoutThumbnail(): Promise<string[]> {
  const rows = await fault.database.db.selectFrom('images').select(['thumbnail_path']).execute();
  const missing: string[] = [];
  for (const row of rows) {
    const size = row.thumbnail_path
      ? await fs.stat(path.join(fault.dataDir, row.thumbnail_path)).then(
          (s) => s.size,
          () => 0,
        )
      : 0;
    if (size === 0) missing.push(row.thumbnail_path ?? '(none)');
  }
  return missing;
}

const imageErrors = (crawlId: string) =>
  fault.database.db
    .selectFrom('crawl_frontier')
    .select(['url', 'state', 'attempts', 'last_error'])
    .where('crawl_id', '=', crawlId)
    .where('kind', '=', 'image')
    .where('last_error', 'is not', null)
    .execute();

describe('a full disk when saving thumbnails', () => {
  it('fails clearly, keeps the index consistent, and indexes the images once there is room again', async () => {
    const { id } = await fault.container.services.crawl.startCrawl({
      urls: site.urls,
      requestedBy: null,
      demo: site.crawlTarget,
    });
    const full = startWorker(true);
    const failures = await until(
      'thumbnail writes failing',
      () => imageErrors(id),
      (rows) => rows.length >= 2,
      90_000,
    );
    // The error names the thumbnail and the cause, and the image is queued to be tried again.
    for (const failure of failures) {
      expect(failure.last_error).toMatch(
        /^Could not save the thumbnail thumbnails\/[0-9a-f]{2}\/[0-9a-f]{64}\.jpg: ENOSPC: no space left on device/,
      );
    }
    expect(failures.some((f) => f.state === 'queued')).toBe(true);
    // Logged by the worker as well.
    expect(
      full.logs.some(
        (line) => line.msg === 'indexing failed' && String(line.err).includes('no space left on device'),
      ),
    ).toBe(true);
    // The full disk holds the filler only: no partial thumbnail (or temporary file) left to keep it full.
    expect(await filesUnder(`/proc/${full.child.pid}/root${thumbnails}`)).toEqual(['filler']);
    await full.kill('SIGTERM');

    // Consistent: nothing stored for an image whose thumbnail was not saved, so no face and no index
    // entry point at a missing file.
    expect(await imagesWithoutThumbnail()).toEqual([]);
    expect(
      await count(sql`select count(*)::int as n from faces f join images i on i.id = f.image_id
        where i.thumbnail_path is null`),
    ).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from face_index_log l
        where l.op = 'add' and not exists (select 1 from faces f where f.id = l.face_id)`),
    ).toBe(0);

    // Room again (a worker without the full disk): the same crawl retries the images and indexes them.
    startWorker(false);
    const crawl = await until(
      'crawl done',
      () =>
        fault.database.db
          .selectFrom('crawls')
          .select(['status', 'images', 'faces'])
          .where('public_id', '=', id)
          .executeTakeFirstOrThrow(),
      (c) => c.status === 'DONE',
      120_000,
    );
    expect(crawl.status).toBe('DONE');
    const images = await count(sql`select count(*)::int as n from images`);
    expect(images).toBeGreaterThan(5);
    expect(await imagesWithoutThumbnail()).toEqual([]);
    // Every image that failed on the full disk is indexed now; no entry failed for good.
    for (const failure of failures) {
      const entry = await fault.database.db
        .selectFrom('crawl_frontier')
        .select('state')
        .where('crawl_id', '=', id)
        .where('url', '=', failure.url)
        .executeTakeFirstOrThrow();
      expect(entry.state).toBe('done');
    }
    expect(
      await count(
        sql`select count(*)::int as n from crawl_frontier where crawl_id = ${id} and state = 'failed'`,
      ),
    ).toBe(0);
    const faces = await count(sql`select count(*)::int as n from faces`);
    expect(faces).toBeGreaterThan(5);
    expect(
      await count(sql`select count(distinct face_id)::int as n from face_index_log where op = 'add'`),
    ).toBe(faces);
    // One file per image, none temporary.
    const files = await filesUnder(thumbnails);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(files).toHaveLength(images);
    // As long as its own waits (90 s for the failures, 120 s for the crawl): a loaded machine needs them.
  }, 240_000);
});
