import {
  MATCH_SCORE_EXPLANATION,
  matchBandLabel,
  SHIPPED_SCORE_MODEL,
  similarityText,
} from '@osint/contract/match-score';
import { SAVE_NAME_TOO_LONG, SEARCH_MESSAGES } from '@osint/contract/search';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PHOTOS } from '../../src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite, type DemoSite } from '../../src/demo/demo-site.ts';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import {
  crawlDemoSites,
  searchFace,
  searchFirstFace,
  uploadFaces,
  verifyLawEnforcement,
  withJobsRefused,
} from '../support/fixtures.ts';
import { createMember, createOwner } from '../support/team-fixtures.ts';
import { drawnFaceBox, expectedFaceBox } from '../support/pdf-face-box.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import { pdfText } from '../support/pdf-text.ts';

// Saved searches and their PDF reports over a real index: the demo sites are crawled, analysts of
// different organizations search, save, read, edit, delete and report through the API.

interface SearchAnswer {
  results: {
    id: number;
    hash: string;
    imageUrl: string | null;
    sourceUrl: string | null;
    faceBox: { x: number; y: number; width: number; height: number } | null;
    imageSize: { width: number; height: number } | null;
  }[];
  numberOfResults: number;
  searchHash: string;
}

interface SavedItem {
  id: number;
  hash: string;
  name: string;
  description: string;
  status: 'PENDING' | 'COMPLETED';
  resultCount: number;
  image: string;
  createdAt: string;
}

interface SavedResults extends SavedItem {
  results: {
    id: number;
    hash: string;
    group: string;
    thumbnailUrl: string;
    imageUrl: string | null;
    sourceUrl: string | null;
    similarity: number;
    scoreModel: string | null;
    quality: number | null;
    faceBox: { x: number; y: number; width: number; height: number } | null;
    imageSize: { width: number; height: number } | null;
  }[];
  numberOfResults: number;
  time: number;
}

let t: TestApp;
let site: DemoSite;
let photos: Map<string, Buffer>;
const cookies: Record<'a' | 'a2' | 'b' | 'trial', string> = {} as never;

async function save(cookie: string, body: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/search/save', cookie, payload: body });
}

async function list(cookie: string, query: Record<string, string | number>) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const response = await t.request({ method: 'GET', url: `/api/saved-search?${params}`, cookie });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: SavedItem[]; totalResultCount: number }>();
}

