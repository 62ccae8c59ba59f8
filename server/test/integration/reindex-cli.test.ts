import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { snapshotChunkKey } from '../../src/face/index/face-index-publication.ts';
import { modelFolderName } from '../../src/face/index/face-index-store.ts';
import { FaceModelRepository } from '../../src/repositories/face-model.repository.ts';
import { modelOfPipeline } from '../../src/services/face-model.service.ts';
import { TestServer, type Handler } from '../crawler/test-server.ts';
import { insertIndexedImage } from '../support/fixtures.ts';
import { TEST_DATABASE_KIND, withClient } from '../support/test-database.ts';

// `npm run reindex` as a process: killed (SIGKILL) in the middle of a reindex, then stopped (SIGTERM, as
// Ctrl-C), run again, it continues from the image after the last one it stored (nothing stored twice),
// switches, and prints its progress
// (done/total, rate, ETA). On PGlite the command opens DATA_DIR's database itself (the server stopped);
// on PostgreSQL it gets DATABASE_URL. Images are fetched again from a local site (served slowly, so the
// kill lands in the middle); the index's active model is the old one and holds no face yet.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const OLD = modelOfPipeline('blazeface-dlib-1pass');
const NEW = modelOfPipeline('blazeface-dlib');
const IMAGES = 10;

let dataDir: string;
let databaseUrl = '';
let dropDatabase = async (): Promise<unknown> => undefined;
let site: TestServer;
const imagePaths: string[] = [];
/** An image path the site answers 503 for (its server down for now). */
let downPath: string | undefined;

async function openFixtureDatabase(): Promise<DatabaseHandle> {
  return openDatabase({ databaseUrl: databaseUrl || undefined, dataDir, poolSize: 2 });
}

interface Run {
  child: ReturnType<typeof spawn>;
  output: () => string;
  exited: Promise<number | null>;
}

function reindexCli(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/cli/reindex.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      CRAWL_TRUSTED_ADDRESSES: '127.0.0.1',
      CRAWL_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Images served so far (each request of an image path). */
const served = () => imagePaths.reduce((n, p) => n + site.hits(p).length, 0);

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'osint-reindex-cli-'));
  const samples = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
  const routes: Record<string, Handler> = {};
  const contents: Buffer[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const photo = await sharp(path.join(samples, `sample${(i % 6) + 1}.jpg`))
      .resize(i < 6 ? 640 : 560)
      .jpeg({ quality: 80 })
      .toBuffer();
    contents.push(photo);
    imagePaths.push(`/img/${i}.jpg`);
    // Slow answers: the reindex is still running when the test kills it.
    routes[`/img/${i}.jpg`] = (_req, res) => {
      if (imagePaths[i] === downPath) return void res.writeHead(503).end();
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo),
        300,
      );
    };
  }
  site = await TestServer.start(routes);

  if (TEST_DATABASE_KIND === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL!;
    const name = `test_${randomBytes(6).toString('hex')}`;
    await withClient(adminUrl, (client) => client.query(`create database ${name}`));
    dropDatabase = () => withClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  // What a crawl with the old model left: a crawl, a page, the images and where they were seen.
  const database = await openFixtureDatabase();
  try {
    const { db } = database;
    await migrateToLatest(db);
    await new FaceModelRepository(db).insertActiveIfNone(OLD.modelId, OLD.dimensions);
    await db
      .insertInto('crawls')
      .values({
        public_id: 'fixture',
        seeds: JSON.stringify([site.url('/')]),
        options: JSON.stringify({ allowedPorts: [site.port] }),
        status: 'DONE',
      })
      .execute();
    const pageRow = await db
      .insertInto('pages')
      .values({ url: site.url('/'), title: 'Fixture', text: '' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const [i, photo] of contents.entries()) {
      await insertIndexedImage(db, { bytes: photo, pageId: pageRow.id, url: site.url(imagePaths[i]!) });
    }
  } finally {
    await database.close();
  }
}, 120_000);

