import { IMAGE_URL_MESSAGES, SEARCH_MESSAGES } from '@osint/contract/search';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos } from '../../src/demo/demo-site.ts';
import { bytes, redirect, text, TestServer } from '../crawler/test-server.ts';
import { createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Search by image URL (spec 001 §2, /search/{imageUrl}): the server fetches the photo from a real local
// HTTP server through the crawler's SSRF-safe fetch and answers as an upload of the same bytes would.

interface UploadAnswer {
  faces: { hash: string; base64: string; box: { x: number; y: number; width: number; height: number } }[];
  smallFaceCount: number;
  minFaceSize: number;
}

let server: TestServer;
/** Private addresses allowed (CRAWL_ALLOW_PRIVATE=1), as on a developer's machine. */
let t: TestApp;
/** The default: private and loopback addresses refused; loopback trusted for the operator's crawls only. */
let guarded: TestApp;
let marsh: Buffer;
let cookie: string;
let guardedCookie: string;

async function organizationWithPlan(app: TestApp, email: string, hasAccess = true): Promise<string> {
  const user = await createUser(app, { email, hasAccess });
  const now = Date.now();
  await app.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(now - 86_400_000),
      end_date: new Date(now + 30 * 86_400_000),
      seat_limit: 3,
    })
    .execute();
  return login(app, email);
}

const byUrl = (app: TestApp, sessionCookie: string, url: string) =>
  app.request({ method: 'POST', url: '/api/upload-image-url', cookie: sessionCookie, payload: { url } });

beforeAll(async () => {
  marsh = (await renderDemoPhotos()).get(DEMO_PHOTOS.marsh.file)!;
  server = await TestServer.start({
    '/helena-marsh.jpg': bytes(marsh, 'image/jpeg'),
    '/moved.jpg': redirect('/helena-marsh.jpg'),
    '/page.html': text('<html><body>no photo here</body></html>', 'text/html'),
    // An image type with bytes that are no image: the decoder's own message, as for an upload.
    '/broken.png': bytes(Buffer.from('not a png at all'), 'image/png'),
    '/huge.jpg': bytes(Buffer.alloc(2 * 1024 * 1024, 0xff), 'image/jpeg'),
    // No Content-Length: the cap applies while the body streams in.
    '/huge-streamed.jpg': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.end(Buffer.alloc(2 * 1024 * 1024, 0xff));
    },
  });
  t = await createTestApp({ crawlAllowPrivate: true });
  guarded = await createTestApp({
    crawl: { politenessDelayMs: 10, trustedAddresses: ['127.0.0.1'], jobSliceMs: 60_000 },
  });
  cookie = await organizationWithPlan(t, 'analyst@agency-url.example.org');
  guardedCookie = await organizationWithPlan(guarded, 'analyst@agency-guarded.example.org');
}, 120_000);

afterAll(async () => {
  await t?.close();
  await guarded?.close();
  await server?.close();
});

