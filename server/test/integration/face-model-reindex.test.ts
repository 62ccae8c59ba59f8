import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import sharp from 'sharp';
import { matchBand } from '@osint/contract/match-score';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import { up as keepScoreModels } from '../../src/db/migrations/0045_score_models.ts';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { boxOverlap } from '../../src/face/face-box-overlap.ts';
import { createFaceEngine, type FaceEngine } from '../../src/face/face-engine.ts';
import { vectorFromBytes } from '../../src/face/index/face-index.ts';
import { modelFolderName } from '../../src/face/index/face-index-store.ts';
import { matchThresholdOf, similarity } from '../../src/face/similarity.ts';
import { CrawlRepository } from '../../src/repositories/crawl-frontier.repository.ts';
import { FaceModelRepository } from '../../src/repositories/face-model.repository.ts';
import { FaceWatchRepository } from '../../src/repositories/face-watch.repository.ts';
import { FaceVectorRepository } from '../../src/repositories/face-vector.repository.ts';
import { WebIndexRepository } from '../../src/repositories/web-index.repository.ts';
import { FaceModelMismatchError } from '../../src/services/face-index.service.ts';
import { modelOfPipeline, type FaceModel } from '../../src/services/face-model.service.ts';
import {
  FaceReindexService,
  type ReindexOutcome,
  type ReindexProgress,
} from '../../src/services/face-reindex.service.ts';
import { IndexedImageFetcher } from '../../src/services/indexed-image-fetcher.ts';
import { TestServer, bytes, html, page } from '../crawler/test-server.ts';
import { createAppCluster, type AppCluster } from '../support/app-cluster.ts';
import { createUser, crawlDemoSites, login, verifyLawEnforcement } from '../support/fixtures.ts';
import type { TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Face engine v2: moving an existing index to another descriptor model (`npm run reindex`'s service)
// while a worker instance and an API instance serve it. The demo sites (and one more small site, whose
// images can only be fetched again over HTTP) are indexed with `blazeface-dlib-1pass` as the "old"
// model, then reindexed to `blazeface-dlib`, with the real face engine; finally to the shipped 512-dimension
// model, so that any comparison of an old vector with a new one would fail loudly.

const GONE = 'The selected face is no longer available. Please upload the photo again.';
const OLD = modelOfPipeline('blazeface-dlib-1pass');
const NEW = modelOfPipeline('blazeface-dlib');
/** The shipped 512-dimension model, replacing the 128-dimension ones. */
const WIDE: FaceModel = modelOfPipeline('blazeface-mfn512');

interface SearchAnswer {
  results: { imageUrl: string | null; similarity: number; scoreModel: string | null }[];
  numberOfResults: number;
  searchHash: string;
}

let cluster: AppCluster;
let worker: TestApp;
let api: TestApp;
let demo: DemoSite;
let site: TestServer;
let photos: Map<string, Buffer>;
let analyst: string;
let analystUser: { id: number; organizationId: number };
let admin: string;
/** Served by the small site while it is crawled; afterwards its address serves other bytes. */
let changingPhoto: Buffer;
let changed = false;
/** While true, the small site answers 503 for its own photo (a site down for a while during a reindex). */
let siteDown = false;

async function uploadFaces(on: TestApp, cookie: string, photo: Buffer): Promise<string[]> {
  const response = await on.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie,
    payload: { img: photo.toString('base64') },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ faces: { hash: string }[] }>().faces.map((face) => face.hash);
}

function search(on: TestApp, cookie: string, faces: string[]) {
  return on.request({ method: 'POST', url: '/api/search', cookie, payload: { faces, type: 'OSINT' } });
}

async function foundImages(on: TestApp, face: string): Promise<string[]> {
  const response = await search(on, analyst, [face]);
  expect(response.statusCode, response.body).toBe(200);
  return [...new Set(response.json<SearchAnswer>().results.map((r) => r.imageUrl!))].sort();
}

/** An alert of a watch on an indexed face, as the matcher raises one (the tests set up their own). */
const insertAlert = (alert: {
  watchId: number;
  organizationId: number;
  face: { id: number; image_id: number };
  scoreModel: string;
}) =>
  worker.db
    .insertInto('face_alerts')
    .values({
      watch_id: alert.watchId,
      organization_id: alert.organizationId,
      face_id: alert.face.id,
      image_id: alert.face.image_id,
      similarity: 0.9,
      score_model_id: alert.scoreModel,
      image_url: `http://demo.test/photo-${alert.face.image_id}.jpg`,
      source_url: 'http://demo.test/',
      first_indexed_at: new Date(),
      face_box_x: 1,
      face_box_y: 1,
      face_box_width: 50,
      face_box_height: 50,
      log_seq: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

const facesOfModel = (modelId: string) =>
  worker.db.selectFrom('faces').selectAll().where('model_id', '=', modelId).orderBy('id').execute();

const imageOf = (file: string) =>
  worker.db
    .selectFrom('images')
    .selectAll()
    .where('content_hash', '=', sha256Hex(photos.get(file)!))
    .executeTakeFirstOrThrow();

/**
 * The reindex service as `npm run reindex` wires it, over the worker's database; its engines count the images
 * they analyse per model. `beforeAnalyze` holds each analysis until it resolves (a test's search that must finish before the switch).
 */
function reindexService(
  analysed: Map<string, number>,
  beforeAnalyze: () => Promise<unknown> = () => Promise.resolve(),
): FaceReindexService {
  const db = worker.db;
  const count = (engine: FaceEngine): FaceEngine => ({
    ...engine,
    analyze: async (image, options) => {
      await beforeAnalyze();
      analysed.set(engine.modelId, (analysed.get(engine.modelId) ?? 0) + 1);
      return engine.analyze(image, options);
    },
  });
  return new FaceReindexService({
    db,
    dataDir: cluster.dataDir,
    models: new FaceModelRepository(db),
    faceModels: worker.container.services.faceModels,
    webIndex: new WebIndexRepository(db),
    images: new IndexedImageFetcher(worker.config, new CrawlRepository(db), worker.app.log, renderDemoPhotos),
    createEngine: async (model) => count(await createFaceEngine({ pipeline: model.pipeline!, threads: 1 })),
    log: { info: () => undefined, warn: () => undefined },
  });
}

beforeAll(async () => {
  demo = await startDemoSite({ port: 0 });
  photos = await renderDemoPhotos();
  const samples = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
  // A photo only this site shows (other bytes than every demo photo), and one whose address will serve
  // other bytes by the time of the reindex.
  const ownPhoto = await sharp(path.join(samples, 'sample2.jpg'))
    .resize(700)
    .jpeg({ quality: 80 })
    .toBuffer();
  changingPhoto = await sharp(path.join(samples, 'sample6.jpg')).resize(700).jpeg({ quality: 80 }).toBuffer();
  const changedPhoto = await sharp(changingPhoto).flop().jpeg({ quality: 80 }).toBuffer();
  site = await TestServer.start({
    '/': html(
      page('Elsewhere', '<img src="/img/own.jpg" alt="Own"><img src="/img/changing.jpg" alt="Changing">'),
    ),
    '/img/own.jpg': (req, res) => {
      if (!siteDown) return bytes(ownPhoto, 'image/jpeg')(req, res);
      res.statusCode = 503;
      res.end();
    },
    '/img/changing.jpg': (req, res) => bytes(changed ? changedPhoto : changingPhoto, 'image/jpeg')(req, res),
  });

  cluster = await createAppCluster(['worker', 'api'], {
    crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 60_000 },
  });
  [worker, api] = cluster.apps as [TestApp, TestApp];
  // An install that indexed with the old model: nothing has read the active model yet.
  await new FaceModelRepository(worker.db).insertActiveIfNone(OLD.modelId, OLD.dimensions);
  expect((await worker.container.services.faceModels.active()).modelId).toBe(OLD.modelId);

  analystUser = await createUser(worker, { email: 'analyst@agency.example.org' });
  const now = Date.now();
  await worker.db
    .insertInto('billing_plans')
    .values({
      organization_id: analystUser.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(now - 86_400_000),
      end_date: new Date(now + 30 * 86_400_000),
      seat_limit: 3,
    })
    .execute();
  analyst = await login(api, 'analyst@agency.example.org');
  // Carla Mendes of the demo sites is an adult the age gate flags as a possible minor (estimated 27.6
  // years; see server/src/face/age/README.md): the analyst's organization is verified law enforcement.
  await verifyLawEnforcement(api, 'analyst@agency.example.org');
  await createUser(worker, { email: 'admin@provider.example.org', admin: true });
  admin = await login(api, 'admin@provider.example.org');

  await crawlDemoSites(worker, demo.crawlTarget);
  const crawl = await worker.request({
    method: 'POST',
    url: '/api/admin/crawl',
    cookie: admin,
    payload: { urls: [site.url('/')] },
  });
  expect(crawl.statusCode, crawl.body).toBe(202);
  const id = crawl.json<{ id: string }>().id;
  for (const deadline = Date.now() + 60_000; ;) {
    const row = await worker.db
      .selectFrom('crawls')
      .select('status')
      .where('public_id', '=', id)
      .executeTakeFirstOrThrow();
    if (row.status === 'DONE') break;
    expect(row.status === 'FAILED' || Date.now() > deadline, `crawl ${row.status}`).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  changed = true;
}, 300_000);

afterAll(async () => {
  await cluster?.close();
  await demo?.close();
  await site?.close();
});

describe(`reindexing to another face model (${TEST_DATABASE_KIND})`, () => {
  let marshBefore: string[];
  let searchBefore: string;
  let oldToken: string;
  let firstRun: ReindexProgress;
  /** The old-model faces Helena Marsh's first search found: the tests after the reindex search her. */
  let marshFaces: { id: number; image_id: number; descriptor: Buffer }[];
  /** A watch whose alert, alert copy and added faces name her old-model faces. */
  let watchBefore: number;
  const analysed = new Map<string, number>();

  it('indexes and searches with the database’s active model, an older one than the shipped', async () => {
    const faces = await worker.db.selectFrom('faces').select(['model_id', 'descriptor']).execute();
    expect(faces.length).toBeGreaterThan(10);
    expect(new Set(faces.map((f) => f.model_id))).toEqual(new Set([OLD.modelId]));
    oldToken = (await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.marsh.file)!))[0]!;
    const response = await search(api, analyst, [oldToken]);
    expect(response.statusCode, response.body).toBe(200);
    searchBefore = response.json<SearchAnswer>().searchHash;
    marshBefore = await foundImages(api, oldToken);
    expect(marshBefore.length).toBeGreaterThanOrEqual(2);
    marshFaces = await worker.db
      .selectFrom('search_results')
      .innerJoin('searches', 'searches.id', 'search_results.search_id')
      .innerJoin('faces', 'faces.id', 'search_results.face_id')
      .select(['faces.id', 'faces.image_id', 'faces.descriptor'])
      .where('searches.hashed_id', '=', searchBefore)
      .execute();
    expect(marshFaces.length).toBeGreaterThanOrEqual(2);
    expect(await api.container.services.faceIndex.size()).toBe(faces.length);

    // What else names her faces, and must not go with them at the switch: an alert of a watch (with a
    // copy), and the face an analyst added to the search and to the watch.
    const made = await worker.db
      .selectFrom('searches')
      .select(['id', 'organization_id', 'user_id'])
      .where('hashed_id', '=', searchBefore)
      .executeTakeFirstOrThrow();
    const [first, second] = marshFaces;
    await worker.db
      .updateTable('searches')
      .set({ added_face_ids: [first!.id] })
      .where('id', '=', made.id)
      .execute();
    const watch = await worker.db
      .insertInto('face_watches')
      .values({
        organization_id: made.organization_id,
        user_id: made.user_id,
        name: 'Helena Marsh',
        model_id: OLD.modelId,
        face_image: Buffer.from([0xff, 0xd8, 0xff]),
        descriptor_sealed: Buffer.from([1]),
        ends_at: new Date(Date.now() + 86_400_000),
        added_face_ids: [second!.id, first!.id],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    watchBefore = watch.id;
    const alert = await insertAlert({
      watchId: watch.id,
      organizationId: made.organization_id,
      face: first!,
      scoreModel: OLD.modelId,
    });
    await worker.db
      .insertInto('face_alert_copies')
      .values({
        alert_id: alert.id,
        face_id: second!.id,
        image_id: second!.image_id,
        image_url: 'http://demo.test/marsh-2.jpg',
        source_url: 'http://demo.test/2',
      })
      .execute();
  });

  it('an opt-out made before the reindex removes the person under the old model', async () => {
    const [mendes] = await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.mendes.file)!);
    expect((await foundImages(api, mendes!)).length).toBeGreaterThanOrEqual(2);
    const [face] = await worker.db
      .selectFrom('faces')
      .select('id')
      .where('image_id', '=', (await imageOf(DEMO_PHOTOS.mendes.file)).id)
      .execute();
    const optOut = await api.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: admin,
      payload: { faceId: face!.id, reason: 'Request of the person (ticket 1)' },
    });
    expect(optOut.statusCode, optOut.body).toBe(201);
    expect(await foundImages(api, mendes!)).toEqual([]);
  });

  it('an interrupted reindex leaves searches on the old vectors, with new-model faces stored beside them', async () => {
    // The reindex goes through images in id order, which follows the crawl's concurrent order. It stops
    // after at least 4, and once it has done a photo with faces but none of Helena Marsh's (the next test
    // opts out a person of such a photo).
    const imageIds = (await worker.db.selectFrom('images').select('id').orderBy('id').execute()).map(
      (i) => i.id,
    );
    const marshImages = new Set(marshFaces.map((f) => f.image_id));
    const othersImages = new Set(
      (await facesOfModel(OLD.modelId)).map((f) => f.image_id).filter((id) => !marshImages.has(id)),
    );
    const abort = new AbortController();
    const outcome = await reindexService(analysed).run(NEW, {
      signal: abort.signal,
      onProgress: (p) => {
        firstRun = p;
        const done = imageIds.slice(0, p.done);
        if (p.phase === 'analysing' && done.length >= 4 && done.some((id) => othersImages.has(id))) {
          abort.abort();
        }
      },
    });
    expect(outcome.status).toBe('stopped');
    expect(firstRun.done).toBeGreaterThanOrEqual(4);
    expect(firstRun.done).toBeLessThan(imageIds.length - 2);
    // The image after them may have been analysed already (one is prepared ahead): it is not stored.
    expect(analysed.get(NEW.modelId)).toBeGreaterThanOrEqual(firstRun.done);
    expect(analysed.get(NEW.modelId)).toBeLessThanOrEqual(firstRun.done + 1);
    const state = await new FaceModelRepository(worker.db).findBuilding();
    expect(state).toMatchObject({ modelId: NEW.modelId, imagesDone: firstRun.done });

    // Old faces untouched and still the only ones searched; the new ones wait beside them.
    expect((await worker.container.services.faceModels.active()).modelId).toBe(OLD.modelId);
    const newFaces = await facesOfModel(NEW.modelId);
    expect(newFaces.length).toBeGreaterThan(0);
    expect(newFaces.every((f) => f.image_id <= state!.cursorImageId)).toBe(true);
    expect(await foundImages(api, oldToken)).toEqual(marshBefore);
    // The change log the old index follows shows the new faces as another model's: nothing to apply.
    const log = await new FaceVectorRepository(worker.db, OLD.modelId).changesSince(0, 100_000);
    const newIds = new Set(newFaces.map((f) => f.id));
    const ofNew = log.filter((change) => newIds.has(change.faceId));
    expect(ofNew).toHaveLength(newFaces.length);
    expect(ofNew.every((change) => change.otherModel && change.vector === undefined)).toBe(true);
    const oldCount = (await facesOfModel(OLD.modelId)).length;
    expect(await api.container.services.faceIndex.size()).toBe(oldCount);
    expect(await worker.container.services.faceIndex.size()).toBe(oldCount);
    // A photo uploaded now is analysed with the old model too.
    const [fresh] = await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(await foundImages(api, fresh!)).toEqual(marshBefore);
  });

  it('an opt-out made during the reindex also removes the new model’s face of that person', async () => {
    const state = (await new FaceModelRepository(worker.db).findBuilding())!;
    // A face of an image the reindex has done, that has its new-model twin.
    const oldFaces = (await facesOfModel(OLD.modelId)).filter((f) => f.image_id <= state.cursorImageId);
    const newFaces = await facesOfModel(NEW.modelId);
    const box = (f: (typeof oldFaces)[number]) => ({
      x: f.box_x,
      y: f.box_y,
      width: f.box_width,
      height: f.box_height,
    });
    // Far from Helena Marsh: the tests after this one search her, and an opt-out removes every face that
    // matches the person's, under both models. Under these older models a person of the demo photos
    // resembles her (0.92 to her portrait): opting that person out takes her photos with them.
    const likenessToMarsh = (f: (typeof oldFaces)[number]) =>
      Math.max(
        ...marshFaces.map((m) => similarity(vectorFromBytes(f.descriptor), vectorFromBytes(m.descriptor))),
      );
    const [face] = oldFaces
      .filter((o) => newFaces.some((n) => n.image_id === o.image_id && boxOverlap(box(o), box(n)) > 0.4))
      .sort((a, b) => likenessToMarsh(a) - likenessToMarsh(b));
    if (!face) throw new Error('no face of the reindexed images has a new-model twin');
    expect(likenessToMarsh(face)).toBeLessThan(matchThresholdOf(OLD.modelId) - 0.05);
    const twin = newFaces.find((n) => n.image_id === face.image_id && boxOverlap(box(face), box(n)) > 0.4)!;
    const optOut = await api.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: admin,
      payload: { faceId: face.id, reason: 'Request of the person (ticket 2)' },
    });
    expect(optOut.statusCode, optOut.body).toBe(201);
    const { id } = optOut.json<{ id: number }>();
    expect(
      await worker.db.selectFrom('faces').select('id').where('id', 'in', [face.id, twin.id]).execute(),
    ).toEqual([]);
    const derived = await worker.db
      .selectFrom('face_opt_outs')
      .selectAll()
      .where('derived_from', '=', id)
      .execute();
    expect(derived.map((d) => d.model_id)).toContain(NEW.modelId);
  });

  it('resumes where it stopped, keeps searches working meanwhile, waits for a site that did not answer, then switches every process', async () => {
    let during: Promise<string[]> | undefined;
    const before = analysed.get(NEW.modelId)!;
    const images = await worker.db.selectFrom('images').select('id').execute();
    const ownImage = (
      await worker.db
        .selectFrom('image_occurrences')
        .select('image_id')
        .where('image_url', '=', site.url('/img/own.jpg'))
        .executeTakeFirstOrThrow()
    ).image_id;
    const facesOfOwnImage = async (modelId: string) =>
      (await facesOfModel(modelId)).filter((f) => f.image_id === ownImage).length;
    const ownFacesBefore = await facesOfOwnImage(OLD.modelId);
    expect(ownFacesBefore).toBeGreaterThan(0);

    // The small site answers 503 for its own photo all through this run: the photo is not gone, so the
    // switch waits and nothing is lost; searches stay on the old model.
    siteDown = true;
    // Once the search during the reindex has started, the next images wait for it: it runs on the old
    // vectors before the switch, whatever the machine's speed.
    const waiting = (await reindexService(analysed, async () => during?.catch(() => undefined)).run(NEW, {
      onProgress: (p) => {
        if (p.phase === 'analysing' && p.done >= firstRun.done + 2) during ??= foundImages(api, oldToken);
      },
    })) as Extract<ReindexOutcome, { status: 'waiting' }>;
    expect(waiting.status).toBe('waiting');
    expect(waiting.progress).toMatchObject({
      doneBefore: firstRun.done,
      done: images.length,
      unreachable: 1,
      unavailable: 1,
    });
    expect(await during).toEqual(marshBefore);
    expect((await worker.container.services.faceModels.active()).modelId).toBe(OLD.modelId);
    expect(await facesOfOwnImage(OLD.modelId)).toBe(ownFacesBefore);
    expect(await facesOfOwnImage(NEW.modelId)).toBe(0);

    // The site is back: the next run fetches the photo again and switches.
    siteDown = false;
    const outcome = (await reindexService(analysed).run(NEW)) as Extract<
      ReindexOutcome,
      { status: 'switched' }
    >;
    expect(outcome.status).toBe('switched');
    expect(await facesOfOwnImage(NEW.modelId)).toBe(ownFacesBefore);

    // Nothing analysed twice: the runs did the images the first one had not, the last one only the
    // photo whose site had not answered.
    expect(outcome.progress).toMatchObject({
      doneBefore: images.length,
      done: images.length,
      total: images.length,
      unreachable: 0,
    });
    // One image's address now serves other bytes: it cannot be analysed (and keeps no face).
    expect(outcome.progress.unavailable).toBe(1);
    expect(analysed.get(NEW.modelId)! - before).toBe(images.length - firstRun.done - 1);
    // The old model ran again only where a face had no stored twin (the opted-out person's photos).
    expect(analysed.get(OLD.modelId)).toBeGreaterThan(0);
    expect(analysed.get(OLD.modelId)).toBeLessThan(images.length);

    const newFaces = await facesOfModel(NEW.modelId);
    expect(await facesOfModel(OLD.modelId)).toEqual([]);
    expect(outcome.retiredFaces).toBeGreaterThan(0);
    const boxes = newFaces.map((f) => `${f.image_id} ${f.box_x} ${f.box_y} ${f.box_width}`);
    expect(new Set(boxes).size).toBe(boxes.length);
    expect(outcome.manifest).toMatchObject({ model: NEW.modelId, dimensions: 128, count: newFaces.length });

    const models = await worker.db
      .selectFrom('face_models')
      .select(['model_id', 'state'])
      .orderBy('model_id')
      .execute();
    expect(models).toEqual(
      [
        { model_id: NEW.modelId, state: 'active' },
        { model_id: OLD.modelId, state: 'retired' },
      ].sort((a, b) => a.model_id.localeCompare(b.model_id)),
    );
    // Snapshots: the new model's folder only.
    const root = path.join(cluster.dataDir, 'face-index');
    expect(await fs.readdir(root)).toEqual([modelFolderName(NEW.modelId)]);

    // Both running instances follow the switch without a restart.
    expect(await api.container.services.faceIndex.size()).toBe(newFaces.length);
    expect(await worker.container.services.faceIndex.size()).toBe(newFaces.length);
  });

  it('refuses a face uploaded before the switch; a new upload finds the same people', async () => {
    const stale = await search(api, analyst, [oldToken]);
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: GONE });
    await expect(
      api.container.services.faceIndex.search(new Float32Array(128), {
        model: OLD.modelId,
        limit: 5,
        minSimilarity: 0,
      }),
    ).rejects.toBeInstanceOf(FaceModelMismatchError);

    const [fresh] = await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(await foundImages(api, fresh!)).toEqual(marshBefore);
    const [onWorker] = await uploadFaces(worker, analyst, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(await foundImages(api, onWorker!)).toEqual(marshBefore);
    // Faces of the two models cannot be searched together either.
    expect((await search(api, analyst, [fresh!, oldToken])).statusCode).toBe(400);
  });

  it('keeps the searches made before the switch pointing at faces of the new model', async () => {
    const rows = await worker.db
      .selectFrom('search_results')
      .innerJoin('searches', 'searches.id', 'search_results.search_id')
      .leftJoin('faces', 'faces.id', 'search_results.face_id')
      .select(['search_results.face_id', 'faces.model_id'])
      .where('searches.hashed_id', '=', searchBefore)
      .execute();
    expect(rows.length).toBeGreaterThanOrEqual(marshBefore.length);
    expect(rows.every((row) => row.face_id !== null && row.model_id === NEW.modelId)).toBe(true);
  });

  it('keeps each stored score with the model that computed it, whose scale gives its band', async () => {
    // The old search's scores are the old model's cosines, now beside new-model faces: the answer says
    // so, and the page reads them on that model's scale (this one has none: "an earlier face model").
    const before = await api.request({ method: 'GET', url: `/api/search/${searchBefore}`, cookie: analyst });
    expect(before.statusCode, before.body).toBe(200);
    const oldResults = before.json<SearchAnswer>().results;
    expect(oldResults.length).toBeGreaterThanOrEqual(marshBefore.length);
    expect(new Set(oldResults.map((r) => r.scoreModel))).toEqual(new Set([OLD.modelId]));
    expect(matchBand(oldResults[0]!.similarity, oldResults[0]!.scoreModel)).toBe('other-model');
    const [fresh] = await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.marsh.file)!);
    const after = await search(api, analyst, [fresh!]);
    expect(after.statusCode, after.body).toBe(200);
    const afterAnswer = after.json<SearchAnswer>();
    expect(new Set(afterAnswer.results.map((r) => r.scoreModel))).toEqual(new Set([NEW.modelId]));
    const [alert] = await worker.db
      .selectFrom('face_alerts')
      .select('score_model_id')
      .where('watch_id', '=', watchBefore)
      .execute();
    expect(alert!.score_model_id).toBe(OLD.modelId);

    // Rows stored before scores kept their model (migration 0045): those that may have been moved to the
    // active model's faces at its switch stay unknown; those scored since get the model of their face.
    const scoresOf = (hashedId: string) =>
      worker.db
        .selectFrom('search_results')
        .innerJoin('searches', 'searches.id', 'search_results.search_id')
        .select('search_results.score_model_id')
        .where('searches.hashed_id', '=', hashedId)
        .execute();
    await worker.db.updateTable('search_results').set({ score_model_id: null }).execute();
    await worker.db.updateTable('face_alerts').set({ score_model_id: null }).execute();
    await keepScoreModels(worker.db as unknown as Kysely<unknown>);
    expect(new Set((await scoresOf(searchBefore)).map((r) => r.score_model_id))).toEqual(new Set([null]));
    expect(new Set((await scoresOf(afterAnswer.searchHash)).map((r) => r.score_model_id))).toEqual(
      new Set([NEW.modelId]),
    );
    const [migrated] = await worker.db
      .selectFrom('face_alerts')
      .select('score_model_id')
      .where('watch_id', '=', watchBefore)
      .execute();
    expect(migrated!.score_model_id).toBeNull();
    await worker.db
      .updateTable('search_results')
      .set({ score_model_id: OLD.modelId })
      .where('score_model_id', 'is', null)
      .execute();
  });

  it('keeps alerts and the faces analysts added, on the faces that replace theirs', async () => {
    const modelOf = async (ids: (number | string)[]) =>
      (
        await worker.db
          .selectFrom('faces')
          .select(['id', 'model_id', 'previous_face_id'])
          .where('id', 'in', ids.map(Number))
          .execute()
      ).map((face) => [face.model_id, Number(face.previous_face_id)]);
    const [first, second] = marshFaces;
    const alerts = await worker.db
      .selectFrom('face_alerts')
      .select(['id', 'face_id'])
      .where('watch_id', '=', watchBefore)
      .execute();
    expect(alerts).toHaveLength(1);
    expect(await modelOf([alerts[0]!.face_id!])).toEqual([[NEW.modelId, first!.id]]);
    const copies = await worker.db
      .selectFrom('face_alert_copies')
      .select('face_id')
      .where('alert_id', '=', alerts[0]!.id)
      .execute();
    expect(await modelOf(copies.map((c) => c.face_id!))).toEqual([[NEW.modelId, second!.id]]);
    const watch = await worker.db
      .selectFrom('face_watches')
      .select('added_face_ids')
      .where('id', '=', watchBefore)
      .executeTakeFirstOrThrow();
    // In their order: the replacement of her second face, then of her first.
    const replaced = await Promise.all(watch.added_face_ids.map(async (id) => (await modelOf([id]))[0]));
    expect(replaced).toEqual([
      [NEW.modelId, second!.id],
      [NEW.modelId, first!.id],
    ]);
    const searched = await worker.db
      .selectFrom('searches')
      .select('added_face_ids')
      .where('hashed_id', '=', searchBefore)
      .executeTakeFirstOrThrow();
    expect(await modelOf(searched.added_face_ids)).toEqual([[NEW.modelId, first!.id]]);
  });

  it('keeps opted-out people removed under the new model, for searches and later crawls', async () => {
    const [mendes] = await uploadFaces(api, analyst, photos.get(DEMO_PHOTOS.mendes.file)!);
    expect(await foundImages(api, mendes!)).toEqual([]);
    expect((await imageOf(DEMO_PHOTOS.mendes.file)).face_count).toBe(0);
    const optOuts = await worker.db.selectFrom('face_opt_outs').selectAll().orderBy('id').execute();
    const originals = optOuts.filter((o) => o.derived_from === null);
    expect(originals.map((o) => o.model_id)).toEqual([OLD.modelId, OLD.modelId]);
    for (const original of originals) {
      expect(optOuts.some((o) => o.derived_from === original.id && o.model_id === NEW.modelId)).toBe(true);
    }
    // No face of the new model matches a new-model opt-out: the indexer's rule holds for the new vectors.
    const vector = (b: Buffer) => new Float32Array(new Uint8Array(b).buffer);
    for (const face of await facesOfModel(NEW.modelId)) {
      for (const optOut of optOuts.filter((o) => o.model_id === NEW.modelId)) {
        expect(similarity(vector(face.descriptor), vector(optOut.descriptor))).toBeLessThan(
          matchThresholdOf(NEW.modelId),
        );
      }
    }
    // The admin list shows the two opt-outs that were asked for, not their copies.
    const list = await api.request({ method: 'GET', url: '/api/admin/opt-outs', cookie: admin });
    expect(list.json<unknown[]>()).toHaveLength(2);
  });

  it('never compares vectors of two models: a 512-dimension model replaces the 128-dimension one', async () => {
    const outcome = (await reindexService(analysed).run(WIDE)) as Extract<
      ReindexOutcome,
      { status: 'switched' }
    >;
    expect(outcome.status).toBe('switched');
    expect(outcome.manifest).toMatchObject({ model: WIDE.modelId, dimensions: 512 });
    const faces = await worker.db.selectFrom('faces').select(['id', 'model_id', 'descriptor']).execute();
    expect(faces.every((f) => f.model_id === WIDE.modelId && f.descriptor.byteLength === 512 * 4)).toBe(true);
    expect(await api.container.services.faceIndex.size()).toBe(faces.length);

    // A token of the 128-d model is refused, never searched; one of the new model finds its face.
    const sealed = (modelId: string, descriptor: Float32Array) =>
      api.container.services.queryFaces.seal({
        descriptor,
        modelId,
        possibleMinor: false,
        organizationId: analystUser.organizationId,
        userId: analystUser.id,
      });
    const face = faces[0]!;
    const wide = new Float32Array(new Uint8Array(face.descriptor).buffer);
    const narrowToken = await sealed(
      NEW.modelId,
      wide.filter((_, i) => i % 4 === 0),
    );
    const refused = await search(api, analyst, [narrowToken]);
    expect(refused.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: GONE });
    const found = await search(api, analyst, [await sealed(WIDE.modelId, wide)]);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json<SearchAnswer>().results[0]?.similarity).toBeCloseTo(1, 3);
    // Opt-outs carried over once more.
    const [mendesWide] = await worker.db
      .selectFrom('face_opt_outs')
      .select('id')
      .where('model_id', '=', WIDE.modelId)
      .execute();
    expect(mendesWide).toBeDefined();
    expect(outcome.optOutsNotCarried).toEqual([]);
  });

  it('keeps an alert whose face a switch found no replacement for, hidden where that face was a possible minor', async () => {
    // A face the retired model indexed where the new one finds none (a face of another model stands in
    // for it), flagged as a possible minor, and an alert of the watch on it.
    const watch = await worker.db
      .selectFrom('face_watches')
      .select(['organization_id'])
      .where('id', '=', watchBefore)
      .executeTakeFirstOrThrow();
    const image = await worker.db
      .selectFrom('images')
      .select('id')
      .where(
        'id',
        'not in',
        worker.db.selectFrom('face_alerts').select('image_id').where('watch_id', '=', watchBefore),
      )
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const gone = await worker.db
      .insertInto('faces')
      .values({
        image_id: image.id,
        box_x: 1,
        box_y: 1,
        box_width: 50,
        box_height: 50,
        score: 0.9,
        quality: 0.5,
        descriptor: Buffer.alloc(NEW.dimensions * 4),
        model_id: NEW.modelId,
        possible_minor: true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const alert = await insertAlert({
      watchId: watchBefore,
      organizationId: watch.organization_id,
      face: { id: gone.id, image_id: image.id },
      scoreModel: NEW.modelId,
    });
    const alerts = new FaceWatchRepository(worker.db);
    const shown = async (minorsAllowed: boolean) =>
      (
        await alerts.findAlerts({
          organizationId: watch.organization_id,
          minorsAllowed,
          offset: 0,
          limit: 100,
        })
      ).rows.some((row) => row.id === alert.id);
    expect([await shown(true), await shown(false)]).toEqual([true, false]);

    const retired = await new FaceModelRepository(worker.db).deleteFacesOfOtherModels([WIDE.modelId], 0);
    expect(retired.deleted).toBe(1);
    const kept = await worker.db
      .selectFrom('face_alerts')
      .select(['face_id', 'gone_face_was_minor', 'score_model_id'])
      .where('id', '=', alert.id)
      .executeTakeFirstOrThrow();
    expect(kept).toEqual({ face_id: null, gone_face_was_minor: true, score_model_id: NEW.modelId });
    expect([await shown(true), await shown(false)]).toEqual([true, false]);
  });

  it('a result moved to a replacement face stays hidden where the face it showed was a possible minor', async () => {
    // The new model's own estimate for the replacement may differ; the flag the result was shown under
    // stays with it.
    const image = await worker.db.selectFrom('images').select('id').orderBy('id').executeTakeFirstOrThrow();
    const face = (modelId: string, possibleMinor: boolean, previousFaceId: number | null) =>
      worker.db
        .insertInto('faces')
        .values({
          image_id: image.id,
          box_x: 2,
          box_y: 2,
          box_width: 60,
          box_height: 60,
          score: 0.9,
          quality: 0.5,
          descriptor: Buffer.alloc(WIDE.dimensions * 4),
          model_id: modelId,
          possible_minor: possibleMinor,
          previous_face_id: previousFaceId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const old = await face('an-earlier-model@1', true, null);
    const replacement = await face(WIDE.modelId, false, old.id);
    const search = await worker.db
      .selectFrom('searches')
      .select('id')
      .where('hashed_id', '=', searchBefore)
      .executeTakeFirstOrThrow();
    const result = await worker.db
      .insertInto('search_results')
      .values({
        search_id: search.id,
        record_hash: 'moved-minor',
        rank: 99,
        face_id: old.id,
        image_id: image.id,
        group_key: 'moved-minor',
        similarity: 0.9,
        score_model_id: 'an-earlier-model@1',
        image_url: 'http://demo.test/minor.jpg',
        source_url: 'http://demo.test/minor',
        crawled_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await new FaceModelRepository(worker.db).moveFaceReferencesTo(WIDE.modelId);
    const moved = await worker.db
      .selectFrom('search_results')
      .select(['face_id', 'gone_face_was_minor'])
      .where('id', '=', result.id)
      .executeTakeFirstOrThrow();
    expect(moved).toEqual({ face_id: replacement.id, gone_face_was_minor: true });
    await worker.db.deleteFrom('search_results').where('id', '=', result.id).execute();
    await worker.db.deleteFrom('faces').where('id', 'in', [replacement.id, old.id]).execute();
  });
});
