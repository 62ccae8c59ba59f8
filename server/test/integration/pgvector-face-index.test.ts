import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { bruteForceSearch, cosineSimilarity } from '../../src/face/index/exact-rerank.ts';
import { InMemoryFaceVectorSource } from '../../src/face/index/in-memory-face-vector-source.ts';
import { PgvectorFaceIndexSync, pgvectorTableFor } from '../../src/face/index/pgvector-face-index-sync.ts';
import { PgvectorFaceIndex } from '../../src/face/index/pgvector-face-index.ts';
import { FaceVectorRepository } from '../../src/repositories/face-vector.repository.ts';
import { WebIndexRepository } from '../../src/repositories/web-index.repository.ts';
import { kyselySqlClient } from '../../src/repositories/sql-client.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { syntheticFaces } from '../face-index/face-vectors.fixture.ts';
import { crawlDemoSites, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase, TEST_DATABASE_KIND, withClient } from '../support/test-database.ts';

/** Puts FACE_INDEX back as it was: other test files may run after this one in the same process. */
function restoreFaceIndexEnv(previous: string | undefined): void {
  if (previous === undefined) delete process.env.FACE_INDEX;
  else process.env.FACE_INDEX = previous;
}

// The face index on pgvector (FACE_INDEX=pgvector) on the real PostgreSQL server the suite runs: the
// extension created by the schema migration, the table following the change log, filtered and threshold
// searches against an exact scan, and a search through the product's API. pgvector is not part of Debian
// 12: `.ci/run` builds it from ../shared/vendor; without it these tests are skipped, saying so.

async function pgvectorMissing(): Promise<string | undefined> {
  if (TEST_DATABASE_KIND !== 'postgres') {
    return 'they need a PostgreSQL server (the server-postgres project runs them)';
  }
  const url = process.env.TEST_DATABASE_URL!;
  const available = await withClient(url, (client) =>
    client.query("select 1 from pg_available_extensions where name = 'vector'"),
  );
  return available.rowCount === 0
    ? 'the vector extension is not installed on the PostgreSQL server (.ci/run builds it from ../shared/vendor/pgvector-0.8.6.tar.gz)'
    : undefined;
}

const missing = await pgvectorMissing();
if (missing) console.warn(`SKIPPED: pgvector face-index tests: ${missing}`);

const MODEL = 'synthetic@1';
const DIMENSIONS = 128;

