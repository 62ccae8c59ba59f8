import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sha256Hex } from '../../src/crawler/image-process.ts';
import { thumbnailKey } from '../../src/lib/blob-store.ts';
import {
  amzTimestamp,
  objectPath,
  S3BlobStore,
  signatureV4Authorization,
  type ObjectStoreConfig,
} from '../../src/lib/s3-blob-store.ts';
import { TestServer, bytes, html, page } from '../crawler/test-server.ts';
import { createAdmin, createUser, login, searchFirstFace } from '../support/fixtures.ts';
import {
  OBJECT_STORE_ACCESS_KEY,
  OBJECT_STORE_SECRET,
  startObjectStoreServer,
  type ObjectStoreServer,
} from '../support/object-store-server.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Thumbnails in an S3-compatible object store when OBJECT_STORE_URL is set (issue 18), tested against a
// real server of the protocol: s3rver, the S3 REST API over a folder, on a free port of this machine.

let s3: ObjectStoreServer;
const settings = (overrides: Partial<ObjectStoreConfig> = {}): ObjectStoreConfig => ({
  endpoint: s3.endpoint,
  bucket: s3.bucket,
  accessKeyId: OBJECT_STORE_ACCESS_KEY,
  secretAccessKey: OBJECT_STORE_SECRET,
  region: 'us-east-1',
  ...overrides,
});
/** Where s3rver keeps an object: <directory>/<bucket>/<key as stored, decoded>._S3rver_object. */
const fileOf = (key: string) => path.join(s3.directory, s3.bucket, `${key}._S3rver_object`);

beforeAll(async () => {
  s3 = await startObjectStoreServer();
});
afterAll(() => s3?.close());

