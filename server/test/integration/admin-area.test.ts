import sharp from 'sharp';
import type { AdminDashboard, AdminOrganizationPage } from '@osint/contract/admin';
import type { SavedSearchListResponse, SavedSearchResultsResponse } from '@osint/contract/search';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { createAdmin, createUserWithStatus } from '../support/fixtures.ts';
import {
  createMember,
  createOwner,
  createPlan,
  createSearch,
  type Member,
} from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

const DAY = 86_400_000;

// The admin area's lists and dashboard: every organization, every organization's saved searches
// (read-only, audited) and the counts that wait for the provider. Only admins may call them.

describe(`admin area: organizations, saved searches, dashboard (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let admin: string;
  let owner: Member;
  let otherOwner: Member;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createAdmin(t);
    owner = await createOwner(t, 'owner@riverton-police.example.org', { seatLimit: 5 });
    await createMember(t, owner.organizationId, 'analyst@riverton-police.example.org', true);
    otherOwner = await createOwner(t, 'owner@harbour-bank.example.org', {
      planType: 'TRIAL',
      seatLimit: 1,
    });
  });
  afterAll(() => t.close());

  const get = <T>(url: string, cookie = admin) =>
    t.request({ method: 'GET', url, cookie }).then((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json<T>();
    });

  describe('GET /api/admin/organizations', () => {
    it('lists organizations with owner, plan, seats and status, searchable and paged', async () => {
      const pending = await createUserWithStatus(t, {
        email: 'owner@pending-ngo.example.org',
        status: 'PENDING_APPROVAL',
      });
      const expired = await createOwner(t, 'owner@expired-agency.example.org', null);
      await createPlan(t, expired.organizationId, {
        seatLimit: 2,
        startDate: new Date(Date.now() - 60 * DAY),
        endDate: new Date(Date.now() - DAY),
      });

      const all = await get<AdminOrganizationPage>('/api/admin/organizations?pageNumber=1&pageSize=100');
      expect(all.totalResultCount).toBe(all.results.length);
      const byId = new Map(all.results.map((row) => [row.id, row]));
      expect(byId.get(owner.organizationId)).toMatchObject({
        name: `Org of ${owner.email}`,
        owner: { id: owner.id, email: owner.email, status: 'ACTIVE' },
        plan: { planType: 'SUBSCRIPTION' },
        seats: { used: 2, limit: 5 },
        userCount: 2,
        status: 'ACTIVE',
      });
      expect(byId.get(otherOwner.organizationId)).toMatchObject({
        plan: { planType: 'TRIAL' },
        seats: { used: 1, limit: 1 },
        status: 'TRIAL',
      });
      expect(byId.get(pending.organizationId)).toMatchObject({
        plan: null,
        seats: { used: 1, limit: 0 },
        status: 'PENDING_APPROVAL',
      });
      expect(byId.get(expired.organizationId)).toMatchObject({ plan: null, status: 'EXPIRED' });
      // Newest first.
      const ids = all.results.map((row) => row.id);
      expect(ids.indexOf(expired.organizationId)).toBeLessThan(ids.indexOf(owner.organizationId));

      // Search by a member's address (not the owner's), by name, and a "%" taken literally.
      const byMember = await get<AdminOrganizationPage>(
        `/api/admin/organizations?search=${encodeURIComponent('ANALYST@riverton')}`,
      );
      expect(byMember.results.map((row) => row.id)).toEqual([owner.organizationId]);
      expect(byMember.totalResultCount).toBe(1);
      const byName = await get<AdminOrganizationPage>('/api/admin/organizations?search=harbour-bank');
      expect(byName.results.map((row) => row.id)).toEqual([otherOwner.organizationId]);
      expect((await get<AdminOrganizationPage>('/api/admin/organizations?search=%25')).totalResultCount).toBe(
        0,
      );

      const first = await get<AdminOrganizationPage>('/api/admin/organizations?pageNumber=1&pageSize=2');
      const second = await get<AdminOrganizationPage>('/api/admin/organizations?pageNumber=2&pageSize=2');
      expect(first.results).toHaveLength(2);
      expect(first.totalResultCount).toBe(all.totalResultCount);
      expect(second.results.map((row) => row.id)).toEqual(ids.slice(2, 4));

      const bad = await t.request({
        method: 'GET',
        url: '/api/admin/organizations?pageSize=1000',
        cookie: admin,
      });
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('admin saved searches', () => {
    let savedHash: string;
    let savedId: number;
    let resultId: number;

    beforeAll(async () => {
      const search = await createSearch(t, owner);
      const saved = await t.db
        .insertInto('saved_searches')
        .values({
          hashed_id: newPublicId(),
          organization_id: owner.organizationId,
          user_id: owner.id,
          search_id: search.id,
          name: 'Harbour suspect',
          description: 'Seen at the pier',
          type: 'OSINT',
          image: Buffer.from([0xff, 0xd8, 0xff, 0x01]),
          status: 'COMPLETED',
          result_count: 1,
        })
        .returning(['id', 'hashed_id'])
        .executeTakeFirstOrThrow();
      savedHash = saved.hashed_id;
      savedId = saved.id;
      const result = await t.db
        .insertInto('saved_search_results')
        .values({
          saved_search_id: saved.id,
          record_hash: newPublicId(),
          rank: 0,
          group_key: 'g0',
          similarity: 0.91234,
          image_url: 'https://news.example.org/pier.jpg',
          source_url: 'https://news.example.org/pier',
          source_title: 'The pier at dawn',
          crawled_at: new Date(),
          thumbnail: Buffer.from([0xff, 0xd8, 0xff, 0x02]),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      resultId = result.id;
    });

    it('lists every organization’s saved searches with the organization, images under /api/admin', async () => {
      const page = await get<SavedSearchListResponse>('/api/admin/saved-search?pageNumber=1&pageSize=10');
      const item = page.results.find((row) => row.hash === savedHash);
      expect(item).toMatchObject({
        id: savedId,
        name: 'Harbour suspect',
        organizationName: `Org of ${owner.email}`,
        image: `/api/admin/saved-search/image/${savedId}`,
        status: 'COMPLETED',
        resultCount: 1,
      });
      expect(page.totalResultCount).toBeGreaterThanOrEqual(1);
      // The search box and the status filter (the page joins the organizations, which have names too).
      const found = await get<SavedSearchListResponse>(
        '/api/admin/saved-search?status=COMPLETED&search=PIER&pageSize=10',
      );
      expect(found.results.map((row) => row.id)).toEqual([savedId]);
      expect(found.totalResultCount).toBe(1);
      const pendingOnly = await get<SavedSearchListResponse>('/api/admin/saved-search?status=PENDING');
      expect(pendingOnly.results.map((row) => row.id)).not.toContain(savedId);
      // The user's own list does not name the organization, and searches the same way.
      const ownFound = await get<SavedSearchListResponse>('/api/saved-search?search=harbour', owner.cookie);
      expect(ownFound.results.map((row) => row.id)).toEqual([savedId]);
      const own = await get<SavedSearchListResponse>('/api/saved-search', owner.cookie);
      expect(own.results[0]).not.toHaveProperty('organizationName');
    });

    it('opens one saved search read-only with its original sources, and records that in the audit log', async () => {
      const saved = await get<SavedSearchResultsResponse>(`/api/admin/saved-search/${savedHash}`);
      expect(saved).toMatchObject({ id: savedId, name: 'Harbour suspect', numberOfResults: 1 });
      expect(saved.results[0]).toMatchObject({
        id: resultId,
        thumbnailUrl: `/api/admin/saved-search/results/image/${resultId}`,
        sourceUrl: 'https://news.example.org/pier',
        imageUrl: 'https://news.example.org/pier.jpg',
        similarity: 0.912,
      });
      // The user's call under the admin prefix answers the same.
      const byUserPath = await get<SavedSearchResultsResponse>(
        `/api/admin/saved-search/results/${savedHash}`,
      );
      expect(byUserPath).toEqual({ ...saved, time: byUserPath.time });
      const entry = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'admin.saved_search.viewed')
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({
        target: `saved-search:${savedId}`,
        organization_id: owner.organizationId,
        actor_email: 'admin@provider.example.org',
      });

      const face = await t.request({ method: 'GET', url: saved.image, cookie: admin });
      expect(face.statusCode).toBe(200);
      expect(face.rawPayload).toEqual(Buffer.from([0xff, 0xd8, 0xff, 0x01]));
      const thumb = await t.request({ method: 'GET', url: saved.results[0]!.thumbnailUrl, cookie: admin });
      expect(thumb.rawPayload).toEqual(Buffer.from([0xff, 0xd8, 0xff, 0x02]));

      const missing = await t.request({ method: 'GET', url: '/api/admin/saved-search/nope', cookie: admin });
      expect(missing.statusCode).toBe(404);
    });

    it('refuses every admin saved-search, organizations and dashboard call to a user and to nobody', async () => {
      const urls = [
        '/api/admin/saved-search',
        `/api/admin/saved-search/${savedHash}`,
        `/api/admin/saved-search/results/${savedHash}`,
        `/api/admin/saved-search/image/${savedId}`,
        `/api/admin/saved-search/results/image/${resultId}`,
        '/api/admin/organizations',
        '/api/admin/dashboard',
      ];
      for (const url of urls) {
        const asUser = await t.request({ method: 'GET', url, cookie: owner.cookie });
        expect(asUser.statusCode, url).toBe(403);
        const anonymous = await t.request({ method: 'GET', url });
        expect(anonymous.statusCode, url).toBe(401);
      }
      // Nothing was recorded for the refused calls: only the admin's two views above.
      const views = await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'admin.saved_search.viewed')
        .execute();
      expect(views).toHaveLength(2);
    });

    it('reports a saved search of any organization by result id, filed under that organization', async () => {
      // Real pictures this time: the report draws them.
      const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#987' } })
        .jpeg()
        .toBuffer();
      await t.db.updateTable('saved_searches').set({ image: jpeg }).where('id', '=', savedId).execute();
      await t.db
        .updateTable('saved_search_results')
        .set({ thumbnail: jpeg })
        .where('id', '=', resultId)
        .execute();
      const report = (cookie?: string) =>
        t.request({
          method: 'POST',
          url: '/api/admin/saved-search/generate-report',
          ...(cookie && { cookie }),
          payload: { dataResultsId: [resultId] },
        });
      expect((await report(owner.cookie)).statusCode).toBe(403);
      expect((await report()).statusCode).toBe(401);
      const pdf = await report(admin);
      expect(pdf.statusCode, pdf.body).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      const entry = await t.db
        .selectFrom('audit_log')
        .innerJoin('users', 'users.id', 'audit_log.actor_user_id')
        .select(['audit_log.organization_id', 'users.email'])
        .where('action', '=', 'saved-search.report')
        .where('target', '=', `saved-search:${savedId}`)
        .executeTakeFirstOrThrow();
      expect(entry).toEqual({ organization_id: owner.organizationId, email: 'admin@provider.example.org' });
      const unknown = await t.request({
        method: 'POST',
        url: '/api/admin/saved-search/generate-report',
        cookie: admin,
        payload: { dataResultsId: [2_000_000_000] },
      });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe('GET /api/admin/dashboard', () => {
    it('counts pending registrations, orders awaiting payment, failed jobs, running crawls, index and searches today', async () => {
      const before = await get<AdminDashboard>('/api/admin/dashboard');
      expect(before.searchesSince).toMatch(/T00:00:00\.000Z$/);

      await createUserWithStatus(t, { email: 'owner@waiting-ngo.example.org', status: 'PENDING_APPROVAL' });
      await t.db
        .insertInto('orders')
        .values({
          order_number: 'T-ADMIN-1',
          organization_id: owner.organizationId,
          payment_method: 'BANK_TRANSFER',
          plan_kind: 'FIXED',
          start_date: new Date(),
          end_date: new Date(Date.now() + 30 * DAY),
          months: 1,
          seat_limit: 1,
          base_price: 100,
          additional_user_fee: 0,
          amount: 100,
          organization_name: 'Riverton',
        })
        .execute();
      await t.db
        .insertInto('jobs')
        .values({ queue: 'send-mail', payload: JSON.stringify({}), status: 'DEAD', last_error: 'boom' })
        .execute();
      await t.db
        .insertInto('crawls')
        .values({
          public_id: newPublicId(),
          seeds: JSON.stringify([]),
          options: JSON.stringify({}),
          status: 'RUNNING',
        })
        .execute();
      await createSearch(t, otherOwner);

      const after = await get<AdminDashboard>('/api/admin/dashboard');
      expect(after).toMatchObject({
        pendingRegistrations: before.pendingRegistrations + 1,
        ordersAwaitingPayment: before.ordersAwaitingPayment + 1,
        failedJobs: before.failedJobs + 1,
        runningCrawls: before.runningCrawls + 1,
        searchesToday: before.searchesToday + 1,
        index: before.index,
      });
    });
  });
});
