import fs from 'node:fs/promises';
import path from 'node:path';
import {
  EVIDENCE_SOURCE_LABELS,
  type ExtractedResult,
  type ExtractionDetailsResponse,
  type ExtractionFlag,
  type ExtractionListItem,
  type ExtractionListResponse,
  type FlagEvidence,
  type SeenWithConnection,
} from '@osint/contract/data-extractor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtractionSite, type ExtractionSite } from '../support/extraction-site.ts';
import { createAdmin, crawlDemoSites, searchFirstFace } from '../support/fixtures.ts';
import { pdfText } from '../support/pdf-text.ts';
import { createOwner } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Every flag the data extractor shows carries its evidence, wherever it is shown: the results, the
// Wikipedia result and the connections ("seen with") of the API, and every flag of the PDF report with
// evidence lines right under it. And the Wikipedia result answers to the detail page's filters as
// results do. The fictional news site is crawled for real and also speaks Wikipedia's REST API, which
// has an article on the minister.

const WATCHLIST = path.join(import.meta.dirname, '../../src/demo/watchlist/demo-watchlist.ftm.json');
const OKAFOR = 'Amelia Okafor';
const VELLINI = 'Marco Vellini';
const FLAGS: ExtractionFlag[] = ['politician', 'sanctions', 'criminal'];
/** How the report names the flags. */
const REPORT_FLAG_LABELS: Record<ExtractionFlag, string> = {
  politician: 'Politically exposed person',
  sanctions: 'Sanctions',
  criminal: 'Criminal record or wanted',
};

let t: TestApp;
let site: ExtractionSite;
let owner: string;
let trial: string;

async function get<T>(cookie: string, url: string): Promise<T> {
  const response = await t.request({ method: 'GET', url, cookie });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json<T>();
}

