import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bruteForceSearch } from '../../src/face/index/exact-rerank.ts';
import { PgvectorFaceIndex } from '../../src/face/index/pgvector-face-index.ts';
import {
  createPgvectorFaceIndexSchema,
  dropPgvectorTablesExcept,
  pgvectorTableFor,
} from '../../src/face/index/pgvector-face-index-sync.ts';
import { syntheticFaces } from './face-vectors.fixture.ts';

// pgvector in WASM builds HNSW slowly (see ARCHITECTURE.md §2): 1,500 faces keep
// this at seconds while still making the index, not a sequential scan, answer.
const DIMENSIONS = 128;
const faces = syntheticFaces(1500, DIMENSIONS, 5);
const queries = faces.queries(30);
const top10 = { limit: 10, minSimilarity: -1 };

let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create({ extensions: { vector } });
  // On a table this small the planner rightly prefers an exact scan; the tests are about the HNSW path.
  await db.exec('set enable_seqscan = off');
});
afterAll(async () => {
  await db.close();
});

describe.each(['f32', 'f16'] as const)('PgvectorFaceIndex (%s)', (quantization) => {
  let index: PgvectorFaceIndex;
  const table = `face_vector_${quantization}`;

  beforeAll(async () => {
    // A sparser, lower-effort graph than the default (m 16, ef_construction 32) builds four times as fast
    // and still finds the top 10 here.
    index = new PgvectorFaceIndex(db, {
      dimensions: DIMENSIONS,
      table,
      quantization,
      connectivity: 16,
      expansionAdd: 32,
    });
    await index.createSchema();
    await index.add(faces.entries);
    await index.createIndex();
  });

  it('stores every face', async () => {
    expect(await index.count()).toBe(faces.entries.length);
  });

  it('answers from the HNSW index', async () => {
    expect(await index.explainSearch(queries[0]!, 100)).toMatch(new RegExp(`Index Scan using ${table}_hnsw`));
  });

  it('returns the same top results as exact search', async () => {
    let found = 0;
    let sameFirst = 0;
    for (const query of queries) {
      const truth = bruteForceSearch(faces.entries, query, top10);
      const hits = await index.search(query, top10);
      const truthIds = new Set(truth.map((hit) => hit.faceId));
      found += hits.filter((hit) => truthIds.has(hit.faceId)).length;
      if (hits[0]?.faceId === truth[0]?.faceId) sameFirst++;
      // Scores come from the full-precision column whatever the index stores (pgvector sums in
      // float32, hence 4 digits).
      for (const hit of hits) {
        const expected = truth.find((t) => t.faceId === hit.faceId);
        if (expected) expect(hit.similarity).toBeCloseTo(expected.similarity, 4);
      }
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.97);
    expect(sameFirst).toBe(queries.length);
  });

  it('applies threshold and filter without starving', async () => {
    const query = faces.entries[0]!.vector;
    const thresholded = await index.search(query, { limit: 50, minSimilarity: 0.8 });
    expect(thresholded.map((h) => h.faceId)).toEqual(
      bruteForceSearch(faces.entries, query, { limit: 50, minSimilarity: 0.8 }).map((h) => h.faceId),
    );
    const filter = (faceId: number) => faceId % 41 === 0;
    const filtered = await index.search(query, { limit: 10, minSimilarity: -1, filter });
    expect(filtered).toHaveLength(10);
    expect(filtered.every((hit) => filter(hit.faceId))).toBe(true);
  });

  it('replaces and removes faces', async () => {
    const [first, second] = faces.entries;
    await index.add([{ faceId: first!.faceId, vector: second!.vector }]);
    const same = await index.search(second!.vector, { limit: 2, minSimilarity: 0.9999 });
    expect(same.map((h) => h.faceId).sort()).toEqual([first!.faceId, second!.faceId].sort());
    await index.remove([first!.faceId, 123_456_789]);
    expect(await index.count()).toBe(faces.entries.length - 1);
    const after = await index.search(second!.vector, { limit: 5, minSimilarity: -1 });
    expect(after.map((h) => h.faceId)).not.toContain(first!.faceId);
  });
});

describe('retired models', () => {
  it('lose their vector tables and bookkeeping rows; the kept model and other tables stay', async () => {
    const tables = async () =>
      (
        await db.query<{ tablename: string }>(
          "select tablename from pg_tables where tablename like 'face_vectors_%' order by tablename",
        )
      ).rows.map((row) => row.tablename);
    await createPgvectorFaceIndexSchema(db);
    for (const model of ['kept-model@2', 'retired-model@1']) {
      await db.query(`create table ${pgvectorTableFor(model)} (face_id bigint primary key)`);
      await db.query('insert into face_vector_tables values ($1, $2, 0)', [model, pgvectorTableFor(model)]);
    }
    expect(await tables()).toEqual(['face_vectors_kept_model_2', 'face_vectors_retired_model_1']);

    await dropPgvectorTablesExcept(db, 'kept-model@2');
    expect(await tables()).toEqual(['face_vectors_kept_model_2']);
    const rows = await db.query<{ model_id: string }>('select model_id from face_vector_tables');
    expect(rows.rows).toEqual([{ model_id: 'kept-model@2' }]);
  });
});
