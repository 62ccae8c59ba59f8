import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { SHIPPED_MODEL } from '../../src/services/face-index.service.ts';
import { QUERY_FACE_TOKEN_MAX_LENGTH, QUERY_FACE_TTL_MS } from '../../src/services/query-face-token.ts';
import { createAppCluster, type AppCluster } from '../support/app-cluster.ts';
import { createUser, crawlDemoSites, login } from '../support/fixtures.ts';
import type { TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

/** A unit vector of the shipped model's size (a valid query face for the token tests). */
const unitDescriptor = () =>
  new Float32Array(SHIPPED_MODEL.dimensions).fill(1 / Math.sqrt(SHIPPED_MODEL.dimensions));

// Scale-out (issues 8 and 18): a worker instance (jobs, face index writer) and two API instances
// (WORKERS=0, face index readers) of the real application over one database, each with its own DATA_DIR
// as on separate machines: PostgreSQL is the only shared part (thumbnails in it; the worker's face-index
// snapshots published in it, which an API instance downloads instead of building its index, then follows
// the change log). On PostgreSQL each has its own connection pool, as separate processes would; on PGlite
// (one connection) they share it.

const GONE = 'The selected face is no longer available. Please upload the photo again.';

interface SearchAnswer {
  results: { imageUrl: string | null; thumbnailUrl: string; similarity: number }[];
  numberOfResults: number;
}

let cluster: AppCluster;
let worker: TestApp;
let api: TestApp;
let api2: TestApp;
let site: DemoSite;
let photos: Map<string, Buffer>;
let analystA: string;
let analystB: string;
let admin: string;
let organizationA: number;
let userA: number;

async function analyst(email: string): Promise<{ cookie: string; id: number; organizationId: number }> {
  const user = await createUser(worker, { email });
  const now = Date.now();
  await worker.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(now - 86_400_000),
      end_date: new Date(now + 30 * 86_400_000),
      seat_limit: 3,
    })
    .execute();
  return { cookie: await login(api, email), ...user };
}

async function uploadFace(on: TestApp, cookie: string, file: string): Promise<string> {
  const response = await on.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie,
    payload: { img: photos.get(file)!.toString('base64') },
  });
  expect(response.statusCode, response.body).toBe(200);
  const faces = response.json<{ faces: { hash: string }[] }>().faces;
  expect(faces).toHaveLength(1);
  return faces[0]!.hash;
}

function search(on: TestApp, cookie: string, faces: string[]) {
  return on.request({ method: 'POST', url: '/api/search', cookie, payload: { faces, type: 'OSINT' } });
}

async function foundOn(on: TestApp, cookie: string, face: string, file: string): Promise<boolean> {
  return (await hitOn(on, cookie, face, file)) !== undefined;
}

async function hitOn(on: TestApp, cookie: string, face: string, file: string) {
  const response = await search(on, cookie, [face]);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<SearchAnswer>().results.find((r) => r.imageUrl?.endsWith(file));
}

