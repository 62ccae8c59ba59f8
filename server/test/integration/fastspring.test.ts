import type { AdminOrganizationDetail } from '@osint/contract/admin';
import type { AddressInfo } from 'node:net';
import { addDays, addMonths, startOfUtcDay, utcIsoDate } from '@osint/contract/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonthsToInstant } from '../../src/billing/plan-dates.ts';
import { loadConfig } from '../../src/config.ts';
import { NO_ACCESS_MESSAGE } from '../../src/services/access.service.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import {
  fsEvents,
  fsId,
  newKeyPair,
  startFastSpringStandIn,
  type FastSpringStandIn,
  type StoreSession,
} from '../support/fastspring-stand-in.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Card checkout against a local server that plays FastSpring: Store Builder sessions encrypted with the
// store's private key and decrypted by the stand-in with the public key; webhooks signed with the shared
// secret and delivered over HTTP to the running product, valid, tampered, replayed, concurrent and out of
// order.

const SECRET = 'fs-webhook-secret-for-tests';
const DAY = 86_400_000;
const keys = newKeyPair();
let t: TestApp;
let fs: FastSpringStandIn;
let webhookUrl: string;
let admin: string;

interface Owner {
  cookie: string;
  organizationId: number;
}

async function trialOwner(email: string): Promise<Owner> {
  const user = await createUser(t, { email });
  const now = Date.now();
  await t.db
    .insertInto('billing_plans')
    .values({
      organization_id: user.organizationId,
      plan_type: 'TRIAL',
      start_date: new Date(now - DAY),
      end_date: new Date(now + 6 * DAY),
      seat_limit: 1,
    })
    .execute();
  return { cookie: await login(t, email), organizationId: user.organizationId };
}

async function createSession(owner: Owner, body: Record<string, unknown>) {
  return t.request({
    method: 'POST',
    url: '/api/fastspring/create-session',
    cookie: owner.cookie,
    payload: { organizationId: owner.organizationId, ...body },
  });
}

/** What the pricing page sends for a selection, turned into the session FastSpring would decrypt. */
async function checkout(
  owner: Owner,
  kind: 'FIXED' | 'MONTHLY',
  users: number,
  months = 1,
): Promise<StoreSession> {
  const productSelections = [
    {
      productId: kind === 'FIXED' ? 'osint-license' : 'osint-license-subscription',
      quantity: kind === 'FIXED' ? months : 1,
    },
    ...(users > 1 ? [{ productId: 'additional-seat', quantity: users - 1 }] : []),
  ];
  const response = await createSession(owner, { startDate: utcIsoDate(), productSelections });
  expect(response.statusCode, response.body).toBe(200);
  const { payload, key } = response.json<{ payload: string; key: string }>();
  return fs.accept(payload, key);
}

async function plans(owner: Owner) {
  const response = await t.request({
    method: 'GET',
    url: '/api/user/organization/all-billing-plans',
    cookie: owner.cookie,
  });
  expect(response.statusCode).toBe(200);
  return response.json<{
    activeBillingPlan: { planType: string; seatLimit: number; startDate: string; endDate: string } | null;
    expiredBillingPlan: { planType: string } | null;
    futureBillingPlan: { id: number } | null;
  }>();
}

async function planRows(organizationId: number) {
  return t.db
    .selectFrom('billing_plans')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('plan_type', '!=', 'TRIAL')
    .execute();
}

/** The session of a one-user monthly subscription chosen to start on `startDay` (an ISO date). */
async function monthlyStartingOn(owner: Owner, startDay: string): Promise<StoreSession> {
  const response = await createSession(owner, {
    startDate: startDay,
    productSelections: [{ productId: 'osint-license-subscription', quantity: 1 }],
  });
  expect(response.statusCode, response.body).toBe(200);
  const { payload, key } = response.json<{ payload: string; key: string }>();
  return fs.accept(payload, key);
}

type SubscriptionIds = { orderId: string; subscriptionId: string };

/** `months` calendar months after `begin` (ms), as FastSpring's next charge dates fall. */
const monthsAfter = (begin: number, months: number) => addMonthsToInstant(new Date(begin), months).getTime();

/** The subscription's payment and activation, both at `begin`: paid through one month. */
async function subscribedAt(session: StoreSession, ids: SubscriptionIds, begin: number) {
  const paid = await fs.deliver(webhookUrl, [
    fsEvents.orderCompleted(session, ids, begin),
    fsEvents.subscriptionActivated(session, ids, { begin, next: monthsAfter(begin, 1) }, begin),
  ]);
  expect(paid.status).toBe(200);
}

/** The renewal charged `month` months after `begin`, paying through the month after. */
function renewalAt(session: StoreSession, ids: SubscriptionIds, begin: number, month: number) {
  return fsEvents.chargeCompleted(
    session,
    { ...ids, chargeOrderId: fsId('ord') },
    { begin, next: monthsAfter(begin, month + 1) },
    monthsAfter(begin, month),
  );
}

/** The search API refuses before it looks at the face: 400 for a made-up face with access, 403 without. */
function search(cookie: string) {
  return t.request({
    method: 'POST',
    url: '/api/search',
    cookie,
    payload: { faces: ['no-such-face'], type: 'OSINT' },
  });
}

async function paymentCount(eventId: string) {
  const rows = await t.db.selectFrom('payments').select('id').where('event_id', '=', eventId).execute();
  return rows.length;
}

