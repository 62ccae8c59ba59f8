import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { createFaceEngine, type FaceEngine } from '../../src/face/face-engine.ts';
import { FaceModelRepository } from '../../src/repositories/face-model.repository.ts';
import { WebIndexRepository } from '../../src/repositories/web-index.repository.ts';
import { FaceModelService, modelOfPipeline } from '../../src/services/face-model.service.ts';
import { FaceReindexService, type ReindexOutcome } from '../../src/services/face-reindex.service.ts';
import { insertIndexedImage } from '../support/fixtures.ts';
import { createTestDatabase, TEST_DATABASE_KIND } from '../support/test-database.ts';

// One image the face worker cannot get through (it crashes or times out on it, each time) used to fail
// `npm run reindex` at that image on every run: the cursor never passed it and the model never switched.
// It is now tried again before the switch, which waits for it as for an image whose site did not answer;
// once it analyses, the switch happens.

const OLD = modelOfPipeline('blazeface-dlib-1pass');
const NEW = modelOfPipeline('blazeface-dlib');
const SAMPLES = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');

let database: DatabaseHandle;
let dataDir: string;
const photos: Buffer[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-reindex-failure-'));
  const { db } = database;
  await new FaceModelRepository(db).insertActiveIfNone(OLD.modelId, OLD.dimensions);
  const page = await db
    .insertInto('pages')
    .values({ url: 'https://news.example.org/', title: 'News', text: '' })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const n of [1, 2, 3, 4, 5, 6]) {
    const photo = await sharp(path.join(SAMPLES, `sample${n}.jpg`))
      .resize(480)
      .jpeg()
      .toBuffer();
    photos.push(photo);
    await insertIndexedImage(db, { bytes: photo, pageId: page.id, url: `https://news.example.org/${n}.jpg` });
  }
}, 60_000);

afterAll(async () => {
  await database?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/**
 * The reindex as the command wires it, its engine failing on the second photo while `failing.now` says so,
 * or on every photo with `failing.all`; `fetched` records the images whose bytes it asked for.
 */
function reindex(failing: { now: boolean; all?: boolean }, fetched: number[] = []): FaceReindexService {
  const { db } = database;
  const models = new FaceModelRepository(db);
  const byHash = new Map(photos.map((photo) => [sha256Hex(photo), photo]));
  return new FaceReindexService({
    db,
    dataDir,
    models,
    faceModels: new FaceModelService(models),
    webIndex: new WebIndexRepository(db),
    images: {
      bytesOf: async (image) => {
        fetched.push(image.id);
        return byHash.get(image.contentHash);
      },
    },
    createEngine: async (model) => {
      const engine = await createFaceEngine({ pipeline: model.pipeline!, threads: 1 });
      return {
        ...engine,
        analyze: async (bytes, options) => {
          if (failing.all || (failing.now && bytes.equals(photos[1]!)))
            throw new Error('Face analysis timed out after 60000 ms');
          return engine.analyze(bytes, options);
        },
      } satisfies FaceEngine;
    },
    log: { info: () => undefined, warn: () => undefined },
  });
}

const facesOf = (modelId: string) =>
  database.db.selectFrom('faces').select('image_id').where('model_id', '=', modelId).execute();

describe(`a reindex whose face worker fails on one image (${TEST_DATABASE_KIND})`, () => {
  it('stores the other images, waits for that one without switching, and switches once it analyses', async () => {
    const failing = { now: true };
    const waiting = await reindex(failing).run(NEW);
    expect(waiting.status).toBe('waiting');
    expect((waiting as Extract<ReindexOutcome, { status: 'waiting' }>).progress).toMatchObject({
      done: 6,
      unreachable: 1,
      unavailable: 0,
    });
    expect(new Set((await facesOf(NEW.modelId)).map((f) => f.image_id)).size).toBe(5);
    expect((await new FaceModelService(new FaceModelRepository(database.db)).active()).modelId).toBe(
      OLD.modelId,
    );

    failing.now = false;
    const switched = await reindex(failing).run(NEW);
    expect(switched.status).toBe('switched');
    expect(new Set((await facesOf(NEW.modelId)).map((f) => f.image_id)).size).toBe(6);
  }, 180_000);

  it('stops with the engine’s error when it fails on image after image, instead of fetching them all', async () => {
    const fetched: number[] = [];
    await expect(reindex({ now: false, all: true }, fetched).run(OLD)).rejects.toThrow(/timed out/);
    // Five failures in a row (and the image fetched ahead meanwhile), not the whole index, then its retries.
    expect(fetched.length).toBeLessThanOrEqual(6);
    expect((await new FaceModelService(new FaceModelRepository(database.db)).active()).modelId).toBe(
      NEW.modelId,
    );
  }, 180_000);
});
