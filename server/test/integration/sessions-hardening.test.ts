import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/lib/secure-token.ts';
import { createUser, FIXTURE_PASSWORD, login } from '../support/fixtures.ts';
import { createTestApp, sessionCookieOf, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Session attacks the other session tests (login-sessions, password-reset, team, rate-limits) do not
// cover: fixation, a session carried into sign-in, and whether the sign-in limits can lock a person out
// for longer than their window.

const MINUTE = 60_000;

describe(`sessions (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { enabled: true } });
    for (const email of [
      'victim@sessions.example.org',
      'attacker@sessions.example.org',
      'locked@sessions.example.org',
    ])
      await createUser(t, { email });
  });
  afterAll(() => t.close());

  const userInfo = (cookie: string) => t.request({ method: 'GET', url: '/api/user/user-info', cookie });
  const loginWith = (mail: string, password: string, cookie?: string, ip = '198.51.100.1') =>
    t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail, password },
      remoteAddress: ip,
      ...(cookie ? { cookie } : {}),
    });

  it('fixation: a cookie value chosen before sign-in is replaced, and never becomes a session', async () => {
    const planted = 'osint_session=AttackerChosenValue0123456789abcdefABCDEF';
    const response = await loginWith('victim@sessions.example.org', FIXTURE_PASSWORD, planted);
    expect(response.statusCode).toBe(200);
    const issued = sessionCookieOf(response);
    expect(issued).not.toBe(planted);
    expect((await userInfo(issued)).json().email).toBe('victim@sessions.example.org');
    expect((await userInfo(planted)).statusCode).toBe(401);
    const stored = await t.db
      .selectFrom('sessions')
      .select('id')
      .where('id', '=', hashToken('AttackerChosenValue0123456789abcdefABCDEF'))
      .execute();
    expect(stored).toHaveLength(0);
  });

  it('a valid session carried into sign-in (planted or left over) ends; only the new one works', async () => {
    const attackers = await login(t, 'attacker@sessions.example.org');
    expect((await userInfo(attackers)).statusCode).toBe(200);
    const response = await loginWith('victim@sessions.example.org', FIXTURE_PASSWORD, attackers);
    expect(response.statusCode).toBe(200);
    const victims = sessionCookieOf(response);
    expect(victims).not.toBe(attackers);
    expect((await userInfo(attackers)).statusCode).toBe(401);
    expect((await userInfo(victims)).json().email).toBe('victim@sessions.example.org');
  });

  it('a failed sign-in leaves the carried session alone', async () => {
    const cookie = await login(t, 'attacker@sessions.example.org');
    const failed = await loginWith('victim@sessions.example.org', 'Wrong.Password1', cookie, '198.51.100.2');
    expect(failed.statusCode).toBe(401);
    expect((await userInfo(cookie)).statusCode).toBe(200);
  });

  /** A rate-limit window as the database keeps it (shared by every API process, database clock). */
  const windowOf = (key: string) =>
    t.db
      .selectFrom('rate_limit_windows')
      .select(['count', 'reset_at'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
  /** The window's time runs out: what 15 minutes of waiting does, on the database's clock. */
  const endWindow = (key: string) =>
    t.db
      .updateTable('rate_limit_windows')
      .set({ reset_at: new Date(Date.now() - 1000) })
      .where('key', '=', key)
      .execute();

  it('the sign-in lockout ends with its window, however long an attacker keeps guessing', async () => {
    const mail = 'locked@sessions.example.org';
    for (let i = 0; i < 10; i++)
      expect((await loginWith(mail, `Guess.Number${i}`, undefined, `203.0.113.${i}`)).statusCode).toBe(401);
    const locked = await loginWith(mail, FIXTURE_PASSWORD, undefined, '198.51.100.9');
    expect(locked.statusCode).toBe(429);
    const retryAfter = Number(locked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    const window = await windowOf(`login:mail:${mail}`);
    expect(window.reset_at.getTime()).toBeLessThanOrEqual(Date.now() + 15 * MINUTE + 5000);
    // The attacker keeps guessing through the window from ever new addresses: refused, and the window
    // does not move.
    for (let i = 0; i < 20; i++) {
      const guess = await loginWith(mail, `Again.Guess${i}`, undefined, `203.0.113.${100 + i}`);
      expect(guess.statusCode).toBe(429);
    }
    const after = await windowOf(`login:mail:${mail}`);
    expect(after.reset_at.getTime()).toBe(window.reset_at.getTime());
    expect(after.count).toBe(31);
    // Once the window is over, the owner signs in at the first try.
    await endWindow(`login:mail:${mail}`);
    const afterWindow = await loginWith(mail, FIXTURE_PASSWORD, undefined, '198.51.100.9');
    expect(afterWindow.statusCode, afterWindow.body).toBe(200);
  });

  it('an address locked out by its own guessing does not lock out other people', async () => {
    const ip = '203.0.113.250';
    for (let i = 0; i < 31; i++)
      await loginWith(`nobody${i}@sessions.example.org`, FIXTURE_PASSWORD, undefined, ip);
    expect((await loginWith('victim@sessions.example.org', FIXTURE_PASSWORD, undefined, ip)).statusCode).toBe(
      429,
    );
    expect(
      (await loginWith('victim@sessions.example.org', FIXTURE_PASSWORD, undefined, '198.51.100.77'))
        .statusCode,
    ).toBe(200);
    await endWindow(`login:ip:${ip}`);
    expect((await loginWith('victim@sessions.example.org', FIXTURE_PASSWORD, undefined, ip)).statusCode).toBe(
      200,
    );
  });
});