beforeAll(async () => {
  fs = await startFastSpringStandIn({ publicKey: keys.publicKey, secret: SECRET });
  const billing = loadConfig({}).billing;
  t = await createTestApp({
    billing: {
      ...billing,
      fastspring: {
        storefront: 'osint.test.onfastspring.com/popup-osint',
        accessKey: 'TESTACCESSKEY',
        scriptUrl: `${fs.url}/sbl/fastspring-builder.js`,
        webhookSecret: SECRET,
        privateKey: keys.privateKey,
        // The stand-in sends test-mode events ("live": false), as a test storefront does.
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

describe('Store Builder session', () => {
  it('is a secure payload that the public key decrypts to the selection, priced by the pricing module', async () => {
    const owner = await trialOwner('owner@session.example.org');
    const response = await createSession(owner, {
      startDate: utcIsoDate(),
      productSelections: [
        { productId: 'osint-license', quantity: 3 },
        { productId: 'additional-seat', quantity: 3 },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { payload, key } = response.json<{ payload: string; key: string }>();
    // Not readable without the key: base64 of AES ciphertext, and an RSA block (2048-bit key: 256 bytes).
    expect(payload).not.toContain('osint-license');
    expect(Buffer.from(key, 'base64')).toHaveLength(256);
    const session = fs.accept(payload, key);
    expect(session).toEqual({
      items: [
        { product: 'osint-license', quantity: 3, pricing: { price: { USD: 100 } } },
        { product: 'additional-seat', quantity: 3, pricing: { price: { USD: 150 } } },
      ],
      tags: { organizationId: String(owner.organizationId), startDate: utcIsoDate() },
    });
    const total = session.items.reduce((sum, item) => sum + item.quantity * item.pricing!.price!.USD!, 0);
    expect(total).toBe(750);
    // A fresh random AES key every time.
    const again = (
      await createSession(owner, {
        startDate: utcIsoDate(),
        productSelections: [
          { productId: 'osint-license', quantity: 3 },
          { productId: 'additional-seat', quantity: 3 },
        ],
      })
    ).json<{ key: string }>();
    expect(again.key).not.toBe(key);
  });

  it('is plain JSON when no private key is configured', async () => {
    const owner = await trialOwner('owner@plain.example.org');
    const saved = t.config.billing.fastspring.privateKey;
    t.config.billing.fastspring.privateKey = undefined;
    try {
      const response = await createSession(owner, {
        startDate: utcIsoDate(),
        productSelections: [{ productId: 'osint-license-subscription', quantity: 1 }],
      });
      expect(response.statusCode).toBe(200);
      const { payload, key } = response.json<{ payload: string; key: string }>();
      expect(key).toBe('');
      expect(JSON.parse(payload)).toEqual({
        items: [{ product: 'osint-license-subscription', quantity: 1, pricing: { price: { USD: 100 } } }],
        tags: { organizationId: String(owner.organizationId), startDate: utcIsoDate() },
      });
    } finally {
      t.config.billing.fastspring.privateKey = saved;
    }
  });

  it('refuses other organizations, non-owners, past dates and malformed selections', async () => {
    const owner = await trialOwner('owner@refusals.example.org');
    const other = await trialOwner('owner@other-refusals.example.org');
    const licence = [{ productId: 'osint-license', quantity: 1 }];
    const foreign = await t.request({
      method: 'POST',
      url: '/api/fastspring/create-session',
      cookie: owner.cookie,
      payload: { organizationId: other.organizationId, startDate: utcIsoDate(), productSelections: licence },
    });
    expect(foreign.statusCode).toBe(404);

    await createUser(t, {
      email: 'analyst@refusals.example.org',
      role: 'USER',
      organizationId: owner.organizationId,
    });
    const analyst = {
      cookie: await login(t, 'analyst@refusals.example.org'),
      organizationId: owner.organizationId,
    };
    expect(
      (await createSession(analyst, { startDate: utcIsoDate(), productSelections: licence })).statusCode,
    ).toBe(403);

    const past = await createSession(owner, { startDate: '2020-01-01', productSelections: licence });
    expect(past.statusCode).toBe(400);
    expect(past.json().violations).toEqual([
      { field: 'startDate', message: 'The start date cannot be in the past.' },
    ]);

    for (const productSelections of [
      [{ productId: 'additional-seat', quantity: 2 }],
      [...licence, { productId: 'osint-license-subscription', quantity: 1 }],
      [{ productId: 'osint-license', quantity: 13 }],
      [{ productId: 'osint-license-subscription', quantity: 2 }],
      [...licence, { productId: 'additional-seat', quantity: 0 }],
      [...licence, { productId: 'free-seat', quantity: 1 }],
    ]) {
      const response = await createSession(owner, { startDate: utcIsoDate(), productSelections });
      expect(response.statusCode, JSON.stringify(productSelections)).toBe(400);
    }
  });
});

describe('webhook signature', () => {
  it('accepts a correctly signed call and refuses tampered, unsigned and wrongly signed ones with 401', async () => {
    const owner = await trialOwner('owner@signature.example.org');
    const session = await checkout(owner, 'FIXED', 2, 1);
    const orderId = fsId('ord');

    const tampered = fsEvents.orderCompleted(session, { orderId });
    const forged = await fs.deliver(webhookUrl, [tampered], {
      tamper: (body) => body.replace('"quantity":1', '"quantity":12'),
    });
    expect(forged.status).toBe(401);
    const unsigned = await fs.deliver(webhookUrl, [tampered], { signature: null });
    expect(unsigned.status).toBe(401);
    const wrongSecret = await fs.deliver(webhookUrl, [tampered], { secret: 'not-the-secret' });
    expect(wrongSecret.status).toBe(401);
    const garbage = await fs.deliver(webhookUrl, [tampered], { signature: 'AAAA' });
    expect(garbage.status).toBe(401);
    expect(await paymentCount(tampered.id)).toBe(0);
    expect(await planRows(owner.organizationId)).toHaveLength(0);

    const valid = await fs.deliver(webhookUrl, [tampered]);
    expect(valid.status).toBe(200);
    expect(valid.body).toBe(tampered.id);
    expect(await paymentCount(tampered.id)).toBe(1);
  });

  it('needs no Origin header (FastSpring sends none) and answers 400 to a signed body of the wrong shape', async () => {
    const { webhookSignature } = await import('../../src/billing/fastspring-crypto.ts');
    const body = JSON.stringify({ notEvents: true });
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fs-signature': webhookSignature(body, SECRET) },
      body,
    });
    expect(response.status).toBe(400);
  });
});

describe('fixed period paid by card', () => {
  it('order.completed creates the ONE_TIME_PAYMENT plan with the purchased seats and months, once', async () => {
    const owner = await trialOwner('owner@fixed-card.example.org');
    const session = await checkout(owner, 'FIXED', 4, 3);
    const orderId = fsId('ord');
    const completed = fsEvents.orderCompleted(session, { orderId });

    const first = await fs.deliver(webhookUrl, [completed]);
    expect(first.status).toBe(200);
    const active = (await plans(owner)).activeBillingPlan!;
    expect(active).toMatchObject({ planType: 'ONE_TIME_PAYMENT', seatLimit: 4 });
    expect(active.startDate.slice(0, 10)).toBe(utcIsoDate());
    expect(active.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 3));

    // The same event again (FastSpring retries until it sees a 2xx), and the same order in a new event.
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [fsEvents.orderCompleted(session, { orderId })])).status).toBe(200);
    expect(await planRows(owner.organizationId)).toHaveLength(1);
    expect(await paymentCount(completed.id)).toBe(1);

    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: owner.cookie,
    });
    expect(orders.json()).toEqual([
      expect.objectContaining({
        orderStatus: 'COMPLETED',
        paymentMethod: 'CARD',
        amount: 750,
        seatLimit: 4,
        months: 3,
      }),
    ]);
  });

  it('12 months are 20 % cheaper: the session charges the discounted price and the payment check agrees', async () => {
    const owner = await trialOwner('owner@annual-card.example.org');
    const session = await checkout(owner, 'FIXED', 2, 12);
    // 12 × 100 + 12 × 50 = 1,800, 20 % off: 1,440 — 80 USD a month and 480 USD for the additional seat.
    expect(session.items).toEqual([
      { product: 'osint-license', quantity: 12, pricing: { price: { USD: 80 } } },
      { product: 'additional-seat', quantity: 1, pricing: { price: { USD: 480 } } },
    ]);
    const completed = fsEvents.orderCompleted(session, { orderId: fsId('ord') });
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    expect((await plans(owner)).activeBillingPlan).toMatchObject({
      planType: 'ONE_TIME_PAYMENT',
      seatLimit: 2,
    });
    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: owner.cookie,
    });
    expect(orders.json()).toEqual([
      expect.objectContaining({ orderStatus: 'COMPLETED', amount: 1440, discount: 360, months: 12 }),
    ]);
  });

  it('concurrent deliveries of one event create one payment record and one plan', async () => {
    const owner = await trialOwner('owner@concurrent.example.org');
    const session = await checkout(owner, 'FIXED', 3, 2);
    const completed = fsEvents.orderCompleted(session, { orderId: fsId('ord') });
    const answers = await Promise.all(Array.from({ length: 6 }, () => fs.deliver(webhookUrl, [completed])));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await paymentCount(completed.id)).toBe(1);
    const rows = await planRows(owner.organizationId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.seat_limit).toBe(3);
  });

  it('ignores, but records, an order that names no known organization', async () => {
    const session: StoreSession = {
      items: [{ product: 'osint-license', quantity: 1, pricing: { price: { USD: 100 } } }],
      tags: { organizationId: '99999999', startDate: utcIsoDate() },
    };
    const completed = fsEvents.orderCompleted(session, { orderId: fsId('ord') });
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    const row = await t.db
      .selectFrom('payments')
      .selectAll()
      .where('event_id', '=', completed.id)
      .executeTakeFirstOrThrow();
    expect(row.outcome).toBe('IGNORED');
  });
});

