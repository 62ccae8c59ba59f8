import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bruteForceSearch } from '../../src/face/index/exact-rerank.ts';
import { FaceVectorCache } from '../../src/face/index/face-vector-cache.ts';
import { InMemoryFaceVectorSource } from '../../src/face/index/in-memory-face-vector-source.ts';
import { UsearchFaceIndex } from '../../src/face/index/usearch-face-index.ts';
import { syntheticFaces } from './face-vectors.fixture.ts';

const DIMENSIONS = 128;
const faces = syntheticFaces(2000, DIMENSIONS, 3);
const query = faces.queries(1)[0]!;
const top = { limit: 20, minSimilarity: -1 };

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'face-vector-cache-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function seeded(): InMemoryFaceVectorSource {
  const source = new InMemoryFaceVectorSource();
  source.seed(faces.entries);
  return source;
}

describe('the exact re-rank reads vectors from memory', () => {
  it('an index that added the faces never asks the database, and scores exactly', async () => {
    const source = seeded();
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await index.add(faces.entries);
    const hits = await index.search(query, top);
    expect(source.lookups).toBe(0);
    expect(hits).toEqual(bruteForceSearch(faces.entries, query, top));
  });

  it('a memory-mapped snapshot reads each vector from the database once', async () => {
    const source = seeded();
    const built = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await built.add(faces.entries);
    const file = path.join(dir, 'view.usearch');
    built.saveTo(file);
    const viewed = UsearchFaceIndex.open(file, { dimensions: DIMENSIONS }, source, 'view');
    const first = await viewed.search(query, top);
    expect(source.lookups).toBe(1);
    expect(await viewed.search(query, top)).toEqual(first);
    expect(source.lookups).toBe(1);
    expect(first).toEqual(bruteForceSearch(faces.entries, query, top));
  });

  it('follows replaced and removed faces', async () => {
    const source = seeded();
    const index = UsearchFaceIndex.create({ dimensions: DIMENSIONS }, source);
    await index.add(faces.entries);
    const [best, second] = await index.search(query, top);
    // The best face now looks like the query itself; the second is removed.
    source.upsert(best!.faceId, query);
    await index.add([{ faceId: best!.faceId, vector: query }]);
    source.delete(second!.faceId);
    await index.remove([second!.faceId]);
    const hits = await index.search(query, top);
    expect(hits[0]).toEqual({ faceId: best!.faceId, similarity: expect.closeTo(1, 5) });
    expect(hits.map((hit) => hit.faceId)).not.toContain(second!.faceId);
    expect(source.lookups).toBe(0);
  });

  it('does not keep a database read that a change overlapped', async () => {
    const source = seeded();
    const cache = new FaceVectorCache(100);
    const ids = [1, 2, 3];
    let release!: () => void;
    const slow = {
      vectorsByIds: async (faceIds: readonly number[]) => {
        await new Promise<void>((resolve) => (release = resolve));
        return source.vectorsByIds(faceIds);
      },
    };
    const reading = cache.lookup(ids, slow);
    // Face 2 is removed while the read is under way: what the read brings back must not be kept.
    cache.delete([2]);
    release();
    expect([...(await reading).keys()]).toEqual(ids);
    expect(cache.size).toBe(0);
    // Without a change meanwhile it is kept, and the next lookup does not read.
    expect((await cache.lookup(ids, source)).size).toBe(3);
    const before = source.lookups;
    await cache.lookup(ids, source);
    expect(source.lookups).toBe(before);
  });

  it('keeps at most its capacity, dropping the oldest first', async () => {
    const cache = new FaceVectorCache(2);
    cache.set(1, faces.entries[0]!.vector);
    cache.set(2, faces.entries[1]!.vector);
    cache.set(3, faces.entries[2]!.vector);
    expect(cache.size).toBe(2);
    const source = seeded();
    await cache.lookup([2, 3], source);
    expect(source.lookups).toBe(0);
    await cache.lookup([1], source);
    expect(source.lookups).toBe(1);
  });
});
