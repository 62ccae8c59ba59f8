import type { AddressInfo } from 'node:net';
import { utcIsoDate } from '@osint/contract/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createUser, login } from '../support/fixtures.ts';
import {
  fsEvents,
  fsId,
  startFastSpringStandIn,
  type FastSpringStandIn,
  type StoreSession,
  type WebhookEvent,
} from '../support/fastspring-stand-in.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Correctly signed FastSpring events that must not grant plans: test-mode events on a live installation,
// and orders whose amount is not the price of what they hold (a tampered checkout, a coupon, another
// currency). Both are recorded in Admin → Payments; the second as FAILED for an admin to review.

const SECRET = 'billing-events-secret';
const DAY = 86_400_000;

describe(`billing events: only live, correctly priced payments grant plans (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let fs: FastSpringStandIn;
  let webhookUrl: string;

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
          acceptTestEvents: false,
          api: undefined,
        },
      },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    webhookUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/fastspring/webhook`;
  });
  afterAll(async () => {
    await t?.close();
    await fs?.close();
  });

  /** What the pricing page's session holds for `months` months and `users` users (priced as the server prices it). */
  async function order(email: string, kind: 'FIXED' | 'MONTHLY', users: number, months = 1) {
    const { organizationId } = await createUser(t, { email });
    const session: StoreSession = {
      items: [
        kind === 'FIXED'
          ? { product: 'osint-license', quantity: months, pricing: { price: { USD: 100 } } }
          : { product: 'osint-license-subscription', quantity: 1, pricing: { price: { USD: 100 } } },
        ...(users > 1
          ? [{ product: 'additional-seat', quantity: users - 1, pricing: { price: { USD: 50 * months } } }]
          : []),
      ],
      tags: { organizationId: String(organizationId), startDate: utcIsoDate() },
    };
    return { organizationId, session };
  }

  const live = (event: WebhookEvent, data: Record<string, unknown> = {}): WebhookEvent => ({
    ...event,
    live: true,
    data: { ...event.data, live: true, ...data },
  });

  async function deliver(event: WebhookEvent) {
    const answer = await fs.deliver(webhookUrl, [event]);
    expect(answer.status, answer.body).toBe(200);
    return t.db
      .selectFrom('payments')
      .select(['outcome', 'note', 'organization_id', 'order_id'])
      .where('event_id', '=', event.id)
      .executeTakeFirstOrThrow();
  }

  const plansOf = (organizationId: number) =>
    t.db.selectFrom('billing_plans').selectAll().where('organization_id', '=', organizationId).execute();
  const ordersOf = (organizationId: number) =>
    t.db.selectFrom('orders').select('id').where('organization_id', '=', organizationId).execute();

  it('item 6: a signed test-mode event ("live": false) is recorded and ignored unless test mode allows it', async () => {
    const { organizationId, session } = await order('owner@test-event.example.org', 'FIXED', 2, 3);
    const payment = await deliver(fsEvents.orderCompleted(session, { orderId: fsId('ord') }));
    expect(payment.outcome).toBe('IGNORED');
    expect(payment.note).toContain('"live": false');
    expect(await plansOf(organizationId)).toHaveLength(0);
    expect(await ordersOf(organizationId)).toHaveLength(0);

    // A test storefront's installation turns test mode on: the same kind of event is applied.
    t.config.billing.fastspring.acceptTestEvents = true;
    try {
      const applied = await deliver(fsEvents.orderCompleted(session, { orderId: fsId('ord') }));
      expect(applied.outcome).toBe('PROCESSED');
      expect(await plansOf(organizationId)).toHaveLength(1);
    } finally {
      t.config.billing.fastspring.acceptTestEvents = false;
    }
  });

  it('item 6: an order whose total is not the price of its items is a FAILED payment for review, with no plan', async () => {
    // The penetration test's order: 12 months, 99 additional seats, 300 USD paid (the price is 60,600 USD).
    const tampered = await order('owner@tampered.example.org', 'FIXED', 100, 12);
    const event = live(fsEvents.orderCompleted(tampered.session, { orderId: fsId('ord') }), { total: 300 });
    const payment = await deliver(event);
    expect(payment).toMatchObject({
      outcome: 'FAILED',
      organization_id: tampered.organizationId,
      order_id: null,
    });
    expect(payment.note).toBe(
      'Amount mismatch: paid 300.00 USD before tax, but 12 month(s), 100 user(s) cost 48480.00 USD. No plan was created: review this payment.',
    );
    expect(await plansOf(tampered.organizationId)).toHaveLength(0);
    expect(await ordersOf(tampered.organizationId)).toHaveLength(0);

    // The right number in another currency, and no total at all, fail the same way.
    const euros = await order('owner@euros.example.org', 'FIXED', 1, 1);
    const inEuros = live(fsEvents.orderCompleted(euros.session, { orderId: fsId('ord') }), {
      currency: 'EUR',
    });
    expect((await deliver(inEuros)).outcome).toBe('FAILED');
    const noTotal = live(fsEvents.orderCompleted(euros.session, { orderId: fsId('ord') }), { total: null });
    expect((await deliver(noTotal)).outcome).toBe('FAILED');
    expect(await plansOf(euros.organizationId)).toHaveLength(0);

    // The right price, with sales tax on top (FastSpring is the merchant of record), grants the plan.
    const paid = await order('owner@paid.example.org', 'FIXED', 3, 2);
    const withTax = live(fsEvents.orderCompleted(paid.session, { orderId: fsId('ord') }), {
      total: 480,
      tax: 80,
    });
    expect((await deliver(withTax)).outcome).toBe('PROCESSED');
    expect(await plansOf(paid.organizationId)).toEqual([expect.objectContaining({ seat_limit: 3 })]);
  });

  it('an underpaid subscription order grants no plan: not from its activation, its first charge or a renewal', async () => {
    // 100 users a month cost 5,050 USD; 1 USD was paid. FastSpring still activates the subscription, with
    // the 99 additional seats as its add-on.
    const { organizationId, session } = await order('owner@underpaid-sub.example.org', 'MONTHLY', 100);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const underpaid = await deliver(live(fsEvents.orderCompleted(session, ids), { total: 1 }));
    expect(underpaid.outcome).toBe('FAILED');

    const dates = { begin: Date.now(), next: Date.now() + 30 * DAY };
    const activated = await deliver(live(fsEvents.subscriptionActivated(session, ids, dates)));
    expect(activated).toMatchObject({ outcome: 'IGNORED', organization_id: organizationId });
    expect(activated.note).toContain(`the initial order ${ids.orderId}`);
    const initialCharge = live(
      fsEvents.chargeCompleted(session, { ...ids, chargeOrderId: ids.orderId }, dates),
    );
    expect((await deliver(initialCharge)).outcome).toBe('IGNORED');
    // A renewal at the full price is real money for a subscription that was never paid for: for review.
    const renewal = live(fsEvents.chargeCompleted(session, { ...ids, chargeOrderId: fsId('ord') }, dates));
    const renewed = await deliver(renewal);
    expect(renewed.outcome).toBe('FAILED');
    expect(renewed.note).toContain('This renewal extends nothing');

    expect(await plansOf(organizationId)).toEqual([]);
    const plans = await t.request({
      method: 'GET',
      url: '/api/user/organization/all-billing-plans',
      cookie: await login(t, 'owner@underpaid-sub.example.org'),
    });
    expect(plans.json().activeBillingPlan).toBeNull();
  });

  it('a paid subscription gets its plan whichever of the order and the activation arrives first', async () => {
    const first = await order('owner@order-first.example.org', 'MONTHLY', 3);
    const firstIds = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const next = Date.now() + 33 * DAY;
    const dates = { begin: Date.now(), next };
    expect((await deliver(live(fsEvents.orderCompleted(first.session, firstIds)))).outcome).toBe('PROCESSED');
    expect(
      (await deliver(live(fsEvents.subscriptionActivated(first.session, firstIds, dates)))).outcome,
    ).toBe('PROCESSED');
    expect(await plansOf(first.organizationId)).toEqual([
      expect.objectContaining({ plan_type: 'SUBSCRIPTION', seat_limit: 3, end_date: new Date(next) }),
    ]);

    // The activation first: recorded without a plan; the order's event then starts the plan, up to the
    // next charge date the activation reported.
    const second = await order('owner@activation-first.example.org', 'MONTHLY', 3);
    const secondIds = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const activated = await deliver(live(fsEvents.subscriptionActivated(second.session, secondIds, dates)));
    expect(activated.outcome).toBe('IGNORED');
    expect(await plansOf(second.organizationId)).toEqual([]);
    expect((await deliver(live(fsEvents.orderCompleted(second.session, secondIds)))).outcome).toBe(
      'PROCESSED',
    );
    expect(await plansOf(second.organizationId)).toEqual([
      expect.objectContaining({ plan_type: 'SUBSCRIPTION', seat_limit: 3, end_date: new Date(next) }),
    ]);
  });

  it('a renewal for more seats is checked against the seats it pays for before they are given', async () => {
    const { organizationId, session } = await order('owner@more-seats.example.org', 'MONTHLY', 2);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    const dates = { begin: Date.now(), next: Date.now() + 30 * DAY };
    expect((await deliver(live(fsEvents.orderCompleted(session, ids)))).outcome).toBe('PROCESSED');
    const [plan] = await plansOf(organizationId);
    expect(plan).toMatchObject({ seat_limit: 2 });

    // Seats raised to 5 in FastSpring; the charge carries the new add-on quantity.
    const fiveSeats: StoreSession = {
      ...session,
      items: [
        session.items[0]!,
        { product: 'additional-seat', quantity: 4, pricing: { price: { USD: 50 } } },
      ],
    };
    const atOldPrice = live(
      fsEvents.chargeCompleted(fiveSeats, { ...ids, chargeOrderId: fsId('ord') }, dates),
      { total: 150 },
    );
    const refused = await deliver(atOldPrice);
    expect(refused.outcome).toBe('FAILED');
    expect(refused.note).toContain('1 month, 5 user(s) cost 300.00 USD');
    expect(await plansOf(organizationId)).toEqual([
      expect.objectContaining({ seat_limit: 2, end_date: plan!.end_date }),
    ]);

    const paid = live(fsEvents.chargeCompleted(fiveSeats, { ...ids, chargeOrderId: fsId('ord') }, dates));
    const renewed = await deliver(paid);
    expect(renewed.outcome).toBe('PROCESSED');
    const [after] = await plansOf(organizationId);
    expect(after!.seat_limit).toBe(5);
    expect(after!.end_date.getTime()).toBeGreaterThan(plan!.end_date.getTime());
    const charged = await t.db
      .selectFrom('orders')
      .select(['seat_limit', 'amount'])
      .where('id', '=', renewed.order_id!)
      .executeTakeFirstOrThrow();
    expect(charged).toEqual({ seat_limit: 5, amount: 300 });
  });

  it('item 6: a subscription renewal charged at the wrong amount does not extend the plan', async () => {
    const { organizationId, session } = await order('owner@renewal.example.org', 'MONTHLY', 2);
    const ids = { orderId: fsId('ord'), subscriptionId: fsId('sub') };
    expect((await deliver(live(fsEvents.orderCompleted(session, ids)))).outcome).toBe('PROCESSED');
    const [plan] = await plansOf(organizationId);
    const dates = { begin: Date.now(), next: Date.now() + 30 * DAY };
    const charge = live(fsEvents.chargeCompleted(session, { ...ids, chargeOrderId: fsId('ord') }, dates), {
      total: 1,
    });
    const payment = await deliver(charge);
    expect(payment.outcome).toBe('FAILED');
    expect(payment.note).toContain('1 month, 2 user(s) cost 150.00 USD');
    expect((await plansOf(organizationId))[0]!.end_date).toEqual(plan!.end_date);

    const rightCharge = live(
      fsEvents.chargeCompleted(session, { ...ids, chargeOrderId: fsId('ord') }, dates),
    );
    expect((await deliver(rightCharge)).outcome).toBe('PROCESSED');
    expect((await plansOf(organizationId))[0]!.end_date.getTime()).toBeGreaterThan(plan!.end_date.getTime());
  });
});
