import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_USER_MESSAGES } from '@osint/contract/admin';
import { TRIAL_DAYS } from '@osint/contract/constants';
import { LOGIN_MESSAGES } from '@osint/contract/validation';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import {
  createAdmin,
  createUser,
  createUserWithStatus,
  findUserByEmail,
  FIXTURE_PASSWORD,
  login,
  mailJobsTo,
  waitForMails,
} from '../support/fixtures.ts';

const DAY = 86_400_000;

interface Row {
  id: number;
  email: string;
  status: string;
  organization: { id: number; name: string };
}

describe('admin review of registrations', () => {
  let t: TestApp;
  let adminCookie: string;
  let memberCookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    adminCookie = await createAdmin(t);
    await createUser(t, { email: 'member@customer.example.org' });
    memberCookie = await login(t, 'member@customer.example.org');
  });
  afterAll(() => t.close());

  const approve = (id: number, cookie?: string) =>
    t.request({ method: 'POST', url: `/api/admin/users/${id}/approve`, cookie });
  const reject = (id: number, cookie?: string) =>
    t.request({ method: 'POST', url: `/api/admin/users/${id}/reject`, cookie });
  const plansOf = (organizationId: number) =>
    t.db.selectFrom('billing_plans').selectAll().where('organization_id', '=', organizationId).execute();
  const loginAs = (mail: string) =>
    t.request({ method: 'POST', url: '/api/user/login', payload: { mail, password: FIXTURE_PASSWORD } });

  it('answers 401 when signed out and 403 to a non-admin, and changes nothing', async () => {
    const applicant = await createUserWithStatus(t, {
      email: 'guarded@applicant.example.org',
      status: 'PENDING_APPROVAL',
    });
    const calls = [
      () => t.request({ method: 'GET', url: '/api/admin/users' }),
      () => approve(applicant.id),
      () => reject(applicant.id),
    ];
    for (const call of calls) {
      const response = await call();
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
    const memberCalls = [
      () => t.request({ method: 'GET', url: '/api/admin/users', cookie: memberCookie }),
      () => approve(applicant.id, memberCookie),
      () => reject(applicant.id, memberCookie),
    ];
    for (const call of memberCalls) {
      const response = await call();
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    }
    expect((await findUserByEmail(t, 'guarded@applicant.example.org'))!.status).toBe('PENDING_APPROVAL');
    expect(await plansOf(applicant.organizationId)).toHaveLength(0);
    expect(await mailJobsTo(t, 'guarded@applicant.example.org')).toHaveLength(0);
  });

  it('approves a registration: the owner signs in, with the 7-day trial for one seat, and is told by e-mail', async () => {
    const email = 'approved@applicant.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'PENDING_APPROVAL' });
    await t.db.updateTable('users').set({ has_access: false }).where('id', '=', applicant.id).execute();
    expect((await loginAs(email)).statusCode).toBe(403);

    const response = await approve(applicant.id, adminCookie);
    expect(response.statusCode).toBe(200);

    const user = (await findUserByEmail(t, email))!;
    expect(user.status).toBe('ACTIVE');
    expect(user.has_access).toBe(true);
    expect(user.approved_at).not.toBeNull();
    const plans = await plansOf(applicant.organizationId);
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ plan_type: 'TRIAL', seat_limit: 1 });
    expect(plans[0]!.end_date.getTime() - plans[0]!.start_date.getTime()).toBe(TRIAL_DAYS * DAY);
    expect(Math.abs(plans[0]!.start_date.getTime() - Date.now())).toBeLessThan(60_000);

    const [mail] = await waitForMails(t, email, /approved/i, 1);
    expect(mail!.raw).toContain(`${t.config.publicUrl}/login`);

    const signedIn = await loginAs(email);
    expect(signedIn.statusCode).toBe(200);
    const cookie = signedIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
    expect(info.json()).toMatchObject({ access: true, userRole: 'OWNER' });
  });

  it('answers 409 to approving twice, without a second trial or a second e-mail', async () => {
    const email = 'twice@applicant.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'PENDING_APPROVAL' });
    expect((await approve(applicant.id, adminCookie)).statusCode).toBe(200);
    const again = await approve(applicant.id, adminCookie);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
    expect(await plansOf(applicant.organizationId)).toHaveLength(1);
    expect(await mailJobsTo(t, email)).toHaveLength(1);
  });

  it('gives no new trial to an organization that already had a plan', async () => {
    const email = 'returning@applicant.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'PENDING_APPROVAL' });
    await t.db
      .insertInto('billing_plans')
      .values({
        organization_id: applicant.organizationId,
        plan_type: 'TRIAL',
        start_date: new Date(Date.now() - 40 * DAY),
        end_date: new Date(Date.now() - 33 * DAY),
        seat_limit: 1,
      })
      .execute();

    expect((await approve(applicant.id, adminCookie)).statusCode).toBe(200);
    const plans = await plansOf(applicant.organizationId);
    expect(plans).toHaveLength(1);
    expect(plans[0]!.end_date.getTime()).toBeLessThan(Date.now());
    expect((await findUserByEmail(t, email))!.status).toBe('ACTIVE');
  });

  it('answers 404 for an unknown user', async () => {
    expect((await approve(999_999, adminCookie)).statusCode).toBe(404);
    expect((await reject(999_999, adminCookie)).statusCode).toBe(404);
  });

  it('rejects a registration: the owner is told by e-mail and cannot sign in; a second rejection is 409', async () => {
    const email = 'rejected@applicant.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'PENDING_APPROVAL' });
    const response = await reject(applicant.id, adminCookie);
    expect(response.statusCode).toBe(200);
    expect((await findUserByEmail(t, email))!.status).toBe('REJECTED');
    expect(await plansOf(applicant.organizationId)).toHaveLength(0);

    const [mail] = await waitForMails(t, email, /access request/i, 1);
    expect(mail!.raw).toMatch(/declined/);

    const refused = await loginAs(email);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).not.toBe(LOGIN_MESSAGES.notApproved);
    expect((await reject(applicant.id, adminCookie)).statusCode).toBe(409);
  });

  it('does not reject an approved account', async () => {
    const active = await createUser(t, { email: 'customer@active.example.org' });
    expect((await reject(active.id, adminCookie)).statusCode).toBe(409);
    expect((await findUserByEmail(t, 'customer@active.example.org'))!.status).toBe('ACTIVE');
  });

  it("neither approves nor rejects an address never confirmed (409), and changes nothing: registering someone else's address gets no account", async () => {
    const email = 'victim@unconfirmed.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'EMAIL_UNVERIFIED' });
    const approved = await approve(applicant.id, adminCookie);
    expect(approved.statusCode).toBe(409);
    expect(approved.json()).toMatchObject({ message: ADMIN_USER_MESSAGES.emailNotConfirmed });
    const rejected = await reject(applicant.id, adminCookie);
    expect(rejected.statusCode).toBe(409);
    expect(rejected.json()).toMatchObject({ message: ADMIN_USER_MESSAGES.cannotRejectState });
    expect(await findUserByEmail(t, email)).toMatchObject({ status: 'EMAIL_UNVERIFIED', approved_at: null });
    expect(await plansOf(applicant.organizationId)).toHaveLength(0);
    expect(await mailJobsTo(t, email)).toHaveLength(0);
    expect((await loginAs(email)).statusCode).toBe(403);
  });

  it('approves a rejected registration later only when its e-mail was confirmed', async () => {
    const unconfirmed = await createUserWithStatus(t, {
      email: 'rejected-unconfirmed@applicant.example.org',
      status: 'REJECTED',
    });
    const refused = await approve(unconfirmed.id, adminCookie);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ message: ADMIN_USER_MESSAGES.emailNotConfirmed });
    expect((await findUserByEmail(t, 'rejected-unconfirmed@applicant.example.org'))!.status).toBe('REJECTED');
    expect(await plansOf(unconfirmed.organizationId)).toHaveLength(0);

    const email = 'reconsidered@applicant.example.org';
    const applicant = await createUserWithStatus(t, { email, status: 'PENDING_APPROVAL' });
    await t.db
      .updateTable('users')
      .set({ email_verified_at: new Date() })
      .where('id', '=', applicant.id)
      .execute();
    expect((await reject(applicant.id, adminCookie)).statusCode).toBe(200);
    expect((await approve(applicant.id, adminCookie)).statusCode).toBe(200);
    expect((await findUserByEmail(t, email))!.status).toBe('ACTIVE');
    expect((await loginAs(email)).statusCode).toBe(200);
  });

  it('lists pending registrations with id and email, and puts them first in the full list', async () => {
    const pendingOld = await createUserWithStatus(t, {
      email: 'first@waiting.example.org',
      status: 'PENDING_APPROVAL',
    });
    await createUserWithStatus(t, { email: 'unconfirmed@waiting.example.org', status: 'EMAIL_UNVERIFIED' });
    const pendingNew = await createUserWithStatus(t, {
      email: 'second@waiting.example.org',
      status: 'PENDING_APPROVAL',
    });
    // Newer than every pending registration: only the pending-first rule keeps it below them.
    await createUser(t, { email: 'newest@active.example.org' });

    const pending = await t.request({
      method: 'GET',
      url: '/api/admin/users?status=PENDING',
      cookie: adminCookie,
    });
    expect(pending.statusCode).toBe(200);
    const rows = pending.json<Row[]>();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((row) => row.status === 'PENDING_APPROVAL')).toBe(true);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: pendingOld.id, email: 'first@waiting.example.org' }),
        expect.objectContaining({ id: pendingNew.id, email: 'second@waiting.example.org' }),
      ]),
    );
    const pendingInDb = await t.db
      .selectFrom('users')
      .select('id')
      .where('status', '=', 'PENDING_APPROVAL')
      .execute();
    expect(rows.map((row) => row.id).sort()).toEqual(pendingInDb.map((row) => row.id).sort());

    const all = (await t.request({ method: 'GET', url: '/api/admin/users', cookie: adminCookie })).json<
      Row[]
    >();
    const allInDb = await t.db.selectFrom('users').select('id').execute();
    expect(all).toHaveLength(allInDb.length);
    const statuses = all.map((row) => row.status);
    const lastPending = statuses.lastIndexOf('PENDING_APPROVAL');
    const firstOther = statuses.findIndex((status) => status !== 'PENDING_APPROVAL');
    expect(lastPending).toBeLessThan(firstOther);
    expect(all.find((row) => row.email === 'newest@active.example.org')!.organization.name).toBe(
      'Org of newest@active.example.org',
    );
  });
});
