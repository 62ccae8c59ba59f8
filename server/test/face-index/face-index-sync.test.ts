import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FaceIndexSync,
  applyFaceIndexChanges,
  buildFaceIndex,
  catchUpFaceIndex,
  rebuildFaceIndex,
} from '../../src/face/index/face-index-sync.ts';
import { FaceIndexStore } from '../../src/face/index/face-index-store.ts';
import { InMemoryFaceVectorSource } from '../../src/face/index/in-memory-face-vector-source.ts';
import { UsearchFaceIndex } from '../../src/face/index/usearch-face-index.ts';
import type { FaceVectorEntry } from '../../src/face/index/face-index.ts';
import { syntheticFaces } from './face-vectors.fixture.ts';

const DIMENSIONS = 128;
const options = { dimensions: DIMENSIONS };
const faces = syntheticFaces(1200, DIMENSIONS, 3).entries;

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'face-index-sync-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** The index holds exactly the source's faces: the count is exact, and every face can be found. */
async function expectInStep(index: UsearchFaceIndex, source: InMemoryFaceVectorSource): Promise<void> {
  expect(index.size).toBe(source.size);
  const unreachable: number[] = [];
  for (const { faceId, vector } of source.entries()) {
    const hits = await index.search(vector, {
      limit: 1,
      minSimilarity: 0.9999,
      filter: (id) => id === faceId,
    });
    if (hits[0]?.faceId !== faceId) unreachable.push(faceId);
  }
  expect(unreachable, 'faces in the index that a search cannot reach').toEqual([]);
}

function seeded(entries: readonly FaceVectorEntry[]): InMemoryFaceVectorSource {
  const source = new InMemoryFaceVectorSource();
  for (const { faceId, vector } of entries) source.upsert(faceId, vector);
  return source;
}

async function absent(index: UsearchFaceIndex, entry: FaceVectorEntry): Promise<boolean> {
  const hits = await index.search(entry.vector, { limit: 20, minSimilarity: -1 });
  return !hits.some((hit) => hit.faceId === entry.faceId);
}

describe('applying the change log', () => {
  it('applies adds and removes incrementally', async () => {
    const source = seeded(faces.slice(0, 300));
    const sync = new FaceIndexSync({ source, index: options });
    await sync.open();
    expect(sync.appliedSeq).toBe(300);
    await expectInStep(sync.index, source);

    for (const entry of faces.slice(300, 400)) source.upsert(entry.faceId, entry.vector);
    for (const entry of faces.slice(0, 50)) source.delete(entry.faceId);
    expect(await sync.refresh()).toBe(150);
    expect(sync.appliedSeq).toBe(450);
    await expectInStep(sync.index, source);
    expect(await absent(sync.index, faces[0]!)).toBe(true);
    expect(await sync.refresh()).toBe(0);
  });

  it('is idempotent: replaying the whole log changes nothing', async () => {
    const source = seeded(faces.slice(0, 200));
    for (const entry of faces.slice(0, 40)) source.delete(entry.faceId);
    source.upsert(faces[50]!.faceId, faces[60]!.vector);
    const index = UsearchFaceIndex.create(options, source);
    const all = await source.changesSince(0, 10_000);
    await applyFaceIndexChanges(index, all);
    await applyFaceIndexChanges(index, all);
    await applyFaceIndexChanges(index, all.slice(100));
    await expectInStep(index, source);
    // Replaying from the start in small batches, as after a crash before the position was kept.
    expect(await catchUpFaceIndex(index, source, 0, 7)).toEqual({ seq: 241, applied: 241 });
    await expectInStep(index, source);
  });

  it('does not index a face added and deleted between two polls', async () => {
    const source = seeded(faces.slice(0, 100));
    const sync = new FaceIndexSync({ source, index: options });
    await sync.open();
    source.upsert(faces[500]!.faceId, faces[500]!.vector);
    source.delete(faces[500]!.faceId);
    source.delete(faces[501]!.faceId); // never existed
    await sync.refresh();
    expect(await absent(sync.index, faces[500]!)).toBe(true);
    await expectInStep(sync.index, source);
  });

  it('builds correctly while faces change during the scan', async () => {
    const source = seeded(faces.slice(0, 1000));
    const scan = source.allVectors.bind(source);
    let batches = 0;
    // Between scan batches, change faces both behind and ahead of the scan.
    source.allVectors = async function* (batchSize: number) {
      for await (const batch of scan(batchSize)) {
        yield batch;
        batches++;
        source.delete(faces[batches]!.faceId);
        source.delete(faces[900 + batches]!.faceId);
        source.upsert(faces[1000 + batches]!.faceId, faces[1000 + batches]!.vector);
      }
    };
    const { index, seq } = await buildFaceIndex(source, options, 100);
    expect(batches).toBe(10);
    expect(seq).toBe(await source.latestSeq());
    await expectInStep(index, source);
  });
});

