import type { AdminOrganizationDetail } from '@osint/contract/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { createAdmin, createUser, withJobsRefused } from '../support/fixtures.ts';
import { startFastSpringStandIn, type FastSpringStandIn } from '../support/fastspring-stand-in.ts';
import { until } from '../support/row-locks.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// An admin who ends a plan paid by a card subscription stops the card being charged: the subscription is
// cancelled at FastSpring through its server API (a local stand-in speaking the documented protocol:
// DELETE /subscriptions/{id}?billingPeriod=0, HTTP Basic), by a job committed with the plan's end, retried
// while FastSpring cannot be reached, and recorded on the plan and in the audit log.

const DAY = 86_400_000;
const API = { username: 'api-user', password: 'api-secret' };
let fs: FastSpringStandIn;
let t: TestApp;
let admin: string;

beforeAll(async () => {
  fs = await startFastSpringStandIn({ secret: 'webhook-secret', api: API });
  const billing = loadConfig({}).billing;
  t = await createTestApp({
    billing: { ...billing, fastspring: { ...billing.fastspring, api: { url: fs.url, ...API } } },
    jobRetryBaseMs: 50,
  });
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
  await fs?.close();
});

/** An organization whose monthly plan is paid by the card subscription `subscriptionId`. */
async function subscriber(email: string, subscriptionId: string) {
  const user = await createUser(t, { email });
  const plan = await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(Date.now() - DAY),
      end_date: new Date(Date.now() + 29 * DAY),
      seat_limit: 3,
      fastspring_subscription_id: subscriptionId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { organizationId: user.organizationId, planId: plan.id };
}

const endPlan = (planId: number, reason = 'Payment disputed by the card holder') =>
  t.request({
    method: 'POST',
    url: `/api/admin/billing-plans/${planId}/end`,
    cookie: admin,
    payload: { reason },
  });

async function planOnAdminPage(organizationId: number, planId: number) {
  const response = await t.request({
    method: 'GET',
    url: `/api/admin/organizations/${organizationId}`,
    cookie: admin,
  });
  return response.json<AdminOrganizationDetail>().plans.find((p) => p.id === planId)!;
}

/** Waits until the admin page shows the plan as `done` says. */
async function planWhen(
  org: { organizationId: number; planId: number },
  what: string,
  done: (p: Plan) => boolean,
) {
  let plan: Plan | undefined;
  await until(what, async () => done((plan = await planOnAdminPage(org.organizationId, org.planId))));
  return plan!;
}

type Plan = AdminOrganizationDetail['plans'][number];

const cancelJobOf = (planId: number) =>
  t.db
    .selectFrom('jobs')
    .select(['status', 'attempts'])
    .where('queue', '=', QUEUES.cancelSubscription)
    .where('unique_key', '=', `subscription-cancel:${planId}`)
    .executeTakeFirstOrThrow();

const auditOf = (planId: number) =>
  t.db
    .selectFrom('audit_log')
    .select(['action', 'detail', 'actor_user_id'])
    .where('target', '=', `billing_plan:${planId}`)
    .where('action', 'like', 'billing.subscription%')
    .execute();

const jobDone = (planId: number) =>
  until('the cancellation job to finish', async () => (await cancelJobOf(planId)).status === 'DONE');

