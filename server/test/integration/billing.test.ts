import { formatDay } from '@osint/contract/dates';
import { addDays, addMonths, utcIsoDate } from '@osint/contract/pricing';
import { REPORTS_BUSY_MESSAGE } from '@osint/contract/constants';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS_PER_ORGANIZATION } from '../../src/services/report-renderer.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { pdfText } from '../support/pdf-text.ts';

// Bank transfer with a proforma invoice, plans and access (spec 001 §2, §3, §4, §5, §7): the invoice is
// read back with pdftotext; access rules are checked through the search API, which refuses before it
// looks at the face (a made-up face hash answers 400 to a user with access and 403 to one without).

const DAY = 86_400_000;
let t: TestApp;
let admin: string;

const BUYER = {
  name: 'Harbour Police Department',
  street: '1 Quay Road',
  cityPostcode: '12-345',
  city: 'Port Town',
  country: 'Freedonia',
};

async function ownerWithPlan(
  email: string,
  plan?: { type: 'TRIAL' | 'SUBSCRIPTION'; from: number; to: number; seats: number },
) {
  const user = await createUser(t, { email });
  if (plan)
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: user.organizationId,
        plan_type: plan.type,
        start_date: new Date(plan.from),
        end_date: new Date(plan.to),
        seat_limit: plan.seats,
      })
      .execute();
  return { ...user, cookie: await login(t, email) };
}

/**
 * Holds every report place of the organization through the real admission (as reports being drawn would)
 * until the returned function is called; it resolves once they are given back.
 */
function holdEveryReportPlace(organizationId: number): () => Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const places = REPORTS_PER_ORGANIZATION.running + REPORTS_PER_ORGANIZATION.queued;
  const holders = Array.from({ length: places }, () =>
    t.container.services.reports.admit(organizationId, () => held),
  );
  return async () => {
    release();
    await Promise.all(holders);
  };
}

const trial = () => ({ type: 'TRIAL' as const, from: Date.now() - DAY, to: Date.now() + 6 * DAY, seats: 1 });

function order(cookie: string, body: Record<string, unknown> = {}) {
  return t.request({
    method: 'POST',
    url: '/api/order',
    cookie,
    payload: { seatAmount: 4, startDate: utcIsoDate(), period: 3, buyer: BUYER, ...body },
  });
}

/** 400 = the search ran past the access check (and found no such face); 403 = no access. */
async function searchStatus(cookie: string): Promise<number> {
  const response = await t.request({
    method: 'POST',
    url: '/api/search',
    cookie,
    payload: { faces: ['no-such-face'], type: 'OSINT' },
  });
  return response.statusCode;
}

async function userInfo(cookie: string) {
  return (await t.request({ method: 'GET', url: '/api/user/user-info', cookie })).json<{
    access: boolean;
    restricted: boolean;
  }>();
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
});