async function waitForCompleted(cookie: string, id: number): Promise<SavedItem> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await list(cookie, { status: 'COMPLETED', pageSize: 100 })).results.find(
      (s) => s.id === id,
    );
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`saved search ${id} not completed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function results(cookie: string, hash: string) {
  return t.request({ method: 'GET', url: `/api/saved-search/results/${hash}`, cookie });
}

async function report(cookie: string, ids: number[]) {
  return t.request({
    method: 'POST',
    url: '/api/saved-search/generate-report',
    cookie,
    payload: { dataResultsId: ids },
  });
}

let organizationA: number;

beforeAll(async () => {
  site = await startDemoSite({ port: 0 });
  photos = await renderDemoPhotos();
  t = await createTestApp();
  const a = await createOwner(t, 'analyst@agency-a.example.org');
  organizationA = a.organizationId;
  cookies.a = a.cookie;
  // Carla Mendes of the demo sites is an adult the age gate flags as a possible minor (estimated 27.6
  // years; see server/src/face/age/README.md): agency A, which searches her, is verified law enforcement.
  await verifyLawEnforcement(t, 'analyst@agency-a.example.org');
  cookies.a2 = (await createMember(t, a.organizationId, 'colleague@agency-a.example.org', true)).cookie;
  cookies.b = (await createOwner(t, 'analyst@agency-b.example.org')).cookie;
  cookies.trial = (
    await createOwner(t, 'analyst@trial-ngo.example.org', { planType: 'TRIAL', seatLimit: 3 })
  ).cookie;
  await t.db
    .updateTable('organizations')
    .set({ name: 'Agency A Intelligence' })
    .where('id', '=', a.organizationId)
    .execute();
  await crawlDemoSites(t, site.crawlTarget);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe(`saved searches (${TEST_DATABASE_KIND})`, () => {
  let marsh: SearchAnswer & { face: string };
  let saved: SavedItem;
  let savedResults: SavedResults;

  it('saves a search as a job that copies the remaining results and their thumbnails', async () => {
    marsh = await searchFirstFace<SearchAnswer>(t, cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(marsh.numberOfResults).toBeGreaterThanOrEqual(3);
    const removed = marsh.results[1]!;
    await t.request({
      method: 'POST',
      url: '/api/search/remove-records',
      cookie: cookies.a,
      payload: { hash: marsh.searchHash, recordHashes: [removed.hash] },
    });

    const response = await save(cookies.a, {
      name: 'Helena Marsh',
      description: 'Mayor of Riverton',
      hash: marsh.searchHash,
      image: marsh.face,
    });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json<{ id: number; hash: string; status: string }>();
    expect(created.status).toBe('PENDING');

    saved = await waitForCompleted(cookies.a, created.id);
    expect(saved).toMatchObject({
      hash: created.hash,
      name: 'Helena Marsh',
      description: 'Mayor of Riverton',
      resultCount: marsh.numberOfResults - 1,
      image: `/api/saved-search/image/${created.id}`,
    });

    const answer = await results(cookies.a, created.hash);
    expect(answer.statusCode, answer.body).toBe(200);
    savedResults = answer.json<SavedResults>();
    expect(savedResults.numberOfResults).toBe(marsh.numberOfResults - 1);
    expect(savedResults.results.map((r) => r.hash)).toEqual(
      marsh.results.filter((r) => r.hash !== removed.hash).map((r) => r.hash),
    );
    expect(savedResults.results[0]!.imageUrl).toMatch(/helena-marsh\.jpg$/);
    // The copy keeps the model that computed each score.
    expect(new Set(savedResults.results.map((r) => r.scoreModel))).toEqual(new Set([SHIPPED_SCORE_MODEL]));
    expect(savedResults.results[0]!.quality).toBeGreaterThan(0);
    // Each saved result keeps its matched face's box and image size, as the search answered them.
    for (const result of savedResults.results) {
      const live = marsh.results.find((r) => r.hash === result.hash)!;
      expect(result.faceBox).toEqual(live.faceBox);
      expect(result.imageSize).toEqual(live.imageSize);
      expect(result.faceBox).not.toBeNull();
    }

    const face = await t.request({ method: 'GET', url: saved.image, cookie: cookies.a });
    expect(face.statusCode).toBe(200);
    expect(face.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(face.rawPayload).metadata()).format).toBe('jpeg');
    // A colleague in the same organization sees it too.
    expect((await results(cookies.a2, created.hash)).statusCode).toBe(200);
  });

  it('writes the saved search and its job together: a job that cannot be queued leaves nothing PENDING', async () => {
    const savedRows = () =>
      t.db
        .selectFrom('saved_searches')
        .select('status')
        .where('organization_id', '=', organizationA)
        .execute();
    const before = await savedRows();
    const response = await withJobsRefused(t, QUEUES.saveSearch, () =>
      save(cookies.a, { name: 'Never queued', hash: marsh.searchHash, image: marsh.face }),
    );
    expect(response.statusCode).toBe(500);
    expect(await savedRows()).toEqual(before);
    expect((await list(cookies.a, { status: 'PENDING' })).totalResultCount).toBe(0);
  });

  it('keeps a search that a PENDING saved search still has to copy: its deletion is refused until then', async () => {
    const search = await searchFirstFace<SearchAnswer>(t, cookies.a, photos.get(DEMO_PHOTOS.marsh.file)!);
    expect(search.numberOfResults).toBeGreaterThan(0);
    const deleteSearch = () =>
      t.request({ method: 'DELETE', url: `/api/search/${search.searchHash}`, cookie: cookies.a });
    // The job waits while the user deletes the search from the history.
    await t.container.jobRunner.stop();
    let created: { id: number; hash: string; status: string };
    try {
      const response = await save(cookies.a, { name: 'Kept', hash: search.searchHash, image: search.face });
      expect(response.statusCode, response.body).toBe(201);
      created = response.json();
      expect(created.status).toBe('PENDING');
      // Its job takes its organization's turns in the queue (JobRepository.claimNext).
      const job = await t.db
        .selectFrom('jobs')
        .select(['organization_id', 'payload'])
        .where('queue', '=', QUEUES.saveSearch)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const copy = await t.db
        .selectFrom('saved_searches')
        .select('organization_id')
        .where('id', '=', (job.payload as { savedSearchId: number }).savedSearchId)
        .executeTakeFirstOrThrow();
      expect(job.organization_id).toBe(copy.organization_id);
      const refused = await deleteSearch();
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().message).toBe(SEARCH_MESSAGES.stillNeeded);
    } finally {
      t.container.jobRunner.start();
    }
    // The copy has every result; then the search may go, and the copy stays.
    expect((await waitForCompleted(cookies.a, created.id)).resultCount).toBe(search.numberOfResults);
    expect((await deleteSearch()).statusCode).toBe(204);
    expect((await results(cookies.a, created.hash)).json<SavedResults>().numberOfResults).toBe(
      search.numberOfResults,
    );
    // Removed again: the tests below count this organization's saved searches.
    const remove = await t.request({
      method: 'DELETE',
      url: '/api/saved-search/remove',
      cookie: cookies.a,
      payload: { id: created.id },
    });
    expect(remove.statusCode).toBe(204);
  });

  it('withholds original sources from trial plans, in results and in reports', async () => {
    // Helena Marsh: an adult the age gate lets through (Carla Mendes would be refused to this organization).
    const search = await searchFirstFace<SearchAnswer>(t, cookies.trial, photos.get(DEMO_PHOTOS.marsh.file)!);
    const created = (
      await save(cookies.trial, { name: 'Trial', hash: search.searchHash, image: search.face })
    ).json();
    await waitForCompleted(cookies.trial, created.id);
    const answer = (await results(cookies.trial, created.hash)).json<SavedResults>();
    expect(answer.numberOfResults).toBeGreaterThan(0);
    expect(answer.results.every((r) => r.imageUrl === null && r.sourceUrl === null)).toBe(true);
    const response = await report(
      cookies.trial,
      answer.results.map((r) => r.id),
    );
    expect(response.statusCode).toBe(200);
    const text = await pdfText(response.rawPayload);
    expect(text).toContain('available only to subscribers');
    expect(text).not.toMatch(/https?:\/\//);
  });

  it('survives the removal of its images from the live index', async () => {
    const thumbnails = await t.db.selectFrom('images').select('thumbnail_path').execute();
    await t.container.blobs.delete(
      thumbnails.flatMap((row) => (row.thumbnail_path ? [row.thumbnail_path] : [])),
    );
    await t.db.deleteFrom('faces').execute();
    const answer = (await results(cookies.a, saved.hash)).json<SavedResults>();
    expect(answer.results).toEqual(savedResults.results);
    const thumbnail = await t.request({
      method: 'GET',
      url: answer.results[0]!.thumbnailUrl,
      cookie: cookies.a,
    });
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
    expect(thumbnail.rawPayload.length).toBeGreaterThan(500);
  });

  it('checks the name: at most 32 characters with the spec message, a default when left empty', async () => {
    const tooLong = await save(cookies.a, {
      name: 'x'.repeat(33),
      hash: marsh.searchHash,
      image: marsh.face,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().message).toBe(SAVE_NAME_TOO_LONG);
    expect(tooLong.json().violations).toEqual([{ field: 'name', message: SAVE_NAME_TOO_LONG }]);

    const unnamed = await save(cookies.a, { name: '  ', hash: marsh.searchHash, image: marsh.face });
    expect(unnamed.statusCode).toBe(201);
    const item = await waitForCompleted(cookies.a, unnamed.json().id);
    expect(item.name).toMatch(/^SEARCH \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    expect(item.description).toBe('');

    const notAnImage = await save(cookies.a, {
      name: 'x',
      hash: marsh.searchHash,
      image: 'bm90IGFuIGltYWdl',
    });
    expect(notAnImage.statusCode).toBe(400);
    const unknownSearch = await save(cookies.a, { name: 'x', hash: 'no-such-search', image: marsh.face });
    expect(unknownSearch.statusCode).toBe(404);
  });

  it('keeps only the searched face as its picture: a crop of that face or the search kept', async () => {
    const faces = await uploadFaces(t, cookies.a, photos.get(DEMO_PHOTOS.festival.file)!);
    expect(faces.length).toBeGreaterThanOrEqual(2);
    const [searched, beside] = faces as [(typeof faces)[0], (typeof faces)[0]];
    const { searchHash } = await searchFace<SearchAnswer>(t, cookies.a, searched.hash, searched.base64);
    const countSaved = async () =>
      (await list(cookies.a, { status: 'PENDING' })).totalResultCount +
      (await list(cookies.a, { status: 'COMPLETED' })).totalResultCount;
    const before = await countSaved();

    // Another face of the same photo, never searched, is not this search's face.
    const other = await save(cookies.a, { name: 'Beside', hash: searchHash, image: beside.base64 });
    expect(other.statusCode, other.body).toBe(400);
    expect(other.json().message).toBe(SEARCH_MESSAGES.faceImageMismatch);
    expect(await countSaved()).toBe(before);

    // The crop the upload answered, and the picture a reopened search sends back, are.
    const kept = await t.request({
      method: 'GET',
      url: `/api/search/${searchHash}/image`,
      cookie: cookies.a,
    });
    expect(kept.statusCode).toBe(200);
    for (const image of [searched.base64, kept.rawPayload.toString('base64')]) {
      const response = await save(cookies.a, { name: 'Searched', hash: searchHash, image });
      expect(response.statusCode, response.body).toBe(201);
      await waitForCompleted(cookies.a, response.json().id);
      // Removed again: the tests below count this organization's saved searches.
      const remove = await t.request({
        method: 'DELETE',
        url: '/api/saved-search/remove',
        cookie: cookies.a,
        payload: { id: response.json().id },
      });
      expect(remove.statusCode).toBe(204);
    }
    expect(await countSaved()).toBe(before);
  });

  it('lists by status with paging, a search box and the total count', async () => {
    for (const name of ['Gala guests', 'Northwind board']) {
      const response = await save(cookies.a, { name, hash: marsh.searchHash, image: marsh.face });
      await waitForCompleted(cookies.a, response.json().id);
    }
    // Four completed now, newest first.
    const first = await list(cookies.a, { status: 'COMPLETED', pageNumber: 1, pageSize: 3 });
    expect(first.totalResultCount).toBe(4);
    expect(first.results).toHaveLength(3);
    expect(first.results[0]!.name).toBe('Northwind board');
    const second = await list(cookies.a, { status: 'COMPLETED', pageNumber: 2, pageSize: 3 });
    expect(second.results.map((r) => r.name)).toEqual(['Helena Marsh']);
    expect((await list(cookies.a, { status: 'PENDING', pageSize: 3 })).totalResultCount).toBe(0);

    const found = await list(cookies.a, { status: 'COMPLETED', search: 'gala' });
    expect(found.results.map((r) => r.name)).toEqual(['Gala guests']);
    expect(found.totalResultCount).toBe(1);
    // By the note too; % is a character, not a wildcard.
    expect((await list(cookies.a, { search: 'riverton' })).results.map((r) => r.name)).toEqual([
      'Helena Marsh',
    ]);
    expect((await list(cookies.a, { search: '%' })).totalResultCount).toBe(0);
  });

  it('keeps organizations apart: another organization’s ids are not found', async () => {
    const b = cookies.b;
    expect((await list(b, { pageSize: 100 })).totalResultCount).toBe(0);
    expect((await results(b, saved.hash)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: saved.image, cookie: b })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: savedResults.results[0]!.thumbnailUrl, cookie: b })).statusCode,
    ).toBe(404);
    expect((await report(b, [savedResults.results[0]!.id])).statusCode).toBe(404);
    const update = await t.request({
      method: 'POST',
      url: '/api/saved-search/update',
      cookie: b,
      payload: { id: saved.id, name: 'Taken over', description: '' },
    });
    expect(update.statusCode).toBe(404);
    const removeResult = await t.request({
      method: 'DELETE',
      url: '/api/saved-search/remove/result',
      cookie: b,
      payload: { saveSearchId: saved.id, searchResultIds: [savedResults.results[0]!.id] },
    });
    expect(removeResult.statusCode).toBe(404);
    const remove = await t.request({
      method: 'DELETE',
      url: '/api/saved-search/remove',
      cookie: b,
      payload: { id: saved.id },
    });
    expect(remove.statusCode).toBe(404);
    // Saving someone else's search: not found either.
    const foreignSave = await save(b, { name: 'x', hash: marsh.searchHash, image: marsh.face });
    expect(foreignSave.statusCode).toBe(404);
    // Nothing changed for A.
    const answer = (await results(cookies.a, saved.hash)).json<SavedResults>();
    expect(answer.name).toBe('Helena Marsh');
    expect(answer.numberOfResults).toBe(savedResults.numberOfResults);
    // And nothing without a session.
    expect((await t.request({ method: 'GET', url: '/api/saved-search' })).statusCode).toBe(401);
  });

  it('generates a PDF report of the selected results with the sources as links', async () => {
    const chosen = savedResults.results.slice(0, 2);
    const response = await report(
      cookies.a,
      chosen.map((r) => r.id),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="saved-search-report-helena-marsh-\d{4}-\d{2}-\d{2}\.pdf"/,
    );
    const pdf = response.rawPayload;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(pdf);
    expect(text).toContain('Helena Marsh');
    expect(text).toContain('Mayor of Riverton');
    expect(text).toContain('Agency A Intelligence');
    expect(text).toContain('analyst@agency-a.example.org');
    expect(text).toContain(`2 of ${savedResults.numberOfResults}`);
    for (const result of chosen) {
      expect(text).toContain(result.sourceUrl!);
      expect(text).toContain(result.imageUrl!);
    }
    expect(text).not.toContain(savedResults.results[2]!.sourceUrl!);
    // Each entry says its match band and raw score, the same as on screen.
    for (const result of chosen) {
      expect(text).toContain(
        `${matchBandLabel(result.similarity, result.scoreModel)} (${similarityText(result.similarity)})`,
      );
    }
    expect(text).toContain(MATCH_SCORE_EXPLANATION.slice(0, 40));
    expect(text).toMatch(/First indexed \d{1,2} \w+ \d{4}/);
    const pages = Number(/Page 1 of (\d+)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    // The URLs are real links.
    expect(pdf.toString('latin1')).toContain(`/URI (${chosen[0]!.sourceUrl})`);

    expect((await report(cookies.a, [999_999])).statusCode).toBe(404);
    const other = (await list(cookies.a, { search: 'gala' })).results[0]!;
    const otherResults = (await results(cookies.a, other.hash)).json<SavedResults>();
    const mixed = await report(cookies.a, [chosen[0]!.id, otherResults.results[0]!.id]);
    expect(mixed.statusCode).toBe(400);

    // The matched face is outlined on the first entry's thumbnail (120 points square) as the API places it.
    const alone = await report(cookies.a, [chosen[0]!.id]);
    const drawn = await drawnFaceBox(alone.rawPayload);
    const expected = expectedFaceBox(
      chosen[0] as {
        faceBox: NonNullable<SavedResults['results'][number]['faceBox']>;
        imageSize: { width: number; height: number };
      },
      120,
    );
    expect(drawn, 'no face box drawn on the result page').not.toBeNull();
    expect(Math.abs(drawn!.x - expected.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(drawn!.width - expected.width)).toBeLessThanOrEqual(3);
    expect(Math.abs(drawn!.height - expected.height)).toBeLessThanOrEqual(3);
  });

  it('edits the name and note with the same rules', async () => {
    const update = (payload: Record<string, unknown>) =>
      t.request({ method: 'POST', url: '/api/saved-search/update', cookie: cookies.a, payload });
    expect((await update({ id: saved.id, name: '  ', description: '' })).json().message).toBe(
      'Name cannot be empty.',
    );
    expect((await update({ id: saved.id, name: 'y'.repeat(33), description: '' })).json().message).toBe(
      SAVE_NAME_TOO_LONG,
    );
    expect((await update({ id: saved.id, name: 'Mayor Marsh', description: 'Checked' })).statusCode).toBe(
      204,
    );
    const answer = (await results(cookies.a, saved.hash)).json<SavedResults>();
    expect(answer).toMatchObject({ name: 'Mayor Marsh', description: 'Checked' });
  });

  it('deletes results, then the saved search', async () => {
    const [first, second] = savedResults.results;
    const removal = await t.request({
      method: 'DELETE',
      url: '/api/saved-search/remove/result',
      cookie: cookies.a,
      payload: { saveSearchId: saved.id, searchResultIds: [first!.id, second!.id] },
    });
    expect(removal.statusCode, removal.body).toBe(200);
    expect(removal.json()).toEqual({ removed: 2, remaining: savedResults.numberOfResults - 2 });
    const answer = (await results(cookies.a, saved.hash)).json<SavedResults>();
    expect(answer.results.map((r) => r.id)).not.toContain(first!.id);
    expect(answer.resultCount).toBe(savedResults.numberOfResults - 2);
    expect((await report(cookies.a, [first!.id])).statusCode).toBe(404);

    const remove = await t.request({
      method: 'DELETE',
      url: '/api/saved-search/remove',
      cookie: cookies.a,
      payload: { id: saved.id },
    });
    expect(remove.statusCode).toBe(204);
    expect((await results(cookies.a, saved.hash)).statusCode).toBe(404);
    const left = await t.db
      .selectFrom('saved_search_results')
      .select('id')
      .where('saved_search_id', '=', saved.id)
      .execute();
    expect(left).toHaveLength(0);
    const audit = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('organization_id', '=', organizationA)
      .where('action', 'like', 'saved-search.%')
      .execute();
    expect(new Set(audit.map((a) => a.action))).toEqual(
      new Set(['saved-search.saved', 'saved-search.report', 'saved-search.deleted']),
    );
  });
});
