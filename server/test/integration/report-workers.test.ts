import { REPORT_FAILED_MESSAGE, REPORTS_BUSY_MESSAGE } from '@osint/contract/constants';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS_PER_ORGANIZATION } from '../../src/services/report-renderer.ts';
import { pdfText } from '../support/pdf-text.ts';
import { auditActions, createOwner, createSearch, type Member } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// PDF reports are drawn in report worker threads, organizations taking turns, with a cap per
// organization: one organization's reports never stall another organization's requests.

const REPORTS = { workers: 1, renderTimeoutMs: 120_000, workerHeapMb: 512 };

function requestReport(t: TestApp, member: Member, searchHash: string) {
  return t.request({
    method: 'POST',
    url: '/api/search/generate-report',
    cookie: member.cookie,
    payload: { searchHash },
  });
}

/** The first report starts the worker: done before anything is measured or ordered. */
async function startWorkers(t: TestApp, member: Member): Promise<void> {
  const small = await createSearch(t, member, 1);
  const response = await requestReport(t, member, small.hashed_id);
  expect(response.statusCode, response.body).toBe(200);
}

async function reportCount(t: TestApp, member: Member): Promise<number> {
  return (await auditActions(t, member.organizationId)).filter((a) => a === 'search.report').length;
}

describe('PDF reports in worker threads', () => {
  let t: TestApp;
  let first: Member;

  beforeAll(async () => {
    t = await createTestApp({ reports: REPORTS });
    first = await createOwner(t, 'owner@first-reports.example.org');
    await startWorkers(t, first);
  });
  afterAll(() => t.close());

  it("answers another organization's requests while a 1,000-result report is drawn", async () => {
    const other = await createOwner(t, 'owner@other-reports.example.org');
    const big = await createSearch(t, first, 1000);
    const started = performance.now();
    let finished = false;
    const drawing = requestReport(t, first, big.hashed_id).then((response) => {
      finished = true;
      return { response, tookMs: performance.now() - started };
    });
    // The other organization lists its searches every few milliseconds until the report is done. (The
    // pause also lets the event loop reach the worker's answer: injected requests over the embedded
    // database could otherwise follow each other without ever leaving the microtask queue.)
    const waits: number[] = [];
    let beforeReport = 0;
    while (!finished) {
      // Measured from before the pause: a timer that cannot fire is a wait as well.
      const asked = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const listed = await t.request({
        method: 'GET',
        url: '/api/search/history?pageNumber=1&pageSize=10',
        cookie: other.cookie,
      });
      expect(listed.statusCode).toBe(200);
      waits.push(performance.now() - asked);
      if (!finished) beforeReport++;
    }
    const { response, tookMs } = await drawing;
    expect(response.statusCode, response.body).toBe(200);
    expect(pdfText(response.rawPayload)).toContain('Result 1000');
    // Drawn on the thread that answers requests, the report held one of them for (nearly) all of its
    // time, and few completed before it; drawn in a worker, each answer takes a small part of it.
    expect(beforeReport).toBeGreaterThanOrEqual(5);
    expect(Math.max(...waits)).toBeLessThan(tookMs / 4);
  });

  it('serves two organizations asking for reports at once in turns', async () => {
    const busy = await createOwner(t, 'owner@busy-reports.example.org');
    const quiet = await createOwner(t, 'owner@quiet-reports.example.org');
    const busySearches = [
      await createSearch(t, busy, 500),
      await createSearch(t, busy, 500),
      await createSearch(t, busy, 500),
    ];
    const quietSearch = await createSearch(t, quiet, 500);
    const finished: string[] = [];
    const run = async (name: string, member: Member, searchHash: string) => {
      const response = await requestReport(t, member, searchHash);
      expect(response.statusCode, response.body).toBe(200);
      finished.push(name);
    };
    // Three reports of one organization, then one of another: the latter is drawn after at most one
    // of the first organization's (the one running when it arrived), not after all three.
    await Promise.all([
      ...busySearches.map((search, i) => run(`busy-${i + 1}`, busy, search.hashed_id)),
      run('quiet', quiet, quietSearch.hashed_id),
    ]);
    expect(finished).toHaveLength(4);
    expect(finished.indexOf('quiet')).toBeLessThanOrEqual(1);
  });

  it("refuses an organization's reports beyond its cap with a 429, and records nothing for them", async () => {
    const crowded = await createOwner(t, 'owner@crowded-reports.example.org');
    const bystander = await createOwner(t, 'owner@bystander-reports.example.org');
    const search = await createSearch(t, crowded, 300);
    const bystanderSearch = await createSearch(t, bystander, 2);
    const cap = REPORTS_PER_ORGANIZATION.running + REPORTS_PER_ORGANIZATION.queued;
    const [bystanderReport, ...responses] = await Promise.all([
      requestReport(t, bystander, bystanderSearch.hashed_id),
      ...Array.from({ length: cap + 1 }, () => requestReport(t, crowded, search.hashed_id)),
    ]);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(cap);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: REPORTS_BUSY_MESSAGE,
    });
    const retryAfter = Number(refused[0]!.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
    expect(refused[0]!.headers['content-type']).not.toContain('pdf');
    // Only the drawn reports are recorded; another organization was not refused meanwhile.
    expect(await reportCount(t, crowded)).toBe(cap);
    expect(bystanderReport!.statusCode, bystanderReport!.body).toBe(200);
    // The places are given back: the organization reports again.
    expect((await requestReport(t, crowded, search.hashed_id)).statusCode).toBe(200);
  });
});

describe('a report worker that crashes', () => {
  let t: TestApp;

  // A heap that holds a small report and not a 1,000-result one: the worker drawing it runs out of
  // memory and dies, as a worker would on a report too large for the configured heap.
  beforeAll(async () => {
    t = await createTestApp({ reports: { ...REPORTS, workerHeapMb: 36 } });
  });
  afterAll(() => t.close());

  it('fails only its own report, with a clear error, and the next report is drawn', async () => {
    const heavy = await createOwner(t, 'owner@heavy-reports.example.org');
    const light = await createOwner(t, 'owner@light-reports.example.org');
    const big = await createSearch(t, heavy, 1000);
    const [crashed, meanwhile] = await Promise.all([
      requestReport(t, heavy, big.hashed_id),
      requestReport(t, light, (await createSearch(t, light, 2)).hashed_id),
    ]);
    expect(crashed.statusCode).toBe(500);
    expect(crashed.json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      message: REPORT_FAILED_MESSAGE,
    });
    expect(await reportCount(t, heavy)).toBe(0);
    expect(meanwhile.statusCode, meanwhile.body).toBe(200);

    const next = await requestReport(t, heavy, (await createSearch(t, heavy, 2)).hashed_id);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.headers['content-type']).toBe('application/pdf');
    expect(pdfText(next.rawPayload)).toContain('Result 2');
    expect(await reportCount(t, heavy)).toBe(1);
  });
});