describe('bank transfer order', () => {
  it('creates a PENDING order and answers the proforma invoice showing 750 USD for 3 months × 4 users', async () => {
    const owner = await ownerWithPlan('owner@bank.example.org', trial());
    const response = await order(owner.cookie);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    const disposition = String(response.headers['content-disposition']);
    expect(disposition).toMatch(/^attachment; filename="proforma-invoice-\d{4}-\d{6}\.pdf"$/);

    const text = pdfText(response.rawPayload);
    const orderNumber = /proforma-invoice-(\d{4}-\d{6})\.pdf/.exec(disposition)![1]!;
    expect(text).toContain('PROFORMA INVOICE');
    expect(text).toContain(`Order number: ${orderNumber}`);
    expect(text).toContain(`Invoice number: PF-${orderNumber}`);
    expect(text).toContain('$750 USD');
    expect(text).toContain('$300 ($100 × 3 months, first user included)');
    expect(text).toContain('$450 (3 × $50 × 3 months)');
    expect(text).toContain('OSINT, 3 months, Harbour Police Department');
    expect(text).toContain('OSINT Platform Ltd.');
    expect(text).toContain('12-345 Port Town');
    expect(text).toContain('Freedonia');
    expect(text).toContain(t.config.billing.bank.accountNumber);
    expect(text).toContain(formatDay(addMonths(utcIsoDate(), 3)));
    expect(text).not.toMatch(/\$100 per (additional )?user/i);

    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: owner.cookie,
    });
    expect(orders.json()).toEqual([
      expect.objectContaining({
        orderNumber,
        orderStatus: 'PENDING',
        paymentMethod: 'BANK_TRANSFER',
        amount: 750,
        basePrice: 300,
        additionalUserFee: 450,
        seatLimit: 4,
        months: 3,
        startDate: utcIsoDate(),
        endDate: addMonths(utcIsoDate(), 3),
      }),
    ]);

    // One order waits for payment at a time.
    const second = await order(owner.cookie, { seatAmount: 2 });
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe('An order of your organization is already waiting for payment.');

    // The invoice downloads again; for anyone else there is "No order found."
    const { id } = orders.json<{ id: number }[]>()[0]!;
    const again = await t.request({
      method: 'GET',
      url: `/api/order/download-invoice/${id}`,
      cookie: owner.cookie,
    });
    expect(again.statusCode).toBe(200);
    expect(pdfText(again.rawPayload)).toContain('$750 USD');
    const stranger = await ownerWithPlan('owner@stranger.example.org', trial());
    for (const [cookie, orderId] of [
      [stranger.cookie, id],
      [owner.cookie, id + 1000],
    ] as const) {
      const missing = await t.request({
        method: 'GET',
        url: `/api/order/download-invoice/${orderId}`,
        cookie,
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().message).toBe('No order found.');
    }
    expect(
      (
        await t.request({ method: 'GET', url: '/api/user/organization/orders', cookie: stranger.cookie })
      ).json(),
    ).toEqual([]);
  });

  it('validates the buyer as spec 001 §5 says, with field violations', async () => {
    const owner = await ownerWithPlan('owner@validation.example.org', trial());
    const response = await order(owner.cookie, {
      buyer: { ...BUYER, name: '   ', cityPostcode: 'AB 1', country: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().violations).toEqual([
      { field: 'buyer.name', message: 'Organisation is required' },
      { field: 'buyer.cityPostcode', message: 'Postal code must contain only numbers' },
      { field: 'buyer.country', message: 'Country is required' },
    ]);
    const past = await order(owner.cookie, { startDate: addDays(utcIsoDate(), -3) });
    expect(past.json().violations).toEqual([
      { field: 'startDate', message: 'The start date cannot be in the past.' },
    ]);
    for (const body of [
      { seatAmount: 0 },
      { seatAmount: 101 },
      { period: 13 },
      { period: 0 },
      { seatAmount: 2.5 },
    ]) {
      expect((await order(owner.cookie, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(
      await t.db
        .selectFrom('orders')
        .select('id')
        .where('organization_id', '=', owner.organizationId)
        .execute(),
    ).toEqual([]);

    // The postal code is not required (spec 001 §5 names the other four): left blank, the order is placed
    // and the invoice prints the city alone.
    const noPostcode = await order(owner.cookie, { buyer: { ...BUYER, cityPostcode: '  ' } });
    expect(noPostcode.statusCode, noPostcode.body).toBe(200);
    // With -layout the buyer is the right-hand column: the line ends with the city, nothing before it.
    expect(pdfText(noPostcode.rawPayload)).toMatch(/ {2}Port Town\n/);
  });

  it("draws invoices in the report workers, under the organization's report places", async () => {
    const owner = await ownerWithPlan('owner@busy-invoices.example.org', trial());
    const release = holdEveryReportPlace(owner.organizationId);
    // Refused before the order is stored: nothing is left behind for a second try to collide with.
    const refused = await order(owner.cookie, { buyer: { ...BUYER, name: '東京湾岸警察署' } });
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json().message).toBe(REPORTS_BUSY_MESSAGE);
    const list = () =>
      t.request({ method: 'GET', url: '/api/user/organization/orders', cookie: owner.cookie });
    expect((await list()).json()).toEqual([]);

    await release();
    const placed = await order(owner.cookie, { buyer: { ...BUYER, name: '東京湾岸警察署' } });
    expect(placed.statusCode, placed.body).toBe(200);
    expect(placed.headers['content-type']).toBe('application/pdf');
    const text = pdfText(placed.rawPayload);
    expect(text).toContain('PROFORMA INVOICE');
    expect(text).toContain('東京湾岸警察署');
    const [stored] = (await list()).json<{ id: number }[]>();

    // Downloading it again takes a place too.
    const releaseAgain = holdEveryReportPlace(owner.organizationId);
    const download = () =>
      t.request({ method: 'GET', url: `/api/order/download-invoice/${stored!.id}`, cookie: owner.cookie });
    expect((await download()).statusCode).toBe(429);
    await releaseAgain();
    expect((await download()).statusCode).toBe(200);
  });

  it('is for owners only', async () => {
    const owner = await ownerWithPlan('owner@owners-only.example.org', trial());
    await createUser(t, {
      email: 'analyst@owners-only.example.org',
      role: 'USER',
      organizationId: owner.organizationId,
    });
    const analyst = await login(t, 'analyst@owners-only.example.org');
    expect((await order(analyst)).statusCode).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/user/organization/orders', cookie: analyst })).statusCode,
    ).toBe(403);
  });
});

describe('admin marks a bank transfer as paid', () => {
  it('completes the order and creates the ONE_TIME_PAYMENT plan that replaces the trial, once', async () => {
    const owner = await ownerWithPlan('owner@mark-paid.example.org', trial());
    expect((await order(owner.cookie)).statusCode).toBe(200);
    const list = await t.request({
      method: 'GET',
      url: '/api/admin/orders?status=PENDING&search=mark-paid',
      cookie: admin,
    });
    expect(list.statusCode).toBe(200);
    const pending =
      list.json<{ id: number; orderStatus: string; amount: number; organization: { id: number } }[]>();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      orderStatus: 'PENDING',
      amount: 750,
      organization: { id: owner.organizationId },
    });
    const id = pending[0]!.id;

    expect(
      (await t.request({ method: 'POST', url: `/api/admin/orders/${id}/mark-paid`, cookie: owner.cookie }))
        .statusCode,
    ).toBe(403);

    // Two admins click at the same moment: one wins, the other is told.
    const clicks = await Promise.all([
      t.request({ method: 'POST', url: `/api/admin/orders/${id}/mark-paid`, cookie: admin }),
      t.request({ method: 'POST', url: `/api/admin/orders/${id}/mark-paid`, cookie: admin }),
    ]);
    expect(clicks.map((c) => c.statusCode).sort()).toEqual([200, 409]);
    const detail = clicks.find((c) => c.statusCode === 200)!.json();
    expect(detail).toMatchObject({
      orderStatus: 'COMPLETED',
      plan: { planType: 'ONE_TIME_PAYMENT', seatLimit: 4 },
    });
    expect(detail.payments).toEqual([expect.objectContaining({ source: 'BANK_TRANSFER', amount: 750 })]);

    const plans = await t.request({
      method: 'GET',
      url: '/api/user/organization/all-billing-plans',
      cookie: owner.cookie,
    });
    expect(plans.json().activeBillingPlan).toMatchObject({
      planType: 'ONE_TIME_PAYMENT',
      seatLimit: 4,
      usedSeats: 1,
    });
    expect(plans.json().activeBillingPlan.endDate.slice(0, 10)).toBe(addMonths(utcIsoDate(), 3));
    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: owner.cookie,
    });
    expect(orders.json()[0]).toMatchObject({ orderStatus: 'COMPLETED' });
    expect(await userInfo(owner.cookie)).toMatchObject({ access: true, restricted: false });

    const payments = await t.request({
      method: 'GET',
      url: '/api/admin/payments?source=BANK_TRANSFER',
      cookie: admin,
    });
    expect(payments.json()).toEqual([
      expect.objectContaining({ orderId: id, amount: 750, outcome: 'PROCESSED' }),
    ]);
    const invoice = await t.request({ method: 'GET', url: `/api/admin/orders/${id}/invoice`, cookie: admin });
    expect(pdfText(invoice.rawPayload)).toContain('$750 USD');
  });

  it('a plan ordered for a later start is the future plan until its day; the sweep then tells the owner', async () => {
    const owner = await ownerWithPlan('owner@future.example.org', trial());
    const start = addDays(utcIsoDate(), 10);
    expect((await order(owner.cookie, { startDate: start, period: 1, seatAmount: 2 })).statusCode).toBe(200);
    const [row] = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .execute();
    expect(
      (await t.request({ method: 'POST', url: `/api/admin/orders/${row!.id}/mark-paid`, cookie: admin }))
        .statusCode,
    ).toBe(200);
    const plans = (
      await t.request({
        method: 'GET',
        url: '/api/user/organization/all-billing-plans',
        cookie: owner.cookie,
      })
    ).json();
    expect(plans.activeBillingPlan.planType).toBe('TRIAL');
    expect(plans.futureBillingPlan).toMatchObject({ planType: 'ONE_TIME_PAYMENT', seatLimit: 2 });
    expect(plans.futureBillingPlan.startDate.slice(0, 10)).toBe(start);

    // Eleven days on, "active" follows the dates by itself; the sweep only sends the notice, once.
    const later = new Date(Date.now() + 11 * DAY);
    const billing = t.container.services.billing;
    const first = await billing.sweepPlans(later);
    expect(first.activated).toBeGreaterThanOrEqual(1);
    expect((await billing.sweepPlans(later)).activated).toBe(0);
    const active = await t.container.repositories.plans.findActive(owner.organizationId, later);
    expect(active).toMatchObject({ plan_type: 'ONE_TIME_PAYMENT', seat_limit: 2 });
  });
});

