import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MESSAGES, REGISTER_MESSAGES } from '@osint/contract/validation';
import { createTestApp, sessionCookieOf, type TestApp } from '../support/test-app.ts';
import { linkIn, waitForMail } from '../support/outbox.ts';
import { createAdmin, registrationBody } from '../support/fixtures.ts';

const PASSWORD = 'Correct.Horse1';

function registration(mail: string) {
  return {
    mail,
    password: PASSWORD,
    organizationName: 'Harbour Police Department',
    organizationLink: 'https://harbour-police.example.org',
    organizationType: 'police',
    newsletter: true,
  };
}

describe('registration, e-mail confirmation, approval and sign-in', () => {
  let t: TestApp;
  let adminCookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    adminCookie = await createAdmin(t);
  });
  afterAll(() => t.close());

  it('takes a registration through confirmation and approval to a signed-in owner on trial', async () => {
    const mail = 'chief@harbour-police.example.org';
    const registered = await t.request({
      method: 'POST',
      url: '/api/user/register',
      payload: registration(mail),
    });
    expect(registered.statusCode).toBe(201);

    const refused = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail, password: PASSWORD },
    });
    expect(refused.statusCode).toBe(403);
    // Unconfirmed: the login page offers to send the link again.
    expect(refused.json().message).toBe(LOGIN_MESSAGES.emailUnverified);

    const message = await waitForMail(t.config.dataDir, mail, /confirm/i);
    const link = linkIn(message, `${t.config.publicUrl}/verify-email/`);
    const hash = link.split('/').pop()!;
    expect((await t.request({ method: 'POST', url: `/api/user/validate/${hash}` })).statusCode).toBe(200);
    // A second click on the same link answers 409, which the page treats as success.
    expect((await t.request({ method: 'POST', url: `/api/user/validate/${hash}` })).statusCode).toBe(409);

    const stillPending = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail, password: PASSWORD },
    });
    expect(stillPending.statusCode).toBe(403);

    const pending = await t.request({
      method: 'GET',
      url: '/api/admin/users?status=PENDING',
      cookie: adminCookie,
    });
    expect(pending.statusCode).toBe(200);
    const row = pending.json<{ id: number; email: string }[]>().find((u) => u.email === mail);
    expect(row).toBeDefined();

    const approved = await t.request({
      method: 'POST',
      url: `/api/admin/users/${row!.id}/approve`,
      cookie: adminCookie,
    });
    expect(approved.statusCode).toBe(200);
    await waitForMail(t.config.dataDir, mail, /approved/i);

    const login = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail, password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
    const cookie = sessionCookieOf(login);
    const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
    expect(info.json()).toMatchObject({ access: true, userRole: 'OWNER', admin: false, isOwner: true });
    const organization = await t.request({ method: 'GET', url: '/api/user/organization', cookie });
    expect(organization.json().activeBillingPlan).toMatchObject({ planType: 'TRIAL', seatLimit: 1 });
    const plan = organization.json().activeBillingPlan as { startDate: string; endDate: string };
    expect(Date.parse(plan.endDate) - Date.parse(plan.startDate)).toBe(7 * 86_400_000);

    expect((await t.request({ method: 'POST', url: '/api/user/logout', cookie })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/api/user/user-info', cookie })).statusCode).toBe(401);
  });

  it('answers 400 with the field errors of the specification', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/user/register',
      payload: {
        mail: 'someone@Gmail.com',
        password: 'short',
        organizationName: ' ',
        organizationLink: 'not a url',
        organizationType: '',
      },
    });
    expect(response.statusCode).toBe(400);
    const violations = response.json<{ violations: { field: string; message: string }[] }>().violations;
    expect(violations).toEqual(
      expect.arrayContaining([
        {
          field: 'email',
          message: "We don't support emails from 'gmail.com'. Please use a different email provider.",
        },
        { field: 'organizationName', message: REGISTER_MESSAGES.organizationNameRequired },
        { field: 'organizationUrl', message: REGISTER_MESSAGES.linkFormat },
        { field: 'organizationType', message: REGISTER_MESSAGES.typeRequired },
      ]),
    );
  });

  it('refuses the fully-qualified form of an address (trailing dot), which would be a second account of one mailbox', async () => {
    const usersBefore = (await t.db.selectFrom('users').select('id').execute()).length;
    for (const mail of ['someone@registered.example.org.', 'someone@registered.example.org..']) {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/register',
        payload: registrationBody(mail),
      });
      expect(response.statusCode, mail).toBe(400);
      expect(response.json().violations).toEqual([
        { field: 'email', message: REGISTER_MESSAGES.emailFormat },
      ]);
    }
    expect((await t.db.selectFrom('users').select('id').execute()).length).toBe(usersBefore);
  });

  it('refuses a state-changing call from another origin', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      headers: { origin: 'https://evil.example' },
      payload: { mail: 'a@b.org', password: 'x' },
    });
    expect(response.statusCode).toBe(403);
  });
});
