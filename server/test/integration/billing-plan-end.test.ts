import { END_PLAN_MESSAGES } from '@osint/contract/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { NO_ACCESS_MESSAGE } from '../../src/services/access.service.ts';
import { createAdmin, createUser, login, mailJobsTo } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Admins end or revoke any plan, a trial included (spec 000 §1: a trial may be revoked for misuse):
// the reason is required, the end is audited with it, the owner is e-mailed, and access follows at once.
// Access is read through the search API, which refuses before it looks at the face: a made-up face
// answers 400 to a user with access and 403 (the no-plan answer) to one without.

const DAY = 86_400_000;
let t: TestApp;
let admin: string;

async function ownerWithPlan(
  email: string,
  plan: { type: 'TRIAL' | 'SUBSCRIPTION'; from: number; to: number },
) {
  const user = await createUser(t, { email });
  const row = await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: plan.type,
      start_date: new Date(plan.from),
      end_date: new Date(plan.to),
      seat_limit: 3,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...user, planId: row.id, cookie: await login(t, email) };
}

function search(cookie: string) {
  return t.request({
    method: 'POST',
    url: '/api/search',
    cookie,
    payload: { faces: ['no-such-face'], type: 'OSINT' },
  });
}

function endPlan(planId: number, payload: Record<string, unknown>, cookie = admin) {
  return t.request({ method: 'POST', url: `/api/admin/billing-plans/${planId}/end`, cookie, payload });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
});

describe('an admin ends a plan', () => {
  it('revokes a trial with a reason: access ends at once, audited, and the owner is told why', async () => {
    const owner = await ownerWithPlan('owner@revoked.example.org', {
      type: 'TRIAL',
      from: Date.now() - DAY,
      to: Date.now() + 6 * DAY,
    });
    expect((await search(owner.cookie)).statusCode).toBe(400);

    const before = Date.now();
    const response = await endPlan(owner.planId, { reason: 'Searches of private persons without a case' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id: owner.planId,
      planType: 'TRIAL',
      state: 'ENDED',
      endedEarly: { reason: 'Searches of private persons without a case' },
    });

    const refused = await search(owner.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ message: NO_ACCESS_MESSAGE });
    const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie: owner.cookie });
    expect(info.json()).toMatchObject({ access: false });
    const plans = await t.request({
      method: 'GET',
      url: '/api/user/organization/all-billing-plans',
      cookie: owner.cookie,
    });
    expect(plans.json()).toMatchObject({ activeBillingPlan: null, futureBillingPlan: null });
    const ended = plans.json<{ expiredBillingPlan: { id: number; endDate: string } }>().expiredBillingPlan;
    expect(ended.id).toBe(owner.planId);
    expect(Date.parse(ended.endDate)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(ended.endDate)).toBeLessThanOrEqual(Date.now());

    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'admin.billing_plan.ended')
      .where('target', '=', `billing_plan:${owner.planId}`)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.organization_id).toBe(owner.organizationId);
    expect(JSON.stringify(audit[0]!.detail)).toContain('Searches of private persons without a case');

    const mails = await mailJobsTo(t, 'owner@revoked.example.org');
    expect(mails.map((m) => m.subject)).toContain('Your free trial has been ended');

    // The admin's organization page shows it ended, with the reason.
    const detail = await t.request({
      method: 'GET',
      url: `/api/admin/organizations/${owner.organizationId}`,
      cookie: admin,
    });
    expect(detail.json()).toMatchObject({
      activePlan: null,
      plans: [
        {
          id: owner.planId,
          state: 'ENDED',
          endedEarly: { reason: 'Searches of private persons without a case' },
        },
      ],
    });

    // Ended once: a second click is told so, and nothing changes.
    const again = await endPlan(owner.planId, { reason: 'again' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: END_PLAN_MESSAGES.alreadyEnded });
  });

  it('requires a reason and changes nothing without one', async () => {
    const owner = await ownerWithPlan('owner@noreason.example.org', {
      type: 'SUBSCRIPTION',
      from: Date.now() - DAY,
      to: Date.now() + 30 * DAY,
    });
    for (const payload of [{ reason: '   ' }, {}, { reason: 'x'.repeat(1001) }]) {
      const response = await endPlan(owner.planId, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await endPlan(owner.planId, { reason: '' })).json()).toMatchObject({
      message: END_PLAN_MESSAGES.reasonRequired,
    });
    expect((await search(owner.cookie)).statusCode).toBe(400);
    const row = await t.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('id', '=', owner.planId)
      .executeTakeFirstOrThrow();
    expect(row.ended_at).toBeNull();
    expect(await mailJobsTo(t, 'owner@noreason.example.org')).toEqual([]);
  });

  it('cancels a plan that has not started: it never becomes the next plan', async () => {
    const owner = await ownerWithPlan('owner@future.example.org', {
      type: 'SUBSCRIPTION',
      from: Date.now() + 5 * DAY,
      to: Date.now() + 35 * DAY,
    });
    const response = await endPlan(owner.planId, { reason: 'Ordered by mistake' });
    expect(response.statusCode, response.body).toBe(200);
    const plans = await t.request({
      method: 'GET',
      url: '/api/user/organization/all-billing-plans',
      cookie: owner.cookie,
    });
    expect(plans.json()).toMatchObject({ activeBillingPlan: null, futureBillingPlan: null });
    await t.container.services.billing.sweepPlans(new Date(Date.now() + 10 * DAY));
    expect((await mailJobsTo(t, 'owner@future.example.org')).map((m) => m.subject)).toEqual([
      'Your plan has been ended',
    ]);
  });

  it('is for admins only, and an unknown plan is 404', async () => {
    const owner = await ownerWithPlan('owner@self.example.org', {
      type: 'TRIAL',
      from: Date.now() - DAY,
      to: Date.now() + 6 * DAY,
    });
    expect((await endPlan(owner.planId, { reason: 'mine' }, owner.cookie)).statusCode).toBe(403);
    expect((await search(owner.cookie)).statusCode).toBe(400);
    const missing = await endPlan(999_999, { reason: 'none' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ message: END_PLAN_MESSAGES.planNotFound });
  });

  it('without FastSpring API credentials, says the card subscription must be cancelled in FastSpring', async () => {
    const owner = await ownerWithPlan('owner@card-manual.example.org', {
      type: 'SUBSCRIPTION',
      from: Date.now() - DAY,
      to: Date.now() + 29 * DAY,
    });
    await t.db
      .updateTable('billing_plans')
      .set({ fastspring_subscription_id: 'SUB-MANUAL-1' })
      .where('id', '=', owner.planId)
      .execute();
    const response = await endPlan(owner.planId, { reason: 'Chargeback' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      state: 'ENDED',
      cardSubscription: { id: 'SUB-MANUAL-1', cancelledAt: null, cancelError: null, cancelledOnEnd: false },
    });
    const jobs = await t.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', QUEUES.cancelSubscription)
      .execute();
    expect(jobs).toEqual([]);
  });
});
