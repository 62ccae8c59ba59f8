import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESET_LINK_MINUTES } from '@osint/contract/constants';
import { PASSWORD_RULES } from '@osint/contract/password';
import { LOGIN_MESSAGES, PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { hashToken } from '../../src/lib/secure-token.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { linkIn } from '../support/outbox.ts';
import {
  createInvitedUser,
  createUser,
  createUserWithStatus,
  findUserByEmail,
  FIXTURE_PASSWORD,
  login,
  mailJobsTo,
  sessionCountOf,
  waitForMails,
} from '../support/fixtures.ts';

const RESET_MAIL = /reset your password/i;
const NEW_PASSWORD = 'Brand.New.Pass2';

describe('forgot password, reset password and set password', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const requestReset = (email: string) =>
    t.request({ method: 'POST', url: '/api/user/request-reset', payload: { email } });
  const resetPassword = (token: string, newPassword: string) =>
    t.request({ method: 'POST', url: '/api/user/reset-password', payload: { token, newPassword } });
  const setPassword = (token: string, newPassword: string) =>
    t.request({ method: 'POST', url: '/api/user/set-password', payload: { token, newPassword } });
  const loginStatus = async (mail: string, password: string) =>
    (await t.request({ method: 'POST', url: '/api/user/login', payload: { mail, password } })).statusCode;

  /** Asks for a reset link for `email` and returns the token of the `count`-th reset e-mail it received. */
  async function resetTokenFor(email: string, count = 1): Promise<string> {
    expect((await requestReset(email)).statusCode).toBe(200);
    const messages = await waitForMails(t, email, RESET_MAIL, count);
    const link = linkIn(messages[count - 1]!, `${t.config.publicUrl}/reset-password?token=`);
    return new URL(link).searchParams.get('token')!;
  }

  describe('forgot password', () => {
    it('answers 200 alike for active, pending and unknown accounts, and mails only the active one', async () => {
      const active = 'active@forgot.example.org';
      const pending = 'pending@forgot.example.org';
      const unknown = 'unknown@forgot.example.org';
      await createUser(t, { email: active });
      await createUserWithStatus(t, { email: pending, status: 'PENDING_APPROVAL' });

      const answers = [];
      for (const email of [unknown, pending, active]) {
        const response = await requestReset(email);
        expect(response.statusCode).toBe(200);
        answers.push(response.body);
      }
      expect(new Set(answers).size).toBe(1);

      const [message] = await waitForMails(t, active, RESET_MAIL, 1);
      expect(message!.raw).toContain(`${t.config.publicUrl}/reset-password?token=`);
      expect(await mailJobsTo(t, unknown)).toHaveLength(0);
      expect(await mailJobsTo(t, pending)).toHaveLength(0);
    });

    it('refuses an empty or malformed address with the form’s message and queues nothing', async () => {
      const queued = async () =>
        (await t.db.selectFrom('jobs').select('id').where('queue', '=', 'user.password-reset').execute())
          .length;
      const before = await queued();
      for (const [email, message] of [
        ['', LOGIN_MESSAGES.emailRequired],
        ['not an email', LOGIN_MESSAGES.emailFormat],
      ] as const) {
        const response = await requestReset(email);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ message, violations: [{ field: 'email', message }] });
      }
      expect(await queued()).toBe(before);
    });

    it('mails a link with a token of at least 128 bits, stored only as its hash, valid for an hour', async () => {
      const email = 'hashed@forgot.example.org';
      const user = await createUser(t, { email });
      const token = await resetTokenFor(email);

      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      const rows = await t.db.selectFrom('user_tokens').selectAll().where('user_id', '=', user.id).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.purpose).toBe('RESET_PASSWORD');
      expect(rows[0]!.token_hash).toBe(hashToken(token));
      const everyStoredValue = (await t.db.selectFrom('user_tokens').selectAll().execute()).flatMap((row) =>
        Object.values(row).map(String),
      );
      expect(everyStoredValue.some((value) => value.includes(token))).toBe(false);
      const validMs = rows[0]!.expires_at.getTime() - rows[0]!.created_at.getTime();
      expect(Math.abs(validMs - RESET_LINK_MINUTES * 60_000)).toBeLessThan(60_000);
    });
  });

  describe('reset password', () => {
    it('sets the new password once, ends every session, and only the new password signs in', async () => {
      const email = 'once@reset.example.org';
      const user = await createUser(t, { email });
      const laptop = await login(t, email);
      const phone = await login(t, email);
      expect(await sessionCountOf(t, user.id)).toBe(2);

      const token = await resetTokenFor(email);
      expect((await resetPassword(token, NEW_PASSWORD)).statusCode).toBe(200);

      for (const cookie of [laptop, phone]) {
        expect((await t.request({ method: 'GET', url: '/api/user/user-info', cookie })).statusCode).toBe(401);
      }
      expect(await sessionCountOf(t, user.id)).toBe(0);
      expect(await loginStatus(email, NEW_PASSWORD)).toBe(200);
      const old = await t.request({
        method: 'POST',
        url: '/api/user/login',
        payload: { mail: email, password: FIXTURE_PASSWORD },
      });
      expect(old.statusCode).toBe(401);
      expect(old.json().message).toBe(LOGIN_MESSAGES.wrongCredentials);

      const reused = await resetPassword(token, 'Another.Pass3');
      expect(reused.statusCode).toBe(400);
      expect(reused.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
      expect(await loginStatus(email, NEW_PASSWORD)).toBe(200);
      expect(await loginStatus(email, 'Another.Pass3')).toBe(401);
    });

    it('keeps the link working when setting the password fails half-way', async () => {
      const email = 'half-way@forgot.example.org';
      const user = await createUser(t, { email });
      const token = await resetTokenFor(email);
      // A real failure after the link is checked: the database refuses to change this user's row.
      await sql
        .raw(
          `create function refuse_user_update() returns trigger language plpgsql as $$
           begin raise exception 'refused for the test'; end $$;
           create trigger refuse_user_update before update on users
           for each row when (old.id = ${user.id}) execute function refuse_user_update();`,
        )
        .execute(t.db);
      try {
        expect((await resetPassword(token, NEW_PASSWORD)).statusCode).toBe(500);
      } finally {
        await sql
          .raw('drop trigger refuse_user_update on users; drop function refuse_user_update();')
          .execute(t.db);
      }
      expect(await loginStatus(email, FIXTURE_PASSWORD)).toBe(200);
      expect((await resetPassword(token, NEW_PASSWORD)).statusCode).toBe(200);
      expect(await loginStatus(email, NEW_PASSWORD)).toBe(200);
    });

    it('refuses an expired link and keeps the old password', async () => {
      const email = 'late@reset.example.org';
      const user = await createUser(t, { email });
      const token = await resetTokenFor(email);
      await t.db
        .updateTable('user_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', user.id)
        .execute();

      const response = await resetPassword(token, NEW_PASSWORD);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        statusCode: 400,
        message: PASSWORD_FLOW_MESSAGES.invalidToken,
      });
      expect(await loginStatus(email, FIXTURE_PASSWORD)).toBe(200);
    });

    it('refuses an unknown token', async () => {
      const response = await resetPassword('bm90LWEtcmVhbC10b2tlbi1hdC1hbGwtMTIzNDU2Nzg5MA', NEW_PASSWORD);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
    });

    it('replaces an older link by a newer one', async () => {
      const email = 'twice@reset.example.org';
      await createUser(t, { email });
      const first = await resetTokenFor(email, 1);
      const second = await resetTokenFor(email, 2);
      expect(second).not.toBe(first);
      expect((await resetPassword(first, NEW_PASSWORD)).statusCode).toBe(400);
      expect((await resetPassword(second, NEW_PASSWORD)).statusCode).toBe(200);
    });

    it.each([
      ['Sh.1rt', 0],
      ['no.capital.letter1', 1],
      ['No.Number.At.All', 2],
      ['NoSymbolAtAll1', 3],
    ])(
      'refuses the new password %j with a newPassword violation, and the link stays usable',
      async (password, ruleIndex) => {
        const rule = PASSWORD_RULES[ruleIndex]!.label;
        const email = `rule-${ruleIndex}@reset.example.org`;
        await createUser(t, { email });
        const token = await resetTokenFor(email);

        const response = await resetPassword(token, password);
        expect(response.statusCode).toBe(400);
        expect(response.json().violations).toEqual([{ field: 'newPassword', message: rule }]);
        expect(await loginStatus(email, FIXTURE_PASSWORD)).toBe(200);
        expect((await resetPassword(token, NEW_PASSWORD)).statusCode).toBe(200);
      },
    );

    it('does not accept a reset link on the set-password call', async () => {
      const email = 'crossed@reset.example.org';
      await createUser(t, { email });
      const token = await resetTokenFor(email);
      expect((await setPassword(token, NEW_PASSWORD)).statusCode).toBe(400);
      expect(await loginStatus(email, FIXTURE_PASSWORD)).toBe(200);
    });
  });

  describe('set password (invited users)', () => {
    it('sets the first password of an invited user, activates the account, once', async () => {
      const owner = await createUser(t, { email: 'owner@invites.example.org' });
      const email = 'invited@invites.example.org';
      const invited = await createInvitedUser(t, { email, organizationId: owner.organizationId });
      expect(await loginStatus(email, NEW_PASSWORD)).toBe(401);

      const response = await setPassword(invited.token, NEW_PASSWORD);
      expect(response.statusCode).toBe(200);
      const user = (await findUserByEmail(t, email))!;
      expect(user.status).toBe('ACTIVE');
      expect(user.email_verified_at).not.toBeNull();
      expect(await loginStatus(email, NEW_PASSWORD)).toBe(200);

      const reused = await setPassword(invited.token, 'Another.Pass3');
      expect(reused.statusCode).toBe(400);
      expect(reused.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
      expect(await loginStatus(email, 'Another.Pass3')).toBe(401);
    });

    it('refuses a weak first password and an expired or misused invitation link', async () => {
      const owner = await createUser(t, { email: 'owner2@invites.example.org' });
      const weak = await createInvitedUser(t, {
        email: 'weak@invites.example.org',
        organizationId: owner.organizationId,
      });
      const response = await setPassword(weak.token, 'password');
      expect(response.statusCode).toBe(400);
      expect(response.json().violations).toEqual([
        { field: 'newPassword', message: PASSWORD_RULES[1]!.label },
      ]);
      expect((await findUserByEmail(t, 'weak@invites.example.org'))!.status).toBe('INVITED');

      const expired = await createInvitedUser(t, {
        email: 'expired@invites.example.org',
        organizationId: owner.organizationId,
        validForMs: -1000,
      });
      expect((await setPassword(expired.token, NEW_PASSWORD)).statusCode).toBe(400);
      expect((await findUserByEmail(t, 'expired@invites.example.org'))!.status).toBe('INVITED');

      // An invitation is not a reset link.
      const crossed = await createInvitedUser(t, {
        email: 'crossed@invites.example.org',
        organizationId: owner.organizationId,
      });
      expect((await resetPassword(crossed.token, NEW_PASSWORD)).statusCode).toBe(400);
      expect((await findUserByEmail(t, 'crossed@invites.example.org'))!.status).toBe('INVITED');
    });
  });
});
