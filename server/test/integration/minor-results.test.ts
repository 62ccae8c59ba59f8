import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as backfillSearchFlags } from '../../src/db/migrations/0028_backfill_search_possible_minor.ts';
import { copyFacesFromOriginals } from '../../src/db/migrations/0036_copied_result_faces.ts';
import { up as findCopiedFacesByImage } from '../../src/db/migrations/0040_copied_faces_by_image_and_latin_watchlist_keys.ts';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { FaceModelRepository } from '../../src/repositories/face-model.repository.ts';
import { renderDemoPhotos } from '../../src/demo/demo-site.ts';
import { bytes, html, page, TestServer } from '../crawler/test-server.ts';
import {
  createAdmin,
  searchFace,
  setLawEnforcement,
  uploadFaces,
  verifyLawEnforcement,
} from '../support/fixtures.ts';
import { createOwner, createSearch, type Member } from '../support/team-fixtures.ts';
import { pdfText } from '../support/pdf-text.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The minors rule on what a search has stored: results whose face the index flags as a possible minor
// are shown, reported, saved and read by the data extractor only while the organization is verified law
// enforcement. An organization whose verification is withdrawn keeps its searches, not those results.

let t: TestApp;
let site: TestServer;
let admin: string;
let police: Member;
let photo: Buffer;

interface SearchAnswer {
  searchHash: string;
  results: { id: number; thumbnailUrl: string }[];
}

