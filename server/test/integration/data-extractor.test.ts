import sharp from 'sharp';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  EXTRACTOR_MESSAGES,
  type ExtractedResult,
  type ExtractionDetailsResponse,
  type ExtractionListItem,
  type ExtractionListResponse,
  type ExtractionSummary,
  type SeenWithConnection,
} from '@osint/contract/data-extractor';
import { SEARCH_MESSAGES } from '@osint/contract/search';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { DataExtractionRepository } from '../../src/repositories/data-extraction.repository.ts';
import {
  crawlDemoSites,
  createAdmin,
  searchFirstFace,
  waitForMails,
  withJobsRefused,
} from '../support/fixtures.ts';
import { readOutbox } from '../support/outbox.ts';
import {
  startExtractionSite,
  type ExtractionPagePath,
  type ExtractionSite,
} from '../support/extraction-site.ts';
import { createMember, createOwner } from '../support/team-fixtures.ts';
import { drawnFaceBox, expectedFaceBox } from '../support/pdf-face-box.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import { pdfText } from '../support/pdf-text.ts';

// The AI data extractor end to end: a fictional news site is crawled for real, the fictional watch-list
// is imported in both formats, an analyst searches a face, starts an extraction through the API, the
// job runs (pages, faces on the same pages, the analysis), and every call of spec 001 §7 is exercised:
// names, counts, flags with evidence, seen-with, filters, sorts, paging, checked, edits, deletes,
// organization isolation, restricted users, admin views, e-mails and the PDF report.

const WATCHLIST_DIR = path.join(import.meta.dirname, '../../src/demo/watchlist');
const OKAFOR = 'Amelia Okafor';
const DRAGANOV = 'Viktor Draganov';
const VELLINI = 'Marco Vellini';

interface SearchAnswer {
  results: {
    id: number;
    hash: string;
    sourceUrl: string | null;
    faceBox: { x: number; y: number; width: number; height: number };
    imageSize: { width: number; height: number };
  }[];
  numberOfResults: number;
  searchHash: string;
}

let t: TestApp;
let site: ExtractionSite;
let adminCookie: string;
const users = {
  owner: 'analyst@agency-a.example.org',
  subscriber: 'newsletter@agency-a.example.org',
  colleague: 'quiet@agency-a.example.org',
  other: 'analyst@agency-b.example.org',
  trial: 'analyst@trial-ngo.example.org',
} as const;
const cookies = {} as Record<keyof typeof users, string>;

async function get<T>(cookie: string, url: string, status = 200): Promise<T> {
  const response = await t.request({ method: 'GET', url, cookie });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(status);
  return response.json<T>();
}

const searchPortrait = (cookie: string) =>
  searchFirstFace<SearchAnswer>(t, cookie, site.photos.get('okafor-portrait.jpg')!);

async function start(cookie: string, body: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/data-extractor', cookie, payload: body });
}

