import { SEARCH_MESSAGES } from '@osint/contract/search';
import { createRequire } from 'node:module';
import path from 'node:path';
import bmp from 'bmp-js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { meanDescriptor } from '../../src/face/similarity.ts';
import { modelOfPipeline } from '../../src/services/face-model.service.ts';
import { watchBinding } from '../../src/services/face-watch.service.ts';
import { UPLOAD_TOO_BIG_MESSAGE } from '../../src/services/search.service.ts';
import { drawnFaceBox, expectedFaceBox } from '../support/pdf-face-box.ts';
import { createAdmin, createUser, login, crawlDemoSites, verifyLawEnforcement } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import { pdfText } from '../support/pdf-text.ts';

// Face search over a real index: the bundled demo sites are crawled through the real crawl job, then
// photos are uploaded and searched through the API as analysts of different organizations.

interface SearchAnswer {
  results: {
    id: number;
    hash: string;
    group: string;
    imageUrl: string | null;
    sourceUrl: string | null;
    similarity: number;
    thumbnailUrl: string;
    crawledAt: string;
    faceBox: { x: number; y: number; width: number; height: number } | null;
  }[];
  numberOfResults: number;
  searchHash: string;
  time: number;
}

interface UploadAnswer {
  faces: {
    hash: string;
    base64: string;
    box: { x: number; y: number; width: number; height: number };
    small: boolean;
  }[];
  smallFaceCount: number;
  smallFaceSizes: number[];
  smallFaceBoxes: { x: number; y: number; width: number; height: number }[];
  minFaceSize: number;
  reliableFaceSize: number;
}

const SAMPLES = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')),
  'demo',
);

/** One of face-api's group photos (1920 px wide) reduced to `width`, so that its faces shrink with it. */
async function groupPhoto(sample: number, width: number): Promise<Buffer> {
  return sharp(path.join(SAMPLES, `sample${sample}.jpg`))
    .resize(width)
    .jpeg({ quality: 90 })
    .toBuffer();
}

let t: TestApp;
let site: DemoSite;
let photos: Map<string, Buffer>;
const cookies: Record<'a' | 'b' | 'trial' | 'noSeat' | 'admin', string> = {} as never;

async function organizationWithPlan(email: string, planType: 'SUBSCRIPTION' | 'TRIAL', hasAccess = true) {
  const user = await createUser(t, { email, hasAccess });
  const now = Date.now();
  await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: planType,
      start_date: new Date(now - 86_400_000),
      end_date: new Date(now + 30 * 86_400_000),
      seat_limit: 3,
    })
    .execute();
  return login(t, email);
}

async function upload(cookie: string, image: Buffer) {
  return t.request({
    method: 'POST',
    url: '/api/upload-image',
    cookie,
    payload: { img: image.toString('base64') },
  });
}

async function uploadOneFace(cookie: string, image: Buffer): Promise<string> {
  const response = await upload(cookie, image);
  expect(response.statusCode, response.body).toBe(200);
  const faces = response.json<{ faces: { hash: string; base64: string }[] }>().faces;
  expect(faces).toHaveLength(1);
  return faces[0]!.hash;
}

async function search(cookie: string, hashes: string[], type = 'OSINT') {
  return t.request({ method: 'POST', url: '/api/search', cookie, payload: { faces: hashes, type } });
}

