import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bruteForceSearch } from '../../src/face/index/exact-rerank.ts';
import { InMemoryFaceVectorSource } from '../../src/face/index/in-memory-face-vector-source.ts';
import { minCandidatesFor, UsearchFaceIndex } from '../../src/face/index/usearch-face-index.ts';
import type { FaceVectorEntry } from '../../src/face/index/face-index.ts';
import type { FaceIndexQuantization } from '../../src/face/index/usearch-face-index.ts';
import { syntheticFaces } from './face-vectors.fixture.ts';

const DIMENSIONS = 128;
const faces = syntheticFaces(5000, DIMENSIONS);
const queries = faces.queries(50);
const all = { limit: 10, minSimilarity: -1 };

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'face-index-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function sourceWith(entries: readonly FaceVectorEntry[]): InMemoryFaceVectorSource {
  const source = new InMemoryFaceVectorSource();
  source.seed(entries);
  return source;
}

async function recallAt10(index: UsearchFaceIndex, entries: readonly FaceVectorEntry[]): Promise<number> {
  let found = 0;
  for (const query of queries) {
    const truth = new Set(bruteForceSearch(entries, query, all).map((hit) => hit.faceId));
    const hits = await index.search(query, all);
    found += hits.filter((hit) => truth.has(hit.faceId)).length;
  }
  return found / (queries.length * 10);
}

describe('the width of a search', () => {
  it('walks 200 candidates in a small index and a share of a large one by its connectivity, up to 20,000', () => {
    // M = 32, the default: 0.2 %.
    expect(minCandidatesFor(0)).toBe(200);
    expect(minCandidatesFor(100_000)).toBe(200);
    expect(minCandidatesFor(200_000)).toBe(400);
    expect(minCandidatesFor(1_000_000)).toBe(2000);
    expect(minCandidatesFor(50_000_000)).toBe(20_000);
    // M = 16, the graphs built before: 0.5 %.
    expect(minCandidatesFor(40_000, 16)).toBe(200);
    expect(minCandidatesFor(200_000, 16)).toBe(1000);
    expect(minCandidatesFor(1_000_000, 16)).toBe(5000);
    expect(minCandidatesFor(50_000_000, 16)).toBe(20_000);
  });
});