describe(`search by image URL (${TEST_DATABASE_KIND})`, () => {
  it('answers exactly as an upload of the photo at the address', async () => {
    const viaUrl = await byUrl(t, cookie, server.url('/helena-marsh.jpg'));
    expect(viaUrl.statusCode, viaUrl.body).toBe(200);
    const upload = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie,
      payload: { img: marsh.toString('base64') },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const fromUrl = viaUrl.json<UploadAnswer>();
    const uploaded = upload.json<UploadAnswer>();
    expect(fromUrl.faces).toHaveLength(1);
    // Face tokens are sealed with a fresh nonce; everything else is the same answer.
    const withoutTokens = (answer: UploadAnswer) => ({
      ...answer,
      faces: answer.faces.map(({ hash: _hash, ...face }) => face),
    });
    expect(withoutTokens(fromUrl)).toEqual(withoutTokens(uploaded));
    // The token is a real one: it searches.
    const search = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie,
      payload: { faces: [fromUrl.faces[0]!.hash], type: 'OSINT' },
    });
    expect(search.statusCode, search.body).toBe(200);
    expect(server.hits('/helena-marsh.jpg')[0]!.userAgent).toMatch(/^OSINTPlatformBot\//);
  });

  it('follows a redirect to the photo', async () => {
    const response = await byUrl(t, cookie, server.url('/moved.jpg'));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<UploadAnswer>().faces).toHaveLength(1);
  });

  it('refuses what is not a photo with the messages of an upload', async () => {
    const page = await byUrl(t, cookie, server.url('/page.html'));
    expect(page.statusCode).toBe(400);
    expect(page.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.unsupportedFile);
    const broken = await byUrl(t, cookie, server.url('/broken.png'));
    expect(broken.statusCode).toBe(400);
    expect(broken.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.unsupportedFile);
  });

  it('refuses a photo over the upload limit with the 413 of an upload, declared or streamed', async () => {
    for (const path of ['/huge.jpg', '/huge-streamed.jpg']) {
      const response = await byUrl(t, cookie, server.url(path));
      expect(response.statusCode, path).toBe(413);
      expect(response.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.tooBig);
    }
  });

  it('says so when the address is no web address, answers an error, or cannot be reached', async () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/photo.jpg', 'file:///etc/passwd']) {
      const response = await byUrl(t, cookie, url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json<{ message: string }>().message).toBe(IMAGE_URL_MESSAGES.invalidUrl);
    }
    const missing = await byUrl(t, cookie, server.url('/missing.jpg'));
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ message: string }>().message).toBe(IMAGE_URL_MESSAGES.notFound);
    const closed = await byUrl(t, cookie, 'http://127.0.0.1:9/photo.jpg');
    expect(closed.statusCode).toBe(400);
    expect(closed.json<{ message: string }>().message).toBe(IMAGE_URL_MESSAGES.unreachable);
  });

  it('refuses private and loopback addresses unless private addresses are allowed, and fetches nothing', async () => {
    const before = server.hits('/helena-marsh.jpg').length;
    for (const url of [
      server.url('/helena-marsh.jpg'),
      server.url('/helena-marsh.jpg', 'localhost'),
      // The address the operator trusts for crawls (CRAWL_TRUSTED_ADDRESSES) is no one else's to reach,
      // on any port: refused before any connection, rather than tried on port 80.
      'http://127.0.0.1/helena-marsh.jpg',
      'http://localhost/helena-marsh.jpg',
      `http://[::1]:${server.port}/helena-marsh.jpg`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/photo.jpg',
    ]) {
      const response = await byUrl(guarded, guardedCookie, url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json<{ message: string }>().message).toBe(IMAGE_URL_MESSAGES.refused);
    }
    expect(server.hits('/helena-marsh.jpg')).toHaveLength(before);
  });

  it('reaches a host that a crawl pinned to an address (the demo sites) as that crawl did, and only that host', async () => {
    await guarded.db
      .insertInto('crawls')
      .values({
        public_id: 'pinned-demo-crawl',
        seeds: JSON.stringify([server.url('/', 'photos.demo.localhost')]),
        options: JSON.stringify({
          allowedPorts: [server.port],
          trustedAddresses: ['127.0.0.1'],
          hostAddresses: { 'photos.demo.localhost': '127.0.0.1' },
        }),
        is_demo: true,
      })
      .execute();
    const pinned = await byUrl(
      guarded,
      guardedCookie,
      server.url('/helena-marsh.jpg', 'Photos.Demo.localhost'),
    );
    expect(pinned.statusCode, pinned.body).toBe(200);
    expect(pinned.json<UploadAnswer>().faces).toHaveLength(1);
    // The crawl's trusted address does not open loopback to every other name or address.
    const direct = await byUrl(guarded, guardedCookie, server.url('/helena-marsh.jpg'));
    expect(direct.statusCode).toBe(400);
    expect(direct.json<{ message: string }>().message).toBe(IMAGE_URL_MESSAGES.refused);
    // Nor, through the pinned name, to other ports of that address (a service beside the demo sites).
    const beside = await TestServer.start({ '/secret.jpg': bytes(marsh, 'image/jpeg') });
    try {
      const otherPort = await byUrl(
        guarded,
        guardedCookie,
        beside.url('/secret.jpg', 'photos.demo.localhost'),
      );
      // Looked up as any public name: refused as loopback, or not found where *.localhost has no address.
      expect(otherPort.statusCode, otherPort.body).toBe(400);
      expect([IMAGE_URL_MESSAGES.refused, IMAGE_URL_MESSAGES.unreachable]).toContain(
        otherPort.json<{ message: string }>().message,
      );
      expect(beside.hits('/secret.jpg')).toHaveLength(0);
    } finally {
      await beside.close();
    }
  });

  it('is behind the guards of an upload: signed in, with access', async () => {
    const anonymous = await t.request({
      method: 'POST',
      url: '/api/upload-image-url',
      payload: { url: server.url('/helena-marsh.jpg') },
    });
    expect(anonymous.statusCode).toBe(401);
    const noSeat = await organizationWithPlan(t, 'analyst@no-seat-url.example.org', false);
    const before = server.requests.length;
    const refused = await byUrl(t, noSeat, server.url('/helena-marsh.jpg'));
    expect(refused.statusCode).toBe(403);
    // The access check comes first: no fetch is made for a user who may not search.
    expect(server.requests).toHaveLength(before);
    const tooLong = await byUrl(t, cookie, `${server.url('/')}${'a'.repeat(2100)}`);
    expect(tooLong.statusCode).toBe(400);
  });
});