beforeAll(async () => {
  site = await startDemoSite({ port: 0 });
  photos = await renderDemoPhotos();
  t = await createTestApp();
  cookies.admin = await createAdmin(t);
  cookies.a = await organizationWithPlan('analyst@agency-a.example.org', 'SUBSCRIPTION');
  // Carla Mendes of the demo sites is an adult whose face the age gate flags as a possible minor (estimated
  // 27.6 years: the gate errs on the side of the child, see server/src/face/age/README.md), so the
  // organization that searches her is verified law enforcement. Agency B is not.
  await verifyLawEnforcement(t, 'analyst@agency-a.example.org');
  cookies.b = await organizationWithPlan('analyst@agency-b.example.org', 'SUBSCRIPTION');
  cookies.trial = await organizationWithPlan('analyst@trial-ngo.example.org', 'TRIAL');
  cookies.noSeat = await organizationWithPlan('analyst@no-seat.example.org', 'SUBSCRIPTION', false);
  await crawlDemoSites(t, site.crawlTarget);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe(`face search (${TEST_DATABASE_KIND})`, () => {
  let marshHash: string;
  let marshSearch: SearchAnswer;
  /** A search run with its face image (kept with the search). */
  let withFace: SearchAnswer;

  it('finds the page of the uploaded face first, and groups copies of the same photo across sites', async () => {
    marshHash = await uploadOneFace(cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    const response = await search(cookies.a, [marshHash]);
    expect(response.statusCode, response.body).toBe(200);
    marshSearch = response.json<SearchAnswer>();
    const { results } = marshSearch;
    expect(marshSearch.numberOfResults).toBe(results.length);
    expect(results[0]!.imageUrl).toMatch(/helena-marsh\.jpg$/);
    expect(results[0]!.similarity).toBeGreaterThan(0.97);
    // Her portrait is cut from the festival photo, which the digest re-published smaller: those two
    // sightings are one photo (one group), not the portrait's group.
    const festival = results.find((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.festival.file));
    const copy = results.find((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.festivalCopy.file));
    expect(festival).toBeDefined();
    expect(copy).toBeDefined();
    expect(copy!.group).toBe(festival!.group);
    expect(festival!.group).not.toBe(results[0]!.group);
    expect(new URL(copy!.sourceUrl!).hostname).not.toBe(new URL(festival!.sourceUrl!).hostname);
    // Ranked by similarity, every one above the calibrated threshold.
    const similarities = results.map((r) => r.similarity);
    expect([...similarities].sort((x, y) => y - x)).toEqual(similarities);
    // Someone else's face is not returned: the court photo has other people only.
    expect(results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.court.file))).toBe(false);
  });

  it('searches faces of several photos of one person together; a face of another organization is refused', async () => {
    // The portrait mirrored: other bytes and another descriptor of the same face.
    const mirrored = await sharp(photos.get(DEMO_PHOTOS.marsh.file)!).flop().jpeg({ quality: 90 }).toBuffer();
    const mirroredHash = await uploadOneFace(cookies.a, mirrored);
    const response = await search(cookies.a, [marshHash, mirroredHash]);
    expect(response.statusCode, response.body).toBe(200);
    const { results } = response.json<SearchAnswer>();
    expect(results[0]!.imageUrl).toMatch(/helena-marsh\.jpg$/);
    // The mean of both lies between them: her portrait scores below its single-photo 0.97+ but far above
    // the threshold, and her other photos are still found.
    expect(results[0]!.similarity).toBeLessThan(marshSearch.results[0]!.similarity);
    expect(results[0]!.similarity).toBeGreaterThan(0.8);
    for (const file of [DEMO_PHOTOS.festival.file, DEMO_PHOTOS.festivalCopy.file]) {
      expect(results.some((r) => r.imageUrl?.endsWith(file))).toBe(true);
    }
    expect(results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.court.file))).toBe(false);

    // A face uploaded by another organization cannot join this one's search.
    const elsewhere = await uploadOneFace(cookies.b, mirrored);
    const mixed = await search(cookies.a, [marshHash, elsewhere]);
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json<{ message: string }>().message).toBe(
      'The selected face is no longer available. Please upload the photo again.',
    );
  });

  it('never returns indexed faces flagged as possible minors to an organization that is not law enforcement', async () => {
    // Agency B is not verified; the portrait's own face is not flagged, so B may search it.
    const uploaded = await upload(cookies.b, photos.get(DEMO_PHOTOS.marsh.file)!);
    const face = uploaded.json<{ faces: { hash: string; possibleMinor: boolean }[] }>().faces[0]!;
    expect(face.possibleMinor).toBe(false);
    const hashA = await uploadOneFace(cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    // A sighting is one face in one image: the image's URL and the face's box.
    const key = (url: string | null | undefined, box: { x: number; y: number }) =>
      `${url}|${Math.round(box.x)},${Math.round(box.y)}`;
    const sightings = async (cookie: string, hash: string) => {
      const response = await search(cookie, [hash]);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<SearchAnswer>().results.map((r) => key(r.imageUrl, r.faceBox!));
    };
    const flaggedFaces = async () =>
      (
        await t.db
          .selectFrom('faces')
          .innerJoin('image_occurrences as occ', 'occ.image_id', 'faces.image_id')
          .select(['occ.image_url', 'faces.box_x', 'faces.box_y'])
          .where('faces.possible_minor', '=', true)
          .execute()
      ).map((row) => key(row.image_url, { x: row.box_x, y: row.box_y }));
    const portraitFaces = t.db
      .selectFrom('faces')
      .select('faces.id')
      .where('faces.image_id', 'in', (eb) =>
        eb
          .selectFrom('image_occurrences')
          .select('image_id')
          .where('image_url', 'like', '%/helena-marsh.jpg'),
      );
    const before = await t.db.selectFrom('faces').select(['id', 'possible_minor']).execute();
    try {
      await t.db
        .updateTable('faces')
        .set({ possible_minor: true })
        .where('id', 'in', portraitFaces)
        .execute();
      const flagged = new Set(await flaggedFaces());
      const forA = await sightings(cookies.a, hashA);
      const forB = await sightings(cookies.b, face.hash);
      // Law enforcement sees the flagged portrait; B sees every other sighting and none that is flagged.
      expect(forA.some((k) => k.includes('/helena-marsh.jpg|'))).toBe(true);
      expect(forB.some((k) => k.includes('/helena-marsh.jpg|'))).toBe(false);
      expect(forB.filter((k) => flagged.has(k))).toEqual([]);
      expect(forB).toEqual(forA.filter((k) => !flagged.has(k)));
      expect(forB.length).toBeGreaterThan(0);
    } finally {
      for (const row of before)
        await t.db
          .updateTable('faces')
          .set({ possible_minor: row.possible_minor })
          .where('id', '=', row.id)
          .execute();
    }
  });

  it('serves result thumbnails to the organization whose search returned them, with search access', async () => {
    const url = marshSearch.results[0]!.thumbnailUrl;
    const thumbnail = await t.request({ method: 'GET', url, cookie: cookies.a });
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
    // Another organization (whose searches never returned the image) and a member without a seat.
    expect((await t.request({ method: 'GET', url, cookie: cookies.b })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url, cookie: cookies.noSeat })).statusCode).toBe(403);
  });

  it('searches social-media sources only when asked, and the demo sites are not social media', async () => {
    const response = await search(cookies.a, [marshHash], 'SOCIAL_MEDIA_SEARCH');
    expect(response.statusCode).toBe(200);
    expect(response.json<SearchAnswer>().numberOfResults).toBe(0);
  });

  it('keeps organizations apart: faces and searches of one are unknown to another', async () => {
    const foreignFace = await search(cookies.b, [marshHash]);
    expect(foreignFace.statusCode).toBe(400);
    const foreignRemoval = await t.request({
      method: 'POST',
      url: '/api/search/remove-records',
      cookie: cookies.b,
      payload: { hash: marshSearch.searchHash, recordHashes: [marshSearch.results[0]!.hash] },
    });
    expect(foreignRemoval.statusCode).toBe(404);
    const row = await t.db
      .selectFrom('search_results')
      .select('removed_at')
      .where('record_hash', '=', marshSearch.results[0]!.hash)
      .executeTakeFirstOrThrow();
    expect(row.removed_at).toBeNull();
  });

  it('removes records from a stored search', async () => {
    const removal = await t.request({
      method: 'POST',
      url: '/api/search/remove-records',
      cookie: cookies.a,
      payload: { hash: marshSearch.searchHash, recordHashes: [marshSearch.results[0]!.hash] },
    });
    expect(removal.statusCode).toBe(200);
    expect(removal.json()).toEqual({ removed: 1 });
    const rows = await t.db
      .selectFrom('search_results')
      .innerJoin('searches', 'searches.id', 'search_results.search_id')
      .select(['search_results.record_hash', 'search_results.removed_at'])
      .where('searches.hashed_id', '=', marshSearch.searchHash)
      .execute();
    expect(rows).toHaveLength(marshSearch.numberOfResults);
    expect(rows.filter((r) => r.removed_at !== null).map((r) => r.record_hash)).toEqual([
      marshSearch.results[0]!.hash,
    ]);
  });

  it('reopens a stored search by its hash: the same answer without the removed result; 404 elsewhere', async () => {
    const reopened = await t.request({
      method: 'GET',
      url: `/api/search/${marshSearch.searchHash}`,
      cookie: cookies.a,
    });
    expect(reopened.statusCode, reopened.body).toBe(200);
    const answer = reopened.json<SearchAnswer & { type: string; createdAt: string; image: null }>();
    // The first result was removed by the test above; the rest is the search's own answer, field by field.
    expect(answer.results).toEqual(marshSearch.results.slice(1));
    expect(answer).toMatchObject({
      numberOfResults: marshSearch.numberOfResults - 1,
      searchHash: marshSearch.searchHash,
      time: marshSearch.time,
      type: 'OSINT',
      image: null,
    });
    // Another organization's search, a hash that names nothing, and no session.
    for (const [cookie, hash, status] of [
      [cookies.b, marshSearch.searchHash, 404],
      [cookies.a, 'no-such-search', 404],
      [undefined, marshSearch.searchHash, 401],
    ] as const) {
      const response = await t.request({ method: 'GET', url: `/api/search/${hash}`, cookie });
      expect(response.statusCode, `${hash} ${cookie ? 'signed in' : 'anonymous'}`).toBe(status);
    }
  });

  it("answers each result's face box in the result image's pixels, the indexed face's own box", async () => {
    const stored = await t.db
      .selectFrom('search_results')
      .innerJoin('faces', 'faces.id', 'search_results.face_id')
      .innerJoin('images', 'images.id', 'faces.image_id')
      .select(['search_results.record_hash', 'faces.box_x', 'faces.box_y', 'faces.box_width'])
      .select(['faces.box_height', 'images.width', 'images.height'])
      .where(
        'search_results.record_hash',
        'in',
        marshSearch.results.map((r) => r.hash),
      )
      .execute();
    expect(stored).toHaveLength(marshSearch.results.length);
    for (const result of marshSearch.results as (SearchAnswer['results'][number] & {
      faceBox: { x: number; y: number; width: number; height: number };
      imageSize: { width: number; height: number };
    })[]) {
      const face = stored.find((row) => row.record_hash === result.hash)!;
      expect(result.faceBox).toEqual({
        x: Math.round(face.box_x),
        y: Math.round(face.box_y),
        width: Math.round(face.box_width),
        height: Math.round(face.box_height),
      });
      expect(result.imageSize).toEqual({ width: face.width, height: face.height });
      expect(result.faceBox.width).toBeGreaterThan(20);
      expect(result.faceBox.x + result.faceBox.width).toBeLessThanOrEqual(result.imageSize.width + 2);
      expect(result.faceBox.y + result.faceBox.height).toBeLessThanOrEqual(result.imageSize.height + 2);
    }
    // The festival photo shows several people: the box is Helena Marsh's face, not the whole photo.
    const festival = marshSearch.results.find((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.festival.file)) as
      { faceBox: { width: number }; imageSize: { width: number } } | undefined;
    expect(festival!.faceBox.width).toBeLessThan(festival!.imageSize.width / 2);
  });

  it('keeps the searched face with a search; refuses an unreadable one before storing anything', async () => {
    const uploaded = await upload(cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    const face = uploaded.json<UploadAnswer>().faces[0]!;
    const before = await t.db
      .selectFrom('searches')
      .select((eb) => eb.fn.countAll().as('n'))
      .execute();
    const refused = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie: cookies.a,
      payload: { faces: [face.hash], type: 'OSINT', image: Buffer.from('not a photo').toString('base64') },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json<{ message: string }>().message).toBe(
      'The face image could not be read. Please run the search again.',
    );
    const after = await t.db
      .selectFrom('searches')
      .select((eb) => eb.fn.countAll().as('n'))
      .execute();
    expect(after).toEqual(before);

    // A readable picture that is not the chosen face's crop (another face of another photo) is refused too.
    const otherFace = (await upload(cookies.a, photos.get(DEMO_PHOTOS.mendes.file)!)).json<UploadAnswer>()
      .faces[0]!;
    const swapped = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie: cookies.a,
      payload: { faces: [face.hash], type: 'OSINT', image: otherFace.base64 },
    });
    expect(swapped.statusCode).toBe(400);
    expect(swapped.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.faceImageMismatch);
    expect(
      await t.db
        .selectFrom('searches')
        .select((eb) => eb.fn.countAll().as('n'))
        .execute(),
    ).toEqual(before);

    const kept = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie: cookies.a,
      payload: { faces: [face.hash], type: 'OSINT', image: face.base64 },
    });
    expect(kept.statusCode, kept.body).toBe(200);
    withFace = kept.json<SearchAnswer>();
    const reopened = await t.request({
      method: 'GET',
      url: `/api/search/${withFace.searchHash}`,
      cookie: cookies.a,
    });
    const image = reopened.json<{ image: string }>().image;
    expect(image).toBe(`/api/search/${withFace.searchHash}/image`);
    const jpeg = await t.request({ method: 'GET', url: image, cookie: cookies.a });
    expect(jpeg.statusCode).toBe(200);
    expect((await sharp(jpeg.rawPayload).metadata()).format).toBe('jpeg');
    expect((await t.request({ method: 'GET', url: image, cookie: cookies.b })).statusCode).toBe(404);
  });

  it("lists the organization's search history newest first, paged; another organization sees none of it", async () => {
    const history = async (cookie: string, query: string) => {
      const response = await t.request({ method: 'GET', url: `/api/search/history?${query}`, cookie });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{
        results: {
          searchHash: string;
          type: string;
          createdAt: string;
          userEmail: string;
          numberOfResults: number;
          image: string | null;
        }[];
        totalResultCount: number;
      }>();
    };
    const all = await history(cookies.a, 'pageNumber=1&pageSize=100');
    const count = await t.db
      .selectFrom('searches')
      .innerJoin('users', 'users.id', 'searches.user_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('users.email', '=', 'analyst@agency-a.example.org')
      .executeTakeFirstOrThrow();
    expect(all.totalResultCount).toBe(Number(count.n));
    expect(all.results).toHaveLength(all.totalResultCount);
    const times = all.results.map((r) => r.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.results[0]).toEqual({
      searchHash: withFace.searchHash,
      type: 'OSINT',
      createdAt: expect.any(String),
      userEmail: 'analyst@agency-a.example.org',
      numberOfResults: withFace.numberOfResults,
      image: `/api/search/${withFace.searchHash}/image`,
    });
    // The removed result is not counted: the history says what reopening shows.
    const marsh = all.results.find((r) => r.searchHash === marshSearch.searchHash)!;
    expect(marsh.numberOfResults).toBe(marshSearch.numberOfResults - 1);
    expect(marsh.image).toBeNull();
    const second = await history(cookies.a, 'pageNumber=2&pageSize=1');
    expect(second.results.map((r) => r.searchHash)).toEqual([all.results[1]!.searchHash]);
    const other = await history(cookies.b, 'pageNumber=1&pageSize=100');
    expect(other.results.filter((r) => all.results.some((a) => a.searchHash === r.searchHash))).toEqual([]);
    // "history" is not read as a search hash, and bad paging is refused.
    const bad = await t.request({ method: 'GET', url: '/api/search/history?pageSize=0', cookie: cookies.a });
    expect(bad.statusCode).toBe(400);
  });

  const withResults = (cookie: string | undefined, searchHash: string, recordHashes: string[]) =>
    t.request({
      method: 'POST',
      url: `/api/search/${searchHash}/with-results`,
      cookie,
      payload: { recordHashes },
    });
  /**
   * A search of a blurred copy of Helena Marsh's portrait (a weaker descriptor of her face), kept with its
   * picture, so that it can be searched again with results the analyst confirms.
   */
  const searchBlurredMarsh = async (cookie: string) => {
    const blurred = await sharp(photos.get(DEMO_PHOTOS.marsh.file)!).blur(4).jpeg({ quality: 90 }).toBuffer();
    const face = (await upload(cookie, blurred)).json<UploadAnswer>().faces[0]!;
    const response = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie,
      payload: { faces: [face.hash], type: 'OSINT', image: face.base64 },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<SearchAnswer>();
  };
  const resultOf = (answer: SearchAnswer, file: string) =>
    answer.results.find((r) => r.imageUrl?.endsWith(file))!;

  it("searches again with the search's face and the results the analyst chose, as a new search", async () => {
    // The analyst confirms the portrait found on her page.
    const first = await searchBlurredMarsh(cookies.a);
    const portrait = resultOf(first, DEMO_PHOTOS.marsh.file);
    const festival = resultOf(first, DEMO_PHOTOS.festival.file);
    expect(portrait.similarity).toBeLessThan(0.9);
    const searchesBefore = await t.db
      .selectFrom('searches')
      .select((eb) => eb.fn.countAll().as('n'))
      .execute();

    // Wrong hands or wrong hashes change nothing: another organization, no session, a result of another
    // search, nothing chosen.
    const refusals: [string | undefined, string, string[], number, string | undefined][] = [
      [cookies.b, first.searchHash, [portrait.hash], 404, 'Search not found.'],
      [undefined, first.searchHash, [portrait.hash], 401, undefined],
      [cookies.a, first.searchHash, [marshSearch.results[1]!.hash], 400, SEARCH_MESSAGES.resultFaceGone],
      [cookies.a, first.searchHash, [], 400, undefined],
    ];
    for (const [cookie, searchHash, hashes, status, message] of refusals) {
      const response = await withResults(cookie, searchHash, hashes);
      expect(response.statusCode, `${searchHash} ${hashes.join()}`).toBe(status);
      if (message) expect(response.json<{ message: string }>().message).toBe(message);
    }
    // The first search of this suite kept no picture of its face: there is nothing to search again.
    const faceless = await withResults(cookies.a, marshSearch.searchHash, [marshSearch.results[1]!.hash]);
    expect(faceless.statusCode).toBe(400);
    expect(faceless.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.searchedFaceNotKept);
    expect(
      await t.db
        .selectFrom('searches')
        .select((eb) => eb.fn.countAll().as('n'))
        .execute(),
    ).toEqual(searchesBefore);

    const response = await withResults(cookies.a, first.searchHash, [portrait.hash, portrait.hash]);
    expect(response.statusCode, response.body).toBe(200);
    const again = response.json<SearchAnswer>();
    expect(again.searchHash).not.toBe(first.searchHash);
    const scoreOf = (answer: SearchAnswer, file: string) =>
      answer.results.find((r) => r.imageUrl?.endsWith(file))?.similarity;
    // The query is the mean of both faces, so it lies nearer the confirmed portrait: the portrait and the
    // festival photo it was cut from score higher than from the blurred face alone; no other person joins.
    expect(scoreOf(again, DEMO_PHOTOS.marsh.file)).toBeGreaterThan(portrait.similarity + 0.05);
    expect(scoreOf(again, DEMO_PHOTOS.festival.file)).toBeGreaterThan(festival.similarity + 0.05);
    expect(scoreOf(again, DEMO_PHOTOS.festivalCopy.file)).toBeDefined();
    expect(again.results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.court.file))).toBe(false);
    // Stored as a search of its own, keeping the same picture of the searched face.
    const picture = (hash: string) =>
      t.request({ method: 'GET', url: `/api/search/${hash}/image`, cookie: cookies.a });
    // (Encoded again as every kept picture is: the same pixels within JPEG's rounding.)
    const pixels = async (hash: string) =>
      sharp((await picture(hash)).rawPayload)
        .raw()
        .toBuffer({ resolveWithObject: true });
    const [kept, original] = [await pixels(again.searchHash), await pixels(first.searchHash)];
    expect(kept.info).toEqual(original.info);
    const difference = kept.data.reduce((sum, value, i) => sum + Math.abs(value - original.data[i]!), 0);
    expect(difference / kept.data.length).toBeLessThan(2);

    // Searching again from that search keeps the portrait it added and adds the festival's copy.
    const copy = resultOf(again, DEMO_PHOTOS.festivalCopy.file);
    const third = await withResults(cookies.a, again.searchHash, [copy.hash]);
    expect(third.statusCode, third.body).toBe(200);
    const thirdHash = third.json<SearchAnswer>().searchHash;
    const addedCount = async (hash: string) =>
      (await t.request({ method: 'GET', url: `/api/search/${hash}`, cookie: cookies.a })).json<{
        addedFaceCount: number;
      }>().addedFaceCount;
    expect([
      await addedCount(first.searchHash),
      await addedCount(again.searchHash),
      await addedCount(thirdHash),
    ]).toEqual([0, 1, 2]);
    const faceIdsOf = async (recordHashes: string[]) =>
      (
        await t.db
          .selectFrom('search_results')
          .select('face_id')
          .where('record_hash', 'in', recordHashes)
          .execute()
      )
        .map((row) => Number(row.face_id))
        .sort();
    const stored = await t.db
      .selectFrom('searches')
      .select('added_face_ids')
      .where('hashed_id', '=', thirdHash)
      .executeTakeFirstOrThrow();
    expect(stored.added_face_ids.map(Number).sort()).toEqual(await faceIdsOf([portrait.hash, copy.hash]));
    // Its report says what it was searched with.
    const report = await t.request({
      method: 'POST',
      url: '/api/search/generate-report',
      cookie: cookies.a,
      payload: { searchHash: thirdHash },
    });
    expect(report.statusCode).toBe(200);
    const text = pdfText(report.rawPayload).replace(/\s+/g, ' ');
    expect(text).toContain('SEARCHED WITH');
    expect(text).toContain('The face shown and 2 results the analyst confirmed as this person');
    // Saved, the copy keeps it: the saved search's report says so too (the search may be gone by then).
    const saving = await t.request({
      method: 'POST',
      url: '/api/search/save',
      cookie: cookies.a,
      payload: {
        name: 'Marsh, searched again',
        description: '',
        hash: thirdHash,
        image: (await picture(thirdHash)).rawPayload.toString('base64'),
      },
    });
    expect(saving.statusCode, saving.body).toBe(201);
    const savedId = saving.json<{ id: number }>().id;
    const copied = async () =>
      (
        await t.db
          .selectFrom('saved_searches')
          .select('status')
          .where('id', '=', savedId)
          .executeTakeFirstOrThrow()
      ).status;
    for (const deadline = Date.now() + 20_000; (await copied()) !== 'COMPLETED';) {
      if (Date.now() > deadline) throw new Error('the saved search was not copied');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const savedResult = await t.db
      .selectFrom('saved_search_results')
      .select('id')
      .where('saved_search_id', '=', savedId)
      .executeTakeFirstOrThrow();
    const savedReport = await t.request({
      method: 'POST',
      url: '/api/saved-search/generate-report',
      cookie: cookies.a,
      payload: { dataResultsId: [savedResult.id] },
    });
    expect(savedReport.statusCode, savedReport.body).toBe(200);
    expect(pdfText(savedReport.rawPayload).replace(/\s+/g, ' ')).toContain(
      'The face shown and 2 results the analyst confirmed as this person',
    );

    // A result removed from the list cannot be chosen any more.
    const removal = await t.request({
      method: 'POST',
      url: '/api/search/remove-records',
      cookie: cookies.a,
      payload: { hash: again.searchHash, recordHashes: [again.results[0]!.hash] },
    });
    expect(removal.json()).toEqual({ removed: 1 });
    const removed = await withResults(cookies.a, again.searchHash, [again.results[0]!.hash]);
    expect(removed.statusCode).toBe(400);
    expect(removed.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.resultFaceGone);
  });

  it('keeps every face of a search of several photos: searching it again and watching it use them all', async () => {
    // Two uploads of Helena Marsh: a blurred copy of her portrait (shown) and the portrait mirrored.
    const faceOf = async (image: Buffer) => (await upload(cookies.a, image)).json<UploadAnswer>().faces[0]!;
    const marsh = photos.get(DEMO_PHOTOS.marsh.file)!;
    const blurred = await faceOf(await sharp(marsh).blur(4).jpeg({ quality: 90 }).toBuffer());
    const mirrored = await faceOf(await sharp(marsh).flop().jpeg({ quality: 90 }).toBuffer());
    const stranger = await faceOf(photos.get(DEMO_PHOTOS.court.file)!);
    const searchWith = (image: string | undefined, otherImages: string[]) =>
      t.request({
        method: 'POST',
        url: '/api/search',
        cookie: cookies.a,
        payload: { faces: [blurred.hash, mirrored.hash], type: 'OSINT', image, otherImages },
      });
    const count = async () =>
      (
        await t.db
          .selectFrom('searches')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await count();
    // A picture kept with a search must be another of its faces: the shown one twice, a face not searched,
    // other pictures without the shown one are refused, and nothing is stored.
    for (const [image, others] of [
      [blurred.base64, [blurred.base64]],
      [blurred.base64, [stranger.base64]],
      [undefined, [mirrored.base64]],
    ] as const) {
      const refused = await searchWith(image, [...others]);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.faceImageMismatch);
    }
    expect(await count()).toBe(before);

    const response = await searchWith(blurred.base64, [mirrored.base64]);
    expect(response.statusCode, response.body).toBe(200);
    const both = response.json<SearchAnswer>();
    const stored = (hash: string) =>
      t.request({ method: 'GET', url: `/api/search/${hash}`, cookie: cookies.a });
    expect((await stored(both.searchHash)).json()).toMatchObject({ otherFaceCount: 1, addedFaceCount: 0 });

    // Searched again with her portrait, the new search keeps both uploaded faces: its scores are those of
    // the three faces' mean, not of the blurred face and the portrait alone.
    const portraitOf = (answer: SearchAnswer) => resultOf(answer, DEMO_PHOTOS.marsh.file);
    const again = await withResults(cookies.a, both.searchHash, [portraitOf(both).hash]);
    expect(again.statusCode, again.body).toBe(200);
    const fromBoth = again.json<SearchAnswer>();
    expect((await stored(fromBoth.searchHash)).json()).toMatchObject({
      otherFaceCount: 1,
      addedFaceCount: 1,
    });
    const single = await searchBlurredMarsh(cookies.a);
    const fromOne = (
      await withResults(cookies.a, single.searchHash, [portraitOf(single).hash])
    ).json<SearchAnswer>();
    expect(portraitOf(fromBoth).similarity).toBeGreaterThan(portraitOf(fromOne).similarity + 0.01);
    expect(fromBoth.results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.court.file))).toBe(false);
    const report = await t.request({
      method: 'POST',
      url: '/api/search/generate-report',
      cookie: cookies.a,
      payload: { searchHash: fromBoth.searchHash },
    });
    expect(report.statusCode).toBe(200);
    expect(pdfText(report.rawPayload).replace(/\s+/g, ' ')).toContain(
      'The face shown, 1 other uploaded face of this person and 1 result the analyst confirmed as this person',
    );

    // Watched, the search is watched as it searched: the mean of both uploaded faces.
    const watch = async (searchHash: string) => {
      const created = await t.request({
        method: 'POST',
        url: '/api/watches',
        cookie: cookies.a,
        payload: { name: 'Helena Marsh', searchHash },
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json<{ id: number }>().id;
      return { id, descriptor: await watchedDescriptor(id) };
    };
    const watchedDescriptor = async (id: number) => {
      const row = await t.db
        .selectFrom('face_watches')
        .select(['descriptor_sealed', 'organization_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return (await t.container.services.queryFaces.openStored(
        row.descriptor_sealed!,
        watchBinding(row.organization_id),
      ))!;
    };
    const organizationId = (
      await t.db
        .selectFrom('users')
        .select('organization_id')
        .where('email', '=', 'analyst@agency-a.example.org')
        .executeTakeFirstOrThrow()
    ).organization_id!;
    const descriptorOf = async (hash: string) =>
      (await t.container.services.queryFaces.open(hash, organizationId))!.descriptor;
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
    const mean = meanDescriptor([await descriptorOf(blurred.hash), await descriptorOf(mirrored.hash)]);
    // (Each kept picture is read again: the same face within a JPEG's re-encoding.)
    const watchOfBoth = await watch(both.searchHash);
    expect(dot(watchOfBoth.descriptor, mean)).toBeGreaterThan(0.98);
    expect(dot((await watch(single.searchHash)).descriptor, mean)).toBeLessThan(0.98);

    // A saved copy keeps every face too: its watch is the same mean, after the search itself is gone.
    const saving = await t.request({
      method: 'POST',
      url: '/api/search/save',
      cookie: cookies.a,
      payload: {
        name: 'Marsh, two photos',
        description: '',
        hash: both.searchHash,
        image: (
          await t.request({ method: 'GET', url: `/api/search/${both.searchHash}/image`, cookie: cookies.a })
        ).rawPayload.toString('base64'),
      },
    });
    expect(saving.statusCode, saving.body).toBe(201);
    expect(dot((await watch(saving.json<{ hash: string }>().hash)).descriptor, mean)).toBeGreaterThan(0.98);

    // "Save as search" on the alerts page searches the watch with every face it keeps.
    const searchedNow = await t.request({
      method: 'POST',
      url: `/api/watches/${watchOfBoth.id}/search`,
      cookie: cookies.a,
    });
    expect(searchedNow.statusCode, searchedNow.body).toBe(200);
    const fromWatch = searchedNow.json<{ searchHash: string }>();
    expect((await stored(fromWatch.searchHash)).json()).toMatchObject({ otherFaceCount: 1 });

    // After a change of model the matcher reads the watch again from all its faces, not the shown one alone.
    const activeModel = (
      await t.db
        .selectFrom('face_watches')
        .select('model_id')
        .where('id', '=', watchOfBoth.id)
        .executeTakeFirstOrThrow()
    ).model_id;
    const oldModel = modelOfPipeline('blazeface-dlib');
    const binding = watchBinding(organizationId);
    await t.db
      .updateTable('face_watches')
      .set({
        model_id: oldModel.modelId,
        descriptor_sealed: await t.container.services.queryFaces.sealStored(
          new Float32Array(oldModel.dimensions).fill(1 / Math.sqrt(oldModel.dimensions)),
          binding,
        ),
        changed_at: new Date(),
      })
      .where('id', '=', watchOfBoth.id)
      .execute();
    await t.container.services.faceAlerts.drain();
    const rederived = await watchedDescriptor(watchOfBoth.id);
    expect(rederived).toHaveLength(mean.length);
    expect(dot(rederived, mean)).toBeGreaterThan(0.98);

    // An ended watch keeps no face: its pictures go with its descriptor.
    const ended = await t.request({
      method: 'DELETE',
      url: `/api/watches/${watchOfBoth.id}`,
      cookie: cookies.a,
    });
    expect(ended.statusCode, ended.body).toBe(204);
    expect(
      await t.db
        .selectFrom('face_watches')
        .select(['face_image', 'other_face_images', 'added_face_ids', 'model_id'])
        .where('id', '=', watchOfBoth.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ face_image: null, other_face_images: [], added_face_ids: [], model_id: activeModel });
  });

  it('a result flagged as a possible minor is searched again only by law enforcement, and audited', async () => {
    // Agency B is not law enforcement; Agency A is. The festival face is flagged after both searches
    // found it (as a reindex's age estimate could), and unflagged again at the end.
    const [ofB, ofA] = [await searchBlurredMarsh(cookies.b), await searchBlurredMarsh(cookies.a)];
    const festivalOf = (answer: SearchAnswer) => resultOf(answer, DEMO_PHOTOS.festival.file);
    const { face_id: faceId } = await t.db
      .selectFrom('search_results')
      .select('face_id')
      .where('record_hash', '=', festivalOf(ofB).hash)
      .executeTakeFirstOrThrow();
    const flag = (possibleMinor: boolean | null) =>
      t.db.updateTable('faces').set({ possible_minor: possibleMinor }).where('id', '=', faceId!).execute();
    const { possible_minor: before } = await t.db
      .selectFrom('faces')
      .select('possible_minor')
      .where('id', '=', faceId!)
      .executeTakeFirstOrThrow();
    expect(before).toBe(false);
    await flag(true);
    try {
      const refused = await withResults(cookies.b, ofB.searchHash, [festivalOf(ofB).hash]);
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ message: string }>().message).toBe(SEARCH_MESSAGES.resultFaceGone);

      const allowed = await withResults(cookies.a, ofA.searchHash, [festivalOf(ofA).hash]);
      expect(allowed.statusCode, allowed.body).toBe(200);
      const audited = await t.db
        .selectFrom('audit_log')
        .select('action')
        .where('target', '=', `search:${allowed.json<SearchAnswer>().searchHash}`)
        .orderBy('id')
        .execute();
      expect(audited.map((row) => row.action)).toEqual(['search.performed', 'search.minor']);
    } finally {
      await flag(before);
    }
  });

  it('reports an unsaved search as a PDF: every shown result, or the chosen ones; 404 elsewhere', async () => {
    const report = (cookie: string, payload: object) =>
      t.request({ method: 'POST', url: '/api/search/generate-report', cookie, payload });
    const whole = await report(cookies.a, { searchHash: withFace.searchHash });
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.headers['content-type']).toBe('application/pdf');
    expect(whole.headers['content-disposition']).toMatch(/filename="search-report-search-/);
    const text = pdfText(whole.rawPayload);
    expect(text).toContain('SEARCH REPORT');
    expect(text).not.toContain('SAVED SEARCH REPORT');
    expect(text).toContain('SEARCHED ON');
    const n = withFace.numberOfResults;
    expect(text).toMatch(new RegExp(`RESULTS IN THIS REPORT\\s+${n} of ${n}`));
    expect(text).toContain(`Result ${n}`);

    const chosen = withFace.results[1]!;
    const one = await report(cookies.a, { searchHash: withFace.searchHash, resultIds: [chosen.id] });
    expect(one.statusCode).toBe(200);
    const oneText = pdfText(one.rawPayload);
    expect(oneText).toMatch(new RegExp(`RESULTS IN THIS REPORT\\s+1 of ${n}`));
    expect(oneText).toContain(new URL(chosen.sourceUrl!).hostname);
    // The matched face is outlined on the entry's thumbnail (120 points square), where the API says it is.
    const drawn = await drawnFaceBox(one.rawPayload);
    const expected = expectedFaceBox(chosen as unknown as Parameters<typeof expectedFaceBox>[0], 120);
    expect(drawn, 'no face box drawn on the result page').not.toBeNull();
    expect(Math.abs(drawn!.x - expected.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(drawn!.width - expected.width)).toBeLessThanOrEqual(3);
    expect(Math.abs(drawn!.height - expected.height)).toBeLessThanOrEqual(3);

    // Another organization's search, a result of another search, a removed result: nothing is reported.
    expect((await report(cookies.b, { searchHash: withFace.searchHash })).statusCode).toBe(404);
    const foreignResult = { searchHash: withFace.searchHash, resultIds: [marshSearch.results[1]!.id] };
    expect((await report(cookies.a, foreignResult)).statusCode).toBe(404);
    const removed = { searchHash: marshSearch.searchHash, resultIds: [marshSearch.results[0]!.id] };
    expect((await report(cookies.a, removed)).statusCode).toBe(404);
  });

  it('deletes a search from the history with its results; another organization cannot', async () => {
    const url = `/api/search/${withFace.searchHash}`;
    expect((await t.request({ method: 'DELETE', url, cookie: cookies.b })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url, cookie: cookies.a })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url, cookie: cookies.a })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url, cookie: cookies.a })).statusCode).toBe(404);
    const left = await t.db
      .selectFrom('search_results')
      .select('id')
      .where(
        'id',
        'in',
        withFace.results.map((r) => r.id),
      )
      .execute();
    expect(left).toEqual([]);
    expect((await t.request({ method: 'DELETE', url, cookie: cookies.a })).statusCode).toBe(404);
  });

  it('withholds original sources from trial plans and refuses users without a seat', async () => {
    const hash = await uploadOneFace(cookies.trial, photos.get(DEMO_PHOTOS.marsh.file)!);
    const answer = (await search(cookies.trial, [hash])).json<SearchAnswer>();
    expect(answer.numberOfResults).toBeGreaterThan(0);
    expect(answer.results.every((r) => r.imageUrl === null && r.sourceUrl === null)).toBe(true);

    const refused = await upload(cookies.noSeat, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(refused.statusCode).toBe(403);
    expect(
      (await t.request({ method: 'POST', url: '/api/upload-image', payload: { img: 'AAAA' } })).statusCode,
    ).toBe(401);
  });

  it('accepts PNG, BMP and TIFF photos', async () => {
    const jpeg = photos.get(DEMO_PHOTOS.marsh.file)!;
    const png = await sharp(jpeg).png().toBuffer();
    const tiff = await sharp(jpeg).tiff().toBuffer();
    const raw = await sharp(jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    // bmp-js takes ABGR pixels.
    const abgr = Buffer.alloc(raw.data.length);
    for (let i = 0; i < raw.data.length; i += 4) {
      abgr[i] = 255;
      abgr[i + 1] = raw.data[i + 2]!;
      abgr[i + 2] = raw.data[i + 1]!;
      abgr[i + 3] = raw.data[i]!;
    }
    const bmpFile = bmp.encode({ data: abgr, width: raw.info.width, height: raw.info.height }).data;
    for (const image of [png, tiff, bmpFile]) {
      const hash = await uploadOneFace(cookies.a, image);
      const answer = (await search(cookies.a, [hash])).json<SearchAnswer>();
      expect(answer.results[0]!.imageUrl).toMatch(/helena-marsh\.jpg$/);
    }
  });

  it('refuses oversized photos with 413 and bad files with a clear 400', async () => {
    const big = Buffer.concat([photos.get(DEMO_PHOTOS.marsh.file)!, Buffer.alloc(1.6 * 1024 * 1024)]);
    const tooBig = await upload(cookies.a, big);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().message).toBe(UPLOAD_TOO_BIG_MESSAGE);

    const garbage = await upload(cookies.a, Buffer.from('this is not an image at all, just text'));
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().message).toMatch(/JPG, PNG, BMP or TIFF/);

    // WebP and GIF are images the engine reads (crawled photos), but not the types an upload may be.
    const marsh = photos.get(DEMO_PHOTOS.marsh.file)!;
    for (const other of [await sharp(marsh).webp().toBuffer(), await sharp(marsh).gif().toBuffer()]) {
      const refused = await upload(cookies.a, other);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe(SEARCH_MESSAGES.unsupportedFile);
    }

    // A PNG header declaring 30000 × 30000 pixels: refused from the header, never decoded.
    const bombHeader = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    bombHeader.writeUInt32BE(30_000, 16);
    bombHeader.writeUInt32BE(30_000, 20);
    const bomb = await upload(cookies.a, bombHeader);
    expect(bomb.statusCode).toBe(400);
  });

  it('offers the 64–127 px faces of a group photo, marked small, with their boxes, and searches them', async () => {
    // The gala photo (five people, faces of 162–208 px at 1920 px) at 1000 px: faces of about 84–108 px.
    const photo = await groupPhoto(5, 1000);
    const { width, height } = await sharp(photo).metadata();
    const response = await upload(cookies.a, photo);
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<UploadAnswer>();
    expect(answer).toMatchObject({
      minFaceSize: 64,
      reliableFaceSize: 128,
      smallFaceCount: 0,
      smallFaceSizes: [],
    });
    expect(answer.faces).toHaveLength(5);
    for (const face of answer.faces) {
      expect(face.small).toBe(true);
      const { x, y, width: w, height: h } = face.box;
      expect([x, y, w, h].every(Number.isInteger)).toBe(true);
      expect(Math.min(w, h)).toBeGreaterThanOrEqual(64);
      expect(Math.max(w, h)).toBeLessThan(128);
      expect(x >= 0 && y >= 0 && x + w <= width! && y + h <= height!).toBe(true);
      const crop = await sharp(Buffer.from(face.base64, 'base64')).metadata();
      expect(crop.format).toBe('jpeg');
    }
    // Largest first, and five different places in the photo.
    const areas = answer.faces.map((f) => f.box.width * f.box.height);
    expect([...areas].sort((a, b) => b - a)).toEqual(areas);
    expect(new Set(answer.faces.map((f) => `${f.box.x},${f.box.y}`)).size).toBe(5);

    // A small face is a real query: the smallest one finds its own photo, published on the demo sites.
    const smallest = answer.faces.at(-1)!;
    const found = await search(cookies.a, [smallest.hash]);
    expect(found.statusCode, found.body).toBe(200);
    const results = found.json<SearchAnswer>().results;
    expect(results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.gala.file))).toBe(true);

    // The same photo at full size: its faces are 128 px and more, offered and not marked small.
    const full = (await upload(cookies.a, await groupPhoto(5, 1920))).json<UploadAnswer>();
    expect(full.faces).toHaveLength(5);
    expect(full.faces.every((f) => !f.small && Math.min(f.box.width, f.box.height) >= 128)).toBe(true);
  });

  it('offers no face under 64 px, and says how many there were and how small', async () => {
    // The gala photo at 480 px: faces of about 41–55 px.
    const response = await upload(cookies.a, await groupPhoto(5, 480));
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json<UploadAnswer>();
    expect(answer.faces).toEqual([]);
    expect(answer.minFaceSize).toBe(64);
    expect(answer.smallFaceCount).toBe(5);
    expect(answer.smallFaceSizes).toHaveLength(5);
    expect([...answer.smallFaceSizes].sort((a, b) => b - a)).toEqual(answer.smallFaceSizes);
    expect(answer.smallFaceSizes.every((size) => Number.isInteger(size) && size >= 30 && size < 64)).toBe(
      true,
    );
    // Each one's box, in the same order, so the chooser can draw it on the photo with its size.
    expect(answer.smallFaceBoxes).toHaveLength(5);
    answer.smallFaceBoxes.forEach((box, i) => {
      expect(Math.min(box.width, box.height)).toBe(answer.smallFaceSizes[i]);
      expect(box.x + box.width).toBeLessThanOrEqual(480 + 1);
    });
  });

  it('an opted-out face is no longer found', async () => {
    const portraitFace = await t.db
      .selectFrom('faces')
      .innerJoin('images', 'images.id', 'faces.image_id')
      .innerJoin('image_occurrences', 'image_occurrences.image_id', 'images.id')
      .select('faces.id')
      .where('image_occurrences.image_url', 'like', '%helena-marsh.jpg')
      .executeTakeFirstOrThrow();
    const optOut = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: cookies.admin,
      payload: { faceId: portraitFace.id, reason: 'Request of the person (test)' },
    });
    expect(optOut.statusCode, optOut.body).toBe(201);
    const hash = await uploadOneFace(cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    const answer = (await search(cookies.a, [hash])).json<SearchAnswer>();
    expect(answer.results.some((r) => r.imageUrl?.endsWith('helena-marsh.jpg'))).toBe(false);
    // Matched by descriptor: the same face in the festival photo is gone too.
    expect(answer.results.some((r) => r.imageUrl?.endsWith(DEMO_PHOTOS.festival.file))).toBe(false);
  });

  it('an admin opts a person out with a photo of them: every sighting of the face is gone', async () => {
    const photo = photos.get(DEMO_PHOTOS.mendes.file)!;
    const before = (await search(cookies.a, [await uploadOneFace(cookies.a, photo)])).json<SearchAnswer>();
    expect(before.results.length).toBeGreaterThan(1);

    const analystHash = await uploadOneFace(cookies.a, photo);
    const adminHash = await uploadOneFace(cookies.admin, photo);
    const optOut = (payload: object) =>
      t.request({ method: 'POST', url: '/api/admin/opt-outs', cookie: cookies.admin, payload });
    // Neither or both ways of naming the face, or a face uploaded by someone else: refused, nothing removed.
    expect((await optOut({ reason: 'Request of the person (test)' })).statusCode).toBe(400);
    expect((await optOut({ faceId: 1, faceHash: adminHash, reason: 'Both' })).statusCode).toBe(400);
    expect((await optOut({ faceHash: analystHash, reason: 'Not my upload' })).statusCode).toBe(400);

    const done = await optOut({ faceHash: adminHash, reason: 'Request of the person (test)' });
    expect(done.statusCode, done.body).toBe(201);
    expect(done.json().removedFaces).toBeGreaterThan(1);
    const after = (await search(cookies.a, [await uploadOneFace(cookies.a, photo)])).json<SearchAnswer>();
    expect(after.results).toEqual([]);
    // The search made before the opt-out no longer shows the person either, nor counts them.
    const reopened = await t.request({
      method: 'GET',
      url: `/api/search/${before.searchHash}`,
      cookie: cookies.a,
    });
    expect(reopened.statusCode, reopened.body).toBe(200);
    expect(reopened.json<SearchAnswer>()).toMatchObject({ results: [], numberOfResults: 0 });
  });
});
