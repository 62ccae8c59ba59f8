import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newSecureToken } from '../../src/lib/secure-token.ts';
import { createUser, FIXTURE_PASSWORD, login, waitForMails } from '../support/fixtures.ts';
import { linkIn } from '../support/outbox.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// One-time links of an account (reset password, set password, e-mail confirmation): what ends them.

const RESET_MAIL = /reset your password/i;

describe(`tokens (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const resetPassword = (token: string, newPassword: string) =>
    t.request({ method: 'POST', url: '/api/user/reset-password', payload: { token, newPassword } });
  const setPassword = (token: string, newPassword: string) =>
    t.request({ method: 'POST', url: '/api/user/set-password', payload: { token, newPassword } });

  async function resetTokenFor(email: string): Promise<string> {
    const response = await t.request({ method: 'POST', url: '/api/user/request-reset', payload: { email } });
    expect(response.statusCode).toBe(200);
    const [message] = await waitForMails(t, email, RESET_MAIL, 1);
    return new URL(linkIn(message!, `${t.config.publicUrl}/reset-password?token=`)).searchParams.get(
      'token',
    )!;
  }

  /** A set-password link stored for the user the way the product stores it (only its hash). */
  async function setPasswordTokenFor(userId: number): Promise<string> {
    const token = newSecureToken();
    await t.db
      .insertInto('user_tokens')
      .values({
        user_id: userId,
        purpose: 'SET_PASSWORD',
        token_hash: hashToken(token),
        expires_at: new Date(Date.now() + 72 * 3_600_000),
      })
      .execute();
    return token;
  }

  it('item 11: changing the password ends every outstanding reset and set-password link', async () => {
    const email = 'changer@tokens.example.org';
    const user = await createUser(t, { email });
    const resetToken = await resetTokenFor(email);
    const setToken = await setPasswordTokenFor(user.id);

    const cookie = await login(t, email);
    const changed = await t.request({
      method: 'POST',
      url: '/api/user/change-password',
      cookie,
      payload: { currentPassword: FIXTURE_PASSWORD, newPassword: 'Changed.Pass2' },
    });
    expect(changed.statusCode, changed.body).toBe(200);

    for (const answer of [
      await resetPassword(resetToken, 'Attacker.Pass3'),
      await setPassword(setToken, 'Attacker.Pass3'),
    ]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
    }
    const signIn = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail: email, password: 'Changed.Pass2' },
    });
    expect(signIn.statusCode).toBe(200);
  });

  it('item 11: a password set through one link ends the other outstanding links', async () => {
    const email = 'resetter@tokens.example.org';
    const user = await createUser(t, { email });
    const setToken = await setPasswordTokenFor(user.id);
    const resetToken = await resetTokenFor(email);
    expect((await resetPassword(resetToken, 'Reset.Pass2')).statusCode).toBe(200);
    const stale = await setPassword(setToken, 'Attacker.Pass3');
    expect(stale.statusCode).toBe(400);
    expect(stale.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
  });
});
