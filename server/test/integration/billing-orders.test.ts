import {
  addDays,
  addMonths,
  BILLING_MESSAGES,
  monthsUntil,
  startOfUtcDay,
  utcIsoDate,
} from '@osint/contract/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { pdfText } from '../support/pdf-text.ts';

// What an owner does with orders beyond the first purchase: the annual discount on the order and its
// proforma invoice (read back with pdftotext), cancelling an order that waits for payment, renewing the
// fixed period in force and adding users to it — each paid like any bank order (an admin marks it paid).

const DAY = 86_400_000;
let t: TestApp;
let admin: string;

const BUYER = {
  name: 'Renewal Bureau',
  street: '1 Quay Road',
  cityPostcode: '12-345',
  city: 'Port',
  country: 'X',
};

interface Owner {
  id: number;
  organizationId: number;
  cookie: string;
}

async function owner(
  email: string,
  plan?: { type: 'TRIAL' | 'ONE_TIME_PAYMENT' | 'SUBSCRIPTION'; seats: number; end?: Date },
) {
  const user = await createUser(t, { email });
  if (plan)
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: user.organizationId,
        plan_type: plan.type,
        start_date: new Date(Date.now() - DAY),
        end_date: plan.end ?? new Date(Date.now() + 6 * DAY),
        seat_limit: plan.seats,
      })
      .execute();
  return { ...user, cookie: await login(t, email) };
}

function post(cookie: string, url: string, payload?: Record<string, unknown>) {
  return t.request({ method: 'POST', url, cookie, ...(payload ? { payload } : {}) });
}

async function orders(o: Owner) {
  return (await t.request({ method: 'GET', url: '/api/user/organization/orders', cookie: o.cookie })).json<
    {
      id: number;
      orderStatus: string;
      orderType: string;
      amount: number;
      discount: number;
      startDate: string;
      endDate: string;
      seatLimit: number;
      addedUsers: number | null;
    }[]
  >();
}

/** A bank order of one user for `months`, starting today; its answer (the proforma invoice). */
function orderOneUserFromToday(o: Owner, months: number) {
  return post(o.cookie, '/api/order', {
    seatAmount: 1,
    startDate: utcIsoDate(),
    period: months,
    buyer: BUYER,
  });
}

async function activePlan(o: Owner) {
  const plans = await t.request({
    method: 'GET',
    url: '/api/user/organization/all-billing-plans',
    cookie: o.cookie,
  });
  return plans.json<{
    activeBillingPlan: { planType: string; seatLimit: number; endDate: string } | null;
    futureBillingPlan: { seatLimit: number; startDate: string; endDate: string } | null;
  }>();
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
});

describe('annual discount', () => {
  it('a 12-month order for one user costs 960 USD: the order, its proforma invoice and the paid plan', async () => {
    const o = await owner('owner@annual.example.org', { type: 'TRIAL', seats: 1 });
    const response = await orderOneUserFromToday(o, 12);
    expect(response.statusCode, response.body).toBe(200);
    const text = pdfText(response.rawPayload);
    expect(text).toContain('$1,200 ($100 × 12 months, first user included)');
    expect(text).toMatch(/Annual discount \(20%\)\s+−\$240/);
    expect(text).toContain('$960 USD');
    const [order] = await orders(o);
    expect(order).toMatchObject({ amount: 960, discount: 240, orderType: 'PLAN' });

    const paid = await post(admin, `/api/admin/orders/${order!.id}/mark-paid`);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().payments).toEqual([expect.objectContaining({ amount: 960 })]);
    const plans = await activePlan(o);
    expect(plans.activeBillingPlan).toMatchObject({ planType: 'ONE_TIME_PAYMENT', seatLimit: 1 });
    expect(plans.activeBillingPlan!.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 12));
  });
});

