import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import {
  FaceIndexPublication,
  snapshotChunkKey,
  type PublishedSnapshot,
} from '../../src/face/index/face-index-publication.ts';
import { FaceIndexStore } from '../../src/face/index/face-index-store.ts';
import {
  buildFaceIndex,
  FaceIndexSync,
  type FaceIndexSyncOptions,
} from '../../src/face/index/face-index-sync.ts';
import { FaceIndexPublicationRepository } from '../../src/repositories/face-index-publication.repository.ts';
import { FaceVectorRepository } from '../../src/repositories/face-vector.repository.ts';
import { WebIndexRepository } from '../../src/repositories/web-index.repository.ts';
import { syntheticFaces } from '../face-index/face-vectors.fixture.ts';
import { createTestDatabase, TEST_DATABASE_KIND } from '../support/test-database.ts';

// Face-index snapshots published in the database (issue 18): the writer uploads each snapshot it saves to
// stored_blobs in chunks with one publication row; a process on another machine (a DATA_DIR of its own)
// downloads it instead of building, catches up through the change log, and builds when the published
// snapshot cannot be used. Real database (PGlite and PostgreSQL), real snapshot files.

const MODEL = 'synthetic-published@1';
const DIMENSIONS = 128;
/** Small chunks, so that a snapshot of a few hundred faces spans several. */
const CHUNK_BYTES = 16 * 1024;

const { entries } = syntheticFaces(400, DIMENSIONS, 5);

let handle: DatabaseHandle;
let scratch: string;
let imageId: number;
let source: FaceVectorRepository;
let publication: FaceIndexPublication;
/** Database face id of each synthetic entry stored so far (entry index → id). */
const faceIds = new Map<number, number>();
const warnings: string[] = [];
const log = { info: () => undefined, warn: (_: object, message: string) => void warnings.push(message) };

async function storeFaces(from: number, to: number): Promise<void> {
  const ids = await new WebIndexRepository(handle.db).transaction(async (repository) => {
    await repository.lockFaceIndexLog();
    return repository.insertFaces(
      entries.slice(from, to).map((entry) => ({
        imageId,
        box: { x: 0, y: 0, width: 50, height: 50 },
        score: 0.9,
        quality: 0.9,
        descriptor: entry.vector,
        modelId: MODEL,
      })),
    );
  });
  ids.forEach((id, i) => faceIds.set(from + i, id));
}

async function removeFace(entry: number): Promise<void> {
  await new WebIndexRepository(handle.db).transaction(async (repository) => {
    await repository.lockFaceIndexLog();
    await repository.deleteOptedOutFaces([faceIds.get(entry)!]);
  });
}

/** The snapshot folder of each process started by `onMachine`. */
const storeOf = new Map<FaceIndexSync, FaceIndexStore>();

/** A process on a machine of its own: an empty DATA_DIR, the database shared. */
async function onMachine(role: 'writer' | 'reader', overrides: Partial<FaceIndexSyncOptions> = {}) {
  const dataDir = await fs.mkdtemp(path.join(scratch, `${role}-`));
  const store = FaceIndexStore.forModel(dataDir, overrides.model ?? MODEL);
  const sync = new FaceIndexSync({
    source,
    index: { dimensions: DIMENSIONS },
    store,
    publication,
    role,
    model: MODEL,
    log,
    onError: (error) => {
      throw error;
    },
    ...overrides,
  });
  storeOf.set(sync, store);
  return sync;
}

/** The face id the index ranks first for an entry's own vector (undefined when none passes 0.99). */
async function bestMatch(sync: FaceIndexSync, entry: number): Promise<number | undefined> {
  const hits = await sync.index.search(entries[entry]!.vector, { limit: 1, minSimilarity: 0.99 });
  return hits[0]?.faceId;
}

