import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { createUser, login } from '../support/fixtures.ts';
import { readOutbox } from '../support/outbox.ts';
import { startFaultApp, type FaultApp } from '../support/fault-app.ts';
import { TEST_ORIGIN, type TestApp } from '../support/test-app.ts';
import { startWorkerProcess, until, type WorkerProcess } from '../support/worker-process.ts';

// Worker processes (npm run worker) killed with SIGKILL in the middle of a saved-search save and of an
// AI data extraction (issue 8). A new worker takes the job over once its lock is stale
// (JOB_STALE_AFTER_MS = 3 s, no heartbeat from the dead one) and the work completes once: every result
// once, nothing lost, the done e-mail once. The kill is timed on what the database shows, not on sleeps:
// the save is killed while its copy transaction has written rows (pg_stat_activity), the extraction
// while its progress shows pages being read (a local page server answers each page in 150 ms, so the
// read takes seconds), and once more while the worker is queueing the done e-mail (held by a table lock
// the test takes). The searches are fixture rows (a real search would return a few dozen results; the
// save needs thousands to take long enough to be killed inside its transaction).

const SAVE_RESULTS = 3000;
const EXTRACTION_RESULTS = 20;
const PAGE_DELAY_MS = 150;
const OWNER = 'analyst@agency-a.example.org';

let fault: FaultApp;
let t: TestApp;
let cookie: string;
let owner: { id: number; organizationId: number };
let site: http.Server;
let siteUrl: string;
let probe: pg.Client;
const workers: WorkerProcess[] = [];

const PERSON = 'Amelia Okafor';
const COMPANION = 'Marco Vellini';

/** Pages the extraction reads again (the index does not hold them), each answered slowly. */
function pageHtml(n: number): string {
  return `<!doctype html><html lang="en"><head><title>Harbour report ${n}</title></head><body>
<article><h1>Harbour report ${n}</h1>
<figure><img src="/photos/${n}.jpg" alt="${PERSON}"><figcaption>Minister ${PERSON} at the harbour, day ${n}.</figcaption></figure>
<p>${PERSON}, the Minister of Transport, met ${COMPANION} at the harbour on day ${n}.</p>
<p>${PERSON} said the terminal would bring jobs to the region.</p></article></body></html>`;
}

function startSite(): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/api/rest_v1/page/summary/')) {
      // The Wikipedia REST API stand-in: the minister's summary.
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          type: 'standard',
          title: PERSON,
          description: 'Minister of Transport',
          extract: `${PERSON} is a politician who serves as Minister of Transport.`,
          content_urls: { desktop: { page: `${siteUrl}/wiki/Amelia_Okafor` } },
        }),
      );
      return;
    }
    const page = /^\/reports\/(\d+)\.html$/.exec(url);
    if (!page) {
      response.statusCode = 404;
      response.end();
      return;
    }
    setTimeout(() => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(pageHtml(Number(page[1])));
    }, PAGE_DELAY_MS);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({
    DATABASE_URL: fault.postgres.url,
    DATA_DIR: fault.dataDir,
    CRAWL_ALLOW_PRIVATE: '1',
    WIKIPEDIA_URL: siteUrl,
    PUBLIC_URL: TEST_ORIGIN,
  });
  workers.push(worker);
  return worker;
}

const count = async (query: ReturnType<typeof sql<{ n: number }>>) =>
  Number((await query.execute(t.db)).rows[0]!.n);

/**
 * A search of the owner's organization with `n` results over the stored images; `faceJpeg` is kept as its
 * face picture, which saves and extractions of it send back (as a reopened search does).
 */