describe('UsearchFaceIndex', () => {
  it.each<FaceIndexQuantization>(['f32', 'f16', 'i8'])(
    'finds what brute force finds (%s)',
    async (quantization) => {
      const source = sourceWith(faces.entries);
      const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS, quantization }, source);
      await index.add(faces.entries);
      expect(index.size).toBe(faces.entries.length);
      expect(await recallAt10(index, faces.entries)).toBeGreaterThanOrEqual(0.98);
    },
  );

  it('reaches every face it holds after a bulk add (one insert thread; several left some unreachable)', async () => {
    for (const seed of [1, 4, 7]) {
      const entries = syntheticFaces(1200, DIMENSIONS, seed).entries;
      const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, sourceWith(entries));
      await index.add(entries);
      const unreachable: number[] = [];
      for (const { faceId, vector } of entries) {
        const hits = await index.search(vector, {
          limit: 1,
          minSimilarity: 0.9999,
          filter: (id) => id === faceId,
        });
        if (hits[0]?.faceId !== faceId) unreachable.push(faceId);
      }
      expect(unreachable, `seed ${seed}`).toEqual([]);
    }
  });

  it('scores exactly and applies the threshold', async () => {
    const source = sourceWith(faces.entries);
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS, quantization: 'i8' }, source);
    await index.add(faces.entries);
    const query = faces.entries[0]!.vector;
    const options = { limit: 50, minSimilarity: 0.8 };
    const truth = bruteForceSearch(faces.entries, query, options);
    const hits = await index.search(query, options);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.similarity >= 0.8)).toBe(true);
    expect(hits).toEqual(truth);
  });

  it('adds, replaces and removes faces', async () => {
    const entries = faces.entries.slice(0, 1000);
    const source = sourceWith(entries);
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await index.add(entries);
    const target = entries[10]!;
    expect((await index.search(target.vector, { limit: 1, minSimilarity: 0.99 }))[0]?.faceId).toBe(
      target.faceId,
    );

    await index.remove([target.faceId, 999_999]);
    expect(index.size).toBe(999);
    const afterRemove = await index.search(target.vector, { limit: 5, minSimilarity: -1 });
    expect(afterRemove.map((hit) => hit.faceId)).not.toContain(target.faceId);

    // Re-adding the same id with another face's vector replaces it.
    const other = entries[20]!.vector;
    source.seed([{ faceId: target.faceId, vector: other }]);
    await index.add([{ faceId: target.faceId, vector: other }]);
    await index.add([{ faceId: target.faceId, vector: other }]);
    expect(index.size).toBe(1000);
    const ids = (await index.search(other, { limit: 2, minSimilarity: 0.999 })).map((hit) => hit.faceId);
    expect(ids.sort()).toEqual([target.faceId, entries[20]!.faceId].sort());
  });

  it('does not starve when a filter lets few faces through', async () => {
    const source = sourceWith(faces.entries);
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await index.add(faces.entries);
    const filter = (faceId: number) => faceId % 97 === 0;
    for (const query of queries.slice(0, 5)) {
      const options = { limit: 10, minSimilarity: -1, filter };
      const hits = await index.search(query, options);
      expect(hits).toHaveLength(10);
      expect(hits.every((hit) => filter(hit.faceId))).toBe(true);
      expect(hits.map((hit) => hit.faceId)).toEqual(
        bruteForceSearch(faces.entries, query, options).map((hit) => hit.faceId),
      );
    }
  });

  it('rejects vectors of the wrong dimension', async () => {
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, sourceWith([]));
    await expect(index.add([{ faceId: 1, vector: new Float32Array(64) }])).rejects.toThrow(/64-d/);
    await expect(index.search(new Float32Array(64), all)).rejects.toThrow(/64-d/);
    expect(await index.search(queries[0]!, all)).toEqual([]);
  });

  it.each(['load', 'view'] as const)('saves and reopens from a file (%s)', async (mode) => {
    const entries = faces.entries.slice(0, 2000);
    const source = sourceWith(entries);
    const built = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await built.add(entries);
    const file = path.join(dir, `reopen-${mode}.usearch`);
    built.saveTo(file);

    const reopened = UsearchFaceIndex.open(file, { dimensions: DIMENSIONS }, source, mode);
    expect(reopened.isViewed).toBe(mode === 'view');
    expect(reopened.size).toBe(2000);
    for (const query of queries.slice(0, 10)) {
      expect(await reopened.search(query, all)).toEqual(await built.search(query, all));
    }
    expect(() => UsearchFaceIndex.open(file, { dimensions: 64 }, source, mode)).toThrow(/128-d/);
  });

  it('keeps changes to a viewed file in a delta until the next snapshot', async () => {
    const entries = faces.entries.slice(0, 2000);
    const source = sourceWith(entries);
    const built = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await built.add(entries.slice(0, 1500));
    const file = path.join(dir, 'delta.usearch');
    built.saveTo(file);

    const viewed = UsearchFaceIndex.open(file, { dimensions: DIMENSIONS }, source, 'view');
    await viewed.add(entries.slice(1500));
    const removed = entries[5]!;
    await viewed.remove([removed.faceId]);
    const moved = entries[6]!;
    const movedTo = entries[1900]!.vector;
    source.seed([{ faceId: moved.faceId, vector: movedTo }]);
    await viewed.add([{ faceId: moved.faceId, vector: movedTo }]);
    expect(viewed.size).toBe(1999);
    expect(viewed.pendingChanges).toBe(503);
    expect(() => viewed.saveTo(path.join(dir, 'refused.usearch'))).toThrow(/load/);

    const current = source.entries().filter((entry) => entry.faceId !== removed.faceId);
    let found = 0;
    const probes = [...queries.slice(0, 20), removed.vector, moved.vector, movedTo];
    for (const query of probes) {
      const truth = bruteForceSearch(current, query, all).map((hit) => hit.faceId);
      const hits = (await viewed.search(query, all)).map((hit) => hit.faceId);
      expect(hits).not.toContain(removed.faceId);
      found += hits.filter((id) => truth.includes(id)).length;
    }
    expect(found / (probes.length * 10)).toBeGreaterThanOrEqual(0.95);
    const nearMoved = (await viewed.search(movedTo, { limit: 2, minSimilarity: 0.999 })).map((h) => h.faceId);
    expect(nearMoved.sort()).toEqual([moved.faceId, entries[1900]!.faceId].sort());
  });
});
