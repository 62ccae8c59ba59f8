import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { hashToken } from '../../src/lib/secure-token.ts';
import { MAX_VERIFICATION_LINKS } from '../../src/services/account.service.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { linkIn } from '../support/outbox.ts';
import { findUserByEmail, mailJobsTo, registrationBody, waitForMails } from '../support/fixtures.ts';

const HOUR = 3_600_000;
const CONFIRM = /confirm your e-mail/i;

describe('e-mail confirmation links, resend and registering again', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function register(mail: string) {
    return t.request({ method: 'POST', url: '/api/user/register', payload: registrationBody(mail) });
  }

  /** The verification hashes of the confirmation e-mails sent to `mail` so far, oldest first. */
  async function verificationHashes(mail: string, count: number): Promise<string[]> {
    const messages = await waitForMails(t, mail, CONFIRM, count);
    return messages.map((m) => linkIn(m, `${t.config.publicUrl}/verify-email/`).split('/').pop()!);
  }

  const validate = (hash: string) => t.request({ method: 'POST', url: `/api/user/validate/${hash}` });

  /** Moves a registration `hours` into the past: the account, its links and their expiry. */
  async function age(mail: string, hours: number) {
    const user = (await findUserByEmail(t, mail))!;
    const shift = sql.raw(`interval '${hours} hours'`);
    await sql`update users set created_at = created_at - ${shift} where id = ${user.id}`.execute(t.db);
    await sql`update user_tokens set created_at = created_at - ${shift}, expires_at = expires_at - ${shift}
      where user_id = ${user.id}`.execute(t.db);
  }

  it('mails a link valid for 24 hours that confirms the address once, then answers 409', async () => {
    const mail = 'analyst@verify-once.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const [hash] = await verificationHashes(mail, 1);

    const user = (await findUserByEmail(t, mail))!;
    const token = await t.db
      .selectFrom('user_tokens')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('purpose', '=', 'VERIFY_EMAIL')
      .executeTakeFirstOrThrow();
    expect(token.token_hash).toBe(hashToken(hash!));
    expect(Math.abs(token.expires_at.getTime() - token.created_at.getTime() - 24 * HOUR)).toBeLessThan(
      60_000,
    );

    expect((await validate(hash!)).statusCode).toBe(200);
    expect((await findUserByEmail(t, mail))!.status).toBe('PENDING_APPROVAL');
    const again = await validate(hash!);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ statusCode: 409, error: 'Conflict' });
  });

  it('answers 400 to a link older than 24 hours and leaves the address unconfirmed', async () => {
    const mail = 'analyst@verify-late.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const [hash] = await verificationHashes(mail, 1);
    await age(mail, 24.1);

    const response = await validate(hash!);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, message: VERIFY_EMAIL_MESSAGES.invalidHash });
    expect((await findUserByEmail(t, mail))!.status).toBe('EMAIL_UNVERIFIED');
  });

  it('answers 400 to an unknown verification code', async () => {
    const response = await validate('Q2hlY2tpbmctYS1tYWRlLXVwLWNvZGUtMTIzNDU2Nzg5');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(VERIFY_EMAIL_MESSAGES.invalidHash);
  });

  it('resends a new link on request, and the old link stops working', async () => {
    const mail = 'analyst@verify-resend.example.org';
    expect((await register(mail)).statusCode).toBe(201);
    const [oldHash] = await verificationHashes(mail, 1);

    const resend = await t.request({
      method: 'POST',
      url: '/api/user/resend-verification',
      payload: { mail },
    });
    expect(resend.statusCode).toBe(200);
    const hashes = await verificationHashes(mail, 2);
    const newHash = hashes.find((h) => h !== oldHash);
    expect(newHash).toBeDefined();

    expect((await validate(oldHash!)).statusCode).toBe(400);
    expect((await findUserByEmail(t, mail))!.status).toBe('EMAIL_UNVERIFIED');
    expect((await validate(newHash!)).statusCode).toBe(200);
    expect((await findUserByEmail(t, mail))!.status).toBe('PENDING_APPROVAL');
  });

  it('answers a resend for an unknown or already confirmed address the same, and sends nothing', async () => {
    const confirmed = 'analyst@verify-once.example.org';
    const sentBefore = (await mailJobsTo(t, confirmed)).length;
    for (const mail of ['nobody@verify-unknown.example.org', confirmed]) {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/resend-verification',
        payload: { mail },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({});
    }
    expect(await mailJobsTo(t, 'nobody@verify-unknown.example.org')).toHaveLength(0);
    expect(await mailJobsTo(t, confirmed)).toHaveLength(sentBefore);
  });

  describe('registering the same address again', () => {
    /** The answer to a registration of an address in use is a new registration's; the address's owner is mailed. */
    async function expectOwnerTold(
      mail: string,
      response: { statusCode: number; body: string },
      subject: RegExp,
    ) {
      expect(response.statusCode).toBe(201);
      expect(response.body).toBe('{}');
      await waitForMails(t, mail, subject, 1);
    }

    it('answers as for a new address while the confirmation link is valid, makes no account, and mails a new link', async () => {
      const mail = 'analyst@again-early.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      const first = (await findUserByEmail(t, mail))!;
      await age(mail, 23);
      const again = await register(mail);
      expect(again.statusCode).toBe(201);
      expect(again.body).toBe('{}');
      // The registrant who lost the first e-mail gets the link again, as "Resend e-mail" sends it.
      const [firstHash, newHash] = await verificationHashes(mail, 2);
      expect(newHash).not.toBe(firstHash);
      expect((await findUserByEmail(t, mail))!.id).toBe(first.id);
      expect((await validate(newHash!)).statusCode).toBe(200);
      expect((await findUserByEmail(t, mail))!.status).toBe('PENDING_APPROVAL');
    });

    it('keeps the password the account was made with when the address registers again', async () => {
      const mail = 'analyst@again-password.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      const before = (await findUserByEmail(t, mail))!;
      expect(
        (
          await t.request({
            method: 'POST',
            url: '/api/user/register',
            payload: registrationBody(mail, 'Another.Pass2'),
          })
        ).statusCode,
      ).toBe(201);
      expect((await findUserByEmail(t, mail))!.password_hash).toBe(before.password_hash);
    });

    it('stops mailing links at the cap: the owner is told the request waits', async () => {
      const mail = 'analyst@again-capped.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      const user = (await findUserByEmail(t, mail))!;
      // Links issued up to the cap, as repeated resends would have.
      for (let i = 0; i < MAX_VERIFICATION_LINKS; i++) {
        await t.db
          .insertInto('user_tokens')
          .values({
            user_id: user.id,
            purpose: 'VERIFY_EMAIL',
            token_hash: hashToken(`capped-${i}`),
            expires_at: new Date(Date.now() + HOUR),
          })
          .execute();
      }
      await expectOwnerTold(mail, await register(mail), /waits for confirmation/);
    });

    it('answers as for a new address for a confirmed one, and mails its owner', async () => {
      const mail = 'analyst@verify-once.example.org';
      const before = (await findUserByEmail(t, mail))!;
      await expectOwnerTold(mail, await register(mail), /asked for access with your e-mail address/);
      expect(await findUserByEmail(t, mail)).toEqual(before);
    });

    it('is refused while a resent link is still valid, even when the first one expired', async () => {
      const mail = 'analyst@again-resent.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      await verificationHashes(mail, 1);
      await age(mail, 23);
      expect(
        (await t.request({ method: 'POST', url: '/api/user/resend-verification', payload: { mail } }))
          .statusCode,
      ).toBe(200);
      const [, resentHash] = await verificationHashes(mail, 2);
      await age(mail, 2);

      const again = await register(mail);
      expect(again.statusCode).toBe(201);
      expect(again.body).toBe('{}');
      // The account the resent link belongs to is untouched; the newest link mailed confirms it.
      const [, , newest] = await verificationHashes(mail, 3);
      expect(newest).not.toBe(resentHash);
      expect((await validate(newest!)).statusCode).toBe(200);
    });

    it('is allowed once the 24-hour link expired: the old account is replaced and a new link works', async () => {
      const mail = 'analyst@again-late.example.org';
      expect((await register(mail)).statusCode).toBe(201);
      const [oldHash] = await verificationHashes(mail, 1);
      const first = (await findUserByEmail(t, mail))!;
      await age(mail, 25);

      expect((await register(mail)).statusCode).toBe(201);
      const second = (await findUserByEmail(t, mail))!;
      expect(second.id).not.toBe(first.id);
      const oldOrganization = await t.db
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', first.organization_id)
        .execute();
      expect(oldOrganization).toHaveLength(0);

      const hashes = await verificationHashes(mail, 2);
      const newHash = hashes.find((h) => h !== oldHash)!;
      expect((await validate(oldHash!)).statusCode).toBe(400);
      expect((await validate(newHash)).statusCode).toBe(200);
      expect((await findUserByEmail(t, mail))!.status).toBe('PENDING_APPROVAL');
    });
  });
});
