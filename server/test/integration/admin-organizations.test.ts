import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminOrganizationDetail, AdminOrganizationPage, AdminUserDetail } from '@osint/contract/admin';
import { BILLING_PLAN_MESSAGES, LAW_ENFORCEMENT_MESSAGES } from '@osint/contract/admin';
import {
  createAdmin,
  createInvitedUser,
  createUserWithStatus,
  findUserByEmail,
  FIXTURE_PASSWORD,
  login,
  mailJobsTo,
  sessionCountOf,
} from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { ORGANIZATION_BLOCKED_MESSAGE } from '../../src/services/access.service.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import {
  createMember,
  createOwner,
  createPlan,
  createSearch,
  type Member,
} from '../support/team-fixtures.ts';

const DAY = 86_400_000;

describe(`admin: users and organizations (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let admin: string;
  let owner: Member;
  let member: Member;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createAdmin(t);
    owner = await createOwner(t, 'owner@agency.example.org', { planType: 'TRIAL', seatLimit: 1 });
    member = await createMember(t, owner.organizationId, 'analyst@agency.example.org');
  });
  afterAll(() => t.close());

  const get = <T>(url: string) =>
    t.request({ method: 'GET', url, cookie: admin }).then((r) => {
      expect(r.statusCode, r.body).toBe(200);
      return r.json<T>();
    });
  const post = (url: string, payload?: object) =>
    t.request({ method: 'POST', url, cookie: admin, ...(payload ? { payload } : {}) });

  describe('user detail', () => {
    it('refuses a page number past 100,000 with a field message, and answers the last one allowed', async () => {
      for (const url of ['/api/admin/users?page=', '/api/admin/organizations?pageNumber=']) {
        for (const page of ['100001', '100000000000000000000']) {
          const refused = await t.request({ method: 'GET', url: url + page, cookie: admin });
          expect(refused.statusCode, url + page).toBe(400);
          expect(refused.json().violations?.length).toBeGreaterThan(0);
        }
        expect((await t.request({ method: 'GET', url: `${url}100000`, cookie: admin })).statusCode).toBe(200);
      }
    });

    it('shows the user, organization, live sessions, searches and recent activity', async () => {
      await createSearch(t, owner);
      const detail = await get<AdminUserDetail>(`/api/admin/users/${owner.id}`);
      expect(detail).toMatchObject({
        id: owner.id,
        email: owner.email,
        status: 'ACTIVE',
        role: 'OWNER',
        admin: false,
        access: true,
        blockedAt: null,
        organization: { id: owner.organizationId, name: `Org of ${owner.email}` },
        searchCount: 1,
      });
      expect(detail.sessions.length).toBeGreaterThanOrEqual(1);
      expect(detail.sessions[0]).toHaveProperty('lastSeenAt');
      expect(detail.recentActivity.map((e) => e.action)).toContain('user.login');
      const rows = await get<{ email: string; lastActiveAt: string | null }[]>(
        `/api/admin/users?search=${encodeURIComponent(owner.email)}`,
      );
      const listed = rows.find((row) => row.email === owner.email);
      expect(listed).toMatchObject({ lastActiveAt: detail.lastActiveAt });
      expect(listed!.lastActiveAt).not.toBeNull();
      expect(
        (await t.request({ method: 'GET', url: '/api/admin/users/999999', cookie: admin })).statusCode,
      ).toBe(404);
    });
  });

  describe('block and unblock', () => {
    it('blocks a user: sessions end at once, the seat is freed, sign-in is refused; unblocking lets them back', async () => {
      const seated = await createMember(t, owner.organizationId, 'blocked@agency.example.org', false);
      await t.db.updateTable('users').set({ has_access: true }).where('id', '=', seated.id).execute();
      expect(await sessionCountOf(t, seated.id)).toBe(1);

      const blocked = await post(`/api/admin/users/${seated.id}/block`);
      expect(blocked.statusCode, blocked.body).toBe(200);
      expect(await sessionCountOf(t, seated.id)).toBe(0);
      const row = (await findUserByEmail(t, seated.email))!;
      expect(row).toMatchObject({ status: 'BLOCKED', has_access: false });
      expect(row.blocked_at).not.toBeNull();
      const refused = await t.request({
        method: 'POST',
        url: '/api/user/login',
        payload: { mail: seated.email, password: FIXTURE_PASSWORD },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toMatch(/blocked/);
      expect((await post(`/api/admin/users/${seated.id}/block`)).statusCode).toBe(409);

      expect((await post(`/api/admin/users/${seated.id}/unblock`)).statusCode).toBe(200);
      expect((await findUserByEmail(t, seated.email))!).toMatchObject({ status: 'ACTIVE', blocked_at: null });
      await login(t, seated.email);
      expect((await post(`/api/admin/users/${seated.id}/unblock`)).statusCode).toBe(409);

      const actions = (
        await t.db
          .selectFrom('audit_log')
          .select('action')
          .where('target', '=', `user:${seated.id}`)
          .execute()
      ).map((r) => r.action);
      expect(actions).toEqual(expect.arrayContaining(['admin.user.blocked', 'admin.user.unblocked']));
    });

    it("blocking an organization's owner suspends the organization: its members lose access until unblocked", async () => {
      const suspendedOwner = await createOwner(t, 'owner@suspended.example.org', { seatLimit: 3 });
      const colleague = await createMember(
        t,
        suspendedOwner.organizationId,
        'colleague@suspended.example.org',
        true,
      );
      const history = () =>
        t.request({ method: 'GET', url: '/api/search/history', cookie: colleague.cookie });
      const userInfo = async () =>
        (await t.request({ method: 'GET', url: '/api/user/user-info', cookie: colleague.cookie })).json<{
          access: boolean;
          organizationBlocked: boolean;
        }>();
      expect((await history()).statusCode).toBe(200);
      expect(await userInfo()).toMatchObject({ access: true, organizationBlocked: false });

      expect((await post(`/api/admin/users/${suspendedOwner.id}/block`)).statusCode).toBe(200);
      const refused = await history();
      expect(refused.statusCode).toBe(403);
      expect(refused.json<{ message: string }>().message).toBe(ORGANIZATION_BLOCKED_MESSAGE);
      expect(await userInfo()).toMatchObject({ access: false, organizationBlocked: true });
      // The admin's list says the organization is blocked, as it is.
      const organizations = await get<{ results: { id: number; status: string }[] }>(
        '/api/admin/organizations?pageSize=100',
      );
      expect(organizations.results.find((o) => o.id === suspendedOwner.organizationId)?.status).toBe(
        'BLOCKED',
      );

      expect((await post(`/api/admin/users/${suspendedOwner.id}/unblock`)).statusCode).toBe(200);
      expect((await history()).statusCode).toBe(200);
      expect(await userInfo()).toMatchObject({ access: true, organizationBlocked: false });
    });

    it('returns an invited user to INVITED when unblocked, and never blocks an administrator', async () => {
      const invited = await createInvitedUser(t, {
        email: 'invited@agency.example.org',
        organizationId: owner.organizationId,
      });
      expect((await post(`/api/admin/users/${invited.id}/block`)).statusCode).toBe(200);
      expect((await post(`/api/admin/users/${invited.id}/unblock`)).statusCode).toBe(200);
      expect((await findUserByEmail(t, 'invited@agency.example.org'))!.status).toBe('INVITED');
      const adminRow = (await findUserByEmail(t, 'admin@provider.example.org'))!;
      const response = await post(`/api/admin/users/${adminRow.id}/block`);
      expect(response.statusCode).toBe(409);
      expect((await findUserByEmail(t, 'admin@provider.example.org'))!.status).toBe('ACTIVE');
    });
  });

  describe('organization detail and billing plans', () => {
    it('shows details, owner, users, seats and the plans history', async () => {
      await createPlan(t, owner.organizationId, {
        planType: 'ONE_TIME_PAYMENT',
        seatLimit: 9,
        startDate: new Date(Date.now() - 90 * DAY),
        endDate: new Date(Date.now() - 30 * DAY),
      });
      const order = await t.db
        .insertInto('orders')
        .values({
          order_number: 'OSINT-TEST-1',
          organization_id: owner.organizationId,
          created_by: owner.id,
          payment_method: 'BANK_TRANSFER',
          plan_kind: 'FIXED',
          start_date: new Date(Date.now() + DAY),
          end_date: new Date(Date.now() + 91 * DAY),
          months: 3,
          seat_limit: 4,
          base_price: 300,
          additional_user_fee: 450,
          amount: 750,
          organization_name: `Org of ${owner.email}`,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const detail = await get<AdminOrganizationDetail>(`/api/admin/organizations/${owner.organizationId}`);
      expect(detail.orders).toEqual([
        expect.objectContaining({
          id: order.id,
          orderNumber: 'OSINT-TEST-1',
          status: 'PENDING',
          paymentMethod: 'BANK_TRANSFER',
          amount: 750,
          months: 3,
          seatLimit: 4,
          paidAt: null,
        }),
      ]);
      expect(detail).toMatchObject({
        id: owner.organizationId,
        name: `Org of ${owner.email}`,
        owner: { id: owner.id, email: owner.email, status: 'ACTIVE' },
        seats: { used: 1, limit: 1 },
        activePlan: { planType: 'TRIAL', seatLimit: 1, state: 'ACTIVE' },
      });
      expect(detail.users.map((u) => u.email)).toEqual(expect.arrayContaining([owner.email, member.email]));
      expect(detail.plans.map((p) => [p.planType, p.state])).toEqual([
        ['TRIAL', 'ACTIVE'],
        ['ONE_TIME_PAYMENT', 'EXPIRED'],
      ]);
      const missing = await t.request({
        method: 'GET',
        url: '/api/admin/organizations/999999',
        cookie: admin,
      });
      expect(missing.statusCode).toBe(404);
    });

    it('after a 3-seat plan, a 2-seat plan in force: detail, list and user page show access as search grants it, like the team list', async () => {
      const shrunk = await createOwner(t, 'owner@shrunk-admin.example.org', null);
      await createPlan(t, shrunk.organizationId, {
        seatLimit: 3,
        startDate: new Date(Date.now() - 40 * DAY),
        endDate: new Date(Date.now() - 10 * DAY),
      });
      await createPlan(t, shrunk.organizationId, { seatLimit: 2 });
      const first = await createMember(t, shrunk.organizationId, 'first@shrunk-admin.example.org', true);
      const beyond = await createMember(t, shrunk.organizationId, 'beyond@shrunk-admin.example.org', true);
      // The flag is still set: only the seats of the plan in force decide.
      expect((await findUserByEmail(t, beyond.email))?.has_access).toBe(true);

      const detail = await get<AdminOrganizationDetail>(`/api/admin/organizations/${shrunk.organizationId}`);
      const accessOf = (email: string) => detail.users.find((u) => u.email === email)?.access;
      expect([accessOf(shrunk.email), accessOf(first.email), accessOf(beyond.email)]).toEqual([
        true,
        true,
        false,
      ]);
      expect(detail.seats).toEqual({ used: 2, limit: 2 });
      const listed = await get<AdminOrganizationPage>(
        `/api/admin/organizations?search=${encodeURIComponent('shrunk-admin')}`,
      );
      expect(listed.results.map((row) => [row.id, row.seats])).toEqual([
        [shrunk.organizationId, { used: 2, limit: 2 }],
      ]);
      expect((await get<AdminUserDetail>(`/api/admin/users/${beyond.id}`)).access).toBe(false);
      expect((await get<AdminUserDetail>(`/api/admin/users/${first.id}`)).access).toBe(true);
      // The team list agrees.
      const team = await t.request({
        method: 'GET',
        url: '/api/user/organization/users',
        cookie: shrunk.cookie,
      });
      expect(
        team.json<{ email: string; access: boolean }[]>().find((u) => u.email === beyond.email)?.access,
      ).toBe(false);

      // With no plan in force the flags show who gets access when the next plan starts, here as there.
      const idle = await createOwner(t, 'owner@idle-admin.example.org', null);
      const waiting = await createMember(t, idle.organizationId, 'waiting@idle-admin.example.org', true);
      const idleDetail = await get<AdminOrganizationDetail>(
        `/api/admin/organizations/${idle.organizationId}`,
      );
      expect(idleDetail.users.find((u) => u.email === waiting.email)?.access).toBe(true);
      expect((await get<AdminUserDetail>(`/api/admin/users/${waiting.id}`)).access).toBe(true);
    });

    it('checks a new plan with field messages', async () => {
      const url = `/api/admin/organizations/${owner.organizationId}/billing-plans`;
      const start = new Date().toISOString();
      const cases: [object, string, string][] = [
        [
          { planType: 'VIRTUAL', startDate: start, endDate: start, seatLimit: 2 },
          'endDate',
          BILLING_PLAN_MESSAGES.endBeforeStart,
        ],
        [
          { planType: 'VIRTUAL', startDate: start, endDate: 'soon', seatLimit: 2 },
          'endDate',
          BILLING_PLAN_MESSAGES.invalidDate,
        ],
        [
          {
            planType: 'VIRTUAL',
            startDate: start,
            endDate: new Date(Date.now() + DAY).toISOString(),
            seatLimit: 0,
          },
          'seatLimit',
          BILLING_PLAN_MESSAGES.seatLimit,
        ],
      ];
      for (const [payload, field, message] of cases) {
        const response = await post(url, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(response.json().violations).toContainEqual({ field, message });
      }
      const badType = await post(url, { planType: 'FREE', startDate: start, endDate: start, seatLimit: 1 });
      expect(badType.statusCode).toBe(400);
      expect(
        await t.db
          .selectFrom('billing_plans')
          .select('id')
          .where('organization_id', '=', owner.organizationId)
          .execute(),
      ).toHaveLength(2);
    });

    it('makes no plan for an organization whose owner has not confirmed the address (it may yet be deleted)', async () => {
      const unconfirmed = await createUserWithStatus(t, {
        email: 'owner@unconfirmed-plan.example.org',
        status: 'EMAIL_UNVERIFIED',
        role: 'OWNER',
      });
      const response = await post(`/api/admin/organizations/${unconfirmed.organizationId}/billing-plans`, {
        planType: 'VIRTUAL',
        startDate: new Date().toISOString(),
        endDate: new Date(Date.now() + 30 * DAY).toISOString(),
        seatLimit: 2,
      });
      expect(response.statusCode).toBe(409);
      expect(response.json().message).toMatch(/has not confirmed their e-mail address/);
      expect(
        await t.db
          .selectFrom('billing_plans')
          .select('id')
          .where('organization_id', '=', unconfirmed.organizationId)
          .execute(),
      ).toEqual([]);
    });

    it('creates a VIRTUAL plan that takes effect at once: more seats, full access, recorded in the audit log', async () => {
      const endDate = new Date(Date.now() + 60 * DAY).toISOString();
      const response = await post(`/api/admin/organizations/${owner.organizationId}/billing-plans`, {
        planType: 'VIRTUAL',
        startDate: new Date(Date.now() - 1000).toISOString(),
        endDate,
        seatLimit: 5,
      });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ planType: 'VIRTUAL', seatLimit: 5, state: 'ACTIVE', endDate });

      const organization = await t.request({
        method: 'GET',
        url: '/api/user/organization',
        cookie: owner.cookie,
      });
      expect(organization.json().activeBillingPlan).toMatchObject({ planType: 'VIRTUAL', seatLimit: 5 });
      const give = await t.request({
        method: 'POST',
        url: '/api/user/give',
        cookie: owner.cookie,
        payload: { userHashedId: member.hashedId, organizationId: owner.organizationId },
      });
      expect(give.statusCode).toBe(200);
      const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie: member.cookie });
      expect(info.json()).toMatchObject({ access: true, restricted: false });

      const detail = await get<AdminOrganizationDetail>(`/api/admin/organizations/${owner.organizationId}`);
      expect(detail.seats).toEqual({ used: 2, limit: 5 });
      expect(detail.plans.map((p) => [p.planType, p.state])).toEqual([
        ['VIRTUAL', 'ACTIVE'],
        ['TRIAL', 'SUPERSEDED'],
        ['ONE_TIME_PAYMENT', 'EXPIRED'],
      ]);
      const entry = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'admin.billing_plan.created')
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({
        organization_id: owner.organizationId,
        actor_email: 'admin@provider.example.org',
      });
      expect(entry.detail).toMatchObject({ planType: 'VIRTUAL', seatLimit: 5 });

      const future = await post(`/api/admin/organizations/${owner.organizationId}/billing-plans`, {
        planType: 'SUBSCRIPTION',
        startDate: new Date(Date.now() + 60 * DAY).toISOString(),
        endDate: new Date(Date.now() + 90 * DAY).toISOString(),
        seatLimit: 3,
      });
      expect(future.json()).toMatchObject({ state: 'FUTURE' });
      const missing = await post('/api/admin/organizations/999999/billing-plans', {
        planType: 'VIRTUAL',
        startDate: new Date().toISOString(),
        endDate,
        seatLimit: 1,
      });
      expect(missing.statusCode).toBe(404);
    });
  });

  describe('law-enforcement verification and mail to owners', () => {
    const verify = (organizationId: number) =>
      post(`/api/admin/organizations/${organizationId}/law-enforcement`, {
        verified: true,
        note: 'Warrant card and agency letter checked',
      });
    const verifiedAt = async (organizationId: number) =>
      (
        await t.db
          .selectFrom('organizations')
          .select('law_enforcement_verified_at')
          .where('id', '=', organizationId)
          .executeTakeFirstOrThrow()
      ).law_enforcement_verified_at;

    it('does not verify an organization whose owner has not confirmed the address (409), and mails nobody', async () => {
      const email = 'owner@unconfirmed-police.example.org';
      const unconfirmed = await createUserWithStatus(t, { email, status: 'EMAIL_UNVERIFIED', role: 'OWNER' });
      const response = await verify(unconfirmed.organizationId);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ message: LAW_ENFORCEMENT_MESSAGES.unconfirmedOwner });
      expect(await verifiedAt(unconfirmed.organizationId)).toBeNull();
      expect(await mailJobsTo(t, email)).toEqual([]);
    });

    it('mails a blocked or rejected owner neither the verification nor the end of a plan', async () => {
      for (const status of ['BLOCKED', 'REJECTED'] as const) {
        const email = `owner@${status.toLowerCase()}-police.example.org`;
        const silent = await createUserWithStatus(t, { email, status, role: 'OWNER' });
        const plan = await createPlan(t, silent.organizationId, { seatLimit: 2 });
        const verified = await verify(silent.organizationId);
        expect(verified.statusCode, verified.body).toBe(200);
        expect(await verifiedAt(silent.organizationId)).not.toBeNull();
        const ended = await post(`/api/admin/billing-plans/${plan.id}/end`, { reason: 'Misuse' });
        expect(ended.statusCode, ended.body).toBe(200);
        expect(await mailJobsTo(t, email), status).toEqual([]);
      }
    });
  });
});
