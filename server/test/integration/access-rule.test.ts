import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_ACCESS_MESSAGE } from '../../src/services/access.service.ts';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { demoPhoto } from '../face/image-fixtures.ts';
import {
  createMember,
  createOwner,
  createSavedSearch,
  createSearch,
  type Member,
} from '../support/team-fixtures.ts';
import { verifyLawEnforcement } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// One access rule for the organization's work: every route that reads or writes searches, saved searches
// or extractions answers 403 to a member (or owner) of the organization without a seat, and works for the
// one with the seat. The table below must name every route of those areas the OpenAPI document lists, so
// a new route cannot be added without being checked here.

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const WORK_TAGS = new Set(['search', 'saved-search', 'data-extractor', 'face-watch']);

interface RouteCase {
  /** The route as the OpenAPI document names it. */
  route: string;
  method: Method;
  url: () => string;
  payload?: () => Record<string, unknown>;
  /** What the seat holder gets (the route's own answer once the guard lets it through). */
  seated: number;
}

/** Every route of the organization's work, from the OpenAPI document, as `METHOD /path/{param}`. */
async function workRoutes(t: TestApp): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: '/api/docs/json' });
  const document = response.json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>();
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(
        ([method, operation]) => METHODS.has(method) && operation.tags?.some((tag) => WORK_TAGS.has(tag)),
      )
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

