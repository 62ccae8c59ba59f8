import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { hashToken, newSecureToken } from '../../src/lib/secure-token.ts';
import { MAX_VERIFICATION_LINKS } from '../../src/services/account.service.ts';
import {
  createAdmin,
  createInvitedUser,
  createUser,
  findUserByEmail,
  FIXTURE_PASSWORD,
  login,
  registrationBody,
  waitForMails,
} from '../support/fixtures.ts';
import { linkIn } from '../support/outbox.ts';
import { holdLock, lockWaiters, until } from '../support/row-locks.ts';
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

  it('blocking an account ends its invitation and reset links; unblocked, it is still only invited', async () => {
    const admin = await createAdmin(t, 'admin@tokens-provider.example.org');
    const adminPost = (url: string) => t.request({ method: 'POST', url, cookie: admin });
    const active = 'blocked-active@tokens.example.org';
    const activeUser = await createUser(t, { email: active });
    const resetToken = await resetTokenFor(active);
    const invited = await createInvitedUser(t, {
      email: 'blocked-invitee@tokens.example.org',
      organizationId: activeUser.organizationId,
    });

    for (const id of [activeUser.id, invited.id])
      expect((await adminPost(`/api/admin/users/${id}/block`)).statusCode).toBe(200);
    for (const answer of [
      await resetPassword(resetToken, 'Attacker.Pass3'),
      await setPassword(invited.token, 'Attacker.Pass3'),
    ]) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json().message).toBe(PASSWORD_FLOW_MESSAGES.invalidToken);
    }
    // A link that escaped the expiry (written after the block) is refused as well.
    const lateToken = await setPasswordTokenFor(invited.id);
    expect((await setPassword(lateToken, 'Attacker.Pass3')).statusCode).toBe(400);

    expect((await adminPost(`/api/admin/users/${invited.id}/unblock`)).statusCode).toBe(200);
    const after = await t.db
      .selectFrom('users')
      .select(['status', 'password_hash'])
      .where('id', '=', invited.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ status: 'INVITED', password_hash: null });
    const signIn = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail: active, password: 'Attacker.Pass3' },
    });
    expect(signIn.statusCode).not.toBe(200);
  });

  const CONFIRM_MAIL = /confirm your e-mail address/i;
  const register = (mail: string) =>
    t.request({ method: 'POST', url: '/api/user/register', payload: registrationBody(mail) });
  const resend = (mail: string) =>
    t.request({ method: 'POST', url: '/api/user/resend-verification', payload: { mail } });
  const verificationTokens = async (userId: number) =>
    (
      await t.db
        .selectFrom('user_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .where('purpose', '=', 'VERIFY_EMAIL')
        .execute()
    ).length;

  it('resend-verification cannot keep someone else’s unconfirmed registration alive forever', async () => {
    const mail = 'squatted@tokens.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const user = (await findUserByEmail(t, mail))!;
    for (let i = 0; i < 6; i++) {
      const answer = await resend(mail);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe('{}');
    }
    // Each resend is a job: once they have run, the cap holds.
    await expect
      .poll(
        () =>
          t.db
            .selectFrom('jobs')
            .select('id')
            .where('status', 'in', ['QUEUED', 'RUNNING'])
            .where('queue', '=', QUEUES.verificationResend)
            .execute()
            .then((jobs) => jobs.length),
        { timeout: 30_000 },
      )
      .toBe(0);
    expect(await verificationTokens(user.id)).toBe(MAX_VERIFICATION_LINKS);
    await waitForMails(t, mail, CONFIRM_MAIL, MAX_VERIFICATION_LINKS);
  });

  it('resends run at once (queued jobs run in parallel) issue no more links than the cap', async () => {
    const mail = 'parallel@tokens.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const user = (await findUserByEmail(t, mail))!;
    const { account } = t.container.services;
    await Promise.all(Array.from({ length: 8 }, () => account.runVerificationResendJob({ email: mail })));
    expect(await verificationTokens(user.id)).toBe(MAX_VERIFICATION_LINKS);
  });

  it('the owner of a squatted address releases it from the confirmation link and registers at once', async () => {
    const mail = 'owner-of-address@tokens.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const squatter = (await findUserByEmail(t, mail))!;
    const [message] = await waitForMails(t, mail, CONFIRM_MAIL, 1);
    const token = linkIn(message!, `${t.config.publicUrl}/release-email/`).split('/').pop()!;

    const released = await t.request({ method: 'POST', url: `/api/user/release/${token}` });
    expect(released.statusCode, released.body).toBe(200);
    expect(await findUserByEmail(t, mail)).toBeUndefined();
    expect(
      await t.db
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', squatter.organization_id)
        .execute(),
    ).toHaveLength(0);
    // Used once: the link is gone with the registration.
    expect((await t.request({ method: 'POST', url: `/api/user/release/${token}` })).statusCode).toBe(400);

    expect((await register(mail)).statusCode).toBe(201);
    const own = (await findUserByEmail(t, mail))!;
    expect(own.id).not.toBe(squatter.id);
    expect(own.status).toBe('EMAIL_UNVERIFIED');
  });

  it('an invitation whose link expired unused no longer keeps the address from registering its own organization', async () => {
    const rival = await createUser(t, { email: 'owner@rival-tokens.example.org', role: 'OWNER' });
    const live = 'live-invite@bank-tokens.example.org';
    await createInvitedUser(t, { email: live, organizationId: rival.organizationId });
    const lapsed = 'lapsed-invite@bank-tokens.example.org';
    const invited = await createInvitedUser(t, {
      email: lapsed,
      organizationId: rival.organizationId,
      validForMs: -1,
    });

    // A pending invitation holds the address, as an account does (the answer says nothing either way).
    expect((await register(live)).statusCode).toBe(201);
    expect(await findUserByEmail(t, live)).toMatchObject({
      status: 'INVITED',
      organization_id: rival.organizationId,
    });

    expect((await register(lapsed)).statusCode).toBe(201);
    const own = (await findUserByEmail(t, lapsed))!;
    expect(own).toMatchObject({ status: 'EMAIL_UNVERIFIED', role: 'OWNER' });
    expect(own.organization_id).not.toBe(rival.organizationId);
    await waitForMails(t, lapsed, CONFIRM_MAIL, 1);
    // The inviting organization's log says its invitation lapsed, and nothing of the registration.
    const closed = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'detail', 'ip'])
      .where('organization_id', '=', rival.organizationId)
      .where('target', '=', `user:${invited.id}`)
      .execute();
    expect(closed).toEqual([
      { action: 'team.invitation_lapsed', target: `user:${invited.id}`, detail: { email: lapsed }, ip: null },
    ]);
  });

  it('a confirmed registration cannot be released', async () => {
    const mail = 'confirmed@tokens.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const [message] = await waitForMails(t, mail, CONFIRM_MAIL, 1);
    const token = linkIn(message!, `${t.config.publicUrl}/verify-email/`).split('/').pop()!;
    expect((await t.request({ method: 'POST', url: `/api/user/validate/${token}` })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: `/api/user/release/${token}` })).statusCode).toBe(400);
    expect((await findUserByEmail(t, mail))!.status).toBe('PENDING_APPROVAL');
  });

  it.runIf(TEST_DATABASE_KIND === 'postgres')(
    'a release racing the confirmation of the same registration leaves the confirmed account alone',
    async () => {
      const mail = 'both-links@tokens.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      const user = (await findUserByEmail(t, mail))!;
      const [message] = await waitForMails(t, mail, CONFIRM_MAIL, 1);
      const token = linkIn(message!, `${t.config.publicUrl}/release-email/`).split('/').pop()!;
      // The confirmation holds the account's row and commits while the release is under way.
      const confirmation = await holdLock(t, async (client) => {
        await client.query(`update users set status = 'PENDING_APPROVAL' where id = $1`, [user.id]);
      });
      const release = t.request({ method: 'POST', url: `/api/user/release/${token}` });
      await until('the release waiting on the account', async () => (await lockWaiters(t)) >= 1);
      await confirmation.release();
      expect((await release).statusCode).toBe(400);
      expect((await findUserByEmail(t, mail))?.status).toBe('PENDING_APPROVAL');
    },
  );
});
