import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { LOGIN_MESSAGES } from '@osint/contract/validation';
import { buildApp } from '../../src/app.ts';
import { hashToken } from '../../src/lib/secure-token.ts';
import { createTestApp, sessionCookieOf, type TestApp } from '../support/test-app.ts';
import {
  createUser,
  createUserWithStatus,
  FIXTURE_PASSWORD,
  login,
  sessionCountOf,
} from '../support/fixtures.ts';

const OWNER = 'owner@login.example.org';
const MINUTE = 60_000;

function setCookieHeader(response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie'];
  const all = Array.isArray(header) ? header : header ? [header] : [];
  const session = all.find((c) => /^(__Host-)?osint_session=/.test(c));
  if (!session) throw new Error(`no session Set-Cookie in ${response.statusCode}: ${JSON.stringify(all)}`);
  return session;
}

/** The stored session of a cookie (`osint_session=value`): the database keeps only the hash of the value. */
function sessionIdOf(cookie: string): string {
  return hashToken(cookie.slice(cookie.indexOf('=') + 1));
}

describe('login, sessions and newsletter', () => {
  let t: TestApp;
  let owner: { id: number; organizationId: number };

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createUser(t, { email: OWNER });
    await createUserWithStatus(t, { email: 'unverified@login.example.org', status: 'EMAIL_UNVERIFIED' });
    await createUserWithStatus(t, { email: 'pending@login.example.org', status: 'PENDING_APPROVAL' });
    await createUserWithStatus(t, { email: 'rejected@login.example.org', status: 'REJECTED' });
    await createUserWithStatus(t, { email: 'blocked@login.example.org', status: 'BLOCKED' });
  });
  afterAll(() => t.close());

  const postLogin = (mail: string, password: string) =>
    t.request({ method: 'POST', url: '/api/user/login', payload: { mail, password } });

  describe('login', () => {
    it('signs an approved user in, with any letter case of the address', async () => {
      const response = await postLogin(' Owner@Login.Example.ORG ', FIXTURE_PASSWORD);
      expect(response.statusCode).toBe(200);
      const cookie = sessionCookieOf(response);
      const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
      expect(info.statusCode).toBe(200);
      expect(info.json()).toMatchObject({ email: OWNER, userRole: 'OWNER', admin: false, access: false });
    });

    it('answers a wrong password and an unknown address the same: 401 with the message of the specification', async () => {
      const wrongPassword = await postLogin(OWNER, 'Wrong.Pass1');
      const unknown = await postLogin('nobody@login.example.org', FIXTURE_PASSWORD);
      for (const response of [wrongPassword, unknown]) {
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({
          statusCode: 401,
          error: 'Unauthorized',
          message: 'Wrong e-mail or password. Please check the provided information.',
        });
        expect(response.headers['set-cookie']).toBeUndefined();
      }
      expect(unknown.body).toBe(wrongPassword.body);
    });

    it('refuses an empty or malformed address and an empty password with the sign-in form’s messages (400)', async () => {
      for (const [mail, password, field, message] of [
        ['', FIXTURE_PASSWORD, 'email', LOGIN_MESSAGES.emailRequired],
        ['   ', FIXTURE_PASSWORD, 'email', LOGIN_MESSAGES.emailRequired],
        ['nope', FIXTURE_PASSWORD, 'email', LOGIN_MESSAGES.emailFormat],
        [OWNER, '', 'password', LOGIN_MESSAGES.passwordRequired],
      ] as const) {
        const response = await postLogin(mail, password);
        expect(response.statusCode, `${mail} / ${password}`).toBe(400);
        expect(response.json()).toMatchObject({ message, violations: [{ field, message }] });
        expect(response.headers['set-cookie']).toBeUndefined();
      }
    });

    it('tells an unconfirmed account with the right password to confirm its address, a wrong one nothing', async () => {
      const response = await postLogin('unverified@login.example.org', FIXTURE_PASSWORD);
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toBe(LOGIN_MESSAGES.emailUnverified);
      expect(response.headers['set-cookie']).toBeUndefined();
      const wrong = await postLogin('unverified@login.example.org', 'Wrong.Pass1');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().message).toBe(LOGIN_MESSAGES.wrongCredentials);
    });

    it.each(['pending@login.example.org'])('refuses %s with 403 "still under verification"', async (mail) => {
      const response = await postLogin(mail, FIXTURE_PASSWORD);
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toBe('Your account is still under our verification process.');
      expect(response.json().message).toBe(LOGIN_MESSAGES.notApproved);
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it.each([
      ['rejected@login.example.org', /^Your access request was declined\./],
      ['blocked@login.example.org', /has been blocked\./],
    ])('refuses %s with 403 and no session', async (mail, message) => {
      const response = await postLogin(mail, FIXTURE_PASSWORD);
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toMatch(message);
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('does not reveal the state of an account to a wrong password', async () => {
      const response = await postLogin('blocked@login.example.org', 'Wrong.Pass1');
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toBe(LOGIN_MESSAGES.wrongCredentials);
    });

    it.each([
      ['an empty body', {}],
      ['no password', { mail: OWNER }],
      ['no address', { password: FIXTURE_PASSWORD }],
      ['a password that is not text', { mail: OWNER, password: { $ne: '' } }],
    ])('answers 400 in the error shape for %s', async (_label, payload) => {
      const response = await t.request({ method: 'POST', url: '/api/user/login', payload });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(body.violations.length).toBeGreaterThan(0);
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('answers 400 for a body that is not JSON', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"mail": "owner@login.example.org", "password": ',
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    });

    it('sets the session cookie HttpOnly, SameSite=Lax, for the whole site, not Secure over http', async () => {
      const header = setCookieHeader(await postLogin(OWNER, FIXTURE_PASSWORD));
      expect(header).toMatch(/;\s*HttpOnly/i);
      expect(header).toMatch(/;\s*SameSite=Lax/i);
      expect(header).toMatch(/;\s*Path=\/(;|$)/);
      expect(header).toMatch(/;\s*Max-Age=86400(;|$)/);
      expect(header).not.toMatch(/;\s*Secure/i);
    });

    it('marks the session cookie Secure when PUBLIC_URL is https', async () => {
      const publicUrl = 'https://osint.example.org';
      const https = await buildApp({ ...t.config, publicUrl }, t.db, { logger: false });
      try {
        const response = await https.app.inject({
          method: 'POST',
          url: '/api/user/login',
          headers: { origin: publicUrl },
          payload: { mail: OWNER, password: FIXTURE_PASSWORD },
        });
        expect(response.statusCode).toBe(200);
        const header = setCookieHeader(response);
        expect(header).toMatch(/;\s*Secure/i);
        expect(header).toMatch(/;\s*HttpOnly/i);
        expect(header).toMatch(/;\s*SameSite=Lax/i);
      } finally {
        await https.app.close();
      }
    });
  });

  describe('sessions', () => {
    const userInfo = (cookie: string) => t.request({ method: 'GET', url: '/api/user/user-info', cookie });

    it('stores only a hash of the cookie value', async () => {
      const cookie = await login(t, OWNER);
      const value = cookie.slice(cookie.indexOf('=') + 1);
      expect(Buffer.from(value, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      const rows = await t.db.selectFrom('sessions').select('id').where('user_id', '=', owner.id).execute();
      expect(rows.map((r) => r.id)).toContain(sessionIdOf(cookie));
      expect(rows.map((r) => r.id)).not.toContain(value);
    });

    it('ends the session on logout: the cookie no longer works, other sessions go on', async () => {
      const cookie = await login(t, OWNER);
      const otherDevice = await login(t, OWNER);
      expect((await userInfo(cookie)).statusCode).toBe(200);

      const logout = await t.request({ method: 'POST', url: '/api/user/logout', cookie });
      expect(logout.statusCode).toBe(200);
      expect(setCookieHeader(logout)).toMatch(/osint_session=;|Expires=Thu, 01 Jan 1970/);
      // The browser drops what it kept of the pages seen in the session.
      expect(logout.headers['clear-site-data']).toBe('"cache"');

      const after = await userInfo(cookie);
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      const stored = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionIdOf(cookie))
        .execute();
      expect(stored).toHaveLength(0);
      expect((await userInfo(otherDevice)).statusCode).toBe(200);
    });

    it('ends a session idle for longer than SESSION_IDLE_MINUTES', async () => {
      const cookie = await login(t, OWNER);
      const idleMs = t.config.session.idleMinutes * MINUTE;
      await t.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(Date.now() - idleMs - MINUTE) })
        .where('id', '=', sessionIdOf(cookie))
        .execute();
      expect((await userInfo(cookie)).statusCode).toBe(401);
      // Once refused, the session is gone for good: moving the clock back does not revive it.
      const stored = await t.db
        .selectFrom('sessions')
        .select('id')
        .where('id', '=', sessionIdOf(cookie))
        .execute();
      expect(stored).toHaveLength(0);
    });

    it('keeps a session in use alive: activity just inside the idle limit renews it', async () => {
      const cookie = await login(t, OWNER);
      const idleMs = t.config.session.idleMinutes * MINUTE;
      await t.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(Date.now() - idleMs + MINUTE) })
        .where('id', '=', sessionIdOf(cookie))
        .execute();
      expect((await userInfo(cookie)).statusCode).toBe(200);
      const row = await t.db
        .selectFrom('sessions')
        .select('last_seen_at')
        .where('id', '=', sessionIdOf(cookie))
        .executeTakeFirstOrThrow();
      expect(Date.now() - row.last_seen_at.getTime()).toBeLessThan(MINUTE);
    });

    it('ends a session past its absolute expiry, however active', async () => {
      const cookie = await login(t, OWNER);
      const row = await t.db
        .selectFrom('sessions')
        .select(['created_at', 'expires_at'])
        .where('id', '=', sessionIdOf(cookie))
        .executeTakeFirstOrThrow();
      const lifetimeMs = row.expires_at.getTime() - row.created_at.getTime();
      expect(Math.abs(lifetimeMs - t.config.session.absoluteHours * 3_600_000)).toBeLessThan(MINUTE);

      await t.db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 1000), last_seen_at: new Date() })
        .where('id', '=', sessionIdOf(cookie))
        .execute();
      expect((await userInfo(cookie)).statusCode).toBe(401);
    });

    it.each(['REJECTED', 'BLOCKED'] as const)(
      'ends the sessions of a user who becomes %s',
      async (status) => {
        const email = `${status.toLowerCase()}-later@login.example.org`;
        const user = await createUser(t, { email });
        const cookie = await login(t, email);
        expect((await userInfo(cookie)).statusCode).toBe(200);

        await t.db.updateTable('users').set({ status }).where('id', '=', user.id).execute();
        expect((await userInfo(cookie)).statusCode).toBe(401);
        // Restoring the account does not bring the old session back.
        await t.db.updateTable('users').set({ status: 'ACTIVE' }).where('id', '=', user.id).execute();
        expect((await userInfo(cookie)).statusCode).toBe(401);
        expect(await sessionCountOf(t, user.id)).toBe(0);
      },
    );

    it('ends the sessions of a deleted user', async () => {
      const email = 'deleted-later@login.example.org';
      const user = await createUser(t, { email });
      const cookie = await login(t, email);
      expect((await userInfo(cookie)).statusCode).toBe(200);
      await t.db.deleteFrom('users').where('id', '=', user.id).execute();
      expect((await userInfo(cookie)).statusCode).toBe(401);
    });

    it('answers 401 to a forged or missing cookie', async () => {
      expect((await t.request({ method: 'GET', url: '/api/user/user-info' })).statusCode).toBe(401);
      expect((await userInfo('osint_session=forged-value')).statusCode).toBe(401);
    });
  });

  describe('newsletter', () => {
    it('answers 401 when signed out', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/subscribe_newsletter',
        payload: { subscribed: true },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    });

    it('subscribes the signed-in user', async () => {
      const email = 'reader@login.example.org';
      await createUser(t, { email });
      const cookie = await login(t, email);
      const before = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
      expect(before.json().newsletter).toBe(false);

      const response = await t.request({
        method: 'POST',
        url: '/api/user/subscribe_newsletter',
        payload: { subscribed: true },
        cookie,
      });
      expect(response.statusCode).toBe(200);
      const after = await t.request({ method: 'GET', url: '/api/user/user-info', cookie });
      expect(after.json().newsletter).toBe(true);
      const stored = await t.db
        .selectFrom('users')
        .select('newsletter')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      expect(stored.newsletter).toBe(true);
    });
  });
});