afterAll(async () => {
  await site?.close();
  await dropDatabase();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe(`npm run reindex (${TEST_DATABASE_KIND})`, () => {
  let doneAtKill = 0;
  let resumeArgs: string[] = [];

  it('killed in the middle, keeps what it stored and leaves the old model active', async () => {
    const run = reindexCli(['--model', 'blazeface-dlib']);
    // Killed once a few images went through (each takes 300 ms to arrive, then the analysis).
    for (const deadline = Date.now() + 90_000; served() < 5;) {
      expect(Date.now(), run.output()).toBeLessThan(deadline);
      expect(run.child.exitCode, run.output()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    run.child.kill('SIGKILL');
    await run.exited;
    expect(run.output()).toContain(`Moving the face index from ${OLD.modelId} to ${NEW.modelId}`);

    const database = await openFixtureDatabase();
    try {
      const models = new FaceModelRepository(database.db);
      expect((await models.findActive())?.modelId).toBe(OLD.modelId);
      const building = await models.findBuilding();
      expect(building?.modelId).toBe(NEW.modelId);
      doneAtKill = building!.imagesDone;
      expect(doneAtKill).toBeGreaterThanOrEqual(1);
      expect(doneAtKill).toBeLessThan(IMAGES);
      const faces = await database.db.selectFrom('faces').select(['image_id']).execute();
      expect(faces.every((face) => face.image_id <= building!.cursorImageId)).toBe(true);
    } finally {
      await database.close();
    }
  });

  it('run again and stopped with SIGTERM, finishes its image, says how to continue and exits 130', async () => {
    const servedBefore = served();
    const run = reindexCli(['--model', 'blazeface-dlib']);
    for (const deadline = Date.now() + 90_000; served() < servedBefore + 3;) {
      expect(Date.now(), run.output()).toBeLessThan(deadline);
      expect(run.child.exitCode, run.output()).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    run.child.kill('SIGTERM');
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toContain(`Resuming: ${doneAtKill} of ${IMAGES} images done.`);
    expect(run.output()).toContain('Stopping after the current image');
    const stoppedAt =
      /Stopped after (\d+) of 10 images; searches still use (\S+)\. Run npm run reindex( -- .+)? to continue\./.exec(
        run.output(),
      );
    expect(stoppedAt?.[2]).toBe(`${OLD.modelId}`);
    // The next run does what the message says: the same target, or the build would be thrown away.
    resumeArgs = (stoppedAt?.[3] ?? '').replace(' -- ', '').split(' ').filter(Boolean);
    expect(resumeArgs).toEqual(['--model', 'blazeface-dlib']);
    const database = await openFixtureDatabase();
    try {
      const building = await new FaceModelRepository(database.db).findBuilding();
      expect(building?.imagesDone).toBe(Number(stoppedAt![1]));
      expect(building!.imagesDone).toBeGreaterThan(doneAtKill);
      doneAtKill = building!.imagesDone;
    } finally {
      await database.close();
    }
  });

  it('run again, continues after the last stored image, switches and prints its progress', async () => {
    const servedBefore = served();
    // With DATABASE_URL snapshots are published in the database: the old model's (as a writer left it)
    // must be gone after the switch, the new model's published.
    const oldChunk = snapshotChunkKey(OLD.modelId, 'face-index-000000000001-0123abcd.usearch', 0);
    if (TEST_DATABASE_KIND === 'postgres') {
      const database = await openFixtureDatabase();
      try {
        await database.db
          .insertInto('stored_blobs')
          .values({ key: oldChunk, bytes: Buffer.from('x') })
          .execute();
        await database.db
          .insertInto('face_index_publications')
          .values({
            model_id: OLD.modelId,
            file: 'face-index-000000000001-0123abcd.usearch',
            seq: 1,
            face_count: 0,
            size_bytes: 1,
            chunk_bytes: 1,
            chunk_count: 1,
            dimensions: 128,
            quantization: 'i8',
            connectivity: 16,
            sha256: '0'.repeat(64),
          })
          .execute();
      } finally {
        await database.close();
      }
    }
    const run = reindexCli(resumeArgs);
    const code = await run.exited;
    const output = run.output();
    expect(code, output).toBe(0);
    expect(output).toContain(`Resuming: ${doneAtKill} of ${IMAGES} images done.`);
    expect(output).toMatch(new RegExp(`images ${IMAGES}/${IMAGES} \\(100\\.0 %\\)  [\\d.]+/s  ETA `));
    expect(output).toContain(
      `Switched to ${NEW.modelId}: ${IMAGES} images (${IMAGES - doneAtKill} in this run)`,
    );
    // Only the images not stored before the kill were fetched (and analysed) again.
    expect(served() - servedBefore).toBe(IMAGES - doneAtKill);

    const database = await openFixtureDatabase();
    try {
      const { db } = database;
      const models = await db
        .selectFrom('face_models')
        .select(['model_id', 'state', 'images_done'])
        .execute();
      expect(models.find((m) => m.model_id === NEW.modelId)).toMatchObject({
        state: 'active',
        images_done: IMAGES,
      });
      expect(models.find((m) => m.model_id === OLD.modelId)).toMatchObject({ state: 'retired' });
      const faces = await db.selectFrom('faces').select(['image_id', 'box_x', 'box_y', 'model_id']).execute();
      expect(faces.length).toBeGreaterThan(IMAGES);
      expect(faces.every((face) => face.model_id === NEW.modelId)).toBe(true);
      // Nothing stored twice: one row per face found.
      const keys = faces.map((f) => `${f.image_id} ${f.box_x} ${f.box_y}`);
      expect(new Set(keys).size).toBe(keys.length);
      const images = await db.selectFrom('images').select(['id', 'face_count']).execute();
      const perImage = (id: number) => faces.filter((f) => f.image_id === id).length;
      expect(images.every((image) => image.face_count === perImage(image.id))).toBe(true);
      const manifest = JSON.parse(
        await fs.readFile(
          path.join(dataDir, 'face-index', modelFolderName(NEW.modelId), 'face-index.json'),
          'utf8',
        ),
      ) as { model: string; file: string; count: number; dimensions: number };
      expect(manifest).toMatchObject({ model: NEW.modelId, count: faces.length, dimensions: 128 });
      const published = await db.selectFrom('face_index_publications').select(['model_id', 'file']).execute();
      const oldChunkLeft = await db
        .selectFrom('stored_blobs')
        .select('key')
        .where('key', '=', oldChunk)
        .execute();
      if (TEST_DATABASE_KIND === 'postgres') {
        expect(published).toEqual([{ model_id: NEW.modelId, file: manifest.file }]);
      } else {
        expect(published).toEqual([]); // the embedded mode publishes nothing
      }
      expect(oldChunkLeft).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('with the model current, rebuilds the snapshot as before', async () => {
    const run = reindexCli(['--model', 'blazeface-dlib']);
    const code = await run.exited;
    expect(code, run.output()).toBe(0);
    expect(run.output()).toContain(`Face model ${NEW.modelId} is current: rebuilding the index snapshot`);
    expect(run.output()).toMatch(/Face index rebuilt: \d+ faces \(blazeface\+dlib128-5pt@1, i8\)/);
  });

  it('waits for an image whose site does not answer, and switches without it only when told to', async () => {
    downPath = imagePaths[3];
    try {
      const back = ['--model', 'blazeface-dlib-1pass'];
      const waiting = reindexCli(back);
      expect(await waiting.exited, waiting.output()).toBe(75);
      expect(waiting.output()).toContain(
        `Not switched: 1 images could not be read again (their sites did not answer, with server errors or ` +
          `time-outs, or their analysis failed), so their faces could not be read with ${OLD.modelId}; ` +
          `searches still use ${NEW.modelId}. Run npm run reindex ` +
          `-- --model blazeface-dlib-1pass later to fetch them again, or npm run reindex -- --model ` +
          'blazeface-dlib-1pass --switch-without-unreachable to switch now',
      );
      const forced = reindexCli([...back, '--switch-without-unreachable']);
      expect(await forced.exited, forced.output()).toBe(0);
      expect(forced.output()).toContain(`Switched to ${OLD.modelId}: ${IMAGES} images (0 in this run), `);
      expect(forced.output()).toContain(', 1 images no longer available;');
    } finally {
      downPath = undefined;
    }
    const database = await openFixtureDatabase();
    try {
      const faces = await database.db.selectFrom('faces').select(['image_id', 'model_id']).execute();
      expect(faces.every((face) => face.model_id === OLD.modelId)).toBe(true);
      expect(new Set(faces.map((f) => f.image_id)).size).toBe(IMAGES - 1);
    } finally {
      await database.close();
    }
  });

  it('refuses an unknown pipeline with its usage', async () => {
    const run = reindexCli(['--model', 'nonsense']);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('Unknown pipeline "nonsense"');
    expect(run.output()).toContain('Usage: npm run reindex');
  });
});