async function facesInDatabase(): Promise<number> {
  const row = await handle.db
    .selectFrom('faces')
    .where('model_id', '=', MODEL)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function publishedChunkKeys(): Promise<string[]> {
  const rows = await sql<{ key: string }>`
    select key from stored_blobs where key like 'face-index/%' order by key`.execute(handle.db);
  return rows.rows.map((row) => row.key);
}

const keysOf = (snapshot: PublishedSnapshot) =>
  Array.from({ length: snapshot.chunkCount }, (_, part) => snapshotChunkKey(MODEL, snapshot.file, part));

beforeAll(async () => {
  handle = await createTestDatabase();
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-publication-'));
  source = new FaceVectorRepository(handle.db, MODEL);
  publication = new FaceIndexPublication(new FaceIndexPublicationRepository(handle.db), CHUNK_BYTES);
  const image = await handle.db
    .insertInto('images')
    .values({ content_hash: 'published-snapshot', phash: null, analyzed_at: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  imageId = image.id;
  await storeFaces(0, 300);
});

afterAll(async () => {
  await handle?.close();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

describe(`face-index snapshots published in the ${TEST_DATABASE_KIND} database`, () => {
  let writer: FaceIndexSync;
  let second: PublishedSnapshot;

  it('the writer publishes each snapshot it saves: chunks, one row, and the previous chunks deleted', async () => {
    writer = await onMachine('writer');
    await writer.open();
    expect(writer.startedFrom).toBe('built');
    const firstManifest = (await writer.save())!;
    const first = (await publication.latest(MODEL))!;
    expect(first).toMatchObject({
      model: MODEL,
      file: firstManifest.file,
      seq: firstManifest.seq,
      count: 300,
      chunkBytes: CHUNK_BYTES,
      dimensions: DIMENSIONS,
      quantization: firstManifest.quantization,
      connectivity: firstManifest.connectivity,
    });
    const writerStore = storeOf.get(writer)!;
    const bytes = await fs.readFile(writerStore.pathOf(firstManifest));
    expect(first.sizeBytes).toBe(bytes.length);
    expect(first.chunkCount).toBe(Math.ceil(bytes.length / CHUNK_BYTES));
    expect(first.chunkCount).toBeGreaterThan(2);
    expect(first.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    // Exactly this file's chunks are stored (the snapshot saved at open was published, then replaced).
    expect(await publishedChunkKeys()).toEqual(keysOf(first));
    const chunks = await Promise.all(
      keysOf(first).map((key) =>
        handle.db.selectFrom('stored_blobs').select('bytes').where('key', '=', key).executeTakeFirstOrThrow(),
      ),
    );
    expect(Buffer.concat(chunks.map((c) => Buffer.from(c.bytes))).equals(bytes)).toBe(true);

    // Changes, then a second save: the row names the new file, and only its chunks remain.
    await storeFaces(300, 350);
    await removeFace(0);
    await writer.refresh();
    const secondManifest = (await writer.save())!;
    second = (await publication.latest(MODEL))!;
    expect(second.file).toBe(secondManifest.file);
    expect(second.file).not.toBe(first.file);
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(second.count).toBe(349);
    expect(await publishedChunkKeys()).toEqual(keysOf(second));
  });

  it('a publication never replaces a newer one (another writer, or a late upload)', async () => {
    const store = FaceIndexStore.forModel(await fs.mkdtemp(path.join(scratch, 'late-')), MODEL);
    const { index } = await buildFaceIndex(source, { dimensions: DIMENSIONS });
    const older = await store.save(index, second.seq - 1, MODEL);
    expect(await publication.publish(store, older)).toBeUndefined();
    expect((await publication.latest(MODEL))!.file).toBe(second.file);
    expect(await publishedChunkKeys()).toEqual(keysOf(second));
  });

  it('a reader with an empty DATA_DIR starts from the published snapshot and catches up through the log', async () => {
    // After the snapshot: one face added, one removed.
    await storeFaces(350, 351);
    await removeFace(1);
    const reader = await onMachine('reader');
    await reader.open();
    expect(reader.startedFrom).toBe('published snapshot');
    expect(warnings).toEqual([]);
    // The downloaded file is the published one, now this reader's own snapshot.
    const readerStore = storeOf.get(reader)!;
    const manifest = (await readerStore.readManifest())!;
    expect(manifest.file).toBe(second.file);
    expect(
      createHash('sha256')
        .update(await fs.readFile(readerStore.pathOf(manifest)))
        .digest('hex'),
    ).toBe(second.sha256);
    expect(reader.index.size).toBe(await facesInDatabase());
    expect(await bestMatch(reader, 350)).toBe(faceIds.get(350)); // added after the snapshot
    expect(await bestMatch(reader, 320)).toBe(faceIds.get(320)); // in the snapshot
    expect(await bestMatch(reader, 1)).not.toBe(faceIds.get(1)); // removed after the snapshot
    expect(await bestMatch(reader, 0)).not.toBe(faceIds.get(0)); // removed before it
    await reader.stop();
  });

  it('a running reader takes a newer published snapshot as it takes a newer local one', async () => {
    const reader = await onMachine('reader', { publicationCheckIntervalMs: 0 });
    await reader.open();
    const opened = reader.index;
    await storeFaces(351, 380);
    await writer.refresh();
    await writer.save();
    const third = (await publication.latest(MODEL))!;
    expect(third.seq).toBeGreaterThan(second.seq);
    const deadline = Date.now() + 10_000;
    while (reader.index === opened) {
      expect(Date.now(), 'the reader did not move to the newer publication').toBeLessThan(deadline);
      await reader.refresh();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const readerStore = storeOf.get(reader)!;
    expect((await readerStore.readManifest())!.file).toBe(third.file);
    expect(reader.index.size).toBe(await facesInDatabase());
    expect(await bestMatch(reader, 379)).toBe(faceIds.get(379));
    await reader.stop();
  });

  it('a snapshot of other vector settings or of another model is never used: the reader builds', async () => {
    const otherSettings = await onMachine('reader', {
      index: { dimensions: DIMENSIONS, quantization: 'f16' },
    });
    await otherSettings.open();
    expect(otherSettings.startedFrom).toBe('built');
    expect(await bestMatch(otherSettings, 379)).toBe(faceIds.get(379));
    await otherSettings.stop();

    // Another connectivity is no reason to rebuild: the graph keeps the one it was built with.
    const published = (await publication.latest(MODEL))!;
    const otherConnectivity = await onMachine('reader', {
      index: { dimensions: DIMENSIONS, connectivity: 8 },
    });
    await otherConnectivity.open();
    expect(otherConnectivity.startedFrom).toBe('published snapshot');
    expect(otherConnectivity.index.connectivity).toBe(published.connectivity);
    expect(otherConnectivity.index.connectivity).not.toBe(8);
    expect(await bestMatch(otherConnectivity, 379)).toBe(faceIds.get(379));
    await otherConnectivity.stop();

    const otherModel = await onMachine('reader', {
      source: new FaceVectorRepository(handle.db, 'other@1'),
      model: 'other@1',
    });
    await otherModel.open();
    expect(otherModel.startedFrom).toBe('built');
    expect(otherModel.index.size).toBe(0);
    await otherModel.stop();
    expect(warnings).toEqual([]);
  });

  it('after a move to another model, the other models’ publications are deleted with their chunks', async () => {
    const otherWriter = await onMachine('writer', {
      source: new FaceVectorRepository(handle.db, 'other@1'),
      model: 'other@1',
    });
    await otherWriter.open();
    await otherWriter.save();
    await otherWriter.stop();
    const other = (await publication.latest('other@1'))!;
    const current = (await publication.latest(MODEL))!;
    expect(await publishedChunkKeys()).toEqual(
      [
        ...keysOf(current),
        ...Array.from({ length: other.chunkCount }, (_, part) =>
          snapshotChunkKey('other@1', other.file, part),
        ),
      ].sort(),
    );
    await publication.removeModelsExcept(MODEL);
    expect(await publication.latest('other@1')).toBeUndefined();
    expect(await publication.latest(MODEL)).toEqual(current);
    expect(await publishedChunkKeys()).toEqual(keysOf(current));
  });

  it('a missing chunk or a wrong checksum: the reader says why, builds, and answers correctly', async () => {
    const published = (await publication.latest(MODEL))!;
    const [firstKey, secondKey] = keysOf(published);

    // A chunk whose bytes changed (same size): the checksum does not match.
    await sql`update stored_blobs set bytes = overlay(bytes placing '\\x00000000'::bytea from 100)
      where key = ${secondKey!}`.execute(handle.db);
    const corrupt = await onMachine('reader', { publicationCheckIntervalMs: 0 });
    await corrupt.open();
    expect(corrupt.startedFrom).toBe('built');
    expect(warnings.at(-1)).toMatch(/checksum does not match.*building from the database/);
    // While running, it does not download that publication again (it waits for the next one).
    const warned = warnings.length;
    await corrupt.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await corrupt.refresh();
    expect(corrupt.index.size).toBe(await facesInDatabase());
    expect(await bestMatch(corrupt, 379)).toBe(faceIds.get(379));
    expect(await bestMatch(corrupt, 1)).not.toBe(faceIds.get(1));
    // Nothing of the failed download is left in its DATA_DIR.
    const corruptStore = storeOf.get(corrupt)!;
    expect(await corruptStore.readManifest()).toBeUndefined();
    expect(await fs.readdir(corruptStore.dir).catch(() => [])).toEqual([]);
    await corrupt.stop();
    expect(warnings.length).toBe(warned);

    // A chunk gone.
    await sql`delete from stored_blobs where key = ${firstKey!}`.execute(handle.db);
    const missing = await onMachine('reader');
    await missing.open();
    expect(missing.startedFrom).toBe('built');
    expect(warnings.at(-1)).toMatch(/chunk 1 of \d+ .* is missing.*building from the database/);
    expect(missing.index.size).toBe(await facesInDatabase());
    expect(await bestMatch(missing, 350)).toBe(faceIds.get(350));
    await missing.stop();
  });

  afterAll(async () => {
    await writer?.stop();
  });
});