describe('S3BlobStore against s3rver', () => {
  it('reads back what was written, knows no other key, and deletes present and absent keys alike', async () => {
    const store = new S3BlobStore(settings());
    const key = thumbnailKey('5e'.repeat(32));
    const bytes = Buffer.from([0xff, 0xd8, 0x00, 0x01, 0x02, 0xff, 0xd9]);
    await store.put(key, bytes);
    expect((await store.get(key))?.equals(bytes)).toBe(true);
    expect(await fs.readFile(fileOf(key))).toEqual(bytes);
    expect(await store.get('thumbnails/5e/absent.jpg')).toBeNull();
    expect(await store.existingKeys([key, 'thumbnails/5e/absent.jpg'])).toEqual(new Set([key]));

    await store.put('thumbnails/aa/second.jpg', Buffer.from('second'));
    await store.delete([key, 'thumbnails/aa/never-stored.jpg']);
    expect(await store.get(key)).toBeNull();
    expect((await store.get('thumbnails/aa/second.jpg'))?.toString()).toBe('second');
    await store.delete([]);
  });

  it('encodes each path segment: a key with spaces, plus signs and brackets is stored under its own name', async () => {
    const store = new S3BlobStore(settings());
    const key = 'thumbnails/a b/x+y (1)*~.jpg';
    // The canonical request's path (sent as is): RFC 3986, so !'()* too, and '/' only between segments.
    expect(objectPath(s3.bucket, key)).toBe(`/${s3.bucket}/thumbnails/a%20b/x%2By%20%281%29%2A~.jpg`);
    await store.put(key, Buffer.from('odd name'));
    expect((await store.get(key))?.toString()).toBe('odd name');
    expect((await fs.readFile(fileOf(key))).toString()).toBe('odd name');
    await store.delete([key]);
    await expect(fs.access(fileOf(key))).rejects.toThrow();
  });

  it('fails with the operation and the status when the server refuses the access key, never showing the secret', async () => {
    const secret = 'not-shown-anywhere-0xC0FFEE';
    const store = new S3BlobStore(settings({ accessKeyId: 'UNKNOWNKEY', secretAccessKey: secret }));
    const error = await store.put('thumbnails/aa/refused.jpg', Buffer.from('x')).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe(
      'Object store PutObject of thumbnails/aa/refused.jpg failed: HTTP 403 InvalidAccessKeyId',
    );
    expect(error?.message).not.toContain(secret);
    await expect(store.get('thumbnails/aa/refused.jpg')).rejects.toThrow(
      'Object store GetObject of thumbnails/aa/refused.jpg failed: HTTP 403 InvalidAccessKeyId',
    );
    await expect(fs.access(fileOf('thumbnails/aa/refused.jpg'))).rejects.toThrow();
  });

  it('names a missing bucket', async () => {
    const store = new S3BlobStore(settings({ bucket: 'no-such-bucket' }));
    await expect(store.put('thumbnails/aa/x.jpg', Buffer.from('x'))).rejects.toThrow(
      'Object store PutObject of thumbnails/aa/x.jpg failed: HTTP 404 NoSuchBucket',
    );
  });

  it('gives up on a server that does not answer after its timeout', async () => {
    // Accepts the connection and never answers.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const store = new S3BlobStore(settings({ endpoint: `http://127.0.0.1:${port}` }), { timeoutMs: 300 });
      const started = Date.now();
      await expect(store.get('thumbnails/aa/slow.jpg')).rejects.toThrow(
        'Object store GetObject of thumbnails/aa/slow.jpg failed: no answer within 300 ms',
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  // s3rver checks that the access key exists but does not verify Signature Version 4 signatures (its
  // authentication middleware leaves V4 "unimplemented"), so a wrong secret is accepted there. The
  // signature is checked instead against the documented example of AWS's S3 API reference ("Signature
  // Calculations for the Authorization Header", GET Object): its published inputs and signature.
  it("signs AWS's documented GET Object example to its published signature", () => {
    expect(amzTimestamp(new Date('2013-05-24T00:00:00.000Z'))).toBe('20130524T000000Z');
    const emptyPayload = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const authorization = signatureV4Authorization({
      method: 'GET',
      canonicalUri: '/test.txt',
      canonicalQuery: '',
      headers: {
        Host: 'examplebucket.s3.amazonaws.com',
        Range: 'bytes=0-9',
        'x-amz-content-sha256': emptyPayload,
        'x-amz-date': '20130524T000000Z',
      },
      payloadHash: emptyPayload,
      amzDate: '20130524T000000Z',
      region: 'us-east-1',
      service: 's3',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});

describe('OBJECT_STORE_URL', () => {
  it('takes the URL-decoded credentials from the user-info and the bucket from the path; region us-east-1 unless set', () => {
    expect(loadConfig({}).objectStore).toBeUndefined();
    expect(
      loadConfig({ OBJECT_STORE_URL: 'https://AKID%2B1:se%2Fcr%40et@minio.example.org:9000/thumbs' })
        .objectStore,
    ).toEqual({
      endpoint: 'https://minio.example.org:9000',
      bucket: 'thumbs',
      accessKeyId: 'AKID+1',
      secretAccessKey: 'se/cr@et',
      region: 'us-east-1',
    });
    expect(
      loadConfig({
        OBJECT_STORE_URL: 'http://key:secret@127.0.0.1:9000/thumbs/',
        OBJECT_STORE_REGION: 'eu-central-1',
      }).objectStore,
    ).toMatchObject({ endpoint: 'http://127.0.0.1:9000', bucket: 'thumbs', region: 'eu-central-1' });
  });

  it('refuses a bad URL with an error naming the setting, never the secret', () => {
    const secret = 'Sup3rSecretValue';
    const cases: [string, string][] = [
      [`minio:9000/${secret}`, 'OBJECT_STORE_URL must start with http:// or https://'],
      [`ftp://key:${secret}@host/thumbs`, 'OBJECT_STORE_URL must start with http:// or https://'],
      ['http://host:9000/thumbs', 'OBJECT_STORE_URL needs the access key and the secret before the host'],
      [`http://key:${secret}@host:9000`, 'OBJECT_STORE_URL needs exactly one path segment, the bucket'],
      [`http://key:${secret}@host:9000/a/b`, 'OBJECT_STORE_URL needs exactly one path segment, the bucket'],
      [`http://key:${secret}@host:9000/Th_umbs`, 'which is not a valid bucket name'],
      [`http://key:${secret}@host:9000/thumbs?x=1`, 'OBJECT_STORE_URL takes no query or fragment'],
      [`http://key:${secret}%zz@host:9000/thumbs`, 'badly percent-encoded'],
      [`http://key:${secret}@[::1/thumbs`, 'OBJECT_STORE_URL is not a URL'],
    ];
    for (const [url, message] of cases) {
      let error: Error | undefined;
      try {
        loadConfig({ OBJECT_STORE_URL: url });
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message, url).toContain(message);
      expect(error?.message, url).not.toContain(secret);
    }
    expect(() =>
      loadConfig({ OBJECT_STORE_URL: 'http://k:s@host/thumbs', OBJECT_STORE_REGION: 'EU Central' }),
    ).toThrow('OBJECT_STORE_REGION must be a region name like us-east-1');
  });
});

describe(`the application with OBJECT_STORE_URL set (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let site: TestServer;
  let portrait: Buffer;

  beforeAll(async () => {
    const samples = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
    portrait = await sharp(path.join(samples, 'sample1.jpg'))
      .extract({ left: 1374, top: 147, width: 390, height: 390 })
      .resize(240)
      .jpeg({ quality: 85 })
      .toBuffer();
    site = await TestServer.start({
      '/': html(page('Riverton', '<img src="/img/portrait.jpg" alt="Helena">')),
      '/img/portrait.jpg': bytes(portrait, 'image/jpeg'),
    });
    const url = new URL(s3.endpoint);
    t = await createTestApp({
      crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 5_000 },
      objectStore: loadConfig({
        OBJECT_STORE_URL: `http://${OBJECT_STORE_ACCESS_KEY}:${OBJECT_STORE_SECRET}@${url.host}/${s3.bucket}`,
      }).objectStore,
    });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it("stores a crawled image's thumbnail in the bucket, not the database, serves it to a search's user, and an opt-out deletes it", async () => {
    const admin = await createAdmin(t);
    const queued = await t.request({
      method: 'POST',
      url: '/api/admin/crawl',
      cookie: admin,
      payload: { urls: [`http://127.0.0.1:${site.port}/`] },
    });
    expect(queued.statusCode, queued.body).toBe(202);
    const crawlId = queued.json<{ id: string }>().id;
    const deadline = Date.now() + 60_000;
    let status = '';
    while (status !== 'DONE') {
      const detail = await t.request({ method: 'GET', url: `/api/admin/crawls/${crawlId}`, cookie: admin });
      ({ status } = detail.json<{ status: string }>());
      expect(status, detail.body).not.toBe('FAILED');
      expect(Date.now(), 'crawl not done within 60 s').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const key = thumbnailKey(sha256Hex(portrait));
    const image = await t.db
      .selectFrom('images')
      .select(['id', 'thumbnail_path', 'face_count'])
      .where('content_hash', '=', sha256Hex(portrait))
      .executeTakeFirstOrThrow();
    expect(image).toMatchObject({ thumbnail_path: key, face_count: 1 });
    // In the bucket (read through the S3 API and on s3rver's disk), and not in the database's store.
    const stored = await new S3BlobStore(settings()).get(key);
    expect((await sharp(stored!).metadata()).format).toBe('jpeg');
    expect((await fs.readFile(fileOf(key))).equals(stored!)).toBe(true);
    expect(await t.db.selectFrom('stored_blobs').select('key').execute()).toEqual([]);

    const owner = await createUser(t, { email: 'analyst@object-store.example.org' });
    await createPlan(t, owner.organizationId, { seatLimit: 1 });
    const analyst = await login(t, 'analyst@object-store.example.org');
    const answer = await searchFirstFace<{ results: { thumbnailUrl: string; similarity: number }[] }>(
      t,
      analyst,
      portrait,
    );
    expect(answer.results.length).toBeGreaterThan(0);
    const served = await t.request({ method: 'GET', url: answer.results[0]!.thumbnailUrl, cookie: analyst });
    expect(served.statusCode, served.body).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.rawPayload.equals(stored!)).toBe(true);

    // An opt-out that leaves the image without a face deletes its thumbnail from the bucket.
    const face = await t.db
      .selectFrom('faces')
      .select('id')
      .where('image_id', '=', image.id)
      .executeTakeFirstOrThrow();
    const optOut = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: admin,
      payload: { faceId: face.id, reason: 'asked to be removed' },
    });
    expect(optOut.statusCode, optOut.body).toBeLessThan(300);
    expect(await new S3BlobStore(settings()).get(key)).toBeNull();
    await expect(fs.access(fileOf(key))).rejects.toThrow();
    const gone = await t.request({ method: 'GET', url: answer.results[0]!.thumbnailUrl, cookie: analyst });
    expect(gone.statusCode).toBe(404);
  });
});