async function waitForDone(cookie: string, id: string, prefix = '/api/data-extractor') {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const list = await get<ExtractionListResponse>(cookie, `${prefix}?status=DONE&pageSize=100`);
    const found = list.dataExtractorListItemList.find((item) => item.id === id);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`extraction ${id} not done`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function details(cookie: string, id: string, query: Record<string, string | number | boolean> = {}) {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return get<ExtractionDetailsResponse>(cookie, `/api/data-extractor/results/details/${id}?${params}`);
}

function resultOn(results: ExtractedResult[], pagePath: ExtractionPagePath): ExtractedResult {
  const found = results.find((r) => r.sourceUrl === site.pageUrl(pagePath));
  if (!found) throw new Error(`no result on ${pagePath}: ${results.map((r) => r.sourceUrl).join(', ')}`);
  return found;
}

beforeAll(async () => {
  site = await startExtractionSite();
  // The job fetches a page again when it is gone from the index: this site is on loopback.
  t = await createTestApp({ crawlAllowPrivate: true });
  adminCookie = await createAdmin(t);
  const owner = await createOwner(t, users.owner, { seatLimit: 5 });
  cookies.owner = owner.cookie;
  cookies.subscriber = (await createMember(t, owner.organizationId, users.subscriber, true)).cookie;
  cookies.colleague = (await createMember(t, owner.organizationId, users.colleague, true)).cookie;
  await t.db.updateTable('users').set({ newsletter: true }).where('email', '=', users.subscriber).execute();
  // A verified law-enforcement unit: the age gate flags the demo's photos of Draganov and of the faces
  // beside her on the forum photo as possible minors, and only such an organization may look them up.
  await t.db
    .updateTable('organizations')
    .set({ name: 'Agency A Intelligence', law_enforcement_verified_at: new Date() })
    .where('id', '=', owner.organizationId)
    .execute();
  cookies.other = (await createOwner(t, users.other, { seatLimit: 5 })).cookie;
  cookies.trial = (await createOwner(t, users.trial, { planType: 'TRIAL', seatLimit: 5 })).cookie;

  for (const [name, file] of [
    ['fictional-ftm', 'demo-watchlist.ftm.json'],
    ['fictional-csv', 'demo-watchlist.simple.csv'],
  ] as const) {
    const imported = await t.request({
      method: 'POST',
      url: `/api/admin/watchlists?name=${name}`,
      cookie: adminCookie,
      headers: { 'content-type': 'application/octet-stream' },
      payload: await fs.readFile(path.join(WATCHLIST_DIR, file)),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json()).toMatchObject({ listName: name, format: name.slice('fictional-'.length) });
  }
  await crawlDemoSites(t, site.crawlTarget);
}, 240_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe(`AI data extractor (${TEST_DATABASE_KIND})`, () => {
  let search: SearchAnswer & { face: string };
  let extraction: ExtractionListItem;
  let defaulted: ExtractionListItem;
  let all: ExtractedResult[];

  it('starts an extraction over a search and runs it as a job (a missing page is fetched again)', async () => {
    search = await searchPortrait(cookies.owner);
    const subjectPages: ExtractionPagePath[] = [
      '/politics/okafor-port-visit.html',
      '/business/harbour-forum.html',
      '/society/charity-gala.html',
      '/society/gala-gallery.html',
      '/archive/forum-archive.html',
    ];
    const sources = search.results.map((r) => r.sourceUrl);
    for (const pagePath of subjectPages) expect(sources).toContain(site.pageUrl(pagePath));
    // The other persons' pages show other faces.
    expect(sources).not.toContain(site.pageUrl('/business/draganov-sanctions.html'));
    expect(sources).not.toContain(site.pageUrl('/police/wanted-vellini.html'));

    // A result removed from the search is not analysed.
    const archive = search.results.find((r) => r.sourceUrl === site.pageUrl('/archive/forum-archive.html'))!;
    await t.request({
      method: 'POST',
      url: '/api/search/remove-records',
      cookie: cookies.owner,
      payload: { hash: search.searchHash, recordHashes: [archive.hash] },
    });
    // The port visit's page leaves the index: the job reads it from the site again.
    await t.db
      .deleteFrom('pages')
      .where('url', '=', site.pageUrl('/politics/okafor-port-visit.html'))
      .execute();

    // Validation and organization boundaries before anything is stored.
    const noImage = await start(cookies.owner, { searchHash: search.searchHash });
    expect(noImage.statusCode).toBe(400);
    const foreign = await start(cookies.other, { searchHash: search.searchHash, image: search.face });
    expect(foreign.statusCode).toBe(404);
    const blankName = await start(cookies.owner, {
      name: '   ',
      searchHash: search.searchHash,
      image: search.face,
    });
    expect(blankName.statusCode, blankName.body).toBe(201);
    defaulted = blankName.json<ExtractionListItem>();
    expect(defaulted.name).toMatch(/^AI DATA EXTRACTION \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);

    const response = await start(cookies.owner, {
      name: 'Harbour minister',
      description: 'Who is the woman at the port?',
      searchHash: search.searchHash,
      image: search.face,
    });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json<ExtractionListItem>();
    expect(created).toMatchObject({ name: 'Harbour minister', state: 'PENDING', status: 'NEW' });
    // The result removed from the search above is not counted, from the start.
    expect(created.resultCount).toBe(search.numberOfResults - 1);
    expect(Date.parse(created.estimatedEndAt) - Date.parse(created.createdAt)).toBe(10 * 60_000);
    expect(created.imagePath).toBe(`/api/data-extractor/image/${created.id}`);

    extraction = await waitForDone(cookies.owner, created.id);
    await waitForDone(cookies.owner, defaulted.id);
    expect(extraction).toMatchObject({
      state: 'DONE',
      status: 'NEW',
      resultCount: search.numberOfResults - 1,
      processedCount: search.numberOfResults - 1,
      bestName: OKAFOR,
    });
    expect(extraction.completedAt).not.toBeNull();
    const face = await t.request({ method: 'GET', url: extraction.imagePath, cookie: cookies.owner });
    expect(face.statusCode).toBe(200);
    expect(face.headers['content-type']).toBe('image/jpeg');

    all = (await details(cookies.owner, extraction.id, { pageSize: 100 })).responses;
    expect(all).toHaveLength(search.numberOfResults - 1);
    expect(all.map((r) => r.sourceUrl)).not.toContain(site.pageUrl('/archive/forum-archive.html'));
    // Named from the page fetched again: its sentences are nowhere else.
    const port = resultOn(all, '/politics/okafor-port-visit.html');
    expect(port.personName).toBe(OKAFOR);
    expect(JSON.stringify([port.personDesc, port.evidence])).toContain('Minister of Transport');
  });

  it('lists done extractions as NEW until the detail page is opened, then CHECKED', async () => {
    // The owner opened "Harbour minister" above; the other one is still new, for the whole organization.
    const fresh = await get<ExtractionListResponse>(
      cookies.subscriber,
      '/api/data-extractor?checkedStatus=NEW',
    );
    expect(fresh.dataExtractorListItemList.map((i) => i.id)).toEqual([defaulted.id]);
    await get<ExtractionSummary>(cookies.subscriber, `/api/data-extractor/results/${defaulted.id}`);
    const after = await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?checkedStatus=NEW');
    expect(after.totalResultCount).toBe(0);
    const statuses = (
      await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?status=DONE')
    ).dataExtractorListItemList.map((i) => i.status);
    expect(statuses).toEqual(['CHECKED', 'CHECKED']);
    const pending = await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?status=PENDING');
    expect(pending.totalResultCount).toBe(0);
    const searched = await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?search=harbour');
    expect(searched.dataExtractorListItemList.map((i) => i.id)).toEqual([extraction.id]);
    const paged = await get<ExtractionListResponse>(
      cookies.owner,
      '/api/data-extractor?pageNumber=2&pageSize=1',
    );
    expect(paged).toMatchObject({ totalResultCount: 2 });
    expect(paged.dataExtractorListItemList).toHaveLength(1);
  });

  it('summarises names, counts and the persons seen with the subject', async () => {
    const summary = await get<ExtractionSummary>(
      cookies.owner,
      `/api/data-extractor/results/${extraction.id}`,
    );
    expect(summary).toMatchObject({
      id: extraction.id,
      name: 'Harbour minister',
      state: 'DONE',
      bestName: OKAFOR,
    });
    expect(summary.nameStatistic.linkCount).toBe(all.length);
    const okafor = summary.nameList.find((n) => n.name === OKAFOR)!;
    expect(summary.nameList[0]!.name).toBe(OKAFOR);
    // The port visit, the forum and the gala name her.
    expect(okafor.linkCount).toBeGreaterThanOrEqual(3);
    expect(okafor.politicianCount).toBeGreaterThanOrEqual(1);
    expect(okafor.sanctionsCount).toBe(0);
    expect(okafor.criminalCount).toBe(0);
    expect(okafor.linkCount).toBe(all.filter((r) => r.personName === OKAFOR).length);
    expect(okafor.seenWithCount).toBe(all.filter((r) => r.personName === OKAFOR && r.seenWith).length);
    expect(summary.namesFound).toBe(summary.nameList.length);
    expect(summary.seenWithNames).toEqual(expect.arrayContaining([DRAGANOV, VELLINI]));
  });

  it('gives every flag its evidence, and the connections their flags', async () => {
    const port = resultOn(all, '/politics/okafor-port-visit.html');
    expect(port.politician).toBe(true);
    const politicianEvidence = port.evidence.filter((e) => e.flag === 'politician');
    expect(politicianEvidence.length).toBeGreaterThanOrEqual(1);
    const listed = politicianEvidence.find((e) => e.source === 'watchlist');
    expect(listed?.listName).toMatch(/^fictional-(ftm|csv)$/);
    expect(listed?.text).toContain(OKAFOR);
    for (const result of all) {
      for (const flag of ['politician', 'sanctions', 'criminal'] as const) {
        if (result[flag]) expect(result.evidence.some((e) => e.flag === flag)).toBe(true);
      }
      expect(result.thumbnailUrl).toBe(`/api/data-extractor/results/image/${result.hashedId}`);
    }

    // The forum photo shows Draganov's face; his own page names him and his sanctions.
    const forum = resultOn(all, '/business/harbour-forum.html');
    expect(forum.seenWith).toBe(true);
    expect(forum.seenWithNames).toContain(DRAGANOV);
    const forumConnections = await get<SeenWithConnection[]>(
      cookies.owner,
      `/api/data-extractor/results/${forum.hashedId}/connections`,
    );
    const draganov = forumConnections.find((c) => c.name === DRAGANOV)!;
    expect(draganov).toMatchObject({ sanctions: true, criminal: false, politician: false });
    // Named through his face: the extraction serves the photo his face is in to its organization only.
    expect(draganov.imgUrl).toBe(`/api/data-extractor/results/connections/image/${draganov.id}`);
    const photo = await t.request({ method: 'GET', url: draganov.imgUrl!, cookie: cookies.owner });
    expect(photo.statusCode).toBe(200);
    expect(photo.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(photo.rawPayload).metadata()).width).toBeGreaterThan(0);
    const elsewhere = await t.request({ method: 'GET', url: draganov.imgUrl!, cookie: cookies.other });
    expect(elsewhere.statusCode).toBe(404);

    // The gala names Vellini next to her, and shows his face; the police want him.
    const gala = resultOn(all, '/society/charity-gala.html');
    expect(gala.seenWithNames).toContain(VELLINI);
    const galaConnections = await get<SeenWithConnection[]>(
      cookies.owner,
      `/api/data-extractor/results/${gala.hashedId}/connections`,
    );
    expect(galaConnections.find((c) => c.name === VELLINI)).toMatchObject({
      criminal: true,
      sanctions: false,
    });

    const thumbnail = await t.request({ method: 'GET', url: forum.thumbnailUrl, cookie: cookies.owner });
    expect(thumbnail.statusCode).toBe(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
  });

  it('filters, sorts and pages the details', async () => {
    const politicians = await details(cookies.owner, extraction.id, { politician: true, pageSize: 100 });
    expect(politicians.totalResultCount).toBe(all.filter((r) => r.politician).length);
    expect(politicians.responses.every((r) => r.politician)).toBe(true);
    const sanctioned = await details(cookies.owner, extraction.id, { sanctions: true });
    expect(sanctioned.totalResultCount).toBe(all.filter((r) => r.sanctions).length);

    const named = await details(cookies.owner, extraction.id, { name: OKAFOR, pageSize: 100 });
    expect(named.responses.every((r) => r.personName === OKAFOR)).toBe(true);
    expect(named.totalResultCount).toBe(all.filter((r) => r.personName === OKAFOR).length);

    const withDraganov = await details(cookies.owner, extraction.id, { seenWith: DRAGANOV, pageSize: 100 });
    expect(withDraganov.responses.map((r) => r.sourceUrl)).toContain(
      site.pageUrl('/business/harbour-forum.html'),
    );
    expect(withDraganov.responses.every((r) => r.seenWithNames.includes(DRAGANOV))).toBe(true);

    const bySimilarity = (
      await details(cookies.owner, extraction.id, { sortBy: 'similarity', pageSize: 100 })
    ).responses;
    const similarities = bySimilarity.map((r) => r.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
    // Each copied score keeps the model that computed it (the search's).
    expect(new Set(bySimilarity.map((r) => r.scoreModel))).toEqual(new Set([SHIPPED_SCORE_MODEL]));
    const byDate = (await details(cookies.owner, extraction.id, { sortBy: 'date', pageSize: 100 })).responses;
    const dates = byDate.map((r) => Date.parse(r.crawledAt));
    expect(dates).toEqual([...dates].sort((a, b) => a - b));
    // Smart: flagged and named results before the others, then the closest faces.
    const smart = (await details(cookies.owner, extraction.id, { pageSize: 100 })).responses;
    const rankOf = (r: ExtractedResult) =>
      (r.politician || r.sanctions || r.criminal ? 0 : 2) + (r.personName ? 0 : 1);
    const ranks = smart.map(rankOf);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));

    const first = await details(cookies.owner, extraction.id, { pageSize: 2, pageNumber: 1 });
    const second = await details(cookies.owner, extraction.id, { pageSize: 2, pageNumber: 2 });
    expect(first.totalResultCount).toBe(all.length);
    expect(first.responses).toHaveLength(2);
    expect([...first.responses, ...second.responses].map((r) => r.hashedId)).toEqual(
      smart.slice(0, 4).map((r) => r.hashedId),
    );
    const unknownSort = await t.request({
      method: 'GET',
      url: `/api/data-extractor/results/details/${extraction.id}?sortBy=name`,
      cookie: cookies.owner,
    });
    expect(unknownSort.statusCode).toBe(400);
  });

  it('marks results checked, unchecked to checked only, and filters by the mark', async () => {
    const target = all[0]!;
    const on = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${target.hashedId}/checked`,
      cookie: cookies.owner,
    });
    expect(on.statusCode, on.body).toBe(200);
    expect(on.json()).toEqual({ checked: true });
    const checked = await details(cookies.owner, extraction.id, { checked: true });
    expect(checked.responses.map((r) => r.hashedId)).toEqual([target.hashedId]);
    const unchecked = await details(cookies.owner, extraction.id, { checked: false });
    expect(unchecked.totalResultCount).toBe(all.length - 1);
    // Marking it again leaves it checked (spec 001 §4: there is no way back to unchecked).
    const again = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${target.hashedId}/checked`,
      cookie: cookies.owner,
    });
    expect(again.json()).toEqual({ checked: true });
    expect((await details(cookies.owner, extraction.id, { checked: true })).totalResultCount).toBe(1);

    const wiki = await details(cookies.owner, extraction.id);
    const checkWikipedia = () =>
      t.request({
        method: 'PATCH',
        url: `/api/data-extractor/results/${extraction.id}/wikipedia/checked`,
        cookie: cookies.owner,
      });
    if (wiki.wikipediaResult === null) {
      // No Wikipedia article was found for the fictional minister: nothing to check.
      expect((await checkWikipedia()).statusCode).toBe(404);
    } else {
      for (let call = 0; call < 2; call++) expect((await checkWikipedia()).json()).toEqual({ checked: true });
      expect((await details(cookies.owner, extraction.id)).wikipediaResult?.checked).toBe(true);
    }
  });

  it('renames a result (blank names refused) and deletes a result', async () => {
    const gallery = resultOn(all, '/society/gala-gallery.html');
    const blank = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${gallery.hashedId}`,
      cookie: cookies.owner,
      payload: { name: '  ' },
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ message: EXTRACTOR_MESSAGES.nameEmpty });

    const renamed = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${gallery.hashedId}`,
      cookie: cookies.owner,
      payload: { name: ` ${OKAFOR} `, description: 'At the gala, per the gallery' },
    });
    expect(renamed.statusCode, renamed.body).toBe(204);
    const after = resultOn(
      (await details(cookies.owner, extraction.id, { pageSize: 100 })).responses,
      '/society/gala-gallery.html',
    );
    expect(after).toMatchObject({ personName: OKAFOR, personDesc: 'At the gala, per the gallery' });
    if (gallery.personName && gallery.personName !== OKAFOR)
      expect(after.alternativeNames).toContain(gallery.personName);
    const summary = await get<ExtractionSummary>(
      cookies.owner,
      `/api/data-extractor/results/${extraction.id}`,
    );
    expect(summary.nameList.find((n) => n.name === OKAFOR)!.linkCount).toBe(
      all.filter((r) => r.personName === OKAFOR || r.hashedId === gallery.hashedId).length,
    );

    const removed = await t.request({
      method: 'DELETE',
      url: `/api/data-extractor/results/${gallery.hashedId}`,
      cookie: cookies.owner,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ remaining: all.length - 1 });
    const left = await details(cookies.owner, extraction.id, { pageSize: 100 });
    expect(left.totalResultCount).toBe(all.length - 1);
    expect(left.responses.map((r) => r.hashedId)).not.toContain(gallery.hashedId);
    const item = (
      await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?status=DONE')
    ).dataExtractorListItemList.find((i) => i.id === extraction.id)!;
    expect(item.resultCount).toBe(all.length - 1);
    const again = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${gallery.hashedId}/checked`,
      cookie: cookies.owner,
    });
    expect(again.statusCode).toBe(404);
    all = left.responses;
  });

  it('keeps every extraction and result of another organization out of reach (404)', async () => {
    const result = all[0]!;
    const reads = [
      `/api/data-extractor/image/${extraction.id}`,
      `/api/data-extractor/results/${extraction.id}`,
      `/api/data-extractor/results/details/${extraction.id}`,
      `/api/data-extractor/results/${result.hashedId}/connections`,
      `/api/data-extractor/results/image/${result.hashedId}`,
      `/api/data-extractor/results/${extraction.id}/generate-report/all`,
    ];
    for (const url of reads) {
      const response = await t.request({ method: 'GET', url, cookie: cookies.other });
      expect(response.statusCode, url).toBe(404);
    }
    const writes = [
      { method: 'PATCH' as const, url: `/api/data-extractor/${extraction.id}`, payload: { name: 'Mine' } },
      { method: 'DELETE' as const, url: `/api/data-extractor/${extraction.id}` },
      { method: 'PATCH' as const, url: `/api/data-extractor/results/${result.hashedId}/checked` },
      { method: 'PATCH' as const, url: `/api/data-extractor/results/${extraction.id}/wikipedia/checked` },
      {
        method: 'PATCH' as const,
        url: `/api/data-extractor/results/${result.hashedId}`,
        payload: { name: 'X' },
      },
      { method: 'DELETE' as const, url: `/api/data-extractor/results/${result.hashedId}` },
      {
        method: 'POST' as const,
        url: `/api/data-extractor/results/${extraction.id}/generate-report`,
        payload: { hashedId: [result.hashedId], containWikipediaData: false },
      },
    ];
    for (const write of writes) {
      const response = await t.request({ ...write, cookie: cookies.other });
      expect(response.statusCode, `${write.method} ${write.url}`).toBe(404);
    }
    const list = await get<ExtractionListResponse>(cookies.other, '/api/data-extractor');
    expect(list.totalResultCount).toBe(0);
    // Untouched by the attempts.
    const still = await details(cookies.owner, extraction.id, { pageSize: 100 });
    expect(still.totalResultCount).toBe(all.length);
  });

  it('mails nobody of an organization suspended (its owner blocked) by the time the extraction is done', async () => {
    const row = await t.db
      .selectFrom('data_extractions')
      .select(['id', 'organization_id', 'notified_at'])
      .where('hashed_id', '=', extraction.id)
      .executeTakeFirstOrThrow();
    const owner = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', users.owner)
      .executeTakeFirstOrThrow();
    const repository = new DataExtractionRepository(t.db);
    const recipients = async () => (await repository.findRecipients(row.organization_id, owner.id)).length;
    expect(await recipients()).toBeGreaterThanOrEqual(2); // the owner and the newsletter subscriber
    await t.db.updateTable('users').set({ status: 'BLOCKED' }).where('id', '=', owner.id).execute();
    try {
      expect(await recipients()).toBe(0);
    } finally {
      await t.db.updateTable('users').set({ status: 'ACTIVE' }).where('id', '=', owner.id).execute();
    }
  });

  it('mails no subscriber who has lost their seat (they could not open the extraction)', async () => {
    const row = await t.db
      .selectFrom('data_extractions')
      .select(['organization_id', 'user_id'])
      .where('hashed_id', '=', extraction.id)
      .executeTakeFirstOrThrow();
    const repository = new DataExtractionRepository(t.db);
    const emails = async () =>
      (await repository.findRecipients(row.organization_id, row.user_id)).map((user) => user.email);
    expect(await emails()).toContain(users.subscriber);
    await t.db
      .updateTable('users')
      .set({ has_access: false })
      .where('email', '=', users.subscriber)
      .execute();
    try {
      expect(await emails()).toEqual([users.owner]);
    } finally {
      await t.db
        .updateTable('users')
        .set({ has_access: true })
        .where('email', '=', users.subscriber)
        .execute();
    }
  });

  it('mails the owner and the newsletter subscribers of the organization, once', async () => {
    const [ownerMail] = await waitForMails(t, users.owner, /Harbour minister/, 1);
    expect(ownerMail!.subject).toBe('Your AI data extraction is ready: Harbour minister');
    expect(ownerMail!.raw).toContain(`${t.config.publicUrl}/data-extractor/${extraction.id}`);
    // The person is not named in mail, which leaves the product: the link opens the extraction.
    expect(ownerMail!.raw).not.toContain(OKAFOR);
    const [teamMail] = await waitForMails(t, users.subscriber, /Harbour minister/, 1);
    expect(teamMail!.subject).toBe('An AI data extraction is ready: Harbour minister');
    expect(teamMail!.raw).toContain(`/data-extractor/${extraction.id}`);
    expect(teamMail!.raw).toContain(users.owner);
    expect(teamMail!.raw).not.toContain(OKAFOR);

    // A job run again (a retry after the mails went out) neither duplicates results nor mails.
    const row = await t.db
      .selectFrom('data_extractions')
      .select('id')
      .where('hashed_id', '=', extraction.id)
      .executeTakeFirstOrThrow();
    await t.container.services.extractionPipeline.runJob({ extractionId: row.id });
    // A retry of an attempt that failed half way starts over and replaces what it stored.
    await t.db.updateTable('data_extractions').set({ state: 'PENDING' }).where('id', '=', row.id).execute();
    await t.container.services.extractionPipeline.runJob({ extractionId: row.id });
    const rerun = await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?status=DONE');
    const item = rerun.dataExtractorListItemList.find((i) => i.id === extraction.id)!;
    expect(item.resultCount).toBe(search.numberOfResults - 1);
    expect((await details(cookies.owner, extraction.id, { pageSize: 100 })).totalResultCount).toBe(
      search.numberOfResults - 1,
    );
    all = (await details(cookies.owner, extraction.id, { pageSize: 100 })).responses;

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const outbox = await readOutbox(t.config.dataDir);
    expect(
      outbox.filter((m) => m.to.includes(users.owner) && /Harbour minister/.test(m.subject)),
    ).toHaveLength(1);
    expect(outbox.filter((m) => m.to.includes(users.colleague))).toHaveLength(0);
    expect(outbox.filter((m) => m.to.includes(users.other))).toHaveLength(0);
  });

  it('stays whole when two workers run the same extraction at once (results once, one mail)', async () => {
    const row = await t.db
      .selectFrom('data_extractions')
      .select('id')
      .where('hashed_id', '=', defaulted.id)
      .executeTakeFirstOrThrow();
    // The only extraction of the owner with a default name so far (long subjects are folded).
    const subject = /ready: AI DATA EXTRACTION/;
    const mailsBefore = (await readOutbox(t.config.dataDir)).filter(
      (m) => m.to.includes(users.owner) && subject.test(m.subject),
    ).length;
    // A stale job claimed again while its first worker still runs: both start from PENDING.
    await t.db
      .updateTable('data_extractions')
      .set({ state: 'PENDING', notified_at: null })
      .where('id', '=', row.id)
      .execute();
    const pipeline = t.container.services.extractionPipeline;
    await Promise.all([pipeline.runJob({ extractionId: row.id }), pipeline.runJob({ extractionId: row.id })]);
    const stored = await t.db
      .selectFrom('data_extraction_results')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('extraction_id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(search.numberOfResults - 1);
    const first = (await details(cookies.owner, defaulted.id, { pageSize: 100 })).responses;
    expect(first).toHaveLength(search.numberOfResults - 1);

    // A worker that finishes after another one stored the results changes nothing: the analyst's
    // checks (and the hashedIds they use) stay.
    const checkedOne = first[0]!;
    await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${checkedOne.hashedId}/checked`,
      cookie: cookies.owner,
    });
    await t.db.updateTable('data_extractions').set({ notified_at: null }).where('id', '=', row.id).execute();
    await Promise.all([pipeline.runJob({ extractionId: row.id }), pipeline.runJob({ extractionId: row.id })]);
    const late = await new DataExtractionRepository(t.db).complete(row.id, {
      results: [],
      wikipedia: null,
      bestName: null,
      namesFound: 0,
    });
    expect(late).toBe(false);
    const after = (await details(cookies.owner, defaulted.id, { pageSize: 100 })).responses;
    expect(after.map((r) => r.hashedId).sort()).toEqual(first.map((r) => r.hashedId).sort());
    expect(after.find((r) => r.hashedId === checkedOne.hashedId)?.checked).toBe(true);

    // One mail per finished run that was not yet announced, whatever the number of workers.
    await waitForMails(t, users.owner, subject, mailsBefore + 2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const mailsAfter = (await readOutbox(t.config.dataDir)).filter(
      (m) => m.to.includes(users.owner) && subject.test(m.subject),
    ).length;
    expect(mailsAfter).toBe(mailsBefore + 2);
  });

  it('refuses page numbers and report lists beyond their bounds', async () => {
    for (const url of [
      '/api/data-extractor?pageNumber=100000000000',
      `/api/data-extractor/results/details/${extraction.id}?pageNumber=100000000000`,
      `/api/data-extractor/results/details/${extraction.id}?pageSize=1001`,
      `/api/data-extractor/results/details/${extraction.id}?name=${'x'.repeat(201)}`,
    ]) {
      const response = await t.request({ method: 'GET', url, cookie: cookies.owner });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
    }
    for (const payload of [
      { hashedId: Array.from({ length: 1001 }, (_, i) => `r${i}`), containWikipediaData: false },
      { hashedId: [], containWikipediaData: false },
      { hashedId: ['x'.repeat(65)], containWikipediaData: false },
    ]) {
      const response = await t.request({
        method: 'POST',
        url: `/api/data-extractor/results/${extraction.id}/generate-report`,
        cookie: cookies.owner,
        payload,
      });
      expect(response.statusCode, response.body).toBe(400);
    }
  });

  it('writes the PDF report: names, flags with evidence, results, Wikipedia on request', async () => {
    const chosen = [
      resultOn(all, '/politics/okafor-port-visit.html'),
      resultOn(all, '/business/harbour-forum.html'),
    ];
    const response = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${extraction.id}/generate-report`,
      cookie: cookies.owner,
      payload: { hashedId: chosen.map((r) => r.hashedId), containWikipediaData: true },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="data-extractor-report-harbour-minister-\d{4}-\d{2}-\d{2}\.pdf"/,
    );
    const text = await pdfText(response.rawPayload);
    expect(text).toContain('AI DATA EXTRACTION REPORT');
    expect(text).toContain('Harbour minister');
    expect(text).toContain('Agency A Intelligence');
    expect(text).toContain('2 of');
    expect(text).toContain(OKAFOR);
    expect(text).toContain('Politically exposed person');
    expect(text).toMatch(/Watch-list: .*Amelia Okafor/);
    expect(text).toContain(site.pageUrl('/politics/okafor-port-visit.html'));
    expect(text).toContain(DRAGANOV);
    expect(text).not.toContain(site.pageUrl('/society/charity-gala.html'));
    // Each entry outlines the matched face on its thumbnail (100 points square) where the search placed it.
    const alone = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${extraction.id}/generate-report`,
      cookie: cookies.owner,
      payload: { hashedId: [chosen[0]!.hashedId], containWikipediaData: false },
    });
    const matched = search.results.find((r) => r.sourceUrl === chosen[0]!.sourceUrl)!;
    const drawn = await drawnFaceBox(alone.rawPayload);
    const expected = expectedFaceBox(matched, 100);
    expect(drawn, 'no face box drawn on the result page').not.toBeNull();
    expect(Math.abs(drawn!.x - expected.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(drawn!.width - expected.width)).toBeLessThanOrEqual(3);
    expect(Math.abs(drawn!.height - expected.height)).toBeLessThanOrEqual(3);

    const everything = await t.request({
      method: 'GET',
      url: `/api/data-extractor/results/${extraction.id}/generate-report/all`,
      cookie: cookies.owner,
    });
    expect(everything.statusCode).toBe(200);
    const allText = await pdfText(everything.rawPayload);
    expect(allText).toContain(site.pageUrl('/society/charity-gala.html'));
    expect(allText).toContain(VELLINI);
    expect(allText).toContain(`${all.length} of ${all.length}`);

    const otherExtraction = await start(cookies.owner, { searchHash: search.searchHash, image: search.face });
    const foreignResult = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${otherExtraction.json<ExtractionListItem>().id}/generate-report`,
      cookie: cookies.owner,
      payload: { hashedId: [chosen[0]!.hashedId], containWikipediaData: false },
    });
    expect(foreignResult.statusCode).toBe(404);
    await waitForDone(cookies.owner, otherExtraction.json<ExtractionListItem>().id);
  });

  it('withholds original sources from trial plans', async () => {
    const trialSearch = await searchPortrait(cookies.trial);
    const started = await start(cookies.trial, {
      searchHash: trialSearch.searchHash,
      image: trialSearch.face,
    });
    expect(started.statusCode, started.body).toBe(201);
    const done = await waitForDone(cookies.trial, started.json<ExtractionListItem>().id);
    expect(done.bestName).toBe(OKAFOR);
    const trialDetails = await get<ExtractionDetailsResponse>(
      cookies.trial,
      `/api/data-extractor/results/details/${done.id}?pageSize=100`,
    );
    expect(trialDetails.totalResultCount).toBeGreaterThan(0);
    for (const result of trialDetails.responses) {
      expect(result.sourceUrl).toBeNull();
      expect(result.imageUrl).toBeNull();
      expect(result.evidence.every((e) => e.url === null)).toBe(true);
    }
    // (Not law enforcement: Vellini's face at the gala is looked up, Draganov's, a possible minor, is not.)
    const gala = trialDetails.responses.find((r) => r.seenWithNames.includes(VELLINI))!;
    const connections = await get<SeenWithConnection[]>(
      cookies.trial,
      `/api/data-extractor/results/${gala.hashedId}/connections`,
    );
    expect(connections.length).toBeGreaterThan(0);
    expect(connections.every((c) => c.aboutUrl === null)).toBe(true);
    const report = await t.request({
      method: 'GET',
      url: `/api/data-extractor/results/${done.id}/generate-report/all`,
      cookie: cookies.trial,
    });
    const text = await pdfText(report.rawPayload);
    expect(text).toContain('available only to subscribers');
    expect(text).not.toContain(site.url);

    // A Wikipedia article found for the name: named and flagged, its address withheld as the sources are.
    const article = 'http://wikipedia.test/wiki/Amelia_Okafor';
    const stored = await t.db
      .selectFrom('data_extractions')
      .select('id')
      .where('hashed_id', '=', done.id)
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('data_extraction_wikipedia')
      .values({ extraction_id: stored.id, name: OKAFOR, politician: true, url: article })
      .execute();
    const wikipedia = (await details(cookies.trial, done.id)).wikipediaResult;
    expect(wikipedia).toMatchObject({ name: OKAFOR, politician: true, url: null });
    const withWikipedia = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${done.id}/generate-report`,
      cookie: cookies.trial,
      payload: { hashedId: [trialDetails.responses[0]!.hashedId], containWikipediaData: true },
    });
    expect(withWikipedia.statusCode, withWikipedia.body).toBe(200);
    const wikiText = await pdfText(withWikipedia.rawPayload);
    expect(wikiText).toContain(OKAFOR);
    expect(wikiText).not.toContain('wikipedia.test');
    // The Wikipedia result alone makes a report too; nothing chosen at all is refused.
    const reportOf = (payload: { hashedId: string[]; containWikipediaData: boolean }) =>
      t.request({
        method: 'POST',
        url: `/api/data-extractor/results/${done.id}/generate-report`,
        cookie: cookies.trial,
        payload,
      });
    const wikipediaOnly = await reportOf({ hashedId: [], containWikipediaData: true });
    expect(wikipediaOnly.statusCode, wikipediaOnly.body).toBe(200);
    expect(await pdfText(wikipediaOnly.rawPayload)).toContain(OKAFOR);
    const nothing = await reportOf({ hashedId: [], containWikipediaData: false });
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().message).toBe(EXTRACTOR_MESSAGES.reportEmpty);
    // An admin (never restricted) sees the address.
    const asAdmin = await get<ExtractionDetailsResponse>(
      adminCookie,
      `/api/admin/data-extractor/results/details/${stored.id}`,
    );
    expect(asAdmin.wikipediaResult?.url).toBe(article);
  });

  it('shows admins every organization read-only, by numeric id', async () => {
    const list = await get<ExtractionListResponse>(adminCookie, '/api/admin/data-extractor?pageSize=100');
    expect(list.totalResultCount).toBe(4);
    const names = new Set(list.dataExtractorListItemList.map((i) => i.organizationName));
    expect(names).toContain('Agency A Intelligence');
    expect(names.size).toBe(2);
    const item = list.dataExtractorListItemList.find((i) => i.name === 'Harbour minister')!;
    expect(item.id).toMatch(/^\d+$/);
    expect(item.imagePath).toBe(`/api/admin/data-extractor/image/${item.id}`);
    const summary = await get<ExtractionSummary>(adminCookie, `/api/admin/data-extractor/results/${item.id}`);
    expect(summary.bestName).toBe(OKAFOR);
    const adminDetails = await get<ExtractionDetailsResponse>(
      adminCookie,
      `/api/admin/data-extractor/results/details/${item.id}?pageSize=100`,
    );
    expect(adminDetails.totalResultCount).toBe(all.length);
    const forum = adminDetails.responses.find(
      (r) => r.sourceUrl === site.pageUrl('/business/harbour-forum.html'),
    )!;
    expect(forum.hashedId).toMatch(/^\d+$/);
    expect(forum.thumbnailUrl).toBe(`/api/admin/data-extractor/results/image/${forum.hashedId}`);
    const connections = await get<SeenWithConnection[]>(
      adminCookie,
      `/api/admin/data-extractor/results/${forum.hashedId}/connections`,
    );
    expect(connections.map((c) => c.name)).toContain(DRAGANOV);
    // Its photo loads for the admin too (it came from the index, which answers an organization's searches).
    const draganovPhoto = connections.find((c) => c.name === DRAGANOV)!.imgUrl!;
    expect(draganovPhoto).toMatch(/^\/api\/admin\/data-extractor\/results\/connections\/image\/\d+$/);
    expect((await t.request({ method: 'GET', url: draganovPhoto, cookie: adminCookie })).statusCode).toBe(
      200,
    );
    const image = await t.request({ method: 'GET', url: forum.thumbnailUrl, cookie: adminCookie });
    expect(image.statusCode).toBe(200);
    const report = await t.request({
      method: 'POST',
      url: `/api/admin/data-extractor/results/${item.id}/generate-report`,
      cookie: adminCookie,
      payload: { hashedId: [forum.hashedId], containWikipediaData: false },
    });
    expect(report.statusCode).toBe(200);
    expect(await pdfText(report.rawPayload)).toContain(DRAGANOV);
    // Both are in the audit log under the organization whose extraction it is: its owner sees them.
    const ownerActivity = await get<{
      entries: { action: string; actor: { email: string | null } | null }[];
    }>(cookies.owner, '/api/user/organization/audit?pageSize=200');
    const byAdmin = ownerActivity.entries.filter((e) => e.actor?.email !== users.owner).map((e) => e.action);
    expect(byAdmin).toEqual(
      expect.arrayContaining(['admin.data_extraction.viewed', 'data-extractor.report']),
    );
    // Reading the results themselves, not only the summary, leaves its trace.
    const reads = await t.db
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', 'admin.data_extraction.viewed')
      .where('target', '=', `data-extractor:${item.id}`)
      .execute();
    const parts = reads.map((r) => (typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail).part);
    expect(parts.sort()).toEqual(['results', 'summary']);
    // Read-only: opening an extraction its organization has not opened yet leaves it NEW.
    const unopened = list.dataExtractorListItemList.find(
      (i) => i.organizationName === 'Agency A Intelligence' && i.status === 'NEW',
    )!;
    await get(adminCookie, `/api/admin/data-extractor/results/${unopened.id}`);
    await get(adminCookie, `/api/admin/data-extractor/results/details/${unopened.id}`);
    const status = await t.db
      .selectFrom('data_extractions')
      .select('status')
      .where('id', '=', Number(unopened.id))
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('NEW');

    // Users cannot use the admin prefix; admins have no edit calls; hashed ids are not admin ids.
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/data-extractor', cookie: cookies.owner }))
        .statusCode,
    ).toBe(403);
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: `/api/admin/data-extractor/${item.id}`,
          cookie: adminCookie,
          payload: { name: 'x' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'GET',
          url: `/api/admin/data-extractor/results/${extraction.id}`,
          cookie: adminCookie,
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/api/admin/data-extractor/results/999999',
          cookie: adminCookie,
        })
      ).statusCode,
    ).toBe(404);
  });

  it('looks up the faces seen with the subject as a search would: possible minors only for law enforcement', async () => {
    const draganovPage = site.pageUrl('/business/draganov-sanctions.html');
    const forumPage = site.pageUrl('/business/harbour-forum.html');
    const linksFromForum = async () => {
      const started = await start(cookies.owner, { searchHash: search.searchHash, image: search.face });
      expect(started.statusCode, started.body).toBe(201);
      const done = await waitForDone(cookies.owner, started.json<ExtractionListItem>().id);
      const forum = resultOn(
        (await details(cookies.owner, done.id, { pageSize: 100 })).responses,
        '/business/harbour-forum.html',
      );
      const connections = await get<SeenWithConnection[]>(
        cookies.owner,
        `/api/data-extractor/results/${forum.hashedId}/connections`,
      );
      return connections.map((c) => c.aboutUrl);
    };
    const facesOn = (pageUrl: string) =>
      t.db
        .selectFrom('faces')
        .innerJoin('image_occurrences as occ', 'occ.image_id', 'faces.image_id')
        .innerJoin('pages', 'pages.id', 'occ.page_id')
        .select(['faces.id', 'faces.possible_minor'])
        .where('pages.url', '=', pageUrl)
        .execute();
    const subjectFaces = new Set(
      (
        await t.db
          .selectFrom('search_results')
          .innerJoin('searches', 'searches.id', 'search_results.search_id')
          .select('search_results.face_id')
          .where('searches.hashed_id', '=', search.searchHash)
          .execute()
      ).map((row) => Number(row.face_id)),
    );
    const draganov = await facesOn(draganovPage);
    const besideHer = (await facesOn(forumPage)).filter((face) => !subjectFaces.has(Number(face.id)));
    expect(draganov.length).toBeGreaterThan(0);
    expect(besideHer.length).toBeGreaterThan(0);
    const flag = (faces: typeof draganov, possibleMinor: boolean) =>
      t.db
        .updateTable('faces')
        .set({ possible_minor: possibleMinor })
        .where(
          'id',
          'in',
          faces.map((face) => face.id),
        )
        .execute();
    const organizationId = (
      await t.db
        .selectFrom('users')
        .select('organization_id')
        .where('email', '=', users.owner)
        .executeTakeFirstOrThrow()
    ).organization_id!;
    const lawEnforcement = (verifiedAt: Date | null) =>
      t.db
        .updateTable('organizations')
        .set({ law_enforcement_verified_at: verifiedAt })
        .where('id', '=', organizationId)
        .execute();
    try {
      await flag([...draganov, ...besideHer], true);
      // Draganov's page is reached only through his face on the forum photo, looked up in the index.
      expect(await linksFromForum()).toContain(draganovPage);
      await lawEnforcement(null);
      expect(await linksFromForum()).not.toContain(draganovPage);
      // The faces beside her not flagged: they are looked up, but his flagged face is not among the hits.
      await flag(besideHer, false);
      expect(await linksFromForum()).not.toContain(draganovPage);
      await flag(draganov, false);
      expect(await linksFromForum()).toContain(draganovPage);
    } finally {
      await lawEnforcement(new Date());
      for (const face of [...draganov, ...besideHer]) {
        await t.db
          .updateTable('faces')
          .set({ possible_minor: face.possible_minor })
          .where('id', '=', face.id)
          .execute();
      }
    }
  }, 150_000);

  it('renames and deletes an extraction', async () => {
    const blank = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/${extraction.id}`,
      cookie: cookies.owner,
      payload: { name: ' ' },
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ message: EXTRACTOR_MESSAGES.nameEmpty });
    const renamed = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/${extraction.id}`,
      cookie: cookies.owner,
      payload: { name: 'Minister Okafor', description: 'Confirmed' },
    });
    expect(renamed.statusCode).toBe(204);
    const summary = await get<ExtractionSummary>(
      cookies.owner,
      `/api/data-extractor/results/${extraction.id}`,
    );
    expect(summary).toMatchObject({ name: 'Minister Okafor', description: 'Confirmed' });

    const removed = await t.request({
      method: 'DELETE',
      url: `/api/data-extractor/${extraction.id}`,
      cookie: cookies.owner,
    });
    expect(removed.statusCode).toBe(204);
    await get(cookies.owner, `/api/data-extractor/results/${extraction.id}`, 404);
    await get(cookies.owner, `/api/data-extractor/results/image/${all[0]!.hashedId}`, 404);
    const remaining = await t.db
      .selectFrom('data_extraction_results')
      .innerJoin('data_extractions', 'data_extractions.id', 'data_extraction_results.extraction_id')
      .select('data_extraction_results.id')
      .where('data_extractions.hashed_id', '=', extraction.id)
      .execute();
    expect(remaining).toHaveLength(0);
  });

  it('writes the extraction and its job together: a job that cannot be queued leaves nothing PENDING', async () => {
    const extractionRows = () => t.db.selectFrom('data_extractions').select(['id', 'state']).execute();
    const before = await extractionRows();
    const response = await withJobsRefused(t, QUEUES.runExtraction, () =>
      start(cookies.owner, { name: 'Never queued', searchHash: search.searchHash, image: search.face }),
    );
    expect(response.statusCode).toBe(500);
    expect(await extractionRows()).toEqual(before);
    const pending = await get<ExtractionListResponse>(cookies.owner, '/api/data-extractor?status=PENDING');
    expect(pending.totalResultCount).toBe(0);
  });

  it('keeps a search that a PENDING extraction still has to read: its deletion is refused until then', async () => {
    const fresh = await searchPortrait(cookies.owner);
    expect(fresh.numberOfResults).toBeGreaterThan(0);
    const deleteSearch = () =>
      t.request({ method: 'DELETE', url: `/api/search/${fresh.searchHash}`, cookie: cookies.owner });
    // The job waits while the user deletes the search from the history.
    await t.container.jobRunner.stop();
    let created: ExtractionListItem;
    try {
      const response = await start(cookies.owner, {
        name: 'Still reading',
        searchHash: fresh.searchHash,
        image: fresh.face,
      });
      expect(response.statusCode, response.body).toBe(201);
      created = response.json<ExtractionListItem>();
      expect(created.state).toBe('PENDING');
      // Its job takes its organization's turns in the queue (JobRepository.claimNext).
      const job = await t.db
        .selectFrom('jobs')
        .select(['organization_id', 'payload'])
        .where('queue', '=', QUEUES.runExtraction)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const extraction = await t.db
        .selectFrom('data_extractions')
        .select('organization_id')
        .where('id', '=', (job.payload as { extractionId: number }).extractionId)
        .executeTakeFirstOrThrow();
      expect(job.organization_id).toBe(extraction.organization_id);
      const refused = await deleteSearch();
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({ message: SEARCH_MESSAGES.stillNeeded });
    } finally {
      t.container.jobRunner.start();
    }
    // Every result analysed; then the search may go, and the extraction keeps its results.
    const done = await waitForDone(cookies.owner, created.id);
    expect(done).toMatchObject({ resultCount: fresh.numberOfResults, processedCount: fresh.numberOfResults });
    expect((await deleteSearch()).statusCode).toBe(204);
    const kept = await details(cookies.owner, created.id, { pageSize: 100 });
    expect(kept.totalResultCount).toBe(fresh.numberOfResults);
  });
});