async function fixtureSearch(n: number, imageIds: number[], onSite: boolean): Promise<string> {
  const hashedId = newPublicId();
  const search = await t.db
    .insertInto('searches')
    .values({
      hashed_id: hashedId,
      organization_id: owner.organizationId,
      user_id: owner.id,
      type: 'OSINT',
      duration_ms: 120,
      result_count: n,
      face_image: Buffer.from(faceJpeg, 'base64'),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rows = Array.from({ length: n }, (_, i) => ({
    search_id: search.id,
    record_hash: `r${hashedId.slice(0, 8)}-${i}`,
    rank: i + 1,
    image_id: imageIds[i % imageIds.length]!,
    group_key: `g${i % 50}`,
    similarity: 0.99 - i / (n * 2),
    image_url: onSite ? `${siteUrl}/photos/${i}.jpg` : `https://news.example.org/photos/${i}.jpg`,
    source_url: onSite ? `${siteUrl}/reports/${i}.html` : `https://news.example.org/reports/${i}.html`,
    source_title: `Harbour report ${i}`,
    crawled_at: new Date(Date.now() - i * 60_000),
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await t.db
      .insertInto('search_results')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return hashedId;
}

let faceJpeg: string;
let saveSearchHash: string;
let extractionSearchHash: string;

beforeAll(async () => {
  fault = await startFaultApp('osint-fault-save-');
  t = fault.t;
  site = await startSite();
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  probe = new pg.Client({ connectionString: fault.postgres.url });
  await probe.connect();

  owner = await createUser(t, { email: OWNER });
  await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: owner.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(Date.now() - 86_400_000),
      end_date: new Date(Date.now() + 30 * 86_400_000),
      seat_limit: 3,
    })
    .execute();
  cookie = await login(t, OWNER);

  // 40 indexed images with real thumbnails in the database, as the indexer stores them.
  const imageIds: number[] = [];
  for (let i = 0; i < 40; i++) {
    const thumbnail = await sharp({
      create: { width: 96, height: 96, channels: 3, background: { r: 40 + i * 5, g: 90, b: 160 } },
    })
      .jpeg()
      .toBuffer();
    const hash = `${i.toString(16).padStart(2, '0')}${'ab'.repeat(31)}`;
    const relative = path.posix.join('thumbnails', hash.slice(0, 2), `${hash}.jpg`);
    await t.container.blobs.put(relative, thumbnail);
    const row = await t.db
      .insertInto('images')
      .values({
        content_hash: hash,
        thumbnail_path: relative,
        width: 96,
        height: 96,
        mime_type: 'image/jpeg',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    imageIds.push(row.id);
  }
  faceJpeg = (
    await sharp({ create: { width: 160, height: 160, channels: 3, background: '#a07050' } })
      .jpeg()
      .toBuffer()
  ).toString('base64');
  saveSearchHash = await fixtureSearch(SAVE_RESULTS, imageIds, false);
  extractionSearchHash = await fixtureSearch(EXTRACTION_RESULTS, imageIds, true);
}, 120_000);

// Each test starts from no worker: one left over would take the next job before the test's own.
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.kill();
});

afterAll(async () => {
  await probe?.end();
  site?.close();
  await fault?.close();
});

/** Every job of the queue finished (DONE), none waiting, running or dead. */
async function queueSettled(queue: string) {
  return count(sql`select count(*)::int as n from jobs where queue = ${queue} and status <> 'DONE'`);
}

describe('a worker killed in the middle of a saved-search save', () => {
  it('is taken over by a new worker: COMPLETED with every result exactly once', async () => {
    const saved = await t.request({
      method: 'POST',
      url: '/api/search/save',
      cookie,
      payload: { name: 'Harbour', description: '', hash: saveSearchHash, image: faceJpeg },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const { id } = saved.json<{ id: number; hash: string }>();

    const first = startWorker();
    // The copy transaction has written rows (it holds a transaction id) and has not committed.
    await until(
      'copy transaction under way',
      async () =>
        (
          await probe.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
             where backend_xid is not null and query ilike '%saved_search_results%'`,
          )
        ).rows[0]!.n,
      (n) => n > 0,
      60_000,
      5,
    );
    await first.kill();
    const killedAt = await t.db
      .selectFrom('saved_searches')
      .select(['status', 'result_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(killedAt.status).toBe('PENDING');
    // The killed transaction left nothing behind.
    expect(
      await count(sql`select count(*)::int as n from saved_search_results where saved_search_id = ${id}`),
    ).toBe(0);

    startWorker();
    await until(
      'saved search completed',
      async () =>
        (
          await t.db
            .selectFrom('saved_searches')
            .select('status')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).status,
      (status) => status === 'COMPLETED',
      60_000,
    );
    await until(
      'save job done',
      () => queueSettled('saved-search.save'),
      (n) => n === 0,
      20_000,
    );

    const row = await t.db
      .selectFrom('saved_searches')
      .select(['result_count', 'search_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.result_count).toBe(SAVE_RESULTS);
    expect(
      await count(sql`select count(*)::int as n from saved_search_results where saved_search_id = ${id}`),
    ).toBe(SAVE_RESULTS);
    // No result twice, none missing: exactly the search's results, each with its thumbnail.
    expect(
      await count(sql`select count(distinct record_hash)::int as n from saved_search_results
        where saved_search_id = ${id}`),
    ).toBe(SAVE_RESULTS);
    expect(
      await count(sql`select count(*)::int as n from search_results s
        where s.search_id = ${row.search_id} and not exists (select 1 from saved_search_results r
          where r.saved_search_id = ${id} and r.record_hash = s.record_hash and r.rank = s.rank)`),
    ).toBe(0);
    expect(
      await count(sql`select count(*)::int as n from saved_search_results
        where saved_search_id = ${id} and thumbnail is null`),
    ).toBe(0);
    // The API shows it whole.
    const hash = saved.json<{ hash: string }>().hash;
    const detail = await t.request({ method: 'GET', url: `/api/saved-search/results/${hash}`, cookie });
    expect(detail.statusCode).toBe(200);
    expect(detail.json<{ numberOfResults: number; status: string }>()).toMatchObject({
      numberOfResults: SAVE_RESULTS,
      status: 'COMPLETED',
    });
    expect(
      await count(sql`select count(*)::int as n from jobs where queue = 'saved-search.save'
        and payload->>'savedSearchId' = ${String(id)}`),
    ).toBe(1);
  });
});

async function startExtraction(name: string): Promise<number> {
  const started = await t.request({
    method: 'POST',
    url: '/api/data-extractor',
    cookie,
    payload: { name, searchHash: extractionSearchHash, image: faceJpeg },
  });
  expect(started.statusCode, started.body).toBeLessThan(300);
  const row = await t.db
    .selectFrom('data_extractions')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

const extractionOf = (id: number) =>
  t.db
    .selectFrom('data_extractions')
    .select(['state', 'processed_count', 'result_count', 'best_name', 'notified_at', 'attempts'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

async function doneMailsFor(name: string) {
  return (await readOutbox(fault.dataDir)).filter(
    (m) => m.to.includes(OWNER) && m.subject.includes('extraction is ready') && m.raw.includes(name),
  );
}

async function expectExtractedOnce(id: number, name: string) {
  const done = await until(
    'extraction done and announced',
    () => extractionOf(id),
    (e) => e.state === 'DONE' && e.notified_at !== null,
    60_000,
  );
  await until(
    'extraction and mail jobs done',
    async () => (await queueSettled('data-extractor.run')) + (await queueSettled('mail.send')),
    (n) => n === 0,
    30_000,
  );
  expect(done.result_count).toBe(EXTRACTION_RESULTS);
  expect(done.best_name).toBe(PERSON);
  // Each result once: the search's results, no duplicates.
  expect(
    await count(sql`select count(*)::int as n from data_extraction_results where extraction_id = ${id}`),
  ).toBe(EXTRACTION_RESULTS);
  expect(
    await count(sql`select count(distinct record_hash)::int as n from data_extraction_results
      where extraction_id = ${id}`),
  ).toBe(EXTRACTION_RESULTS);
  // The pages were read again and analysed: each result names the minister and is seen with her companion, once.
  expect(
    await count(sql`select count(*)::int as n from data_extraction_results
      where extraction_id = ${id} and person_name = ${PERSON}`),
  ).toBe(EXTRACTION_RESULTS);
  expect(
    await count(sql`select count(*)::int as n from data_extraction_connections c
      join data_extraction_results r on r.id = c.result_id where r.extraction_id = ${id}`),
  ).toBe(EXTRACTION_RESULTS);
  expect(
    await count(sql`select count(distinct c.result_id)::int as n from data_extraction_connections c
      join data_extraction_results r on r.id = c.result_id
      where r.extraction_id = ${id} and c.name = ${COMPANION}`),
  ).toBe(EXTRACTION_RESULTS);
  expect(
    await count(sql`select count(*)::int as n from data_extraction_wikipedia where extraction_id = ${id}`),
  ).toBe(1);
  // The done e-mail went out exactly once.
  expect(await doneMailsFor(name)).toHaveLength(1);
}

describe('a worker killed in the middle of an AI data extraction', () => {
  it('is taken over while reading pages: DONE with each result, connection and Wikipedia row once, one e-mail', async () => {
    const name = 'Harbour minister';
    const id = await startExtraction(name);
    const first = startWorker();
    await until(
      'pages being read',
      () => extractionOf(id),
      (e) => e.state === 'PENDING' && e.processed_count >= 2,
      60_000,
      20,
    );
    await first.kill();
    const killedAt = await extractionOf(id);
    expect(killedAt.state).toBe('PENDING');
    expect(killedAt.processed_count).toBeLessThan(EXTRACTION_RESULTS);
    expect(
      await count(sql`select count(*)::int as n from data_extraction_results where extraction_id = ${id}`),
    ).toBe(0);

    startWorker();
    await expectExtractedOnce(id, name);
    // The dead worker's attempt and the new worker's.
    expect((await extractionOf(id)).attempts).toBe(2);
  });

  it('is taken over while announcing it: the done e-mail still goes out, once', async () => {
    const name = 'Harbour minister again';
    const id = await startExtraction(name);
    // Reads of users wait for this lock: the worker stops inside the announcement, after the results are
    // stored, while it looks up whom to tell and before any e-mail is queued.
    const locker = new pg.Client({ connectionString: fault.postgres.url });
    await locker.connect();
    const first = startWorker();
    try {
      await until(
        'extraction running',
        () => extractionOf(id),
        (e) => e.processed_count >= 1,
        60_000,
        20,
      );
      await locker.query('begin');
      await locker.query('lock table users in access exclusive mode');
      await until(
        'worker waiting to read the recipients',
        async () => {
          const extraction = await extractionOf(id);
          const waiting = await probe.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
             where wait_event_type = 'Lock' and query ilike '%from "users"%'`,
          );
          return { state: extraction.state, waiting: waiting.rows[0]!.n };
        },
        (s) => s.state === 'DONE' && s.waiting > 0,
        60_000,
        20,
      );
      await first.kill();
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
    expect(await doneMailsFor(name)).toHaveLength(0);

    startWorker();
    await expectExtractedOnce(id, name);
  });
});