describe('monthly subscription', () => {
  it('activation starts the plan, each charge adds a month once, deactivation ends it', async () => {
    const owner = await trialOwner('owner@monthly.example.org');
    const session = await checkout(owner, 'MONTHLY', 3);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    // Paid two days ago for a plan starting today (the chosen start date).
    const now = Date.now() - 2 * DAY;
    const firstNext = Date.parse(`${addMonths(utcIsoDate(), 1)}T23:59:59Z`);

    expect((await fs.deliver(webhookUrl, [fsEvents.orderCompleted(session, ids, now)])).status).toBe(200);
    const activated = fsEvents.subscriptionActivated(session, ids, { begin: now, next: firstNext }, now);
    expect((await fs.deliver(webhookUrl, [activated])).status).toBe(200);
    let plan = (await plans(owner)).activeBillingPlan!;
    expect(plan).toMatchObject({ planType: 'SUBSCRIPTION', seatLimit: 3 });
    expect(Date.parse(plan.endDate)).toBe(firstNext);

    const chargeIds = { ...ids, chargeOrderId: fsId('ord') };
    const secondNext = Date.parse(`${addMonths(utcIsoDate(), 2)}T23:59:59Z`);
    const charge = fsEvents.chargeCompleted(session, chargeIds, { begin: now, next: secondNext });
    expect((await fs.deliver(webhookUrl, [charge])).status).toBe(200);
    // A replay, and the same charge order under a new event id, add nothing.
    expect((await fs.deliver(webhookUrl, [charge])).status).toBe(200);
    expect(
      (
        await fs.deliver(webhookUrl, [
          fsEvents.chargeCompleted(session, chargeIds, { begin: now, next: secondNext }),
        ])
      ).status,
    ).toBe(200);
    plan = (await plans(owner)).activeBillingPlan!;
    expect(plan.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 2));
    expect(await planRows(owner.organizationId)).toHaveLength(1);

    const canceled = fsEvents.subscriptionState('subscription.canceled', session, ids, {
      begin: now,
      next: secondNext,
    });
    expect((await fs.deliver(webhookUrl, [canceled])).status).toBe(200);
    expect((await plans(owner)).activeBillingPlan?.planType).toBe('SUBSCRIPTION');
    const subscription = await t.db
      .selectFrom('fastspring_subscriptions')
      .selectAll()
      .where('id', '=', ids.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.state).toBe('CANCELED');

    const deactivated = fsEvents.subscriptionState('subscription.deactivated', session, ids, {
      begin: now,
      next: secondNext,
      deactivation: Date.now(),
    });
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    const after = await plans(owner);
    // The trial's days are not left over: billing started after it, so nothing remains in force.
    expect(after.activeBillingPlan).toBeNull();
    expect(after.expiredBillingPlan?.planType).toBe('SUBSCRIPTION');

    // A late charge after deactivation extends nothing.
    const late = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin: now, next: secondNext },
    );
    expect((await fs.deliver(webhookUrl, [late])).status).toBe(200);
    expect((await plans(owner)).activeBillingPlan).toBeNull();
  });

  it('a subscription deactivated before its chosen start never runs: no access, no notice, no plan to come', async () => {
    const owner = await trialOwner('owner@deactivated-early.example.org');
    const startDay = addDays(utcIsoDate(), 5);
    const session = await monthlyStartingOn(owner, startDay);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const begin = Date.now();
    await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids, begin),
      fsEvents.subscriptionActivated(session, ids, { begin, next: begin + 35 * DAY }, begin),
    ]);
    const [planned] = await planRows(owner.organizationId);
    expect(planned).toMatchObject({ plan_type: 'SUBSCRIPTION' });
    expect(utcIsoDate(planned!.start_date)).toBe(startDay);
    expect((await plans(owner)).futureBillingPlan?.id).toBe(planned!.id);

    const deactivated = fsEvents.subscriptionState('subscription.deactivated', session, ids, {
      begin,
      next: begin + 35 * DAY,
      deactivation: Date.now(),
    });
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    const [ended] = await planRows(owner.organizationId);
    expect(ended!.end_date.getTime()).toBe(ended!.start_date.getTime());
    expect((await plans(owner)).futureBillingPlan).toBeNull();
    // Nor is it the last plan that expired once its start has passed (the trial still runs then).
    const lastExpired = await t.container.repositories.plans.findLastExpired(
      owner.organizationId,
      new Date(ended!.start_date.getTime() + 60_000),
    );
    expect(lastExpired).toBeUndefined();

    // On its start day it gives no access and is neither announced nor said to have expired.
    await t.container.services.billing.sweepPlans(new Date(ended!.start_date.getTime() + 60_000));
    const [swept] = await planRows(owner.organizationId);
    expect(swept).toMatchObject({ activation_notified_at: null, expiry_notified_at: null });
    const subjects = (
      await t.db.selectFrom('jobs').select('payload').where('queue', '=', 'mail.send').execute()
    )
      .map(
        (m) =>
          (typeof m.payload === 'string' ? JSON.parse(m.payload) : m.payload) as {
            to: string;
            subject: string;
          },
      )
      .filter((m) => m.to === 'owner@deactivated-early.example.org')
      .map((m) => m.subject);
    expect(subjects).not.toContain('Your subscription has expired');
    expect(subjects).not.toContain('Your Monthly Subscription plan is active');
  });

  it('a subscription starting after its first charge, cancelled to end with its paid period, keeps every paid month', async () => {
    const owner = await trialOwner('owner@later-start-cancelled.example.org');
    // Bought today for a start 40 days ahead: FastSpring charges the first month now, and its own period
    // (to its next charge date) ends before the plan has even started.
    const startDay = addDays(utcIsoDate(), 40);
    const session = await monthlyStartingOn(owner, startDay);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const begin = Date.now();
    const next = monthsAfter(begin, 1);
    await subscribedAt(session, ids, begin);
    const [planned] = await planRows(owner.organizationId);
    expect(utcIsoDate(planned!.start_date)).toBe(startDay);
    const paidEnd = planned!.end_date.getTime();
    expect(paidEnd).toBe(startOfUtcDay(addMonths(startDay, 1)).getTime());

    // The owner cancels; FastSpring deactivates the subscription at the end of the period it was paid
    // for, its next charge date, which is before the plan's start.
    const canceled = fsEvents.subscriptionState(
      'subscription.canceled',
      session,
      ids,
      { begin, next },
      begin + DAY,
    );
    const deactivated = fsEvents.subscriptionState(
      'subscription.deactivated',
      session,
      ids,
      { begin, next, deactivation: next },
      next,
    );
    expect((await fs.deliver(webhookUrl, [canceled])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    const [kept] = await planRows(owner.organizationId);
    expect(kept!.start_date.getTime()).toBe(planned!.start_date.getTime());
    expect(kept!.end_date.getTime()).toBe(paidEnd);
    expect((await plans(owner)).futureBillingPlan?.id).toBe(planned!.id);
  });

  it('a renewal charged before the deactivation counts even when its event arrives after it', async () => {
    const owner = await trialOwner('owner@late-renewal.example.org');
    const begin = Date.now() - 70 * DAY;
    const checkedOut = await checkout(owner, 'MONTHLY', 1);
    const session = { ...checkedOut, tags: { ...checkedOut.tags, startDate: utcIsoDate(new Date(begin)) } };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const next1 = addMonthsToInstant(new Date(begin), 1).getTime();
    const next2 = addMonthsToInstant(new Date(begin), 2).getTime();
    const next3 = addMonthsToInstant(new Date(begin), 3).getTime();
    await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids, begin),
      fsEvents.subscriptionActivated(session, ids, { begin, next: next1 }, begin),
    ]);
    // Renewed at next1 (paid until next2), cancelled, deactivated at next2; the renewal's delivery failed
    // and FastSpring's retry arrives after the deactivation.
    const renewal = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin, next: next2 },
      next1,
    );
    const deactivated = fsEvents.subscriptionState(
      'subscription.deactivated',
      session,
      ids,
      { begin, next: next2, deactivation: next2 },
      next2,
    );
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    const answer = await fs.deliver(webhookUrl, [renewal]);
    expect(answer.status).toBe(200);
    const [plan] = await planRows(owner.organizationId);
    expect(plan!.end_date.getTime()).toBe(next2);
    const recorded = await t.db
      .selectFrom('payments')
      .select(['outcome', 'order_id'])
      .where('event_id', '=', renewal.id)
      .executeTakeFirstOrThrow();
    expect(recorded.outcome).toBe('PROCESSED');
    expect(recorded.order_id).not.toBeNull();

    // A charge dated after the deactivation pays for nothing the subscription still grants: it is left
    // for an admin to review, and the plan keeps its end.
    const after = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin, next: next3 },
      next2 + DAY,
    );
    expect((await fs.deliver(webhookUrl, [after])).status).toBe(200);
    const review = await t.db
      .selectFrom('payments')
      .select('outcome')
      .where('event_id', '=', after.id)
      .executeTakeFirstOrThrow();
    expect(review.outcome).toBe('FAILED');
    expect((await planRows(owner.organizationId))[0]!.end_date.getTime()).toBe(next2);
  });

  it('a renewal arriving after an immediate deactivation counts only up to the deactivation', async () => {
    const owner = await trialOwner('owner@late-renewal-deactivated-now.example.org');
    const begin = Date.now() - 40 * DAY;
    const checkedOut = await checkout(owner, 'MONTHLY', 1);
    const session = { ...checkedOut, tags: { ...checkedOut.tags, startDate: utcIsoDate(new Date(begin)) } };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const next1 = addMonthsToInstant(new Date(begin), 1).getTime();
    const next2 = addMonthsToInstant(new Date(begin), 2).getTime();
    await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids, begin),
      fsEvents.subscriptionActivated(session, ids, { begin, next: next1 }, begin),
    ]);
    // Renewed at next1, then deactivated at once ("Deactivate Now") two days later; the renewal's
    // delivery comes after the deactivation.
    const deactivation = next1 + 2 * DAY;
    const deactivated = fsEvents.subscriptionState(
      'subscription.deactivated',
      session,
      ids,
      { begin, next: next2, deactivation },
      deactivation,
    );
    const renewal = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin, next: next2 },
      next1,
    );
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [renewal])).status).toBe(200);
    const [plan] = await planRows(owner.organizationId);
    expect(plan!.end_date.getTime()).toBe(deactivation);
  });

  it('renewals delivered out of order add one month each: the plan ends where FastSpring was paid to', async () => {
    const owner = await trialOwner('owner@renewals-reversed.example.org');
    const begin = Date.now() - 65 * DAY;
    const checkedOut = await checkout(owner, 'MONTHLY', 1);
    const session = { ...checkedOut, tags: { ...checkedOut.tags, startDate: utcIsoDate(new Date(begin)) } };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    await subscribedAt(session, ids, begin);
    const second = renewalAt(session, ids, begin, 1);
    const third = renewalAt(session, ids, begin, 2);
    expect((await fs.deliver(webhookUrl, [third])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [second])).status).toBe(200);
    const [plan] = await planRows(owner.organizationId);
    expect(plan!.end_date.getTime()).toBe(monthsAfter(begin, 3));
    // Two renewals, two paid orders.
    const orders = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .execute();
    expect(orders).toHaveLength(3);
  });

  it('a renewal delivered after a later one does not set the seats back to its own', async () => {
    const owner = await trialOwner('owner@seats-reversed.example.org');
    const begin = Date.now() - 65 * DAY;
    // The subscription was bought for 3 users and raised to 5 before its third month.
    const three = await checkout(owner, 'MONTHLY', 3);
    const five = await checkout(owner, 'MONTHLY', 5);
    const startDate = utcIsoDate(new Date(begin));
    const session3 = { ...three, tags: { ...three.tags, startDate } };
    const session5 = { ...five, tags: { ...five.tags, startDate } };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    await subscribedAt(session3, ids, begin);
    const second = renewalAt(session3, ids, begin, 1);
    const third = renewalAt(session5, ids, begin, 2);
    expect((await fs.deliver(webhookUrl, [third])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [second])).status).toBe(200);
    const [plan] = await planRows(owner.organizationId);
    expect(plan).toMatchObject({ seat_limit: 5 });
    expect(plan!.end_date.getTime()).toBe(monthsAfter(begin, 3));
  });

  it("a later event tagged with another organization still belongs to the subscription's own: tags never move a plan", async () => {
    const owner = await trialOwner('owner@tagged.example.org');
    const other = await trialOwner('owner@tag-thief.example.org');
    const session = await checkout(owner, 'MONTHLY', 2);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const now = Date.now() - DAY;
    const firstNext = Date.parse(`${addMonths(utcIsoDate(), 1)}T23:59:59Z`);
    expect((await fs.deliver(webhookUrl, [fsEvents.orderCompleted(session, ids, now)])).status).toBe(200);
    const activated = fsEvents.subscriptionActivated(session, ids, { begin: now, next: firstNext }, now);
    expect((await fs.deliver(webhookUrl, [activated])).status).toBe(200);

    // The same subscription's renewal, its tags naming the other organization.
    const retagged = { ...session, tags: { ...session.tags, organizationId: String(other.organizationId) } };
    const secondNext = Date.parse(`${addMonths(utcIsoDate(), 2)}T23:59:59Z`);
    const charge = fsEvents.chargeCompleted(
      retagged,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin: now, next: secondNext },
    );
    expect((await fs.deliver(webhookUrl, [charge])).status).toBe(200);
    expect((await plans(owner)).activeBillingPlan!.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 2));
    expect(await planRows(other.organizationId)).toHaveLength(0);
    const orders = await t.db
      .selectFrom('orders')
      .select('organization_id')
      .where('organization_id', 'in', [owner.organizationId, other.organizationId])
      .execute();
    expect(orders.map((o) => o.organization_id)).not.toContain(other.organizationId);
    const recorded = await t.db
      .selectFrom('payments')
      .select(['organization_id', 'outcome'])
      .where('event_id', '=', charge.id)
      .executeTakeFirstOrThrow();
    expect(recorded).toEqual({ organization_id: owner.organizationId, outcome: 'PROCESSED' });
  });

  it('payment overdue keeps the paid period and tells the owner', async () => {
    const owner = await trialOwner('owner@overdue.example.org');
    const session = await checkout(owner, 'MONTHLY', 1);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const next = Date.now() + 30 * DAY;
    await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids),
      fsEvents.subscriptionActivated(session, ids, { begin: Date.now(), next }),
    ]);
    const overdue = fsEvents.subscriptionState('subscription.payment.overdue', session, ids, {
      begin: Date.now(),
      next,
    });
    expect((await fs.deliver(webhookUrl, [overdue])).status).toBe(200);
    expect((await plans(owner)).activeBillingPlan).toMatchObject({ planType: 'SUBSCRIPTION', seatLimit: 1 });
    const mails = await t.db.selectFrom('jobs').select('payload').where('queue', '=', 'mail.send').execute();
    const subjects = mails
      .map(
        (m) =>
          (typeof m.payload === 'string' ? JSON.parse(m.payload) : m.payload) as {
            to: string;
            subject: string;
          },
      )
      .filter((m) => m.to === 'owner@overdue.example.org')
      .map((m) => m.subject);
    expect(subjects).toContain('Your subscription payment is overdue');
  });

  it('out of order: a deactivation that arrives before the activation and the order caps the plan; a stale cancel changes nothing', async () => {
    const owner = await trialOwner('owner@out-of-order.example.org');
    const begin = Date.now() - 20 * DAY;
    const checkedOut = await checkout(owner, 'MONTHLY', 2);
    const session = { ...checkedOut, tags: { ...checkedOut.tags, startDate: utcIsoDate(new Date(begin)) } };
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const deactivatedAt = Date.now() - 5 * DAY;
    const deactivated = fsEvents.subscriptionState(
      'subscription.deactivated',
      session,
      ids,
      { begin, next: begin + 31 * DAY, deactivation: deactivatedAt },
      deactivatedAt,
    );
    const activated = fsEvents.subscriptionActivated(session, ids, { begin, next: begin + 31 * DAY }, begin);
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    expect((await fs.deliver(webhookUrl, [activated])).status).toBe(200);
    // No plan before the payment is known; the order that arrives last starts it, capped.
    expect(await planRows(owner.organizationId)).toHaveLength(0);
    const completed = fsEvents.orderCompleted(session, ids, begin);
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    const rows = await planRows(owner.organizationId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.end_date.getTime()).toBe(deactivatedAt);
    expect((await plans(owner)).activeBillingPlan?.planType).toBe('TRIAL');

    const staleCancel = fsEvents.subscriptionState(
      'subscription.canceled',
      session,
      ids,
      { begin, next: begin + 31 * DAY },
      begin + DAY,
    );
    expect((await fs.deliver(webhookUrl, [staleCancel])).status).toBe(200);
    const subscription = await t.db
      .selectFrom('fastspring_subscriptions')
      .selectAll()
      .where('id', '=', ids.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.state).toBe('DEACTIVATED');
  });

  it('out of order: a renewal charge and the activation before the order still count the first month and the renewal', async () => {
    const owner = await trialOwner('owner@charge-first.example.org');
    const session = await checkout(owner, 'MONTHLY', 1);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const begin = Date.now();
    const charge = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin, next: begin },
    );
    const activated = fsEvents.subscriptionActivated(session, ids, { begin, next: begin + 28 * DAY });
    // One delivery with both events, the later one first, before the order: the activation is recorded
    // (no plan without the paid order); the renewal cannot extend a plan not made yet, so the answer is
    // a 500 and FastSpring delivers it again.
    const early = await fs.deliver(webhookUrl, [charge, activated]);
    expect(early.status).toBe(500);
    expect(await paymentCount(charge.id)).toBe(0);
    expect(await paymentCount(activated.id)).toBe(1);
    expect(await planRows(owner.organizationId)).toHaveLength(0);

    const completed = fsEvents.orderCompleted(session, ids, begin);
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    const again = await fs.deliver(webhookUrl, [charge, activated]);
    expect(again.status).toBe(200);
    expect(again.body.split('\n')).toEqual([charge.id, activated.id]);
    const plan = (await plans(owner)).activeBillingPlan!;
    expect(plan.planType).toBe('SUBSCRIPTION');
    expect(plan.endDate.slice(0, 10)).toBe(addMonths(addMonths(utcIsoDate(new Date(begin)), 1), 1));
  });

  it('a renewal or a later activation does not bring back a plan an admin ended: no access, the charge is for review', async () => {
    // No trial: the subscription is the organization's only plan, so access is the subscription's.
    const email = 'owner@ended-by-admin.example.org';
    const user = await createUser(t, { email });
    const owner = { cookie: await login(t, email), organizationId: user.organizationId };
    const session = await checkout(owner, 'MONTHLY', 1);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const begin = Date.now();
    const firstNext = begin + 30 * DAY;
    await fs.deliver(webhookUrl, [
      fsEvents.orderCompleted(session, ids, begin),
      fsEvents.subscriptionActivated(session, ids, { begin, next: firstNext }),
    ]);
    const [plan] = await planRows(owner.organizationId);
    expect(plan).toMatchObject({ plan_type: 'SUBSCRIPTION', ended_at: null });
    expect((await search(owner.cookie)).statusCode).toBe(400);

    const ended = await t.request({
      method: 'POST',
      url: `/api/admin/billing-plans/${plan!.id}/end`,
      cookie: admin,
      payload: { reason: 'Searches without a case' },
    });
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await search(owner.cookie)).statusCode).toBe(403);
    const endedRow = (await planRows(owner.organizationId))[0]!;

    // FastSpring knows nothing of the admin's end and charges the next month.
    const chargeOrderId = fsId('ord');
    const charge = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId },
      { begin, next: begin + 60 * DAY },
    );
    expect((await fs.deliver(webhookUrl, [charge])).status).toBe(200);
    // The same subscription activated again with a later next charge date.
    const reactivated = fsEvents.subscriptionActivated(session, ids, { begin, next: begin + 90 * DAY });
    expect((await fs.deliver(webhookUrl, [reactivated])).status).toBe(200);

    const rows = await planRows(owner.organizationId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.end_date.getTime()).toBe(endedRow.end_date.getTime());
    expect(rows[0]!.ended_at).not.toBeNull();
    const refused = await search(owner.cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ message: NO_ACCESS_MESSAGE });
    expect((await plans(owner)).activeBillingPlan).toBeNull();
    const detail = await t.request({
      method: 'GET',
      url: `/api/admin/organizations/${owner.organizationId}`,
      cookie: admin,
    });
    expect(detail.json()).toMatchObject({ activePlan: null, plans: [{ id: plan!.id, state: 'ENDED' }] });

    // The money FastSpring took is left for an admin to review (and refund), like a mismatched payment:
    // FAILED, with the organization, and no order for a month that was never granted.
    const payments = await t.request({
      method: 'GET',
      url: '/api/admin/payments?source=FASTSPRING',
      cookie: admin,
    });
    const payment = payments
      .json<
        { eventId: string; outcome: string; note: string; organization: { id: number }; orderId: null }[]
      >()
      .find((row) => row.eventId === charge.id);
    expect(payment).toMatchObject({
      outcome: 'FAILED',
      organization: { id: owner.organizationId },
      orderId: null,
    });
    expect(payment!.note).toMatch(/ended by an admin/);
    const orders = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .where('fastspring_order_id', '=', chargeOrderId)
      .execute();
    expect(orders).toEqual([]);

    // Without API credentials the admin cancels the subscription in FastSpring's app; its deactivation
    // webhook then tells the organization page that the card is no longer charged.
    const planOnPage = async () =>
      (
        await t.request({
          method: 'GET',
          url: `/api/admin/organizations/${owner.organizationId}`,
          cookie: admin,
        })
      ).json<AdminOrganizationDetail>().plans[0]!;
    expect((await planOnPage()).cardSubscription).toMatchObject({
      cancelRequestedAt: null,
      cancelledAt: null,
    });
    const deactivation = Date.now();
    const deactivated = fsEvents.subscriptionState('subscription.deactivated', session, ids, {
      begin,
      next: begin + 60 * DAY,
      deactivation,
    });
    expect((await fs.deliver(webhookUrl, [deactivated])).status).toBe(200);
    const cancelled = (await planOnPage()).cardSubscription;
    expect(Date.parse(cancelled!.cancelledAt!)).toBeLessThanOrEqual(Date.now());
    expect((await planOnPage()).endDate).toBe(endedRow.end_date.toISOString());
  });
});