describe('a transfer that arrives after the chosen start', () => {
  it('starts the plan on the day it is marked paid, and the order (and its final invoice) says so', async () => {
    const o = await owner('owner@late-transfer.example.org', { type: 'TRIAL', seats: 1 });
    const response = await orderOneUserFromToday(o, 3);
    expect(response.statusCode, response.body).toBe(200);
    const [order] = await orders(o);
    // As if ordered for five days ago: the money arrives today.
    const chosen = new Date(Date.now() - 5 * 86_400_000);
    const chosenDay = utcIsoDate(chosen);
    await t.db
      .updateTable('orders')
      .set({
        start_date: new Date(`${chosenDay}T00:00:00Z`),
        end_date: new Date(`${addMonths(chosenDay, 3)}T00:00:00Z`),
      })
      .where('id', '=', order!.id)
      .execute();
    expect((await post(admin, `/api/admin/orders/${order!.id}/mark-paid`)).statusCode).toBe(200);
    const plan = (await activePlan(o)).activeBillingPlan!;
    expect(plan.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 3));
    const [paid] = await orders(o);
    expect(paid).toMatchObject({ orderStatus: 'COMPLETED' });
    expect(paid!.startDate.slice(0, 10)).toBe(utcIsoDate());
    expect(paid!.endDate.slice(0, 10)).toBe(plan.endDate.slice(0, 10));
  });
});