describe(`access rule: organization work needs a seat (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let seated: Member;
  let seatlessMember: Member;
  let seatlessOwner: Member;
  let faceToken: string;
  let faceJpeg: string;
  let searchHash: string;
  let searchFace: string;
  let saved: { id: number; hashedId: string; resultId: number };
  let extraction: { hashedId: string; resultHashedId: string };
  let watchId: number;

  beforeAll(async () => {
    t = await createTestApp();
    // The owner has no seat: the plan's only seat is the member's.
    seatlessOwner = await createOwner(t, 'owner@access-rule.example.org', { seatLimit: 1 });
    await t.db.updateTable('users').set({ has_access: false }).where('id', '=', seatlessOwner.id).execute();
    seated = await createMember(t, seatlessOwner.organizationId, 'analyst@access-rule.example.org', true);
    seatlessMember = await createMember(t, seatlessOwner.organizationId, 'member@access-rule.example.org');
    // The demo photo's faces may be flagged as possible minors: that gate has its own tests.
    await verifyLawEnforcement(t, seatlessOwner.email);

    const upload = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie: seated.cookie,
      payload: { img: (await sharp(demoPhoto(1)).resize(800).jpeg().toBuffer()).toString('base64') },
    });
    expect(upload.statusCode, upload.body).toBe(200);
    faceToken = upload.json<{ faces: { hash: string }[] }>().faces[0]!.hash;
    faceJpeg = (
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#888' } })
        .jpeg()
        .toBuffer()
    ).toString('base64');

    const search = await createSearch(t, seated);
    searchHash = search.hashed_id;
    searchFace = search.face;
    const savedRow = await createSavedSearch(t, seated);
    const savedFull = await t.db
      .selectFrom('saved_searches')
      .innerJoin('saved_search_results', 'saved_search_results.saved_search_id', 'saved_searches.id')
      .select(['saved_searches.hashed_id', 'saved_search_results.id as result_id'])
      .where('saved_searches.id', '=', savedRow.id)
      .executeTakeFirstOrThrow();
    saved = { id: savedRow.id, hashedId: savedFull.hashed_id, resultId: savedFull.result_id };

    const extractionRow = await t.db
      .insertInto('data_extractions')
      .values({
        hashed_id: newPublicId(),
        organization_id: seated.organizationId,
        user_id: seated.id,
        name: 'Extraction kept by the organization',
        image: Buffer.from(faceJpeg, 'base64'),
        state: 'DONE',
        result_count: 2,
        processed_count: 2,
        completed_at: new Date(),
      })
      .returning(['id', 'hashed_id'])
      .executeTakeFirstOrThrow();
    const resultIds: string[] = [];
    for (const rank of [0, 1]) {
      const hashedId = newPublicId();
      resultIds.push(hashedId);
      await t.db
        .insertInto('data_extraction_results')
        .values({
          extraction_id: extractionRow.id,
          hashed_id: hashedId,
          record_hash: newPublicId(),
          rank,
          similarity: 0.9,
          image_url: `https://news.example.org/${rank}.jpg`,
          source_url: `https://news.example.org/${rank}`,
          crawled_at: new Date(),
          person_name: 'Jane Example',
        })
        .execute();
    }
    await t.db
      .insertInto('data_extraction_wikipedia')
      .values({
        extraction_id: extractionRow.id,
        name: 'Jane Example',
        url: 'https://en.wikipedia.org/wiki/X',
      })
      .execute();
    extraction = { hashedId: extractionRow.hashed_id, resultHashedId: resultIds[0]! };
    watchId = (
      await t.db
        .insertInto('face_watches')
        .values({
          organization_id: seated.organizationId,
          user_id: seated.id,
          name: 'Watched by the organization',
          descriptor_sealed: Buffer.alloc(64, 1),
          model_id: 'test-model',
          ends_at: new Date(Date.now() + 86_400_000),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(() => t.close());

  // Reads first, then changes, then deletions, so each seated call finds what it works on.
  const table: RouteCase[] = [
    {
      route: 'POST /api/upload-image',
      method: 'POST',
      url: () => '/api/upload-image',
      seated: 200,
      payload: () => ({ img: faceJpeg }),
    },
    {
      // Seated, the call reaches the fetch: an address on a closed local port is refused with 400.
      route: 'POST /api/upload-image-url',
      method: 'POST',
      url: () => '/api/upload-image-url',
      seated: 400,
      payload: () => ({ url: 'http://127.0.0.1:9/photo.jpg' }),
    },
    {
      route: 'POST /api/search',
      method: 'POST',
      url: () => '/api/search',
      seated: 200,
      payload: () => ({ faces: [faceToken], type: 'OSINT' }),
    },
    // The organization is law enforcement: the face needs no review (the route's own 400).
    {
      route: 'POST /api/minor-reviews',
      method: 'POST',
      url: () => '/api/minor-reviews',
      seated: 400,
      payload: () => ({ face: faceToken, image: faceJpeg, reason: 'An adult' }),
    },
    // No review has this id: the route's own 404.
    {
      route: 'GET /api/minor-reviews/{id}',
      method: 'GET',
      url: () => '/api/minor-reviews/987654',
      seated: 404,
    },
    // No indexed image has this id: the seat holder passes the guard and gets the route's own 404.
    {
      route: 'GET /api/thumbnails/{imageId}',
      method: 'GET',
      url: () => '/api/thumbnails/987654',
      seated: 404,
    },
    {
      route: 'GET /api/search/history',
      method: 'GET',
      url: () => '/api/search/history?pageNumber=1&pageSize=10',
      seated: 200,
    },
    {
      route: 'GET /api/search/{searchHash}',
      method: 'GET',
      url: () => `/api/search/${searchHash}`,
      seated: 200,
    },
    {
      route: 'GET /api/search/{searchHash}/image',
      method: 'GET',
      url: () => `/api/search/${searchHash}/image`,
      seated: 200,
    },
    {
      route: 'POST /api/search/generate-report',
      method: 'POST',
      url: () => '/api/search/generate-report',
      seated: 200,
      payload: () => ({ searchHash }),
    },
    // No result of that name: the route's own 400.
    {
      route: 'POST /api/search/{searchHash}/with-results',
      method: 'POST',
      url: () => `/api/search/${searchHash}/with-results`,
      seated: 400,
      payload: () => ({ recordHashes: ['no-such-result'] }),
    },
    { route: 'GET /api/saved-search', method: 'GET', url: () => '/api/saved-search', seated: 200 },
    { route: 'GET /api/watches', method: 'GET', url: () => '/api/watches', seated: 200 },
    { route: 'GET /api/alerts', method: 'GET', url: () => '/api/alerts', seated: 200 },
    // The fixture's watch keeps no face crop: the route's own 404.
    {
      route: 'GET /api/watches/{id}/image',
      method: 'GET',
      url: () => `/api/watches/${watchId}/image`,
      seated: 404,
    },
    // The fixture's sealed descriptor is not one this key sealed: the route's own 400.
    {
      route: 'POST /api/watches/{id}/search',
      method: 'POST',
      url: () => `/api/watches/${watchId}/search`,
      seated: 400,
    },
    {
      route: 'GET /api/saved-search/results/{hash}',
      method: 'GET',
      seated: 200,
      url: () => `/api/saved-search/results/${saved.hashedId}`,
    },
    {
      route: 'GET /api/saved-search/image/{id}',
      method: 'GET',
      seated: 200,
      url: () => `/api/saved-search/image/${saved.id}`,
    },
    {
      route: 'GET /api/saved-search/results/image/{id}',
      method: 'GET',
      seated: 404,
      // The saved result has no thumbnail (the index had none to copy): the route's own 404.
      url: () => `/api/saved-search/results/image/${saved.resultId}`,
    },
    {
      route: 'POST /api/saved-search/generate-report',
      method: 'POST',
      seated: 200,
      url: () => '/api/saved-search/generate-report',
      payload: () => ({ dataResultsId: [saved.resultId] }),
    },
    { route: 'GET /api/data-extractor', method: 'GET', url: () => '/api/data-extractor', seated: 200 },
    {
      route: 'GET /api/data-extractor/image/{id}',
      method: 'GET',
      seated: 200,
      url: () => `/api/data-extractor/image/${extraction.hashedId}`,
    },
    {
      route: 'GET /api/data-extractor/results/{id}',
      method: 'GET',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.hashedId}`,
    },
    {
      route: 'GET /api/data-extractor/results/details/{id}',
      method: 'GET',
      seated: 200,
      url: () => `/api/data-extractor/results/details/${extraction.hashedId}`,
    },
    {
      route: 'GET /api/data-extractor/results/{id}/connections',
      method: 'GET',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.resultHashedId}/connections`,
    },
    {
      route: 'GET /api/data-extractor/results/image/{id}',
      method: 'GET',
      seated: 404,
      // The result has no thumbnail: the route's own 404.
      url: () => `/api/data-extractor/results/image/${extraction.resultHashedId}`,
    },
    {
      route: 'GET /api/data-extractor/results/connections/image/{id}',
      method: 'GET',
      seated: 404,
      // A result's id names no connection: the route's own 404.
      url: () => `/api/data-extractor/results/connections/image/${extraction.resultHashedId}`,
    },
    {
      route: 'GET /api/data-extractor/results/{id}/generate-report/all',
      method: 'GET',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.hashedId}/generate-report/all`,
    },
    {
      route: 'POST /api/data-extractor/results/{id}/generate-report',
      method: 'POST',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.hashedId}/generate-report`,
      payload: () => ({ hashedId: [extraction.resultHashedId], containWikipediaData: true }),
    },
    {
      route: 'POST /api/search/save',
      method: 'POST',
      url: () => '/api/search/save',
      seated: 201,
      payload: () => ({ name: 'Kept', description: '', hash: searchHash, image: searchFace }),
    },
    {
      route: 'POST /api/data-extractor',
      method: 'POST',
      url: () => '/api/data-extractor',
      seated: 201,
      payload: () => ({ searchHash, image: searchFace }),
    },
    {
      route: 'POST /api/watches',
      method: 'POST',
      url: () => '/api/watches',
      seated: 201,
      payload: () => ({ faceHash: faceToken, name: 'Watched' }),
    },
    {
      route: 'PATCH /api/watches/{id}',
      method: 'PATCH',
      url: () => `/api/watches/${watchId}`,
      seated: 204,
      payload: () => ({ muted: true }),
    },
    // No alert to mark or remove yet: the seat holder gets the route's own answer (none updated, 404).
    {
      route: 'POST /api/alerts/seen',
      method: 'POST',
      url: () => '/api/alerts/seen',
      seated: 200,
      payload: () => ({ ids: [987654] }),
    },
    { route: 'DELETE /api/alerts/{id}', method: 'DELETE', url: () => '/api/alerts/987654', seated: 404 },
    {
      route: 'DELETE /api/watches/{id}',
      method: 'DELETE',
      url: () => `/api/watches/${watchId}`,
      seated: 204,
    },
    {
      route: 'POST /api/saved-search/update',
      method: 'POST',
      url: () => '/api/saved-search/update',
      seated: 204,
      payload: () => ({ id: saved.id, name: 'Renamed', description: 'note' }),
    },
    {
      route: 'PATCH /api/data-extractor/{id}',
      method: 'PATCH',
      seated: 204,
      url: () => `/api/data-extractor/${extraction.hashedId}`,
      payload: () => ({ name: 'Renamed' }),
    },
    {
      route: 'PATCH /api/data-extractor/results/{id}/checked',
      method: 'PATCH',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.resultHashedId}/checked`,
    },
    {
      route: 'PATCH /api/data-extractor/results/{id}/wikipedia/checked',
      method: 'PATCH',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.hashedId}/wikipedia/checked`,
    },
    {
      route: 'PATCH /api/data-extractor/results/{id}',
      method: 'PATCH',
      seated: 204,
      url: () => `/api/data-extractor/results/${extraction.resultHashedId}`,
      payload: () => ({ name: 'Jo' }),
    },
    {
      route: 'POST /api/search/remove-records',
      method: 'POST',
      url: () => '/api/search/remove-records',
      seated: 200,
      payload: () => ({ hash: searchHash, recordHashes: [] }),
    },
    {
      route: 'DELETE /api/saved-search/remove/result',
      method: 'DELETE',
      seated: 200,
      url: () => '/api/saved-search/remove/result',
      payload: () => ({ saveSearchId: saved.id, searchResultIds: [saved.resultId] }),
    },
    {
      route: 'DELETE /api/data-extractor/results/{id}',
      method: 'DELETE',
      seated: 200,
      url: () => `/api/data-extractor/results/${extraction.resultHashedId}`,
    },
    {
      route: 'DELETE /api/saved-search/remove',
      method: 'DELETE',
      seated: 204,
      url: () => '/api/saved-search/remove',
      payload: () => ({ id: saved.id }),
    },
    {
      route: 'DELETE /api/data-extractor/{id}',
      method: 'DELETE',
      seated: 204,
      url: () => `/api/data-extractor/${extraction.hashedId}`,
    },
    {
      route: 'DELETE /api/search/{searchHash}',
      method: 'DELETE',
      seated: 204,
      url: () => `/api/search/${searchHash}`,
    },
  ];

  const call = (c: RouteCase, cookie: string) =>
    t.request({ method: c.method, url: c.url(), cookie, ...(c.payload ? { payload: c.payload() } : {}) });

  /** The organization's work as stored: a refused call changes none of it. */
  const work = async () => ({
    savedSearches: await t.db.selectFrom('saved_searches').select(['id', 'name', 'description']).execute(),
    savedResults: await t.db.selectFrom('saved_search_results').select('id').execute(),
    extractions: await t.db.selectFrom('data_extractions').select(['id', 'name']).execute(),
    watches: await t.db
      .selectFrom('face_watches')
      .select(['id', 'muted', 'ended_at'])
      .orderBy('id')
      .execute(),
    results: await t.db
      .selectFrom('data_extraction_results')
      .select(['id', 'person_name', 'checked', 'removed'])
      .orderBy('id')
      .execute(),
    wikipedia: await t.db.selectFrom('data_extraction_wikipedia').select('checked').execute(),
    searches: await t.db.selectFrom('searches').select('id').execute(),
    removed: await t.db.selectFrom('search_results').select('removed_at').execute(),
  });

  it('item 5: the table names every route of searches, saved searches and extractions', async () => {
    expect(table.map((c) => c.route).sort()).toEqual((await workRoutes(t)).sort());
  });

  it('item 5: an owner or member without a seat gets 403 on every route, changing nothing', async () => {
    const before = await work();
    for (const member of [seatlessMember, seatlessOwner]) {
      for (const c of table) {
        const response = await call(c, member.cookie);
        expect(response.statusCode, `${member.email} ${c.route}: ${response.body}`).toBe(403);
        expect(response.json().message).toBe(NO_ACCESS_MESSAGE);
      }
    }
    expect(await work()).toEqual(before);
  });

  it('a caller not signed in gets 401 on every route before the body is read or checked', async () => {
    const before = await work();
    for (const c of table) {
      const withBody = c.method === 'POST' || c.method === 'PUT' || c.method === 'PATCH';
      const response = await t.request({
        method: c.method,
        url: c.url(),
        // A body the route's schema refuses: checked first, it would answer 400.
        ...(withBody ? { payload: { unexpected: 'x'.repeat(100_000) } } : {}),
      });
      expect(response.statusCode, `${c.route}: ${response.body.slice(0, 200)}`).toBe(401);
    }
    expect(await work()).toEqual(before);
  });

  it('item 5: the seat holder gets each route’s own answer', async () => {
    for (const c of table) {
      const response = await call(c, seated.cookie);
      expect(response.statusCode, `${c.route}: ${response.body.slice(0, 300)}`).toBe(c.seated);
    }
  });
});