const BANK_BUYER = {
  name: 'Overlap Bureau',
  street: '1 Quay Road',
  cityPostcode: '12-345',
  city: 'Port',
  country: 'X',
};

/** A card subscription's plan from `start` to `end`, as one already paid for would be. */
function subscriptionPlan(owner: Owner, start: Date, end: Date) {
  return t.db
    .insertInto('billing_plans')
    .values({
      organization_id: owner.organizationId,
      plan_type: 'SUBSCRIPTION',
      start_date: start,
      end_date: end,
      seat_limit: 1,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A bank-transfer order for a fixed period from today, waiting for payment; its id. */
async function bankOrderPlaced(owner: Owner, months: number): Promise<number> {
  const ordered = await t.request({
    method: 'POST',
    url: '/api/order',
    cookie: owner.cookie,
    payload: { seatAmount: 1, startDate: utcIsoDate(), period: months, buyer: BANK_BUYER },
  });
  expect(ordered.statusCode, ordered.body).toBe(200);
  const [pending] = await t.db
    .selectFrom('orders')
    .select('id')
    .where('organization_id', '=', owner.organizationId)
    .where('status', '=', 'PENDING')
    .execute();
  return pending!.id;
}

function markPaid(orderId: number) {
  return t.request({ method: 'POST', url: `/api/admin/orders/${orderId}/mark-paid`, cookie: admin });
}

describe('a card order for a new plan while another paid plan is in force', () => {
  /** A bank transfer ordered and marked paid while the owner's card checkout is still open. */
  async function bankPlanPaid(owner: Owner, months: number) {
    const paid = await markPaid(await bankOrderPlaced(owner, months));
    expect(paid.statusCode, paid.body).toBe(200);
    const [plan] = await planRows(owner.organizationId);
    return plan!;
  }

  async function paymentOf(eventId: string) {
    return t.db.selectFrom('payments').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
  }

  function noOverlap(rows: { start_date: Date; end_date: Date }[]) {
    const sorted = [...rows].sort((a, b) => a.start_date.getTime() - b.start_date.getTime());
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]!.start_date.getTime()).toBeGreaterThanOrEqual(sorted[i - 1]!.end_date.getTime());
  }

  it('a fixed period starts the day the bank-transfer period in force ends, keeping every month paid for', async () => {
    const owner = await trialOwner('owner@card-after-bank.example.org');
    const session = await checkout(owner, 'FIXED', 2, 3);
    const bank = await bankPlanPaid(owner, 1);
    const bankEnd = utcIsoDate(bank.end_date);

    const completed = fsEvents.orderCompleted(session, { orderId: fsId('ord') });
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);

    const rows = await planRows(owner.organizationId);
    expect(rows).toHaveLength(2);
    noOverlap(rows);
    const card = rows.find((row) => row.id !== bank.id)!;
    expect(card).toMatchObject({ plan_type: 'ONE_TIME_PAYMENT', seat_limit: 2 });
    expect(utcIsoDate(card.start_date)).toBe(bankEnd);
    expect(utcIsoDate(card.end_date)).toBe(addMonths(bankEnd, 3));
    const payment = await paymentOf(completed.id);
    expect(payment).toMatchObject({ outcome: 'PROCESSED', organization_id: owner.organizationId });
    expect(payment.note).toContain(`overlapped plan ${bank.id}`);

    // The owner sees the bank period in force and the card period as the next plan; the order says so.
    const billing = await t.request({
      method: 'GET',
      url: '/api/user/organization/all-billing-plans',
      cookie: owner.cookie,
    });
    expect(billing.json()).toMatchObject({
      activeBillingPlan: { id: bank.id, seatLimit: 1 },
      futureBillingPlan: { id: card.id, seatLimit: 2 },
    });
    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: owner.cookie,
    });
    expect(orders.json()).toContainEqual(
      expect.objectContaining({
        paymentMethod: 'CARD',
        orderStatus: 'COMPLETED',
        amount: 450,
        startDate: bankEnd,
        endDate: addMonths(bankEnd, 3),
      }),
    );
    // The same order in a new event changes nothing.
    expect(
      (
        await fs.deliver(webhookUrl, [
          fsEvents.orderCompleted(session, { orderId: completed.data.id as string }),
        ])
      ).status,
    ).toBe(200);
    expect(await planRows(owner.organizationId)).toHaveLength(2);
  });

  it('a subscription makes no plan: the payment and its renewals stay FAILED for an admin to review', async () => {
    const owner = await trialOwner('owner@subscription-after-bank.example.org');
    const session = await checkout(owner, 'MONTHLY', 1);
    const bank = await bankPlanPaid(owner, 2);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const begin = Date.now();
    const completed = fsEvents.orderCompleted(session, ids, begin);
    const activated = fsEvents.subscriptionActivated(session, ids, { begin, next: begin + 30 * DAY });
    const charge = fsEvents.chargeCompleted(
      session,
      { ...ids, chargeOrderId: fsId('ord') },
      { begin, next: begin + 60 * DAY },
    );
    for (const event of [completed, activated, charge])
      expect((await fs.deliver(webhookUrl, [event])).status).toBe(200);

    const rows = await planRows(owner.organizationId);
    expect(rows.map((row) => row.id)).toEqual([bank.id]);
    expect(rows[0]!.end_date.getTime()).toBe(bank.end_date.getTime());
    const cardOrders = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .where('payment_method', '=', 'CARD')
      .execute();
    expect(cardOrders).toEqual([]);

    // The money is not lost: Admin → Payments lists it, with its amount, for review.
    const payments = await t.request({
      method: 'GET',
      url: '/api/admin/payments?source=FASTSPRING',
      cookie: admin,
    });
    const listed = payments
      .json<
        { eventId: string; outcome: string; note: string; amount: number; organization: { id: number } }[]
      >()
      .find((row) => row.eventId === completed.id);
    expect(listed).toMatchObject({
      outcome: 'FAILED',
      amount: 100,
      organization: { id: owner.organizationId },
    });
    expect(listed!.note).toContain(`plan ${bank.id}`);
    expect(listed!.note).toContain(`cancel subscription ${ids.subscriptionId}`);
    expect((await paymentOf(activated.id)).outcome).toBe('IGNORED');
    expect((await paymentOf(charge.id)).outcome).toBe('FAILED');
  });

  it('a plan that ended earlier today is over: a new subscription or fixed period starts today', async () => {
    for (const kind of ['MONTHLY', 'FIXED'] as const) {
      const owner = await trialOwner(`owner@${kind.toLowerCase()}-after-lapse.example.org`);
      // A subscription lapses at its time of day: here earlier today, before this order.
      const lapsed = await subscriptionPlan(
        owner,
        new Date(Date.now() - 30 * DAY),
        new Date(Math.max(startOfUtcDay(utcIsoDate()).getTime() + 1, Date.now() - 3_600_000)),
      );
      const session = await checkout(owner, kind, 1, 1);
      const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
      const completed = fsEvents.orderCompleted(session, ids);
      expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
      const payment = await paymentOf(completed.id);
      expect(payment.outcome, payment.note ?? '').toBe('PROCESSED');
      if (kind === 'FIXED') {
        const added = (await planRows(owner.organizationId)).find((row) => row.id !== lapsed.id)!;
        expect(utcIsoDate(added.start_date)).toBe(utcIsoDate());
      }
    }
  });

  it('a fixed period does not wait behind a card subscription, whose end moves with each renewal', async () => {
    const owner = await trialOwner('owner@fixed-after-subscription.example.org');
    const session = await checkout(owner, 'FIXED', 1, 1);
    const subscription = await subscriptionPlan(
      owner,
      new Date(Date.now() - DAY),
      new Date(Date.now() + 20 * DAY),
    );
    const completed = fsEvents.orderCompleted(session, { orderId: fsId('ord') });
    expect((await fs.deliver(webhookUrl, [completed])).status).toBe(200);
    expect((await planRows(owner.organizationId)).map((row) => row.id)).toEqual([subscription.id]);
    const payment = await paymentOf(completed.id);
    expect(payment).toMatchObject({ outcome: 'FAILED', amount_cents: 10_000, order_id: null });
    expect(payment.note).toContain(`plan ${subscription.id} (SUBSCRIPTION`);
  });
});

