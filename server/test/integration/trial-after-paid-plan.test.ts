import type { AddressInfo } from 'node:net';
import { startOfUtcDay, utcIsoDate } from '@osint/contract/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { FaceWatchRepository } from '../../src/repositories/face-watch.repository.ts';
import { NO_ACCESS_MESSAGE } from '../../src/services/access.service.ts';
import { createAdmin, createUser, login, mailJobsTo } from '../support/fixtures.ts';
import {
  fsEvents,
  fsId,
  startFastSpringStandIn,
  type FastSpringStandIn,
  type StoreSession,
} from '../support/fastspring-stand-in.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Billing starts after the trial (spec 000 §1): once a paid plan has started, the trial is over. When the
// paid plan ends early while the trial's original seven days still cover today (an admin ends it, or
// FastSpring deactivates the card subscription), the organization has no plan: EXPIRED, "Renew your plan"
// (spec 001 §2, §4), no search, and the expiry notice — not the trial back.

const SECRET = 'trial-after-paid-secret';
const DAY = 86_400_000;
let t: TestApp;
let fs: FastSpringStandIn;
let webhookUrl: string;
let admin: string;

beforeAll(async () => {
  fs = await startFastSpringStandIn({ secret: SECRET });
  const billing = loadConfig({}).billing;
  t = await createTestApp({
    billing: {
      ...billing,
      fastspring: {
        storefront: 'osint.test.onfastspring.com/popup-osint',
        accessKey: 'TESTACCESSKEY',
        scriptUrl: `${fs.url}/sbl/fastspring-builder.js`,
        webhookSecret: SECRET,
        privateKey: undefined,
        acceptTestEvents: true,
        api: undefined,
      },
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  webhookUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/fastspring/webhook`;
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
  await fs?.close();
});

/** An owner approved yesterday: a trial with six of its seven days left. */
async function ownerOnTrial(email: string) {
  const user = await createUser(t, { email });
  await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: 'TRIAL',
      start_date: new Date(Date.now() - DAY),
      end_date: new Date(Date.now() + 6 * DAY),
      seat_limit: 1,
    })
    .execute();
  return { ...user, email, cookie: await login(t, email) };
}

async function get(url: string, cookie: string) {
  const response = await t.request({ method: 'GET', url, cookie });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

function search(cookie: string) {
  return t.request({
    method: 'POST',
    url: '/api/search',
    cookie,
    payload: { faces: ['no-such-face'], type: 'OSINT' },
  });
}

/** Everything that reads the plan in force says "no plan" once the paid plan ended. */
async function expectExpired(owner: { organizationId: number; cookie: string }, paidType: string) {
  const plans = await get('/api/user/organization/all-billing-plans', owner.cookie);
  expect(plans.activeBillingPlan).toBeNull();
  expect(plans.futureBillingPlan).toBeNull();
  expect(plans.expiredBillingPlan).toMatchObject({ planType: paidType });
  expect((await get('/api/user/organization', owner.cookie)).activeBillingPlan).toBeNull();
  expect(await get('/api/user/user-info', owner.cookie)).toMatchObject({
    access: false,
    restricted: true,
    planActive: false,
  });
  const refused = await search(owner.cookie);
  expect(refused.statusCode).toBe(403);
  expect(refused.json()).toMatchObject({ message: NO_ACCESS_MESSAGE });
  expect((await get(`/api/admin/organizations/${owner.organizationId}`, admin)).activePlan).toBeNull();
  const standing = await new FaceWatchRepository(t.db).alertStanding([owner.organizationId], new Date());
  expect(standing.get(owner.organizationId)?.inService).toBe(false);
}

describe('a trial does not come back when the paid plan that followed it ends early', () => {
  it('an admin ends a fixed period during the trial: expired, no search, and no trial mail later', async () => {
    const owner = await ownerOnTrial('owner@ended-after-trial.example.org');
    const paid = await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: owner.organizationId,
        plan_type: 'ONE_TIME_PAYMENT',
        start_date: startOfUtcDay(utcIsoDate()),
        end_date: new Date(Date.now() + 30 * DAY),
        seat_limit: 3,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    expect(
      (await get('/api/user/organization/all-billing-plans', owner.cookie)).activeBillingPlan,
    ).toMatchObject({ planType: 'ONE_TIME_PAYMENT' });
    expect((await search(owner.cookie)).statusCode).toBe(400);

    const ended = await t.request({
      method: 'POST',
      url: `/api/admin/billing-plans/${paid.id}/end`,
      cookie: admin,
      payload: { reason: 'Searches without a case' },
    });
    expect(ended.statusCode, ended.body).toBe(200);
    await expectExpired(owner, 'ONE_TIME_PAYMENT');
    const states = (await get(`/api/admin/organizations/${owner.organizationId}`, admin)).plans.map(
      (plan: { planType: string; state: string }) => [plan.planType, plan.state],
    );
    expect(states).toEqual([
      ['ONE_TIME_PAYMENT', 'ENDED'],
      ['TRIAL', 'SUPERSEDED'],
    ]);

    // The admin's message says why; the sweeps that follow, up to past the trial's original end, add
    // neither an expiry notice for the ended plan nor a "free trial has ended" for the trial it replaced.
    await t.container.services.billing.sweepPlans(new Date());
    await t.container.services.billing.sweepPlans(new Date(Date.now() + 7 * DAY));
    expect((await mailJobsTo(t, owner.email)).map((mail) => mail.subject)).toEqual([
      'Your plan has been ended',
    ]);
  });

  it('FastSpring deactivates the subscription during the trial: expired, no search, the sweep sends the expiry notice once', async () => {
    const owner = await ownerOnTrial('owner@deactivated-after-trial.example.org');
    const session: StoreSession = {
      items: [
        { product: 'osint-license-subscription', quantity: 1, pricing: { price: { USD: 100 } } },
        { product: 'additional-seat', quantity: 1, pricing: { price: { USD: 50 } } },
      ],
      tags: { organizationId: String(owner.organizationId), startDate: utcIsoDate() },
    };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    // Paid a few minutes ago, for a plan starting today.
    const paidAt = Date.now() - 5 * 60_000;
    const dates = { begin: paidAt, next: paidAt + 30 * DAY };
    const delivered = await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids, paidAt),
      fsEvents.subscriptionActivated(session, ids, dates, paidAt),
    ]);
    expect(delivered.status, delivered.body).toBe(200);
    expect(
      (await get('/api/user/organization/all-billing-plans', owner.cookie)).activeBillingPlan,
    ).toMatchObject({ planType: 'SUBSCRIPTION', seatLimit: 2 });

    const deactivated = fsEvents.subscriptionState('subscription.deactivated', session, ids, {
      ...dates,
      deactivation: Date.now(),
    });
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    await expectExpired(owner, 'SUBSCRIPTION');

    const billing = t.container.services.billing;
    await billing.sweepPlans(new Date(Date.now() + 60_000));
    await billing.sweepPlans(new Date(Date.now() + 7 * DAY));
    expect((await mailJobsTo(t, owner.email)).map((mail) => mail.subject)).toEqual([
      'Your subscription has expired',
    ]);
  });
});