describe.skipIf(missing !== undefined)('pgvector face index on PostgreSQL', () => {
  let handle: DatabaseHandle;
  const previousEngine = process.env.FACE_INDEX;

  beforeAll(async () => {
    process.env.FACE_INDEX = 'pgvector';
    handle = await createTestDatabase();
  });

  afterAll(async () => {
    restoreFaceIndexEnv(previousEngine);
    await handle?.close();
  });

  it('the schema migration creates the extension only when FACE_INDEX=pgvector', async () => {
    const installed = kyselySqlClient(handle.db);
    const { rows } = await installed.query<{ extname: string }>(
      "select extname from pg_extension where extname = 'vector'",
    );
    expect(rows).toHaveLength(1);

    process.env.FACE_INDEX = 'usearch';
    const plain = await createTestDatabase();
    process.env.FACE_INDEX = 'pgvector';
    try {
      const none = await kyselySqlClient(plain.db).query(
        "select extname from pg_extension where extname = 'vector'",
      );
      expect(none.rows).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });

  it('builds the table from the faces, then follows adds and removes through the change log', async () => {
    const { entries, queries } = syntheticFaces(1_200, DIMENSIONS, 7);
    const source = new InMemoryFaceVectorSource();
    source.seed(entries.slice(0, 1_000));
    const db = kyselySqlClient(handle.db);
    const sync = new PgvectorFaceIndexSync({ db, source, model: MODEL, dimensions: DIMENSIONS });
    await sync.open();
    expect(await sync.index.count()).toBe(1_000);
    // A second process opening the same model finds the table built and builds nothing.
    const other = new PgvectorFaceIndexSync({ db, source, model: MODEL, dimensions: DIMENSIONS });
    await other.open();

    for (const entry of entries.slice(1_000)) source.upsert(entry.faceId, entry.vector);
    const removed = entries.slice(0, 50).map((entry) => entry.faceId);
    for (const faceId of removed) source.delete(faceId);
    // A face whose vector changed: the new vector replaces the old one.
    source.upsert(entries[60]!.faceId, entries[1_100]!.vector);

    // The other process catches the shared table up; this one then has nothing left to apply.
    const seq = await other.refresh();
    expect(seq).toBe(await source.latestSeq());
    expect(await sync.refresh()).toBe(seq);
    expect(await sync.index.count()).toBe(1_150);

    const query = queries(1)[0]!;
    const hits = await sync.index.search(query, { limit: 10, minSimilarity: -1 });
    expect(hits.map((hit) => hit.faceId)).toEqual(
      bruteForceSearch(source.entries(), query, { limit: 10, minSimilarity: -1 }).map((hit) => hit.faceId),
    );
    const gone = await sync.index.search(entries[0]!.vector, { limit: 5, minSimilarity: 0.99 });
    expect(gone.map((hit) => hit.faceId)).not.toContain(entries[0]!.faceId);
    const moved = await sync.index.search(entries[1_100]!.vector, { limit: 5, minSimilarity: 0.999 });
    expect(moved.map((hit) => hit.faceId).sort()).toEqual(
      [entries[60]!.faceId, entries[1_100]!.faceId].sort(),
    );
  });

  it('many searches catching up at once share the pool without running it dry', async () => {
    // The real faces table and change log, read through the pool as in the product.
    const model = 'synthetic-busy@1';
    const { entries } = syntheticFaces(300, DIMENSIONS, 17);
    const image = await handle.db
      .insertInto('images')
      .values({
        content_hash: 'pgvector-busy',
        phash: null,
        width: 100,
        height: 100,
        mime_type: 'image/jpeg',
        thumbnail_path: null,
        analyzed_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const store = (batch: typeof entries) =>
      new WebIndexRepository(handle.db).transaction(async (repository) => {
        await repository.lockFaceIndexLog();
        return repository.insertFaces(
          batch.map((entry) => ({
            imageId: image.id,
            box: { x: 0, y: 0, width: 50, height: 50 },
            score: 0.9,
            quality: 0.9,
            descriptor: entry.vector,
            modelId: model,
          })),
        );
      });
    await store(entries.slice(0, 50));
    const source = new FaceVectorRepository(handle.db, model);
    const db = kyselySqlClient(handle.db);
    const first = new PgvectorFaceIndexSync({ db, source, model, dimensions: DIMENSIONS });
    await first.open();
    for (let start = 50; start < entries.length; start += 50) await store(entries.slice(start, start + 50));

    // The test database's pool has 5 connections; twelve searches catch up at once. The one applying the
    // log reads it through the pool while the others wait: they must not hold every connection meanwhile.
    const syncs = Array.from(
      { length: 12 },
      () => new PgvectorFaceIndexSync({ db, source, model, dimensions: DIMENSIONS }),
    );
    const seqs = await Promise.all(syncs.map((sync) => sync.refresh()));
    expect(new Set(seqs)).toEqual(new Set([await source.latestSeq()]));
    expect(await first.index.count()).toBe(300);
  });

  it('a filtered search keeping 10 % of the faces finds what an exact scan finds', async () => {
    const { entries, queries } = syntheticFaces(4_000, DIMENSIONS, 11);
    const source = new InMemoryFaceVectorSource();
    source.seed(entries);
    const sync = new PgvectorFaceIndexSync({
      db: kyselySqlClient(handle.db),
      source,
      model: 'synthetic-filtered@1',
      dimensions: DIMENSIONS,
    });
    await sync.open();
    const filter = (faceId: number) => faceId % 10 === 3;
    let found = 0;
    let expected = 0;
    for (const query of queries(30)) {
      const exact = bruteForceSearch(entries, query, { limit: 10, minSimilarity: -1, filter });
      const hits = await sync.index.search(query, { limit: 10, minSimilarity: -1, filter });
      expect(hits.every((hit) => filter(hit.faceId))).toBe(true);
      const got = new Set(hits.map((hit) => hit.faceId));
      expected += exact.length;
      found += exact.filter((hit) => got.has(hit.faceId)).length;
    }
    // Only 400 faces pass: the iterative index scan must go far past the first candidates to find them.
    expect(expected).toBe(300);
    expect(found / expected).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps exactly the faces at or above the threshold, with their exact similarity', async () => {
    const { entries, queries } = syntheticFaces(2_000, DIMENSIONS, 13);
    const source = new InMemoryFaceVectorSource();
    source.seed(entries);
    const sync = new PgvectorFaceIndexSync({
      db: kyselySqlClient(handle.db),
      source,
      model: 'synthetic-threshold@1',
      dimensions: DIMENSIONS,
    });
    await sync.open();
    const vectors = new Map(entries.map((entry) => [entry.faceId, entry.vector]));
    let above = 0;
    for (const query of queries(20)) {
      const exact = bruteForceSearch(entries, query, { limit: 100, minSimilarity: 0.8 });
      const hits = await sync.index.search(query, { limit: 100, minSimilarity: 0.8 });
      expect(hits.map((hit) => hit.faceId)).toEqual(exact.map((hit) => hit.faceId));
      for (const hit of hits) {
        expect(hit.similarity).toBeGreaterThanOrEqual(0.8);
        expect(hit.similarity).toBeCloseTo(cosineSimilarity(query, vectors.get(hit.faceId)!), 5);
      }
      above += hits.length;
    }
    // Four in five queries are a new photo of an indexed person: the threshold lets their photos through.
    expect(above).toBeGreaterThan(20);
  });

  it('walks a share of the table set by its size and by the m its HNSW index was built with', async () => {
    const db = kyselySqlClient(handle.db);
    const fill = (table: string, from: number, to: number) =>
      db.query(
        `insert into ${table} select g, ('[' || cos(g) || ',' || sin(g) || ']')::vector ` +
          `from generate_series(${from}, ${to}) as g`,
      );
    for (const m of [16, 32]) {
      const table = `search_width_m${m}`;
      await db.query(`create table ${table} (face_id bigint primary key, embedding vector(2) not null)`);
      await fill(table, 1, 30_000);
      const built = new PgvectorFaceIndex(db, { dimensions: 2, table, connectivity: m });
      await built.createIndex();
      // 0.5 % of 30,000 faces with m = 16; with m = 32 0.2 %, under the floor of 100.
      expect(await built.minCandidates()).toBe(m === 16 ? 150 : 100);
    }
    // A process opening the table later reads the m it was built with, whatever it would build itself.
    const opened = new PgvectorFaceIndex(db, { dimensions: 2, table: 'search_width_m32', connectivity: 16 });
    const start = Date.now();
    expect(await opened.minCandidates(start)).toBe(100);
    await fill('search_width_m32', 30_001, 80_000);
    // The count is read again every few minutes, not for every search.
    expect(await opened.minCandidates(start + 1000)).toBe(100);
    expect(await opened.minCandidates(start + 5 * 60_000 + 1)).toBe(160);
    // A width asked for is kept as it is.
    const fixed = new PgvectorFaceIndex(db, {
      dimensions: 2,
      table: 'search_width_m32',
      search: { minCandidates: 40 },
    });
    expect(await fixed.minCandidates()).toBe(40);
  }, 120_000);

  it('the table name of a model is a valid identifier, distinct for distinct long ids', () => {
    expect(pgvectorTableFor('blazeface+dlib128-5pt@1')).toBe('face_vectors_blazeface_dlib128_5pt_1');
    const long = 'x'.repeat(80);
    expect(pgvectorTableFor(`${long}@1`).length).toBeLessThanOrEqual(63);
    expect(pgvectorTableFor(`${long}@1`)).not.toBe(pgvectorTableFor(`${long}@2`));
  });
});

describe.skipIf(missing !== undefined)('search through the API with FACE_INDEX=pgvector', () => {
  let t: TestApp;
  let site: DemoSite;
  let cookie: string;
  const previousEngine = process.env.FACE_INDEX;

  beforeAll(async () => {
    process.env.FACE_INDEX = 'pgvector';
    site = await startDemoSite({ port: 0 });
    t = await createTestApp({ faceIndex: 'pgvector' });
    const user = await createUser(t, { email: 'analyst@agency.example.org' });
    const now = Date.now();
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: user.organizationId,
        plan_type: 'SUBSCRIPTION',
        start_date: new Date(now - 86_400_000),
        end_date: new Date(now + 30 * 86_400_000),
        seat_limit: 3,
      })
      .execute();
    cookie = await login(t, 'analyst@agency.example.org');
  }, 120_000);

  afterAll(async () => {
    restoreFaceIndexEnv(previousEngine);
    await t?.close();
    await site?.close();
  });

  it('finds a crawled face from the pgvector table, and no longer after its face is deleted', async () => {
    await crawlDemoSites(t, site.crawlTarget);
    const photos = await renderDemoPhotos();
    const upload = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie,
      payload: { img: photos.get(DEMO_PHOTOS.marsh.file)!.toString('base64') },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const face = upload.json<{ faces: { hash: string }[] }>().faces[0]!.hash;
    const search = async () => {
      const response = await t.request({
        method: 'POST',
        url: '/api/search',
        cookie,
        payload: { faces: [face], type: 'OSINT' },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ results: { imageUrl: string | null }[] }>().results;
    };
    const results = await search();
    expect(results.some((result) => result.imageUrl?.endsWith(DEMO_PHOTOS.marsh.file))).toBe(true);

    // The index is the table in PostgreSQL: every face is there, and no usearch snapshot was written.
    const faces = await t.db.selectFrom('faces').select('id').execute();
    const table = pgvectorTableFor(await t.container.services.faceIndex.activeModelId());
    const { rows } = await kyselySqlClient(t.db).query<{ n: number }>(
      `select count(*)::int as n from ${table}`,
    );
    expect(rows[0]!.n).toBe(faces.length);
    await expect(fs.readdir(path.join(t.config.dataDir, 'face-index'))).rejects.toThrow();

    // Deleting the faces of the matched photo (as an opt-out does) logs their removal: the next search
    // no longer finds them.
    const marshFaces = await t.db
      .selectFrom('faces')
      .innerJoin('image_occurrences', 'image_occurrences.image_id', 'faces.image_id')
      .select('faces.id')
      .distinct()
      .where('image_occurrences.image_url', 'like', `%${DEMO_PHOTOS.marsh.file}`)
      .execute();
    expect(marshFaces.length).toBeGreaterThan(0);
    await new WebIndexRepository(t.db).transaction(async (repository) => {
      await repository.lockFaceIndexLog();
      await repository.deleteOptedOutFaces(marshFaces.map((row) => row.id));
    });
    const after = await search();
    expect(after.some((result) => result.imageUrl?.endsWith(DEMO_PHOTOS.marsh.file))).toBe(false);
  }, 240_000);
});

describe('FACE_INDEX setting', () => {
  it('is usearch by default, pgvector on request, and refuses anything else or pgvector without PostgreSQL', () => {
    expect(loadConfig({}).faceIndex).toBe('usearch');
    expect(loadConfig({ FACE_INDEX: 'pgvector', DATABASE_URL: 'postgres://db/osint' }).faceIndex).toBe(
      'pgvector',
    );
    expect(() => loadConfig({ FACE_INDEX: 'faiss' })).toThrow(
      'FACE_INDEX must be usearch or pgvector, not faiss',
    );
    expect(() => loadConfig({ FACE_INDEX: 'pgvector' })).toThrow(
      'FACE_INDEX=pgvector needs a PostgreSQL server (DATABASE_URL)',
    );
  });
});
