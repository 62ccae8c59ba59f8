import type { ExtractionListResponse, ExtractionSummary } from '@osint/contract/data-extractor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { holdLock, lockWaiters, together, until } from '../support/row-locks.ts';
import { createOwner, createSearch, type Member } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Requests that change the results of one saved search or one extraction at the same time, and a save
// job that runs twice: the count and the names the lists show stay those of the rows left, and a second
// run of the save job leaves the copy as the user left it.
//
// On PostgreSQL a connection of the test's own holds the row the requests lock, and lets go only once
// every request waits on a lock (pg_stat_activity): they are all under way together, whatever the timing.
// Counted side by side (before the fix) the saved search's removals then always stored a stale count;
// the extraction's edits only at times (the last to read was mostly the last to write), so its
// removals also run in rounds without the lock, where the machine's timing interleaves them. PGlite has a
// single session: there the requests simply run together.

let t: TestApp;
let owner: Member;

interface SavedResults {
  resultCount: number;
  numberOfResults: number;
  results: { id: number; hash: string }[];
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await createOwner(t, 'analyst@agency-a.example.org');
}, 120_000);

afterAll(async () => {
  await t?.close();
});

/** A search of `count` results (the fixture's two and more), saved through the API and copied by its job. */
async function savedSearchOf(count: number): Promise<{ id: number; hash: string }> {
  const search = await createSearch(t, owner, count);
  const response = await t.request({
    method: 'POST',
    url: '/api/search/save',
    cookie: owner.cookie,
    payload: { name: 'Concurrent', description: '', hash: search.hashed_id, image: search.face },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: number; hash: string }>();
}

const statusOf = async (id: number) =>
  (await t.db.selectFrom('saved_searches').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status;

async function savedResults(hash: string): Promise<SavedResults> {
  const response = await t.request({
    method: 'GET',
    url: `/api/saved-search/results/${hash}`,
    cookie: owner.cookie,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<SavedResults>();
}

function removeSavedResults(savedSearchId: number, resultIds: number[]) {
  return t.request({
    method: 'DELETE',
    url: '/api/saved-search/remove/result',
    cookie: owner.cookie,
    payload: { saveSearchId: savedSearchId, searchResultIds: resultIds },
  });
}

describe(`saved-search results changed at once (${TEST_DATABASE_KIND})`, () => {
  it('counts what is left when two requests remove results of one saved search together', async () => {
    const saved = await savedSearchOf(6);
    await until('the saved search copied', async () => (await statusOf(saved.id)) === 'COMPLETED');
    const [first, second] = (await savedResults(saved.hash)).results;

    const responses = await together(t, 'saved_searches', saved.id, () => [
      removeSavedResults(saved.id, [first!.id]),
      removeSavedResults(saved.id, [second!.id]),
    ]);
    for (const response of responses) expect(response.statusCode, response.body).toBe(200);
    // Each answers what it left: the one served first five, the other four.
    expect(responses.map((r) => r.json<{ remaining: number }>().remaining).sort()).toEqual([4, 5]);
    const after = await savedResults(saved.hash);
    expect(after.numberOfResults).toBe(4);
    expect(after.resultCount).toBe(4);
  });

  it('keeps the copy as the user left it when the save job runs again (a retry)', async () => {
    const saved = await savedSearchOf(4);
    await until('the saved search copied', async () => (await statusOf(saved.id)) === 'COMPLETED');
    const copied = (await savedResults(saved.hash)).results;
    expect((await removeSavedResults(saved.id, [copied[1]!.id])).statusCode).toBe(200);

    await t.container.services.savedSearches.runSaveJob({ savedSearchId: saved.id });
    const after = await savedResults(saved.hash);
    expect(after.results.map((r) => r.id)).toEqual(copied.filter((_, i) => i !== 1).map((r) => r.id));
    expect(after.resultCount).toBe(3);
  });

  // Two runs of one job (a stale claim taken over while the first still ran): the second has read the
  // saved search PENDING before the first stored the copy, and stores its own after the user removed a
  // result. Only PostgreSQL runs two sessions at once.
  it.runIf(TEST_DATABASE_KIND === 'postgres')(
    'keeps the copy as the user left it when a second run that read it PENDING finishes last',
    async () => {
      await t.container.jobRunner.stop();
      try {
        const saved = await savedSearchOf(4);
        const run = () => t.container.services.savedSearches.runSaveJob({ savedSearchId: saved.id });
        // The first run is held at the copy's transaction, which needs the saved search's row.
        const row = await holdLock(t, (client) =>
          client.query('select id from saved_searches where id = $1 for update', [saved.id]),
        );
        let searchResults: { release(): Promise<void> } | undefined;
        try {
          const first = run();
          await until('the first run waiting on the row', async () => (await lockWaiters(t)) >= 1);
          // The second reads the saved search (PENDING) and is held where it reads the search's results.
          searchResults = await holdLock(t, (client) =>
            client.query('lock table search_results in access exclusive mode'),
          );
          const second = run();
          await until(
            'the second run waiting on the search results',
            async () => (await lockWaiters(t)) >= 2,
          );

          await row.release();
          await first;
          expect(await statusOf(saved.id)).toBe('COMPLETED');
          const copied = (await savedResults(saved.hash)).results;
          expect(copied).toHaveLength(4);
          expect((await removeSavedResults(saved.id, [copied[2]!.id])).statusCode).toBe(200);

          await searchResults.release();
          await second;
          const after = await savedResults(saved.hash);
          expect(after.results.map((r) => r.id)).toEqual(copied.filter((_, i) => i !== 2).map((r) => r.id));
          expect(after.resultCount).toBe(3);
        } finally {
          await row.release();
          await searchResults?.release();
        }
      } finally {
        t.container.jobRunner.start();
      }
    },
  );
});

const OKAFOR = 'Amelia Okafor';
const VELLINI = 'Marco Vellini';

/** A done extraction of the owner's organization with `names.length` results named so. */
async function extractionOf(names: string[]): Promise<{ id: number; hashedId: string }> {
  const extraction = await t.db
    .insertInto('data_extractions')
    .values({
      hashed_id: newPublicId(),
      organization_id: owner.organizationId,
      user_id: owner.id,
      name: 'Concurrent',
      image: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
      state: 'DONE',
      status: 'CHECKED',
      result_count: names.length,
      processed_count: names.length,
      best_name: OKAFOR,
      names_found: new Set(names.filter(Boolean)).size,
      completed_at: new Date(),
    })
    .returning(['id', 'hashed_id'])
    .executeTakeFirstOrThrow();
  await t.db
    .insertInto('data_extraction_results')
    .values(
      names.map((name, rank) => ({
        extraction_id: extraction.id,
        hashed_id: newPublicId(),
        record_hash: newPublicId(),
        rank,
        similarity: 0.9,
        // A renamed result's page is read again: a loopback address the crawler's guard refuses at once.
        image_url: `http://127.0.0.1:9/${rank}.jpg`,
        source_url: `http://127.0.0.1:9/${rank}`,
        crawled_at: new Date(),
        person_name: name,
      })),
    )
    .execute();
  return { id: extraction.id, hashedId: extraction.hashed_id };
}

async function get<T>(url: string): Promise<T> {
  const response = await t.request({ method: 'GET', url, cookie: owner.cookie });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json<T>();
}

/**
 * Checks that the list's count and best name and the summary's names agree with the results left;
 * returns the count.
 */
async function aggregatesOf(hashedId: string, round: number): Promise<number> {
  const summary = await get<ExtractionSummary>(`/api/data-extractor/results/${hashedId}`);
  const item = (
    await get<ExtractionListResponse>('/api/data-extractor?status=DONE&pageSize=100')
  ).dataExtractorListItemList.find((i) => i.id === hashedId)!;
  const names = summary.nameList.map((n) => n.name);
  const label = `round ${round}: ${JSON.stringify({ item, names })}`;
  expect(item.resultCount, label).toBe(summary.nameStatistic.linkCount);
  expect(summary.namesFound, label).toBe(names.length);
  if (names.length === 0) expect(item.bestName, label).toBeNull();
  else expect(names, label).toContain(item.bestName);
  return item.resultCount;
}

/** Removes a result of an extraction, or names its person. */
const removeResult = (ref: string) =>
  t.request({ method: 'DELETE', url: `/api/data-extractor/results/${ref}`, cookie: owner.cookie });
const renameResult = (ref: string, name: string) =>
  t.request({
    method: 'PATCH',
    url: `/api/data-extractor/results/${ref}`,
    cookie: owner.cookie,
    payload: { name },
  });

async function shownResults(hashedId: string) {
  return (
    await get<{ responses: { hashedId: string; personName: string }[] }>(
      `/api/data-extractor/results/details/${hashedId}?pageSize=100&sortBy=smart`,
    )
  ).responses;
}

describe(`extraction results changed at once (${TEST_DATABASE_KIND})`, () => {
  it('keeps the count, the names found and the best name when results are removed and renamed together', async () => {
    const extraction = await extractionOf([
      ...Array<string>(8).fill(OKAFOR),
      ...Array<string>(6).fill(VELLINI),
      ...Array<string>(16).fill(''),
    ]);
    let left = 30;
    for (let round = 0; round < 6; round++) {
      const shown = await shownResults(extraction.hashedId);
      expect(shown).toHaveLength(left);
      // Named results come first: the two removed carry the best name while any does, one of the two
      // renamed takes a new name, the other an existing one.
      const [a, b, c, d] = shown;
      const responses = await together(t, 'data_extractions', extraction.id, () => [
        removeResult(a!.hashedId),
        removeResult(b!.hashedId),
        renameResult(c!.hashedId, `Person ${round}`),
        renameResult(d!.hashedId, VELLINI),
      ]);
      for (const response of responses) expect(response.statusCode, response.body).toBeLessThan(300);
      left -= 2;
      expect(await aggregatesOf(extraction.hashedId, round)).toBe(left);
    }
  });

  it('counts what is left when results are removed at once, however the requests interleave', async () => {
    // No lock here: the requests meet wherever the machine's timing puts them, over several rounds.
    const extraction = await extractionOf([
      ...Array<string>(12).fill(OKAFOR),
      ...Array<string>(36).fill(VELLINI),
    ]);
    let left = 48;
    for (let round = 0; round < 12; round++) {
      const shown = await shownResults(extraction.hashedId);
      const responses = await Promise.all(shown.slice(0, 4).map((r) => removeResult(r.hashedId)));
      for (const response of responses) expect(response.statusCode, response.body).toBe(200);
      left -= 4;
      expect(await aggregatesOf(extraction.hashedId, round)).toBe(left);
      expect(Math.min(...responses.map((r) => r.json<{ remaining: number }>().remaining))).toBe(left);
    }
  });
});