describe('ending a plan paid by a card subscription', () => {
  it('cancels the subscription at FastSpring at once, and the admin page shows it', async () => {
    const org = await subscriber('owner@card-ended.example.org', 'SUB-ENDED-1');
    fs.subscriptions.set('SUB-ENDED-1', 'active');
    const before = await planOnAdminPage(org.organizationId, org.planId);
    expect(before.cardSubscription).toEqual({
      id: 'SUB-ENDED-1',
      cancelRequestedAt: null,
      cancelledAt: null,
      cancelError: null,
      cancelledOnEnd: true,
    });

    const response = await endPlan(org.planId);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<Plan>().cardSubscription?.cancelRequestedAt).not.toBeNull();
    const plan = await planWhen(org, 'the cancellation', (p) => p.cardSubscription?.cancelledAt !== null);
    expect(plan).toMatchObject({
      state: 'ENDED',
      cardSubscription: { id: 'SUB-ENDED-1', cancelError: null },
    });
    expect(fs.subscriptions.get('SUB-ENDED-1')).toBe('deactivated');
    expect(fs.cancelRequests.filter((r) => r.id === 'SUB-ENDED-1')).toEqual([
      { id: 'SUB-ENDED-1', billingPeriod: '0', authorized: true, userAgent: expect.stringMatching(/\S/) },
    ]);
    await jobDone(org.planId);
    expect(await auditOf(org.planId)).toEqual([
      {
        action: 'billing.subscription_cancelled',
        actor_user_id: null,
        detail: { subscriptionId: 'SUB-ENDED-1' },
      },
    ]);
  });

  it('tries again while FastSpring cannot be reached, showing why meanwhile', async () => {
    const org = await subscriber('owner@card-outage.example.org', 'SUB-OUTAGE-1');
    fs.subscriptions.set('SUB-OUTAGE-1', 'active');
    fs.failNextApiCalls.push(503, 503);
    expect((await endPlan(org.planId)).statusCode).toBe(200);

    const failing = await planWhen(org, 'the first failure', (p) => p.cardSubscription?.cancelError !== null);
    expect(failing.cardSubscription?.cancelError).toMatch(/HTTP 503/);
    const plan = await planWhen(org, 'the cancellation', (p) => p.cardSubscription?.cancelledAt !== null);
    expect(plan.cardSubscription?.cancelError).toBeNull();
    expect(fs.cancelRequests.filter((r) => r.id === 'SUB-OUTAGE-1')).toHaveLength(3);
    expect(fs.subscriptions.get('SUB-OUTAGE-1')).toBe('deactivated');
  });

  it('a refusal is shown and tried again, not given up after one answer', async () => {
    const org = await subscriber('owner@card-unknown.example.org', 'SUB-UNKNOWN-1'); // FastSpring does not know it
    expect((await endPlan(org.planId)).statusCode).toBe(200);

    const plan = await planWhen(org, 'the refusal', (p) => p.cardSubscription?.cancelError !== null);
    expect(plan.cardSubscription).toMatchObject({ cancelledAt: null });
    expect(plan.cardSubscription?.cancelError).toContain('Subscription not found');
    await until('a second attempt', async () => (await cancelJobOf(org.planId)).attempts >= 2);
    expect((await cancelJobOf(org.planId)).status).not.toBe('DONE');
    expect(await auditOf(org.planId)).toEqual([]);
  });

  it('a subscription FastSpring already deactivated counts as cancelled (an answer lost on the way)', async () => {
    const org = await subscriber('owner@card-lost-answer.example.org', 'SUB-LOST-1');
    fs.subscriptions.set('SUB-LOST-1', 'deactivated');
    expect((await endPlan(org.planId)).statusCode).toBe(200);
    const plan = await planWhen(org, 'the cancellation', (p) => p.cardSubscription?.cancelledAt !== null);
    expect(plan.cardSubscription?.cancelError).toBeNull();
    await jobDone(org.planId);
    expect(await cancelJobOf(org.planId)).toEqual({ status: 'DONE', attempts: 1 });
  });

  it('does not end the plan when its cancellation cannot be queued', async () => {
    const org = await subscriber('owner@card-noqueue.example.org', 'SUB-NOQUEUE-1');
    fs.subscriptions.set('SUB-NOQUEUE-1', 'active');
    const response = await withJobsRefused(t, QUEUES.cancelSubscription, () => endPlan(org.planId));
    expect(response.statusCode).toBe(500);
    expect(await planOnAdminPage(org.organizationId, org.planId)).toMatchObject({
      state: 'ACTIVE',
      endedEarly: null,
      cardSubscription: { cancelRequestedAt: null },
    });
    expect(fs.cancelRequests.filter((r) => r.id === 'SUB-NOQUEUE-1')).toHaveLength(0);
    // Once the queue takes jobs again the end goes through, cancellation included.
    expect((await endPlan(org.planId)).statusCode).toBe(200);
    await planWhen(org, 'the cancellation', (p) => p.cardSubscription?.cancelledAt !== null);
  });
});
