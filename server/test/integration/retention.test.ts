import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { SearchRepository } from '../../src/repositories/search.repository.ts';
import { RETENTION_SWEEP_INTERVAL_MS } from '../../src/services/retention.service.ts';
import { createUser, insertFaceAlert } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Spec 000 §9 retention, with a controlled clock: the sweep is given "now", and every activity is dated
// relative to it. An organization's searches, saved searches and extractions go after 30 days without
// activity; any of its users' activity keeps them.

const DAY = 86_400_000;
const NOW = new Date('2031-06-15T12:00:00Z');
const ago = (days: number, from = NOW) => new Date(from.getTime() - days * DAY);

describe(`retention (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  const orgs: Record<string, { organizationId: number; userId: number }> = {};

  async function content(name: string, days: { search: number; saved?: number; extraction?: number }) {
    const { organizationId, userId } = orgs[name]!;
    const search = await t.db
      .insertInto('searches')
      .values({
        hashed_id: newPublicId(),
        organization_id: organizationId,
        user_id: userId,
        type: 'OSINT',
        duration_ms: 10,
        result_count: 1,
        created_at: ago(days.search),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('search_results')
      .values({
        search_id: search.id,
        record_hash: `r-${name}`,
        rank: 1,
        group_key: 'g',
        similarity: 0.95,
        image_url: 'https://news.example/p.jpg',
        source_url: 'https://news.example/',
        crawled_at: ago(days.search),
      })
      .execute();
    if (days.saved !== undefined) {
      const saved = await t.db
        .insertInto('saved_searches')
        .values({
          hashed_id: newPublicId(),
          organization_id: organizationId,
          user_id: userId,
          search_id: search.id,
          name: `Saved by ${name}`,
          type: 'OSINT',
          image: Buffer.from([0xff, 0xd8, 0xff]),
          created_at: ago(days.saved),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.db
        .insertInto('saved_search_results')
        .values({
          saved_search_id: saved.id,
          record_hash: `s-${name}`,
          rank: 1,
          group_key: 'g',
          similarity: 0.95,
          image_url: 'https://news.example/p.jpg',
          source_url: 'https://news.example/',
          crawled_at: ago(days.saved),
          thumbnail: Buffer.from([1, 2, 3]),
        })
        .execute();
    }
    if (days.extraction !== undefined) {
      await t.db
        .insertInto('data_extractions')
        .values({
          hashed_id: newPublicId(),
          organization_id: organizationId,
          user_id: userId,
          search_id: search.id,
          name: `Extraction by ${name}`,
          image: Buffer.from([0xff, 0xd8, 0xff]),
          created_at: ago(days.extraction),
        })
        .execute();
    }
  }

  async function counts(name: string) {
    const organizationId = orgs[name]!.organizationId;
    const count = async (table: 'searches' | 'saved_searches' | 'data_extractions') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('organization_id', '=', organizationId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      searches: await count('searches'),
      savedSearches: await count('saved_searches'),
      extractions: await count('data_extractions'),
    };
  }

  const session = (name: string, lastSeen: Date) =>
    t.db
      .insertInto('sessions')
      .values({
        id: newPublicId(),
        user_id: orgs[name]!.userId,
        last_seen_at: lastSeen,
        created_at: lastSeen,
        expires_at: new Date(lastSeen.getTime() + DAY),
      })
      .execute();
  const audited = (name: string, at: Date, actor = orgs[name]!.userId) =>
    t.db
      .insertInto('audit_log')
      .values({
        at,
        actor_user_id: actor,
        organization_id: orgs[name]!.organizationId,
        action: 'user.login',
        detail: JSON.stringify({}),
      })
      .execute();

  beforeAll(async () => {
    t = await createTestApp();
    await t.container.jobRunner.stop();
    for (const name of ['idle', 'session', 'audit', 'saved', 'adminOnly', 'edge', 'admin'])
      orgs[name] = await (async () => {
        const user = await createUser(t, { email: `${name}@retention.example.org`, admin: name === 'admin' });
        return { organizationId: user.organizationId, userId: user.id };
      })();
    // Idle for 31 days: the newest of its content, sessions and audited actions is 31 days old.
    await content('idle', { search: 40, saved: 35, extraction: 31 });
    await session('idle', ago(32));
    await audited('idle', ago(33));
    // Old content, but a user was signed in and using the product two days ago.
    await content('session', { search: 60, saved: 60, extraction: 60 });
    await session('session', ago(2));
    // Old content, but a user signed in ten days ago (the audit log remembers).
    await content('audit', { search: 60, saved: 60 });
    await audited('audit', ago(10));
    // A search saved five days ago is activity too.
    await content('saved', { search: 50, saved: 5 });
    // An admin's action on the organization is not the organization's own activity.
    await content('adminOnly', { search: 45 });
    await audited('adminOnly', ago(1), orgs.admin!.userId);
    // Active 29 days and 23 hours ago: kept today, gone in two days.
    await content('edge', { search: 29.96, saved: 40 });
  });
  afterAll(() => t.close());

  it('deletes the searches, saved searches and extractions of organizations inactive for 30 days, and only theirs', async () => {
    const deleted = await t.container.services.retention.sweep(NOW);
    expect(deleted.map((d) => d.organizationId).sort()).toEqual(
      [orgs.idle!.organizationId, orgs.adminOnly!.organizationId].sort(),
    );
    expect(deleted.find((d) => d.organizationId === orgs.idle!.organizationId)!.deleted).toEqual({
      searches: 1,
      savedSearches: 1,
      extractions: 1,
      faceAlerts: 0,
    });
    expect(await counts('idle')).toEqual({ searches: 0, savedSearches: 0, extractions: 0 });
    expect(await counts('adminOnly')).toEqual({ searches: 0, savedSearches: 0, extractions: 0 });
    expect(await counts('session')).toEqual({ searches: 1, savedSearches: 1, extractions: 1 });
    expect(await counts('audit')).toEqual({ searches: 1, savedSearches: 1, extractions: 0 });
    expect(await counts('saved')).toEqual({ searches: 1, savedSearches: 1, extractions: 0 });
    expect(await counts('edge')).toEqual({ searches: 1, savedSearches: 1, extractions: 0 });
    // Results went with their searches; nothing of the kept organizations was touched.
    const results = await t.db
      .selectFrom('search_results')
      .select('record_hash')
      .orderBy('record_hash')
      .execute();
    expect(results.map((r) => r.record_hash)).toEqual(['r-audit', 'r-edge', 'r-saved', 'r-session']);
    const savedResults = await t.db.selectFrom('saved_search_results').select('record_hash').execute();
    expect(savedResults.map((r) => r.record_hash).sort()).toEqual([
      's-audit',
      's-edge',
      's-saved',
      's-session',
    ]);
  });

  it('deletes the alerts of an organization that has left no trace of activity at all', async () => {
    // Its only user signed out (no session row) and the audit log forgot who acted: nothing but the alert.
    const user = await createUser(t, { email: 'alerts-only@retention.example.org' });
    const image = await t.db
      .insertInto('images')
      .values({
        content_hash: 'alerts-only',
        phash: null,
        width: 10,
        height: 10,
        mime_type: 'image/jpeg',
        thumbnail_path: null,
        analyzed_at: ago(40),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const watch = await t.db
      .insertInto('face_watches')
      .values({
        organization_id: user.organizationId,
        user_id: user.id,
        name: 'Alerts only',
        descriptor_sealed: null,
        face_image: null,
        model_id: 'test-model',
        ends_at: new Date(NOW.getTime() + 300 * DAY),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await insertFaceAlert(t, {
      watchId: watch.id,
      organizationId: user.organizationId,
      faceId: null,
      imageId: image.id,
      firstIndexedAt: ago(40),
    });
    const deleted = await t.container.services.retention.sweep(NOW);
    expect(deleted.find((d) => d.organizationId === user.organizationId)?.deleted).toMatchObject({
      faceAlerts: 1,
    });
  });

  it('empties the search history of the organizations it swept, and only theirs', async () => {
    // The history (GET /api/search/history) lists the organization's stored searches, newest first.
    const history = (name: string) =>
      new SearchRepository(t.db).findPage(orgs[name]!.organizationId, 0, 10, false);
    expect(await history('idle')).toEqual({ rows: [], total: 0 });
    expect(await history('adminOnly')).toEqual({ rows: [], total: 0 });
    const kept = await history('session');
    expect(kept.total).toBe(1);
    expect(kept.rows[0]).toMatchObject({ email: 'session@retention.example.org', shown_count: 1 });
  });

  it('keeps the accounts, the organization and an audit entry that says what was deleted', async () => {
    const user = await t.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', orgs.idle!.userId)
      .executeTakeFirst();
    expect(user).toBeDefined();
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['organization_id', 'actor_user_id', 'detail'])
      .where('action', '=', 'retention.content_deleted')
      .where('organization_id', '=', orgs.idle!.organizationId)
      .execute();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.actor_user_id).toBeNull();
    const detail =
      typeof entries[0]!.detail === 'string' ? JSON.parse(entries[0]!.detail) : entries[0]!.detail;
    expect(detail).toMatchObject({ searches: 1, savedSearches: 1, extractions: 1 });
    expect(Date.parse(detail.lastActivityAt)).toBe(ago(31).getTime());
  });

  it('follows the clock: the organization active 29 days 23 hours ago goes two days later, and a sweep with nothing to do deletes nothing', async () => {
    expect(await t.container.services.retention.sweep(NOW)).toEqual([]);
    const later = new Date(NOW.getTime() + 2 * DAY);
    const deleted = await t.container.services.retention.sweep(later);
    expect(deleted.map((d) => d.organizationId)).toEqual([orgs.edge!.organizationId]);
    expect(await counts('edge')).toEqual({ searches: 0, savedSearches: 0, extractions: 0 });
    expect(await counts('session')).toEqual({ searches: 1, savedSearches: 1, extractions: 1 });
  });

  it('runs as a scheduled job that queues its next run once per hour, however many processes start it', async () => {
    await t.container.services.retention.startSweep();
    await t.container.services.retention.startSweep();
    t.container.jobRunner.start();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const next = await t.db
        .selectFrom('jobs')
        .select(['status', 'run_at', 'unique_key'])
        .where('queue', '=', QUEUES.retentionSweep)
        .where('unique_key', 'is not', null)
        .execute();
      const done = await t.db
        .selectFrom('jobs')
        .select('id')
        .where('queue', '=', QUEUES.retentionSweep)
        .where('status', '=', 'DONE')
        .execute();
      if (done.length === 2) {
        expect(next).toHaveLength(1);
        expect(next[0]!.status).toBe('QUEUED');
        expect(next[0]!.run_at.getTime() % RETENTION_SWEEP_INTERVAL_MS).toBe(0);
        expect(next[0]!.run_at.getTime()).toBeGreaterThan(Date.now());
        expect(next[0]!.run_at.getTime()).toBeLessThanOrEqual(Date.now() + RETENTION_SWEEP_INTERVAL_MS);
        break;
      }
      if (Date.now() > deadline) throw new Error('the retention job did not run');
      await new Promise((r) => setTimeout(r, 100));
    }
    // The real clock is years before NOW: nothing left is 30 days idle yet by it.
    expect(await counts('session')).toEqual({ searches: 1, savedSearches: 1, extractions: 1 });
  });
  it("erases a delivered mail's payload (its one-time link), and deletes finished jobs after their time", async () => {
    // The runner is running (previous test): a reset link is mailed, and the job keeps no trace of it.
    await t.container.services.mail.send('reset@agency.example.org', {
      subject: 'Reset your password',
      text: 'https://osint.example/reset-password?token=SECRET-ONE-TIME-TOKEN',
      html: '<a href="https://osint.example/reset-password?token=SECRET-ONE-TIME-TOKEN">Reset</a>',
    });
    for (const deadline = Date.now() + 15_000; ;) {
      const mail = await t.db
        .selectFrom('jobs')
        .select(['status', 'payload'])
        .where('queue', '=', QUEUES.sendMail)
        .executeTakeFirst();
      if (mail?.status === 'DONE') {
        const payload = typeof mail.payload === 'string' ? JSON.parse(mail.payload) : mail.payload;
        // What the mail was stays (to whom, about what), not what it said.
        expect(payload).toEqual({ to: 'reset@agency.example.org', subject: 'Reset your password' });
        break;
      }
      if (Date.now() > deadline) throw new Error('the mail job did not run');
      await new Promise((r) => setTimeout(r, 100));
    }

    const job = (status: 'DONE' | 'DEAD', finishedDaysAgo: number, key: string) => ({
      queue: 'test.finished',
      payload: JSON.stringify({ key }),
      status,
      finished_at: ago(finishedDaysAgo),
      unique_key: key,
    });
    await t.db
      .insertInto('jobs')
      .values([
        job('DONE', 31, 'done-31'),
        job('DONE', 29, 'done-29'),
        job('DEAD', 91, 'dead-91'),
        job('DEAD', 60, 'dead-60'),
      ])
      .execute();
    await t.container.services.retention.sweep(NOW);
    const left = await t.db
      .selectFrom('jobs')
      .select('unique_key')
      .where('queue', '=', 'test.finished')
      .execute();
    expect(left.map((row) => row.unique_key).sort()).toEqual(['dead-60', 'done-29']);
  });
});