describe('snapshots and processes', () => {
  it('a writer saves snapshots and reopens from one, then catches up', async () => {
    const store = new FaceIndexStore(dir);
    const source = seeded(faces.slice(0, 500));
    const writer = new FaceIndexSync({ source, store, index: options, role: 'writer', saveAfterChanges: 50 });
    await writer.open();
    expect((await store.readManifest())?.seq).toBe(500);

    for (const entry of faces.slice(500, 560)) source.upsert(entry.faceId, entry.vector);
    await writer.refresh();
    const manifest = await store.readManifest();
    expect(manifest).toMatchObject({ seq: 560, count: 560, dimensions: DIMENSIONS, quantization: 'i8' });
    expect((await fs.readdir(dir)).filter((name) => name.endsWith('.usearch'))).toHaveLength(2);

    for (const entry of faces.slice(0, 10)) source.delete(entry.faceId);
    const restarted = new FaceIndexSync({ source, store, index: options, role: 'writer' });
    await restarted.open();
    expect(restarted.index.isViewed).toBe(false);
    expect(restarted.appliedSeq).toBe(570);
    await expectInStep(restarted.index, source);
  });

  it('a reader memory-maps the snapshot and moves to each newer one', async () => {
    const store = new FaceIndexStore(dir);
    const source = seeded(faces.slice(0, 400));
    await rebuildFaceIndex({ source, store, index: options, model: 'default' });

    const reader = new FaceIndexSync({ source, store, index: options, role: 'reader' });
    await reader.open();
    expect(reader.index.isViewed).toBe(true);
    expect(reader.appliedSeq).toBe(400);

    for (const entry of faces.slice(400, 450)) source.upsert(entry.faceId, entry.vector);
    for (const entry of faces.slice(0, 5)) source.delete(entry.faceId);
    await reader.refresh();
    expect(reader.index.pendingChanges).toBe(55);
    await expectInStep(reader.index, source);

    // The writer (here: a rebuild) publishes a newer snapshot; the reader swaps to it.
    await rebuildFaceIndex({ source, store, index: options, model: 'default' });
    source.upsert(faces[450]!.faceId, faces[450]!.vector);
    await reader.refresh();
    expect(reader.index.pendingChanges).toBe(1);
    expect(reader.appliedSeq).toBe(456);
    await expectInStep(reader.index, source);
  });

  it('rebuilds when the snapshot was made for another model or dimension', async () => {
    const store = new FaceIndexStore(dir);
    const source = seeded(faces.slice(0, 100));
    await rebuildFaceIndex({ source, store, index: options, model: 'old-model' });
    const sync = new FaceIndexSync({ source, store, index: options, role: 'writer', model: 'new-model' });
    await sync.open();
    expect((await store.readManifest())?.model).toBe('new-model');
    await expectInStep(sync.index, source);
  });

  it('polls on its own once started, and stops', async () => {
    const source = seeded(faces.slice(0, 50));
    const sync = new FaceIndexSync({ source, index: options, pollIntervalMs: 10 });
    await sync.open();
    sync.start();
    source.upsert(faces[60]!.faceId, faces[60]!.vector);
    const deadline = Date.now() + 2000;
    while (sync.appliedSeq < 51 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await sync.stop();
    expect(sync.appliedSeq).toBe(51);
    expect(sync.index.size).toBe(51);
  });
});