/** Files under a DATA_DIR (relative paths), to show what an instance keeps on its own machine. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

beforeAll(async () => {
  site = await startDemoSite({ port: 0 });
  photos = await renderDemoPhotos();
  // One face-engine thread each: three instances share the machine's cores.
  // Snapshots are published as with DATABASE_URL (the cluster hands the instances its database directly).
  cluster = await createAppCluster(
    ['worker', 'api', 'api'],
    { faceThreads: 1, faceIndexPublish: true },
    { separateDataDirs: true },
  );
  [worker, api, api2] = cluster.apps as [TestApp, TestApp, TestApp];
  const a = await analyst('analyst@agency-a.example.org');
  analystA = a.cookie;
  organizationA = a.organizationId;
  userA = a.id;
  analystB = (await analyst('analyst@agency-b.example.org')).cookie;
  await createUser(worker, { email: 'admin@provider.example.org', admin: true });
  admin = await login(worker, 'admin@provider.example.org');
}, 120_000);

afterAll(async () => {
  await cluster?.close();
  await site?.close();
});

describe(`scale-out: a worker and two API instances, each on its own DATA_DIR, over one ${TEST_DATABASE_KIND} database`, () => {
  let marshOnApi: string;

  it('indexes through the worker and finds the faces through the API instance without a restart', async () => {
    // The API instance opens its (empty) index before anything is crawled...
    marshOnApi = await uploadFace(api, analystA, DEMO_PHOTOS.marsh.file);
    const before = await search(api, analystA, [marshOnApi]);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json<SearchAnswer>().numberOfResults).toBe(0);
    expect(await api.container.services.faceIndex.size()).toBe(0);

    // ...the worker instance crawls and indexes the demo sites...
    await crawlDemoSites(worker, site.crawlTarget);
    const indexed = await worker.db
      .selectFrom('faces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(indexed.n)).toBeGreaterThan(5);

    // ...and the API instance answers from the new faces within a bounded time (it follows the change log).
    const deadline = Date.now() + 5_000;
    while (!(await foundOn(api, analystA, marshOnApi, DEMO_PHOTOS.marsh.file))) {
      expect(Date.now(), 'the API instance did not see the crawled faces within 5 s').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await api.container.services.faceIndex.size()).toBe(Number(indexed.n));
  }, 240_000); // three instances crawl and analyse on a shared 2-core machine

  it('the second API instance starts from the snapshot the worker published in the database', async () => {
    // The first API instance opened its index before anything was published: it built it.
    expect(await api.container.services.faceIndex.startedFrom()).toBe('built');
    // The worker opens its index (a snapshot saved in its DATA_DIR, published in the background)...
    await worker.container.services.faceIndex.size();
    const deadline = Date.now() + 10_000;
    while (!(await worker.db.selectFrom('face_index_publications').select('seq').executeTakeFirst())) {
      expect(Date.now(), 'the worker published no snapshot within 10 s').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // ...and the second API instance, on a DATA_DIR of its own, downloads it instead of building.
    expect(await api2.container.services.faceIndex.startedFrom()).toBe('published snapshot');
    expect(await filesUnder(cluster.dataDirs[2]!)).toContainEqual(
      expect.stringMatching(/^face-index\/.+\/face-index-\d+-[0-9a-f]+\.usearch$/),
    );
  });

  it('finds the crawled face with its thumbnail through both API instances, though neither shares a disk', async () => {
    expect(new Set(cluster.dataDirs).size).toBe(3);
    const thumbnails: Buffer[] = [];
    for (const instance of [api, api2]) {
      const face = await uploadFace(instance, analystA, DEMO_PHOTOS.marsh.file);
      const hit = await hitOn(instance, analystA, face, DEMO_PHOTOS.marsh.file);
      expect(hit, 'the crawled face is found').toBeDefined();
      const thumbnail = await instance.request({ method: 'GET', url: hit!.thumbnailUrl, cookie: analystA });
      expect(thumbnail.statusCode, thumbnail.body).toBe(200);
      expect(thumbnail.headers['content-type']).toBe('image/jpeg');
      thumbnails.push(thumbnail.rawPayload);
    }
    expect(thumbnails[0]!.length).toBeGreaterThan(500);
    expect(thumbnails[1]!.equals(thumbnails[0]!)).toBe(true);
    // No thumbnail on any machine's disk: the worker that stored them kept none in its DATA_DIR either.
    for (const dir of cluster.dataDirs) {
      expect((await filesUnder(dir)).filter((f) => f.startsWith('thumbnails'))).toEqual([]);
    }
    expect(await api2.container.services.faceIndex.size()).toBe(
      await worker.container.services.faceIndex.size(),
    );
  });

  it('accepts a face token made by one instance on the other (nothing kept in memory)', async () => {
    const onWorker = await uploadFace(worker, analystA, DEMO_PHOTOS.marsh.file);
    expect(onWorker.length).toBeLessThanOrEqual(QUERY_FACE_TOKEN_MAX_LENGTH);
    expect(await foundOn(api, analystA, onWorker, DEMO_PHOTOS.marsh.file)).toBe(true);
    expect(await foundOn(worker, analystA, marshOnApi, DEMO_PHOTOS.marsh.file)).toBe(true);
    // Both instances generated nothing of their own: one key, kept in the database.
    const keys = await worker.db.selectFrom('app_settings').selectAll().execute();
    expect(keys.map((k) => k.key)).toEqual(['query_face_key']);
  });

  it('refuses tampered, expired and other organizations’ face tokens with the same clear 400', async () => {
    const bytes = Buffer.from(marshOnApi, 'base64url');
    const flips = [1, 20, bytes.length - 1].map((at) => {
      const copy = Buffer.from(bytes);
      copy[at]! ^= 0x01;
      return copy.toString('base64url');
    });
    const expired = await worker.container.services.queryFaces.seal(
      {
        descriptor: unitDescriptor(),
        modelId: SHIPPED_MODEL.modelId,
        possibleMinor: false,
        organizationId: organizationA,
        userId: userA,
      },
      Date.now() - QUERY_FACE_TTL_MS - 1,
    );
    const almostExpired = await worker.container.services.queryFaces.seal(
      {
        descriptor: unitDescriptor(),
        modelId: SHIPPED_MODEL.modelId,
        possibleMinor: false,
        organizationId: organizationA,
        userId: userA,
      },
      Date.now() - QUERY_FACE_TTL_MS + 60_000,
    );
    for (const [cookie, token] of [
      ...flips.map((token) => [analystA, token]),
      [analystA, marshOnApi.slice(0, -4)],
      [analystA, 'not-a-token'],
      [analystA, expired],
      [analystB, marshOnApi],
    ] as const) {
      const response = await search(api, cookie, [token]);
      expect(response.statusCode, token).toBe(400);
      expect(response.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: GONE });
    }
    expect((await search(api, analystA, [almostExpired])).statusCode).toBe(200);
    // A real token longer than the routes allow is refused by the schema, not by a 500.
    const tooLong = await search(api, analystA, ['A'.repeat(4000)]);
    expect(tooLong.statusCode).toBe(400);
  });

  it('an opt-out through one instance removes the faces, and their thumbnails, from every other at once', async () => {
    const before = await hitOn(api2, analystA, marshOnApi, DEMO_PHOTOS.marsh.file);
    expect(before).toBeDefined();
    const adminFace = await uploadFace(api, admin, DEMO_PHOTOS.marsh.file);
    const optOut = await api.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: admin,
      payload: { faceHash: adminFace, reason: 'Request of the person (scale-out test)' },
    });
    expect(optOut.statusCode, optOut.body).toBe(201);
    expect(optOut.json<{ removedFaces: number }>().removedFaces).toBeGreaterThan(0);
    for (const instance of [worker, api, api2]) {
      expect(await foundOn(instance, analystA, marshOnApi, DEMO_PHOTOS.marsh.file)).toBe(false);
      // The image had only her face: its thumbnail is gone from the database, for every instance.
      const thumbnail = await instance.request({
        method: 'GET',
        url: before!.thumbnailUrl,
        cookie: analystA,
      });
      expect(thumbnail.statusCode).toBe(404);
    }
    const faces = await worker.db
      .selectFrom('faces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(await worker.container.services.faceIndex.size()).toBe(Number(faces.n));
    expect(await api.container.services.faceIndex.size()).toBe(Number(faces.n));
    expect(await api2.container.services.faceIndex.size()).toBe(Number(faces.n));
  });
});