describe('a bank transfer marked paid after a card plan arrived', () => {
  it('starts when the card period ends, and the payment says why', async () => {
    const owner = await trialOwner('owner@bank-after-card.example.org');
    const session = await checkout(owner, 'FIXED', 1, 2);
    const orderId = await bankOrderPlaced(owner, 3);
    expect(
      (await fs.deliver(webhookUrl, [fsEvents.orderCompleted(session, { orderId: fsId('ord') })])).status,
    ).toBe(200);
    const [card] = await planRows(owner.organizationId);
    const cardEnd = utcIsoDate(card!.end_date);

    const paid = await markPaid(orderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().plan).toMatchObject({ startDate: startOfUtcDay(cardEnd).toISOString() });
    const rows = await planRows(owner.organizationId);
    expect(rows).toHaveLength(2);
    const bank = rows.find((row) => row.id !== card!.id)!;
    expect(utcIsoDate(bank.start_date)).toBe(cardEnd);
    expect(utcIsoDate(bank.end_date)).toBe(addMonths(cardEnd, 3));
    const payment = await t.db
      .selectFrom('payments')
      .select('note')
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(payment.note).toContain(`overlapped plan ${card!.id}`);
  });

  it('is refused while a card subscription runs, and the order still waits for payment', async () => {
    const owner = await trialOwner('owner@bank-beside-subscription.example.org');
    const orderId = await bankOrderPlaced(owner, 1);
    const subscription = await subscriptionPlan(
      owner,
      new Date(Date.now() - DAY),
      new Date(Date.now() + 20 * DAY),
    );

    const paid = await markPaid(orderId);
    expect(paid.statusCode).toBe(409);
    expect(paid.json().message).toContain(`plan ${subscription.id} (SUBSCRIPTION`);
    expect((await planRows(owner.organizationId)).map((row) => row.id)).toEqual([subscription.id]);
    const order = await t.db
      .selectFrom('orders')
      .select('status')
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(order.status).toBe('PENDING');
    expect(await t.db.selectFrom('payments').select('id').where('order_id', '=', orderId).execute()).toEqual(
      [],
    );
  });
});

describe('admin payments', () => {
  it('lists FastSpring events with their outcome; the detail carries the event as received', async () => {
    const list = await t.request({
      method: 'GET',
      url: '/api/admin/payments?source=FASTSPRING',
      cookie: admin,
    });
    expect(list.statusCode).toBe(200);
    const rows = list.json<{ id: number; source: string; eventType: string; outcome: string }[]>();
    expect(rows.length).toBeGreaterThan(5);
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['FASTSPRING']));
    expect(rows.map((r) => r.eventType)).toEqual(
      expect.arrayContaining(['order.completed', 'subscription.activated', 'subscription.charge.completed']),
    );
    const detail = await t.request({
      method: 'GET',
      url: `/api/admin/payments/${rows[0]!.id}`,
      cookie: admin,
    });
    expect(detail.json().payload).toHaveProperty('type');

    const owner = await trialOwner('owner@not-admin.example.org');
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/payments', cookie: owner.cookie })).statusCode,
    ).toBe(403);
  });
});
