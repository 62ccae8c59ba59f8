import { startOfUtcDay, utcIsoDate } from '@osint/contract/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createMember, hashedIdOf } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// One rule for "the plan in force" (a paid plan before a trial, then the latest start): access, seat grants,
// the account page and the admin organization pages all follow it. The case that broke it: a trial approved
// today and a fixed period paid today, which starts at 00:00 UTC — earlier than the trial on the same day.

const DAY = 86_400_000;
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
});

describe('the plan in force', () => {
  it('a fixed period paid on the trial’s start day gives its seats at once: account, give access, admin', async () => {
    const email = 'owner@same-day.example.org';
    const owner = await createUser(t, { email });
    const cookie = await login(t, email);
    // The trial started today, after midnight UTC: halfway between 00:00 UTC and now.
    const midnight = startOfUtcDay(utcIsoDate()).getTime();
    const trialStart = new Date(midnight + Math.floor((Date.now() - midnight) / 2) + 1);
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: owner.organizationId,
        plan_type: 'TRIAL',
        start_date: trialStart,
        end_date: new Date(trialStart.getTime() + 7 * DAY),
        seat_limit: 1,
      })
      .execute();
    const analyst = await createMember(t, owner.organizationId, 'analyst@same-day.example.org');

    const ordered = await t.request({
      method: 'POST',
      url: '/api/order',
      cookie,
      payload: {
        seatAmount: 4,
        startDate: utcIsoDate(),
        period: 1,
        buyer: { name: 'Same Day Bureau', street: '1 Road', cityPostcode: '123', city: 'Town', country: 'X' },
      },
    });
    expect(ordered.statusCode, ordered.body).toBe(200);
    const [row] = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .execute();
    const paid = await t.request({
      method: 'POST',
      url: `/api/admin/orders/${row!.id}/mark-paid`,
      cookie: admin,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    const plan = await t.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('order_id', '=', row!.id)
      .executeTakeFirstOrThrow();
    // The paid plan starts before the trial on the same day: "started last" alone would pick the trial.
    expect(plan.start_date.getTime()).toBe(midnight);
    expect(plan.start_date.getTime()).toBeLessThan(trialStart.getTime());

    // The account page: the paid plan and its seats.
    const plans = await t.request({ method: 'GET', url: '/api/user/organization/all-billing-plans', cookie });
    expect(plans.json().activeBillingPlan).toMatchObject({
      planType: 'ONE_TIME_PAYMENT',
      seatLimit: 4,
      usedSeats: 1,
    });
    const organization = await t.request({ method: 'GET', url: '/api/user/organization', cookie });
    expect(organization.json().activeBillingPlan).toMatchObject({
      planType: 'ONE_TIME_PAYMENT',
      seatLimit: 4,
    });

    // "Give access" counts against the paid plan's 4 seats, not the trial's 1.
    const give = await t.request({
      method: 'POST',
      url: '/api/user/give',
      cookie,
      payload: { userHashedId: await hashedIdOf(t, analyst.id), organizationId: owner.organizationId },
    });
    expect(give.statusCode, give.body).toBe(200);
    const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie: analyst.cookie });
    expect(info.json()).toMatchObject({ access: true, restricted: false });

    // The admin organization page and list show the paid plan as the one in force, with its seats.
    const detail = await t.request({
      method: 'GET',
      url: `/api/admin/organizations/${owner.organizationId}`,
      cookie: admin,
    });
    expect(detail.json().seats).toEqual({ used: 2, limit: 4 });
    const states = detail.json<{ plans: { planType: string; state: string }[] }>().plans;
    expect(states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ planType: 'ONE_TIME_PAYMENT', state: 'ACTIVE' }),
        expect.objectContaining({ planType: 'TRIAL', state: 'SUPERSEDED' }),
      ]),
    );
    const list = await t.request({
      method: 'GET',
      url: `/api/admin/organizations?search=same-day.example.org`,
      cookie: admin,
    });
    expect(list.json().results).toEqual([
      expect.objectContaining({
        plan: expect.objectContaining({ planType: 'ONE_TIME_PAYMENT' }),
        seats: { used: 2, limit: 4 },
      }),
    ]);
  });
});