describe('cancel an order', () => {
  it('an owner cancels the pending order, audited, and can order again; twice or paid is refused', async () => {
    const o = await owner('owner@cancel.example.org', { type: 'TRIAL', seats: 1 });
    const order = { seatAmount: 3, startDate: utcIsoDate(), period: 2, buyer: BUYER };
    expect((await post(o.cookie, '/api/order', order)).statusCode).toBe(200);
    const [pending] = await orders(o);
    expect((await post(o.cookie, '/api/order', order)).statusCode).toBe(409);

    const cancelled = await post(o.cookie, `/api/order/${pending!.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toMatchObject({ id: pending!.id, orderStatus: 'CANCELED' });
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'organization_id'])
      .where('action', '=', 'billing.order_cancelled')
      .where('organization_id', '=', o.organizationId)
      .execute();
    expect(audit).toEqual([
      {
        action: 'billing.order_cancelled',
        target: `order:${pending!.id}`,
        organization_id: o.organizationId,
      },
    ]);

    // Cancelling again changes nothing and says why.
    const again = await post(o.cookie, `/api/order/${pending!.id}/cancel`);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('Only an order that is waiting for payment can be cancelled.');
    // A cancelled order cannot be paid.
    expect((await post(admin, `/api/admin/orders/${pending!.id}/mark-paid`)).statusCode).toBe(409);

    // A new order can be placed, and once paid it can no longer be cancelled.
    const second = await post(o.cookie, '/api/order', { ...order, seatAmount: 2 });
    expect(second.statusCode, second.body).toBe(200);
    const [latest] = await orders(o);
    expect(latest).toMatchObject({ orderStatus: 'PENDING', seatLimit: 2 });
    expect((await post(admin, `/api/admin/orders/${latest!.id}/mark-paid`)).statusCode).toBe(200);
    const paid = await post(o.cookie, `/api/order/${latest!.id}/cancel`);
    expect(paid.statusCode).toBe(409);
    expect((await orders(o)).map((row) => row.orderStatus)).toEqual(['COMPLETED', 'CANCELED']);
  });

  it('another organization’s order is not found, a user of the organization may not; an admin may cancel any', async () => {
    const o = await owner('owner@cancel-guard.example.org', { type: 'TRIAL', seats: 1 });
    expect(
      (
        await post(o.cookie, '/api/order', {
          seatAmount: 1,
          startDate: utcIsoDate(),
          period: 1,
          buyer: BUYER,
        })
      ).statusCode,
    ).toBe(200);
    const [pending] = await orders(o);
    const stranger = await owner('owner@cancel-stranger.example.org', { type: 'TRIAL', seats: 1 });
    const foreign = await post(stranger.cookie, `/api/order/${pending!.id}/cancel`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('No order found.');
    await createUser(t, {
      email: 'analyst@cancel-guard.example.org',
      role: 'USER',
      organizationId: o.organizationId,
    });
    const analyst = await login(t, 'analyst@cancel-guard.example.org');
    expect((await post(analyst, `/api/order/${pending!.id}/cancel`)).statusCode).toBe(404);
    expect((await post(o.cookie, `/api/order/${pending!.id + 100000}/cancel`)).statusCode).toBe(404);
    expect((await orders(o))[0]).toMatchObject({ orderStatus: 'PENDING' });

    const byAdmin = await post(admin, `/api/order/${pending!.id}/cancel`);
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect((await orders(o))[0]).toMatchObject({ orderStatus: 'CANCELED' });
  });
});

describe('renew and add users', () => {
  it('renew: a fixed period from the day after the plan in force ends; paid, it follows without a gap', async () => {
    const end = startOfUtcDay(addDays(utcIsoDate(), 20));
    const o = await owner('owner@renew.example.org', { type: 'ONE_TIME_PAYMENT', seats: 2, end });
    const response = await post(o.cookie, '/api/order/renew', { seatAmount: 3, period: 12, buyer: BUYER });
    expect(response.statusCode, response.body).toBe(200);
    const text = pdfText(response.rawPayload);
    expect(text).toContain('fixed period (renewal)');
    const renewStart = utcIsoDate(end);
    const [order] = await orders(o);
    // 12 months × (100 + 2 × 50) = 2,400, 20 % off: 1,920.
    expect(order).toMatchObject({
      orderType: 'RENEWAL',
      startDate: renewStart,
      endDate: addMonths(renewStart, 12),
      seatLimit: 3,
      discount: 480,
      amount: 1920,
    });
    expect(text).toContain('$1,920 USD');

    expect((await post(admin, `/api/admin/orders/${order!.id}/mark-paid`)).statusCode).toBe(200);
    const plans = await activePlan(o);
    expect(plans.activeBillingPlan).toMatchObject({ seatLimit: 2 });
    expect(plans.futureBillingPlan).toMatchObject({ seatLimit: 3 });
    expect(plans.futureBillingPlan!.startDate).toBe(end.toISOString());
    expect(plans.futureBillingPlan!.endDate.slice(0, 10)).toBe(addMonths(renewStart, 12));

    // A second renewal starts after the first one.
    expect(
      (await post(o.cookie, '/api/order/renew', { seatAmount: 1, period: 1, buyer: BUYER })).statusCode,
    ).toBe(200);
    expect((await orders(o))[0]).toMatchObject({ startDate: addMonths(renewStart, 12) });
  });

  it('renew: a later plan cancelled before it started does not push the renewal away from the plan in force', async () => {
    const end = startOfUtcDay(addDays(utcIsoDate(), 20));
    const o = await owner('owner@renew-after-cancelled.example.org', {
      type: 'ONE_TIME_PAYMENT',
      seats: 2,
      end,
    });
    // A plan made by hand to start after a gap, then cancelled before its day: it ends at its own start.
    const laterStart = startOfUtcDay(addDays(utcIsoDate(), 40));
    const later = await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: o.organizationId,
        plan_type: 'VIRTUAL',
        start_date: laterStart,
        end_date: startOfUtcDay(addMonths(addDays(utcIsoDate(), 40), 1)),
        seat_limit: 2,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const cancelled = await post(admin, `/api/admin/billing-plans/${later.id}/end`, {
      reason: 'Granted by mistake',
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);

    const response = await post(o.cookie, '/api/order/renew', { seatAmount: 2, period: 1, buyer: BUYER });
    expect(response.statusCode, response.body).toBe(200);
    const [order] = await orders(o);
    expect(order).toMatchObject({ orderType: 'RENEWAL', startDate: utcIsoDate(end) });
    expect((await post(admin, `/api/admin/orders/${order!.id}/mark-paid`)).statusCode).toBe(200);
    expect((await activePlan(o)).futureBillingPlan!.startDate).toBe(end.toISOString());
  });

  it('add users: the added users for the months left, paid, make a plan with the new total until the same end', async () => {
    const endDay = addMonths(addDays(utcIsoDate(), 3), 2); // a little over two months left: 3 months charged
    const end = startOfUtcDay(endDay);
    const o = await owner('owner@add-users.example.org', { type: 'ONE_TIME_PAYMENT', seats: 2, end });
    const months = monthsUntil(utcIsoDate(), endDay);
    expect(months).toBe(3);
    const response = await post(o.cookie, '/api/order/add-users', { users: 3, buyer: BUYER });
    expect(response.statusCode, response.body).toBe(200);
    const text = pdfText(response.rawPayload);
    expect(text).toContain('Users added to the OSINT Platform licence in force');
    expect(text).toContain('5 (3 added)');
    expect(text).toContain('$450 (3 × $50 × 3 months)');
    const [order] = await orders(o);
    expect(order).toMatchObject({
      orderType: 'ADD_USERS',
      addedUsers: 3,
      seatLimit: 5,
      amount: 450,
      startDate: utcIsoDate(),
      endDate: endDay,
    });

    expect((await post(admin, `/api/admin/orders/${order!.id}/mark-paid`)).statusCode).toBe(200);
    const plans = await activePlan(o);
    expect(plans.activeBillingPlan).toMatchObject({ planType: 'ONE_TIME_PAYMENT', seatLimit: 5 });
    expect(plans.activeBillingPlan!.endDate).toBe(end.toISOString());
  });

  it('needs a fixed period in force and an owner; the seat total stays within 100', async () => {
    for (const plan of [
      undefined,
      { type: 'TRIAL' as const, seats: 1 },
      { type: 'SUBSCRIPTION' as const, seats: 1 },
    ]) {
      const o = await owner(`owner@no-renew-${(plan?.type ?? 'none').toLowerCase()}.example.org`, plan);
      for (const [url, body] of [
        ['/api/order/renew', { seatAmount: 1, period: 1, buyer: BUYER }],
        ['/api/order/add-users', { users: 1, buyer: BUYER }],
      ] as const) {
        const refused = await post(o.cookie, url, body);
        expect(refused.statusCode).toBe(409);
        expect(refused.json().message).toBe(
          'Renewing and adding users are available while a fixed-period plan is in force.',
        );
      }
      expect(await orders(o)).toEqual([]);
    }
    const o = await owner('owner@full.example.org', { type: 'ONE_TIME_PAYMENT', seats: 98 });
    const tooMany = await post(o.cookie, '/api/order/add-users', { users: 3, buyer: BUYER });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().violations).toEqual([
      { field: 'users', message: 'A plan has at most 100 users; this one has 98.' },
    ]);
    await createUser(t, {
      email: 'analyst@full.example.org',
      role: 'USER',
      organizationId: o.organizationId,
    });
    const analyst = await login(t, 'analyst@full.example.org');
    expect(
      (await post(analyst, '/api/order/renew', { seatAmount: 1, period: 1, buyer: BUYER })).statusCode,
    ).toBe(403);
    expect(await orders(o)).toEqual([]);
  });
});

describe('the start date of a new plan', () => {
  const selection = [{ productId: 'osint-license', quantity: 1 }];
  const tooFar = { field: 'startDate', message: BILLING_MESSAGES.startDateTooFar };

  it('is at most 12 months ahead, by bank transfer and by card; a refused date leaves nothing behind', async () => {
    const o = await owner('owner@far-start.example.org', { type: 'TRIAL', seats: 1 });
    // "Today" may already be tomorrow east of UTC.
    const latest = addMonths(addDays(utcIsoDate(), 1), 12);
    for (const startDate of [addDays(latest, 1), '2099-01-01', '9999-12-31']) {
      const bank = await post(o.cookie, '/api/order', { seatAmount: 1, startDate, period: 1, buyer: BUYER });
      expect(bank.statusCode, startDate).toBe(400);
      expect(bank.json().violations).toEqual([tooFar]);
      const card = await post(o.cookie, '/api/fastspring/create-session', {
        organizationId: o.organizationId,
        startDate,
        productSelections: selection,
      });
      expect(card.statusCode, startDate).toBe(400);
      expect(card.json().violations).toEqual([tooFar]);
    }
    expect(BILLING_MESSAGES.startDateTooFar).toBe('The start date can be at most 12 months ahead.');
    expect(await orders(o)).toEqual([]);

    // The last day allowed is ordered like any other, and the organization's one pending order is free.
    const accepted = await post(o.cookie, '/api/order', {
      seatAmount: 1,
      startDate: latest,
      period: 1,
      buyer: BUYER,
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await orders(o)).toEqual([expect.objectContaining({ orderStatus: 'PENDING', startDate: latest })]);
  });
});

describe('a new plan while one is billed', () => {
  const newPlan = { seatAmount: 2, startDate: utcIsoDate(), period: 1, buyer: BUYER };
  const cardSession = (o: Owner) =>
    post(o.cookie, '/api/fastspring/create-session', {
      organizationId: o.organizationId,
      startDate: utcIsoDate(),
      productSelections: [{ productId: 'osint-license-subscription', quantity: 1 }],
    });
  async function expectRefused(o: Owner, message: string) {
    for (const response of [await post(o.cookie, '/api/order', newPlan), await cardSession(o)]) {
      expect(response.statusCode, response.body).toBe(409);
      expect(response.json().message).toBe(message);
    }
  }

  it('is refused by bank transfer and by card while a paid plan is in force; renewing and adding users still work', async () => {
    const end = startOfUtcDay(addDays(utcIsoDate(), 20));
    const fixed = await owner('owner@billed-fixed.example.org', { type: 'ONE_TIME_PAYMENT', seats: 2, end });
    await expectRefused(fixed, BILLING_MESSAGES.paidPlanExists);
    expect(await orders(fixed)).toEqual([]);

    const renewal = await post(fixed.cookie, '/api/order/renew', { seatAmount: 2, period: 1, buyer: BUYER });
    expect(renewal.statusCode, renewal.body).toBe(200);
    const [pending] = await orders(fixed);
    expect((await post(fixed.cookie, `/api/order/${pending!.id}/cancel`)).statusCode).toBe(200);
    const added = await post(fixed.cookie, '/api/order/add-users', { users: 1, buyer: BUYER });
    expect(added.statusCode, added.body).toBe(200);
    expect((await orders(fixed)).map((order) => order.orderType)).toEqual(['ADD_USERS', 'RENEWAL']);

    const monthly = await owner('owner@billed-monthly.example.org', {
      type: 'SUBSCRIPTION',
      seats: 1,
      end: new Date(Date.now() + 20 * DAY),
    });
    await expectRefused(monthly, BILLING_MESSAGES.paidPlanExists);
  });

  it('is refused while a paid plan is still to come, or an order waits for payment', async () => {
    const waiting = await owner('owner@billed-future.example.org', { type: 'TRIAL', seats: 1 });
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: waiting.organizationId,
        plan_type: 'ONE_TIME_PAYMENT',
        start_date: startOfUtcDay(addDays(utcIsoDate(), 10)),
        end_date: startOfUtcDay(addMonths(addDays(utcIsoDate(), 10), 1)),
        seat_limit: 2,
      })
      .execute();
    await expectRefused(waiting, BILLING_MESSAGES.paidPlanExists);

    const pending = await owner('owner@billed-pending.example.org', { type: 'TRIAL', seats: 1 });
    expect((await post(pending.cookie, '/api/order', newPlan)).statusCode).toBe(200);
    await expectRefused(pending, BILLING_MESSAGES.orderPending);
  });

  it('is accepted on a trial, after a paid plan expired, and when the next plan was cancelled before it started', async () => {
    const onTrial = await owner('owner@buys-on-trial.example.org', { type: 'TRIAL', seats: 1 });
    expect((await cardSession(onTrial)).statusCode).toBe(200);
    expect((await post(onTrial.cookie, '/api/order', newPlan)).statusCode).toBe(200);

    const expired = await owner('owner@buys-again.example.org', {
      type: 'ONE_TIME_PAYMENT',
      seats: 1,
      end: new Date(Date.now() - 60_000),
    });
    // A plan cancelled before it started has no length and never runs.
    const start = startOfUtcDay(addDays(utcIsoDate(), 5));
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: expired.organizationId,
        plan_type: 'ONE_TIME_PAYMENT',
        start_date: start,
        end_date: start,
        seat_limit: 1,
        ended_at: new Date(),
        end_reason: 'Ordered by mistake',
      })
      .execute();
    expect((await cardSession(expired)).statusCode).toBe(200);
    expect((await post(expired.cookie, '/api/order', newPlan)).statusCode).toBe(200);
  });
});
