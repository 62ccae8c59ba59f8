import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaceIndexStore, modelFolderName } from '../../src/face/index/face-index-store.ts';
import { FaceIndexSync, rebuildFaceIndex } from '../../src/face/index/face-index-sync.ts';
import { InMemoryFaceVectorSource } from '../../src/face/index/in-memory-face-vector-source.ts';
import { syntheticFaces } from './face-vectors.fixture.ts';

// One snapshot folder per descriptor model (a reindex publishes the new model's index beside the one
// searches use), and the snapshot of the layout before (directly in face-index/) still opened.

const options = { dimensions: 128 };
const faces = syntheticFaces(200, 128, 5).entries;

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'face-index-models-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

function seeded(count: number): InMemoryFaceVectorSource {
  const source = new InMemoryFaceVectorSource();
  for (const { faceId, vector } of faces.slice(0, count)) source.upsert(faceId, vector);
  return source;
}

describe('face index snapshots per model', () => {
  it('keeps each model in its own folder, with its own manifest', async () => {
    const a = FaceIndexStore.forModel(root, 'model+a@1');
    const b = FaceIndexStore.forModel(root, 'model+b@1');
    expect(a.dir).toBe(path.join(root, 'model_a_1'));
    expect(modelFolderName('blazeface+dlib128-5pt@1')).toBe('blazeface_dlib128-5pt_1');
    await rebuildFaceIndex({ source: seeded(50), store: a, index: options, model: 'model+a@1' });
    await rebuildFaceIndex({ source: seeded(80), store: b, index: options, model: 'model+b@1' });
    expect(await a.readManifest()).toMatchObject({ model: 'model+a@1', count: 50 });
    expect(await b.readManifest()).toMatchObject({ model: 'model+b@1', count: 80 });

    await FaceIndexStore.removeModelsExcept(root, 'model+b@1');
    expect(await fs.readdir(root)).toEqual(['model_b_1']);
    expect(await a.readManifest()).toBeUndefined();
  });

  it('opens a snapshot of the old layout for its model, and replaces it at the first save', async () => {
    const source = seeded(120);
    await rebuildFaceIndex({ source, store: new FaceIndexStore(root), index: options, model: 'model@1' });
    const legacyFile = (await fs.readdir(root)).find((name) => name.endsWith('.usearch'))!;

    // Another model never sees it.
    expect(await FaceIndexStore.forModel(root, 'other@1').readManifest()).toBeUndefined();

    const store = FaceIndexStore.forModel(root, 'model@1');
    const reader = new FaceIndexSync({ source, store, index: options, role: 'reader', model: 'model@1' });
    await reader.open();
    expect(reader.index.isViewed).toBe(true); // the old snapshot, memory-mapped
    expect(await reader.index.count()).toBe(120);

    const writer = new FaceIndexSync({ source, store, index: options, role: 'writer', model: 'model@1' });
    await writer.open();
    await writer.save();
    expect((await fs.readdir(root)).sort()).toEqual(['model_1']);
    expect(await store.readManifest()).toMatchObject({ model: 'model@1', count: 120 });
    expect(legacyFile).toMatch(/^face-index-.*\.usearch$/);
    await reader.stop();
    await writer.stop();
  });
});