/** Searches the minister's portrait, runs an extraction over the search and waits for it. */
async function extractionOf(cookie: string): Promise<string> {
  const search = await searchFirstFace<{ searchHash: string }>(
    t,
    cookie,
    site.photos.get('okafor-portrait.jpg')!,
  );
  const started = await t.request({
    method: 'POST',
    url: '/api/data-extractor',
    cookie,
    payload: { searchHash: search.searchHash, image: search.face },
  });
  expect(started.statusCode, started.body).toBe(201);
  const id = started.json<ExtractionListItem>().id;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const done = await get<ExtractionListResponse>(cookie, '/api/data-extractor?status=DONE&pageSize=100');
    if (done.dataExtractorListItemList.some((item) => item.id === id)) return id;
    if (Date.now() > deadline) throw new Error(`extraction ${id} not done`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function details(cookie: string, id: string, query: Record<string, string | boolean | number> = {}) {
  const params = new URLSearchParams(
    Object.entries({ pageSize: 100, ...query }).map(([k, v]) => [k, String(v)]),
  );
  return get<ExtractionDetailsResponse>(cookie, `/api/data-extractor/results/details/${id}?${params}`);
}

function connectionsOf(cookie: string, result: ExtractedResult) {
  return get<SeenWithConnection[]>(cookie, `/api/data-extractor/results/${result.hashedId}/connections`);
}

/** Each true flag of `item` has at least one piece of evidence of that flag. */
function expectEvidenceForEveryFlag(
  what: string,
  item: Record<ExtractionFlag, boolean> & { evidence: FlagEvidence[] },
): void {
  for (const flag of FLAGS) {
    if (item[flag])
      expect(
        item.evidence.some((e) => e.flag === flag),
        `${what}: ${flag}`,
      ).toBe(true);
  }
}

/**
 * The report's text under each flag label: each true flag of an entry must be followed by an evidence
 * line ("• Page: …", "• Watch-list: …") before the next flag or the end of the entry.
 */
function expectEvidenceLines(what: string, block: string, flags: Record<ExtractionFlag, boolean>): void {
  const sources = Object.values(EVIDENCE_SOURCE_LABELS).join('|');
  for (const flag of FLAGS) {
    if (!flags[flag]) continue;
    const evidenceLine = new RegExp(`${REPORT_FLAG_LABELS[flag]}\\s*\\n\\s*• (?:${sources}): \\S`);
    expect(block, `${what}: ${flag}`).toMatch(evidenceLine);
  }
}

beforeAll(async () => {
  site = await startExtractionSite();
  t = await createTestApp({ crawlAllowPrivate: true, wikipediaUrl: site.url });
  const adminCookie = await createAdmin(t);
  const analyst = await createOwner(t, 'analyst@evidence-agency.example.org', { seatLimit: 2 });
  owner = analyst.cookie;
  // Law enforcement: the faces the age gate doubts (Draganov's among them) are looked up too.
  await t.db
    .updateTable('organizations')
    .set({ law_enforcement_verified_at: new Date() })
    .where('id', '=', analyst.organizationId)
    .execute();
  trial = (await createOwner(t, 'analyst@evidence-trial.example.org', { planType: 'TRIAL', seatLimit: 1 }))
    .cookie;
  const imported = await t.request({
    method: 'POST',
    url: '/api/admin/watchlists?name=fictional',
    cookie: adminCookie,
    headers: { 'content-type': 'application/octet-stream' },
    payload: await fs.readFile(WATCHLIST),
  });
  expect(imported.statusCode, imported.body).toBe(200);
  await crawlDemoSites(t, site.crawlTarget);
}, 240_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe(`evidence of every flag shown, and the Wikipedia result under the filters (${TEST_DATABASE_KIND})`, () => {
  let id: string;
  let answer: ExtractionDetailsResponse;

  it('answers evidence for every flag of the results, the Wikipedia result and the connections', async () => {
    id = await extractionOf(owner);
    answer = await details(owner, id);
    const flagged = answer.responses.filter((r) => FLAGS.some((flag) => r[flag]));
    expect(flagged.length).toBeGreaterThan(0);
    for (const result of answer.responses) expectEvidenceForEveryFlag(result.sourceTitle, result);

    // The minister's article: a politician, and the sentence of the article that says so.
    const wikipedia = answer.wikipediaResult!;
    expect(wikipedia).toMatchObject({
      name: OKAFOR,
      politician: true,
      url: `${site.url}/wiki/Amelia_Okafor`,
    });
    expectEvidenceForEveryFlag('Wikipedia', wikipedia);
    expect(wikipedia.evidence).toContainEqual({
      flag: 'politician',
      source: 'page',
      text: 'Amelia Okafor (born 1971) is a politician who has served as Minister of Transport since 2021.',
      url: `${site.url}/wiki/Amelia_Okafor`,
    });

    // Draganov (sanctions) by face at the forum, Vellini (wanted) named at the gala.
    const connections = (
      await Promise.all(answer.responses.filter((r) => r.seenWith).map((r) => connectionsOf(owner, r)))
    ).flat();
    const flaggedConnections = connections.filter((c) => FLAGS.some((flag) => c[flag]));
    expect(flaggedConnections.map((c) => c.name)).toEqual(expect.arrayContaining([VELLINI]));
    expect(flaggedConnections.some((c) => c.sanctions)).toBe(true);
    for (const connection of connections) expectEvidenceForEveryFlag(connection.name, connection);
    expect(flaggedConnections.flatMap((c) => c.evidence).some((e) => e.url !== null)).toBe(true);
  });

  it('prints each flag of each result and of the Wikipedia result with its evidence beside it', async () => {
    const report = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${id}/generate-report`,
      cookie: owner,
      payload: { hashedId: answer.responses.map((r) => r.hashedId), containWikipediaData: true },
    });
    expect(report.statusCode, report.body).toBe(200);
    const text = pdfText(report.rawPayload);
    // pdftotext starts each page with a form feed; the sections open with their headings.
    const wikipediaAt = text.search(/^\f?Wikipedia$/m);
    const resultsAt = text.search(/^\f?Results$/m);
    expect(wikipediaAt).toBeGreaterThan(0);
    expect(resultsAt).toBeGreaterThan(wikipediaAt);

    const wikipediaBlock = text.slice(wikipediaAt, resultsAt);
    expect(wikipediaBlock).toContain(OKAFOR);
    expectEvidenceLines('Wikipedia', wikipediaBlock, answer.wikipediaResult!);
    expect(wikipediaBlock).toContain(`${site.url}/wiki/Amelia_Okafor`);

    // The results list: one entry per result, each opening with "1. Name", "2. Name", …
    const entries = text
      .slice(resultsAt)
      .split(/^\s*\d+\. /m)
      .slice(1);
    expect(entries).toHaveLength(answer.responses.length);
    for (const result of answer.responses) {
      const entry = entries.find(
        (block) => block.startsWith(result.personName || 'Unnamed') && block.includes(result.sourceUrl!),
      );
      expect(entry, `entry of ${result.sourceUrl}`).toBeDefined();
      expectEvidenceLines(result.sourceUrl!, entry!, result);
      // Every piece of evidence of the result is under it, with its page.
      const flat = entry!.replace(/\s+/g, ' ');
      for (const evidence of result.evidence) {
        expect(flat).toContain(
          `${EVIDENCE_SOURCE_LABELS[evidence.source]}: ${evidence.text}`.replace(/\s+/g, ' '),
        );
        if (evidence.url) expect(entry).toContain(evidence.url);
      }
    }
  });

  it('leaves evidence pages out for trial plans, in the API and in the report', async () => {
    const trialId = await extractionOf(trial);
    const trialAnswer = await details(trial, trialId);
    const wikipedia = trialAnswer.wikipediaResult!;
    expect(wikipedia).toMatchObject({ name: OKAFOR, politician: true, url: null });
    expect(wikipedia.evidence.length).toBeGreaterThan(0);
    expect(wikipedia.evidence.every((e) => e.url === null)).toBe(true);
    for (const result of trialAnswer.responses) {
      expectEvidenceForEveryFlag(result.sourceTitle, result);
      expect(result.evidence.every((e) => e.url === null)).toBe(true);
    }
    const gala = trialAnswer.responses.find((r) => r.seenWithNames.includes(VELLINI))!;
    const connections = await connectionsOf(trial, gala);
    const vellini = connections.find((c) => c.name === VELLINI)!;
    expect(vellini.criminal).toBe(true);
    expectEvidenceForEveryFlag(VELLINI, vellini);
    expect(connections.flatMap((c) => c.evidence).every((e) => e.url === null)).toBe(true);

    const report = await t.request({
      method: 'POST',
      url: `/api/data-extractor/results/${trialId}/generate-report`,
      cookie: trial,
      payload: { hashedId: trialAnswer.responses.map((r) => r.hashedId), containWikipediaData: true },
    });
    expect(report.statusCode, report.body).toBe(200);
    const text = pdfText(report.rawPayload);
    expect(text).toMatch(/Politically exposed person\s*\n\s*• Page: /);
    expect(text).not.toContain(site.url);
  });

  it('answers the Wikipedia result only under filters it matches', async () => {
    const wikipediaUnder = async (query: Record<string, string | boolean>) =>
      (await details(owner, id, query)).wikipediaResult;
    // Its name, or every name.
    expect(await wikipediaUnder({})).not.toBeNull();
    expect(await wikipediaUnder({ name: '' })).not.toBeNull();
    expect(await wikipediaUnder({ name: OKAFOR })).not.toBeNull();
    expect(await wikipediaUnder({ name: VELLINI })).toBeNull();
    expect(await wikipediaUnder({ name: 'Nobody Named So' })).toBeNull();
    // Flags widen each other, as for results: a politician is shown under Politician, or Politician or
    // Sanctions, not under Sanctions or Criminal alone.
    expect(await wikipediaUnder({ politician: true })).not.toBeNull();
    expect(await wikipediaUnder({ politician: true, sanctions: true })).not.toBeNull();
    expect(await wikipediaUnder({ sanctions: true })).toBeNull();
    expect(await wikipediaUnder({ sanctions: true, criminal: true })).toBeNull();
    // Checked / Unchecked.
    expect(await wikipediaUnder({ checked: false })).not.toBeNull();
    expect(await wikipediaUnder({ checked: true })).toBeNull();
    // It has no connections: a "Seen with" filter never matches it.
    expect(await wikipediaUnder({ seenWith: VELLINI })).toBeNull();
    expect(await wikipediaUnder({ seenWith: '' })).not.toBeNull();

    const checked = await t.request({
      method: 'PATCH',
      url: `/api/data-extractor/results/${id}/wikipedia/checked`,
      cookie: owner,
    });
    expect(checked.statusCode, checked.body).toBe(200);
    expect(await wikipediaUnder({ checked: true })).toMatchObject({ name: OKAFOR, checked: true });
    expect(await wikipediaUnder({ checked: false })).toBeNull();
    expect(await wikipediaUnder({ checked: true, name: OKAFOR, politician: true })).not.toBeNull();
  });
});