async function waitUntil(done: () => Promise<boolean>, what: string) {
  for (const deadline = Date.now() + 60_000; !(await done());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function crawl(url: string) {
  const started = await t.request({
    method: 'POST',
    url: '/api/admin/crawl',
    cookie: admin,
    payload: { urls: [url] },
  });
  expect(started.statusCode, started.body).toBe(202);
  const { id } = started.json<{ id: string }>();
  for (const deadline = Date.now() + 90_000; ;) {
    const { status } = (
      await t.request({ method: 'GET', url: `/api/admin/crawls/${id}`, cookie: admin })
    ).json<{
      status: string;
    }>();
    if (status === 'DONE') return;
    if (status === 'FAILED' || Date.now() > deadline) throw new Error(`crawl ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const setPoliceVerified = (verified: boolean) => setLawEnforcement(t, admin, police.organizationId, verified);

/** Saves the police's search with the searched face's picture (201 checked). */
const saveSearch = async (name: string, searchHash: string, image: string) => {
  const saved = await t.request({
    method: 'POST',
    url: '/api/search/save',
    cookie: police.cookie,
    payload: { name, description: '', hash: searchHash, image },
  });
  expect(saved.statusCode, saved.body).toBe(201);
  return saved;
};

/**
 * Saves the police's search and runs the data extractor on it, and waits until both copies are made: their
 * public hashes and row ids.
 */
async function copySearch(name: string, searchHash: string, image: string) {
  const saved = (await saveSearch(name, searchHash, image)).json<{ hash: string }>();
  const started = await t.request({
    method: 'POST',
    url: '/api/data-extractor',
    cookie: police.cookie,
    payload: { name, searchHash, image },
  });
  expect(started.statusCode, started.body).toBe(201);
  const extraction = started.json<{ id: string; resultCount: number }>();
  const savedRow = () =>
    t.db
      .selectFrom('saved_searches')
      .select(['status', 'id'])
      .where('hashed_id', '=', saved.hash)
      .executeTakeFirstOrThrow();
  const extractionRow = () =>
    t.db
      .selectFrom('data_extractions')
      .select(['state', 'id'])
      .where('hashed_id', '=', extraction.id)
      .executeTakeFirstOrThrow();
  await waitUntil(async () => (await savedRow()).status === 'COMPLETED', 'the saved search');
  await waitUntil(async () => (await extractionRow()).state === 'DONE', 'the extraction');
  return {
    savedHash: saved.hash,
    savedId: (await savedRow()).id,
    extractionHash: extraction.id,
    extractionId: (await extractionRow()).id,
    extractionResultCount: extraction.resultCount,
  };
}

/** The number of results the search history gives the search. */
const historyCount = async (searchHash: string) => {
  const response = await t.request({ method: 'GET', url: '/api/search/history', cookie: police.cookie });
  expect(response.statusCode, response.body).toBe(200);
  const { results } = response.json<{ results: { searchHash: string; numberOfResults: number }[] }>();
  return results.find((item) => item.searchHash === searchHash)?.numberOfResults;
};

const reopen = async (searchHash: string) => {
  const response = await t.request({
    method: 'GET',
    url: `/api/search/${searchHash}`,
    cookie: police.cookie,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<SearchAnswer>();
};

beforeAll(async () => {
  // Carla Mendes of the demo sites is an adult the age gate flags as a possible minor (estimated 27.6
  // years; server/src/face/age/README.md): her indexed face carries the flag.
  photo = (await renderDemoPhotos()).get(DEMO_PHOTOS.mendes.file)!;
  site = await TestServer.start({
    '/': html(page('Profile', '<figure><img src="/photo.jpg" alt="Carla Mendes"></figure>')),
    '/photo.jpg': bytes(photo, 'image/jpeg'),
  });
  t = await createTestApp({ crawlAllowPrivate: true });
  admin = await createAdmin(t);
  police = await createOwner(t, 'owner@police-withdrawn.example.org');
  await verifyLawEnforcement(t, police.email);
  await crawl(site.url('/'));
}, 180_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe(`stored results of possible minors (${TEST_DATABASE_KIND})`, () => {
  it('are withheld once the law-enforcement verification is withdrawn, and shown again when restored', async () => {
    const flagged = await t.db.selectFrom('faces').select('possible_minor').execute();
    expect(flagged.map((face) => face.possible_minor)).toEqual([true]);
    const face = (await uploadFaces(t, police.cookie, photo))[0]!;
    const { searchHash, results } = await searchFace<SearchAnswer>(t, police.cookie, face.hash, face.base64);
    expect(results).toHaveLength(1);
    // The upload's flag is kept with the search (a watch made from it later keeps it).
    const stored = await t.db
      .selectFrom('searches')
      .select('possible_minor')
      .where('hashed_id', '=', searchHash)
      .executeTakeFirstOrThrow();
    expect(stored.possible_minor).toBe(true);
    const thumbnailUrl = results[0]!.thumbnailUrl;

    expect(await historyCount(searchHash)).toBe(1);

    await setPoliceVerified(false);
    expect((await reopen(searchHash)).results).toEqual([]);
    expect(await historyCount(searchHash)).toBe(0);
    const thumbnail = await t.request({ method: 'GET', url: thumbnailUrl, cookie: police.cookie });
    expect(thumbnail.statusCode).toBe(404);
    const report = await t.request({
      method: 'POST',
      url: '/api/search/generate-report',
      cookie: police.cookie,
      payload: { searchHash },
    });
    expect(report.statusCode).toBe(400);
    // A save or an extraction started now copies and reads nothing of her.
    const copies = await copySearch('Withdrawn', searchHash, face.base64);
    expect(copies.extractionResultCount).toBe(0);
    const copied = await t.db
      .selectFrom('saved_search_results')
      .select('id')
      .where('saved_search_id', '=', copies.savedId)
      .execute();
    expect(copied).toEqual([]);
    const extracted = await t.db
      .selectFrom('data_extraction_results')
      .select('id')
      .where('extraction_id', '=', copies.extractionId)
      .execute();
    expect(extracted).toEqual([]);

    // Nothing was deleted: verified again, the organization sees its search as it was.
    await setPoliceVerified(true);
    expect((await reopen(searchHash)).results).toHaveLength(1);
    expect(await historyCount(searchHash)).toBe(1);
    expect((await t.request({ method: 'GET', url: thumbnailUrl, cookie: police.cookie })).statusCode).toBe(
      200,
    );
  });

  it('copied while verified, in a saved search and an extraction, are withheld once the verification is withdrawn', async () => {
    const face = (await uploadFaces(t, police.cookie, photo))[0]!;
    const { searchHash } = await searchFace<SearchAnswer>(t, police.cookie, face.hash, face.base64);
    const copies = await copySearch('Copied while verified', searchHash, face.base64);
    const saved = { hash: copies.savedHash };
    const extractionId = copies.extractionHash;
    const get = (url: string) => t.request({ method: 'GET', url, cookie: police.cookie });
    const post = (url: string, payload: object) =>
      t.request({ method: 'POST', url, cookie: police.cookie, payload });
    const savedResults = async () =>
      (await get(`/api/saved-search/results/${saved.hash}`)).json<{ results: { id: number }[] }>().results;
    const extractedResults = async () =>
      (await get(`/api/data-extractor/results/details/${extractionId}?pageNumber=1&pageSize=20`)).json<{
        responses: { hashedId: string }[];
      }>().responses;
    const nameStatistic = async () =>
      (await get(`/api/data-extractor/results/${extractionId}`)).json<{
        nameStatistic: { linkCount: number };
      }>().nameStatistic.linkCount;
    // The counts and the best name the list, the summary and the report's cover show.
    const shownNames = async () => {
      const list = (await get('/api/data-extractor?status=DONE&pageSize=100')).json<{
        dataExtractorListItemList: {
          id: string;
          resultCount: number;
          processedCount: number;
          bestName: string | null;
        }[];
      }>().dataExtractorListItemList;
      const item = list.find((e) => e.id === extractionId)!;
      const searched = (await get('/api/data-extractor?status=DONE&pageSize=100&search=Mendes')).json<{
        dataExtractorListItemList: { id: string }[];
      }>().dataExtractorListItemList;
      const summary = (await get(`/api/data-extractor/results/${extractionId}`)).json<{
        bestName: string | null;
        namesFound: number;
        nameList: { name: string }[];
      }>();
      const details = (
        await get(`/api/data-extractor/results/details/${extractionId}?pageNumber=1&pageSize=20`)
      ).json<{ wikipediaResult: { name: string } | null }>();
      const savedList = (await get('/api/saved-search?pageSize=100')).json<{
        results: { hash: string; resultCount: number }[];
      }>().results;
      const savedOpened = (await get(`/api/saved-search/results/${saved.hash}`)).json<{
        resultCount: number;
        numberOfResults: number;
      }>();
      return {
        listed: {
          resultCount: item.resultCount,
          processedCount: item.processedCount,
          bestName: item.bestName,
          foundByName: searched.some((e) => e.id === extractionId),
        },
        summary: {
          bestName: summary.bestName,
          namesFound: summary.namesFound,
          names: summary.nameList.length,
          wikipedia: details.wikipediaResult?.name ?? null,
        },
        saved: {
          listed: savedList.find((e) => e.hash === saved.hash)?.resultCount,
          opened: [savedOpened.resultCount, savedOpened.numberOfResults],
        },
      };
    };

    const withdrawnNames = {
      listed: { resultCount: 0, processedCount: 0, bestName: null, foundByName: false },
      summary: { bestName: null, namesFound: 0, names: 0, wikipedia: null },
      saved: { listed: 0, opened: [0, 0] },
    };

    // Verified: both copies hold her face, with their thumbnails and reports.
    const [savedResult] = await savedResults();
    const [extracted] = await extractedResults();
    expect(savedResult).toBeDefined();
    expect(extracted).toBeDefined();
    const reads = {
      savedThumbnail: () => get(`/api/saved-search/results/image/${savedResult!.id}`),
      savedReport: () => post('/api/saved-search/generate-report', { dataResultsId: [savedResult!.id] }),
      extractedThumbnail: () => get(`/api/data-extractor/results/image/${extracted!.hashedId}`),
      extractedConnections: () => get(`/api/data-extractor/results/${extracted!.hashedId}/connections`),
      extractionReport: () =>
        post(`/api/data-extractor/results/${extractionId}/generate-report`, {
          hashedId: [extracted!.hashedId],
        }),
    };
    for (const [what, read] of Object.entries(reads)) expect((await read()).statusCode, what).toBe(200);
    expect(await nameStatistic()).toBe(1);
    // The whole extraction's report prints her result (its page's title) while the organization may see it.
    const wholeReportText = async () => {
      const report = await get(`/api/data-extractor/results/${extractionId}/generate-report/all`);
      expect(report.statusCode).toBe(200);
      return pdfText(report.rawPayload);
    };
    expect(await wholeReportText()).toContain('Profile');
    // The Wikipedia article found for her name (the test app reaches no Wikipedia: written here).
    await t.db
      .insertInto('data_extraction_wikipedia')
      .values({
        extraction_id: copies.extractionId,
        name: 'Carla Mendes',
        url: 'https://en.wikipedia.org/wiki/X',
      })
      .execute();
    const named = await shownNames();
    expect(named).toEqual({
      listed: { resultCount: 1, processedCount: 1, bestName: 'Carla Mendes', foundByName: true },
      summary: { bestName: 'Carla Mendes', namesFound: 1, names: 1, wikipedia: 'Carla Mendes' },
      saved: { listed: 1, opened: [1, 1] },
    });
    expect(await wholeReportText()).toContain('Carla Mendes');

    // Withdrawn: the copies keep her (nothing is deleted) but show, serve and report nothing of her.
    await setPoliceVerified(false);
    try {
      expect(await savedResults()).toEqual([]);
      expect(await extractedResults()).toEqual([]);
      expect(await nameStatistic()).toBe(0);
      for (const [what, read] of Object.entries(reads)) expect((await read()).statusCode, what).toBe(404);
      expect(await wholeReportText()).not.toContain('Profile');
      // Nor counted or named anywhere: the lists, the summary, the Wikipedia article found for her name
      // and the reports' covers leave her out too.
      expect(await shownNames()).toEqual(withdrawnNames);
      expect(await wholeReportText()).not.toContain('Carla Mendes');
      // Her saved result cannot be removed by whom may not see it: nothing removed, nothing counted.
      const removal = await t.request({
        method: 'DELETE',
        url: '/api/saved-search/remove/result',
        cookie: police.cookie,
        payload: { saveSearchId: copies.savedId, searchResultIds: [savedResult!.id] },
      });
      expect(removal.statusCode, removal.body).toBe(200);
      expect(removal.json()).toEqual({ removed: 0, remaining: 0 });
      // Nor can its Wikipedia article be marked checked (the answer would say that it exists).
      const marked = await t.request({
        method: 'PATCH',
        url: `/api/data-extractor/results/${extractionId}/wikipedia/checked`,
        cookie: police.cookie,
      });
      expect(marked.statusCode).toBe(404);
      const article = await t.db
        .selectFrom('data_extraction_wikipedia')
        .select('checked')
        .where('extraction_id', '=', copies.extractionId)
        .executeTakeFirstOrThrow();
      expect(article.checked).toBe(false);
    } finally {
      await setPoliceVerified(true);
    }
    expect(await savedResults()).toHaveLength(1);
    expect(await extractedResults()).toHaveLength(1);

    // Copies made before they kept their face get it from the results they were copied from (0036).
    const copiedFaces = async () => [
      ...(await t.db.selectFrom('saved_search_results').select('face_id').execute()),
      ...(await t.db.selectFrom('data_extraction_results').select('face_id').execute()),
    ];
    const faces = await copiedFaces();
    expect(faces.length).toBeGreaterThanOrEqual(2);
    expect(faces.every((row) => row.face_id !== null)).toBe(true);
    await t.db.updateTable('saved_search_results').set({ face_id: null }).execute();
    await t.db.updateTable('data_extraction_results').set({ face_id: null }).execute();
    await copyFacesFromOriginals(t.db as unknown as Kysely<unknown>);
    expect(await copiedFaces()).toEqual(faces);
    // Where the search copied from is gone, through the image shown and the face's box (0040).
    await t.db.updateTable('saved_search_results').set({ face_id: null }).execute();
    await t.db.updateTable('data_extraction_results').set({ face_id: null }).execute();
    await findCopiedFacesByImage(t.db as unknown as Kysely<unknown>);
    expect(await copiedFaces()).toEqual(faces);
    expect(await shownNames()).toEqual(named);
    // …and with their faces found again, they are withheld again once the verification is withdrawn.
    await setPoliceVerified(false);
    try {
      expect(await shownNames()).toEqual(withdrawnNames);
    } finally {
      await setPoliceVerified(true);
    }
  });

  it('a connection kept with its photo only (before 0039) is withheld when a face of that photo may be a minor', async () => {
    await setPoliceVerified(true);
    const face = (await uploadFaces(t, police.cookie, photo))[0]!;
    const { searchHash } = await searchFace<SearchAnswer>(t, police.cookie, face.hash, face.base64);
    const copies = await copySearch('Old connection', searchHash, face.base64);
    const result = await t.db
      .selectFrom('data_extraction_results')
      .select(['id', 'hashed_id', 'face_id'])
      .where('extraction_id', '=', copies.extractionId)
      .executeTakeFirstOrThrow();
    const { image_id: imageId } = await t.db
      .selectFrom('faces')
      .select('image_id')
      .where('id', '=', result.face_id!)
      .executeTakeFirstOrThrow();
    // A result copied without its face (shown whatever the rule), seen with a person kept as a photo only:
    // her photo, which the age estimate flags.
    // (The result is marked "seen with" as the extractor marks a result stored with connections.)
    await t.db
      .updateTable('data_extraction_results')
      .set({ face_id: null, seen_with: true })
      .where('id', '=', result.id)
      .execute();
    const connection = await t.db
      .insertInto('data_extraction_connections')
      .values({
        result_id: result.id,
        hashed_id: 'old-photo-only-connection',
        name: 'Carla Mendes',
        image_id: imageId,
        face_id: null,
        about_url: site.url('/'),
        evidence: '[]',
      })
      .returning('hashed_id')
      .executeTakeFirstOrThrow();
    const get = (url: string) => t.request({ method: 'GET', url, cookie: police.cookie });
    const seen = async () => {
      const connections = await get(`/api/data-extractor/results/${result.hashed_id}/connections`);
      expect(connections.statusCode, connections.body).toBe(200);
      const details = (
        await get(`/api/data-extractor/results/details/${copies.extractionHash}?pageNumber=1&pageSize=20`)
      ).json<{ responses: { hashedId: string; seenWith: boolean }[] }>().responses;
      const filtered = (
        await get(
          `/api/data-extractor/results/details/${copies.extractionHash}?pageNumber=1&pageSize=20&seenWith=Carla%20Mendes`,
        )
      ).json<{ responses: unknown[] }>().responses;
      const summary = (await get(`/api/data-extractor/results/${copies.extractionHash}`)).json<{
        seenWithNames: string[];
        nameStatistic: { seenWithCount: number };
      }>();
      return {
        connections: connections.json<{ name: string }[]>().map((c) => c.name),
        photo: (await get(`/api/data-extractor/results/connections/image/${connection.hashed_id}`))
          .statusCode,
        marked: details.find((r) => r.hashedId === result.hashed_id)?.seenWith,
        filtered: filtered.length,
        seenWithNames: summary.seenWithNames,
        seenWithCount: summary.nameStatistic.seenWithCount,
      };
    };
    const shown = {
      connections: ['Carla Mendes'],
      photo: 200,
      marked: true,
      filtered: 1,
      seenWithNames: ['Carla Mendes'],
      seenWithCount: 1,
    };
    expect(await seen()).toEqual(shown);
    await setPoliceVerified(false);
    try {
      expect(await seen()).toEqual({
        connections: [],
        photo: 404,
        marked: false,
        filtered: 0,
        seenWithNames: [],
        seenWithCount: 0,
      });
    } finally {
      await setPoliceVerified(true);
    }
    expect(await seen()).toEqual(shown);
  });

  it('searches made before their flag was kept get it back from the audit log (migration 0028)', async () => {
    await setPoliceVerified(true);
    const face = (await uploadFaces(t, police.cookie, photo))[0]!;
    const { searchHash } = await searchFace<SearchAnswer>(t, police.cookie, face.hash, face.base64);
    const savedHash = (await saveSearch('Before the flag', searchHash, face.base64)).json<{ hash: string }>()
      .hash;
    // A search the audit log says nothing about, as every search of an unflagged face.
    const plain = await createSearch(t, police);
    const flagOf = async (table: 'searches' | 'saved_searches', hashedId: string) =>
      (
        await t.db
          .selectFrom(table)
          .select('possible_minor')
          .where('hashed_id', '=', hashedId)
          .executeTakeFirstOrThrow()
      ).possible_minor;
    const flags = async () => ({
      flagged: await flagOf('searches', searchHash),
      saved: await flagOf('saved_searches', savedHash),
      plain: await flagOf('searches', plain.hashed_id),
    });
    expect(await flags()).toEqual({ flagged: true, saved: true, plain: false });

    // As they were stored before migration 0027 kept the flag.
    await t.db.updateTable('searches').set({ possible_minor: false }).execute();
    await t.db.updateTable('saved_searches').set({ possible_minor: false }).execute();
    await backfillSearchFlags(t.db as unknown as Kysely<unknown>);
    expect(await flags()).toEqual({ flagged: true, saved: true, plain: false });
  });

  it('stay withheld from an organization that may not see them after the face has left the index', async () => {
    // Her search, saved and extracted while verified; then her face goes (a model switch that finds no
    // replacement retires it; an opt-out would hide the rows from everyone) and the rows name no face any
    // more. Copies made after that (saved and extracted again, still verified) must carry the flag over
    // from the search's rows.
    await setPoliceVerified(true);
    const face = (await uploadFaces(t, police.cookie, photo))[0]!;
    const { searchHash } = await searchFace<SearchAnswer>(t, police.cookie, face.hash, face.base64);
    const before = await copySearch('Before she left the index', searchHash, face.base64);
    const get = async <T>(url: string) => {
      const response = await t.request({ method: 'GET', url, cookie: police.cookie });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<T>();
    };
    const shownIn = async (copies: { savedHash: string; extractionHash: string }) => ({
      saved: (await get<{ results: unknown[] }>(`/api/saved-search/results/${copies.savedHash}`)).results
        .length,
      extracted: (
        await get<{ responses: unknown[] }>(
          `/api/data-extractor/results/details/${copies.extractionHash}?pageNumber=1&pageSize=20`,
        )
      ).responses.length,
    });
    expect(await shownIn(before)).toEqual({ saved: 1, extracted: 1 });
    // The switch's retirement of the old model's faces, as `npm run reindex` runs it.
    await new FaceModelRepository(t.db).deleteFacesOfOtherModels(['another-model'], 0);
    expect(await t.db.selectFrom('faces').select('id').execute()).toEqual([]);
    const after = await copySearch('After she left the index', searchHash, face.base64);
    const shown = async () => ({
      search: (await reopen(searchHash)).results.length,
      before: await shownIn(before),
      after: await shownIn(after),
    });
    const all = (count: number) => ({
      search: count,
      before: { saved: count, extracted: count },
      after: { saved: count, extracted: count },
    });
    expect(await shown()).toEqual(all(1));

    await setPoliceVerified(false);
    try {
      expect(await shown()).toEqual(all(0));
      expect(await historyCount(searchHash)).toBe(0);
    } finally {
      await setPoliceVerified(true);
    }
    expect(await shown()).toEqual(all(1));
  });
});