describe('access rules on the server', () => {
  it('a trial is restricted, an active paid plan is not, no plan means no search', async () => {
    const onTrial = await ownerWithPlan('owner@trial-access.example.org', trial());
    expect(await userInfo(onTrial.cookie)).toMatchObject({ access: true, restricted: true });
    expect(await searchStatus(onTrial.cookie)).toBe(400);

    const expired = await ownerWithPlan('owner@expired-access.example.org', {
      type: 'SUBSCRIPTION',
      from: Date.now() - 40 * DAY,
      to: Date.now() - DAY,
      seats: 5,
    });
    expect(await userInfo(expired.cookie)).toMatchObject({ access: false });
    expect(await searchStatus(expired.cookie)).toBe(403);
    const plans = (
      await t.request({
        method: 'GET',
        url: '/api/user/organization/all-billing-plans',
        cookie: expired.cookie,
      })
    ).json();
    expect(plans).toMatchObject({
      activeBillingPlan: null,
      futureBillingPlan: null,
      expiredBillingPlan: { planType: 'SUBSCRIPTION' },
    });

    const none = await ownerWithPlan('owner@no-plan.example.org');
    expect(await searchStatus(none.cookie)).toBe(403);
  });

  it('seat limits hold: only as many users as the plan has seats may search, the owner first', async () => {
    const owner = await ownerWithPlan('owner@seats.example.org', {
      type: 'SUBSCRIPTION',
      from: Date.now() - DAY,
      to: Date.now() + 20 * DAY,
      seats: 2,
    });
    const members = [];
    for (const name of ['first', 'second', 'third']) {
      await createUser(t, {
        email: `${name}@seats.example.org`,
        role: 'USER',
        organizationId: owner.organizationId,
      });
      members.push(await login(t, `${name}@seats.example.org`));
    }
    expect(await searchStatus(owner.cookie)).toBe(400);
    expect(await searchStatus(members[0]!)).toBe(400);
    expect(await searchStatus(members[1]!)).toBe(403);
    expect(await searchStatus(members[2]!)).toBe(403);
    const plans = (
      await t.request({
        method: 'GET',
        url: '/api/user/organization/all-billing-plans',
        cookie: owner.cookie,
      })
    ).json();
    expect(plans.activeBillingPlan).toMatchObject({ seatLimit: 2, usedSeats: 2 });

    // A bigger plan the provider grants takes over: four seats. (The owner cannot buy a second plan
    // while this one runs.)
    expect((await order(owner.cookie, { seatAmount: 4, period: 1 })).statusCode).toBe(409);
    const granted = await t.request({
      method: 'POST',
      url: `/api/admin/organizations/${owner.organizationId}/billing-plans`,
      cookie: admin,
      payload: {
        planType: 'VIRTUAL',
        startDate: new Date().toISOString(),
        endDate: new Date(Date.now() + 30 * DAY).toISOString(),
        seatLimit: 4,
      },
    });
    expect(granted.statusCode, granted.body).toBe(201);
    for (const cookie of members) expect(await searchStatus(cookie)).toBe(400);
  });
});
