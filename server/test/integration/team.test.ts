import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITE_LINK_HOURS } from '@osint/contract/constants';
import { blockedDomainMessage } from '@osint/contract/email';
import { INVITE_MESSAGES, TEAM_MESSAGES } from '@osint/contract/team';
import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { linkIn, readOutbox } from '../support/outbox.ts';
import {
  createAdmin,
  findUserByEmail,
  FIXTURE_PASSWORD,
  login,
  sessionCountOf,
  waitForMails,
} from '../support/fixtures.ts';
import { createTestApp, sessionCookieOf, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import {
  auditActions,
  createMember,
  createOwner,
  createPendingSave,
  createPlan,
  createSavedSearch,
  createSearch,
  organizationUsers,
  type Member,
} from '../support/team-fixtures.ts';

const NEW_PASSWORD = 'Team.Member9';
const HOUR = 3_600_000;

describe(`team management (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const invite = (cookie: string, email: string, giveAccess?: boolean) =>
    t.request({
      method: 'POST',
      url: '/api/user/invite',
      cookie,
      payload: giveAccess === undefined ? { email } : { email, giveAccess },
    });
  const give = (cookie: string, userHashedId: string, organizationId: number) =>
    t.request({ method: 'POST', url: '/api/user/give', cookie, payload: { userHashedId, organizationId } });
  const remove = (cookie: string, userHashedId: string, organizationId: number) =>
    t.request({ method: 'POST', url: '/api/user/remove', cookie, payload: { userHashedId, organizationId } });
  const deleteUser = (cookie: string, hashedId: string) =>
    t.request({ method: 'DELETE', url: `/api/user/${hashedId}`, cookie });
  const userInfo = (cookie: string) => t.request({ method: 'GET', url: '/api/user/user-info', cookie });

  describe('invitations', () => {
    let owner: Member;
    beforeAll(async () => {
      owner = await createOwner(t, 'owner@invite.example.org');
    });

    it('checks the address with the messages of the specification', async () => {
      const cases: [string, string][] = [
        ['', INVITE_MESSAGES.emailRequired],
        ['   ', INVITE_MESSAGES.emailRequired],
        ['not-an-address', INVITE_MESSAGES.emailFormat],
        ['someone@gmail.com', blockedDomainMessage('gmail.com')],
        ['someone@mail.Yandex.RU', blockedDomainMessage('mail.yandex.ru')],
        // The fully-qualified form of an address would be a second account for one mailbox.
        [`${owner.email}.`, INVITE_MESSAGES.emailFormat],
        ['someone@invite.example.org..', INVITE_MESSAGES.emailFormat],
      ];
      for (const [email, message] of cases) {
        const response = await invite(owner.cookie, email);
        expect(response.statusCode, email).toBe(400);
        expect(response.json()).toMatchObject({ message, violations: [{ field: 'email', message }] });
      }
      expect(await organizationUsers(t, owner.cookie)).toHaveLength(1);
    });

    it('creates a pending user and mails a set-password link valid for 72 hours; the user sets a password and signs in without a seat', async () => {
      const email = 'new.analyst@invite.example.org';
      const response = await invite(owner.cookie, ' New.Analyst@Invite.example.org ');
      expect(response.statusCode, response.body).toBe(200);

      const stored = (await findUserByEmail(t, email))!;
      expect(stored).toMatchObject({
        status: 'INVITED',
        role: 'USER',
        has_access: false,
        password_hash: null,
        organization_id: owner.organizationId,
        invited_by: owner.id,
      });
      const token = await t.db
        .selectFrom('user_tokens')
        .selectAll()
        .where('user_id', '=', stored.id)
        .executeTakeFirstOrThrow();
      expect(token.purpose).toBe('SET_PASSWORD');
      const validFor = token.expires_at.getTime() - token.created_at.getTime();
      expect(Math.abs(validFor - INVITE_LINK_HOURS * HOUR)).toBeLessThan(5_000);

      const listed = (await organizationUsers(t, owner.cookie)).find((u) => u.email === email)!;
      expect(listed).toMatchObject({
        status: 'PENDING',
        access: false,
        userRole: 'USER',
        organization: { id: owner.organizationId },
      });
      expect(listed.hashedId).toBe(stored.hashed_id);

      const [mail] = await waitForMails(t, email, /invited/i, 1);
      const link = linkIn(mail!, `${t.config.publicUrl}/set-password?token=`);
      const set = await t.request({
        method: 'POST',
        url: '/api/user/set-password',
        payload: { token: new URL(link).searchParams.get('token'), newPassword: NEW_PASSWORD },
      });
      expect(set.statusCode, set.body).toBe(200);
      // Setting the password signs the invited user in; the answer says they have no seat yet.
      expect(set.json()).toEqual({ signedIn: true, access: false });
      expect((await userInfo(sessionCookieOf(set))).json()).toMatchObject({
        access: false,
        userRole: 'USER',
      });
      const cookie = await login(t, email, NEW_PASSWORD);
      expect((await userInfo(cookie)).json()).toMatchObject({ access: false, userRole: 'USER' });
      expect((await organizationUsers(t, owner.cookie)).find((u) => u.email === email)!.status).toBe(
        'ACTIVE',
      );
      expect(await auditActions(t, owner.organizationId)).toEqual(
        expect.arrayContaining(['team.user_invited', 'user.set_password']),
      );
    });

    it('answers 409 "User with this email already exists." for an account of the organization, and refuses other organizations\' without saying why', async () => {
      await createOwner(t, 'taken@elsewhere.example.org', null);
      for (const email of ['new.analyst@invite.example.org', owner.email]) {
        const response = await invite(owner.cookie, email);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ statusCode: 409, message: INVITE_MESSAGES.exists });
      }
      const elsewhere = await invite(owner.cookie, 'taken@elsewhere.example.org');
      expect(elsewhere.statusCode).toBe(400);
      expect(elsewhere.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: INVITE_MESSAGES.refused,
      });
      // The other organization's owner was not moved or touched.
      expect((await findUserByEmail(t, 'taken@elsewhere.example.org'))!.role).toBe('OWNER');
    });

    it('sends a fresh link when the address is still pending in the same organization; the old link stops working', async () => {
      const email = 'twice@invite.example.org';
      expect((await invite(owner.cookie, email)).statusCode).toBe(200);
      const [first] = await waitForMails(t, email, /invited/i, 1);
      expect((await invite(owner.cookie, email)).statusCode).toBe(200);
      const mails = await waitForMails(t, email, /invited/i, 2);
      const tokenOf = (m: (typeof mails)[number]) =>
        new URL(linkIn(m, `${t.config.publicUrl}/set-password?token=`)).searchParams.get('token');
      const second = mails.find((m) => m.file !== first!.file)!;
      expect(tokenOf(second)).not.toBe(tokenOf(first!));
      const old = await t.request({
        method: 'POST',
        url: '/api/user/set-password',
        payload: { token: tokenOf(first!), newPassword: NEW_PASSWORD },
      });
      expect(old.statusCode).toBe(400);
      const fresh = await t.request({
        method: 'POST',
        url: '/api/user/set-password',
        payload: { token: tokenOf(second), newPassword: NEW_PASSWORD },
      });
      expect(fresh.statusCode).toBe(200);
      expect(await t.db.selectFrom('users').select('id').where('email', '=', email).execute()).toHaveLength(
        1,
      );
    });

    const invitationLink = async (email: string, count = 1) => {
      const mails = await waitForMails(t, email, /invited/i, count);
      const link = linkIn(mails.at(-1)!, `${t.config.publicUrl}/set-password?token=`);
      return new URL(link).searchParams.get('token')!;
    };
    const invitationDetails = (token: string) =>
      t.request({ method: 'GET', url: `/api/user/invitation?token=${encodeURIComponent(token)}` });

    it('"give access now" gives the invited user a seat at once; the set-password page names the account and organization, and the user is signed in able to search', async () => {
      const seatOwner = await createOwner(t, 'owner@give-now.example.org', { seatLimit: 2 });
      const email = 'analyst@give-now.example.org';
      const response = await invite(seatOwner.cookie, email, true);
      expect(response.statusCode, response.body).toBe(200);
      expect(await findUserByEmail(t, email)).toMatchObject({ status: 'INVITED', has_access: true });
      expect(await auditActions(t, seatOwner.organizationId)).toEqual(
        expect.arrayContaining(['team.user_invited', 'team.access_granted']),
      );

      const token = await invitationLink(email);
      const organization = await t.db
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', seatOwner.organizationId)
        .executeTakeFirstOrThrow();
      const details = await invitationDetails(token);
      expect(details.statusCode, details.body).toBe(200);
      expect(details.json()).toEqual({ email, organizationName: organization.name, access: true });

      const set = await t.request({
        method: 'POST',
        url: '/api/user/set-password',
        payload: { token, newPassword: NEW_PASSWORD },
      });
      expect(set.statusCode, set.body).toBe(200);
      expect(set.json()).toEqual({ signedIn: true, access: true });
      const info = await userInfo(sessionCookieOf(set));
      expect(info.json()).toMatchObject({ email, access: true, planActive: true });
      // The link is spent: the page now gets the same answer as for any invalid link.
      const spent = await invitationDetails(token);
      expect(spent.statusCode).toBe(400);
      expect(spent.json()).toMatchObject({ message: PASSWORD_FLOW_MESSAGES.invalidToken });
    });

    it('withdraws a pending invitation: its seat is free again and its link no longer works', async () => {
      const seatOwner = await createOwner(t, 'owner@withdraw.example.org', { seatLimit: 2 });
      const email = 'mistyped@withdraw.example.org';
      const invited = await invite(seatOwner.cookie, email, true);
      expect(invited.statusCode, invited.body).toBe(200);
      const token = await invitationLink(email);
      const pending = (await findUserByEmail(t, email))!;
      const withdraw = (cookie: string, hashedId = pending.hashed_id) =>
        t.request({ method: 'DELETE', url: `/api/user/invitation/${hashedId}`, cookie });

      // Neither a member nor another organization's owner may; the owner's own account is no invitation.
      const member = await createMember(t, seatOwner.organizationId, 'member@withdraw.example.org', false);
      const giveMember = () => give(seatOwner.cookie, member.hashedId, seatOwner.organizationId);
      // Both seats are taken: the owner's and the invitation's.
      expect((await giveMember()).json()).toMatchObject({ message: TEAM_MESSAGES.capacityReached });
      expect((await withdraw(member.cookie)).statusCode).toBe(403);
      const stranger = await createOwner(t, 'owner@elsewhere-withdraw.example.org');
      expect((await withdraw(stranger.cookie)).statusCode).toBe(404);
      const ownRow = (await findUserByEmail(t, seatOwner.email))!;
      const notPending = await withdraw(seatOwner.cookie, ownRow.hashed_id);
      expect(notPending.statusCode).toBe(409);
      expect(notPending.json()).toMatchObject({ message: TEAM_MESSAGES.notPending });
      expect(await findUserByEmail(t, email)).toBeDefined();

      const response = await withdraw(seatOwner.cookie);
      expect(response.statusCode, response.body).toBe(200);
      expect(await findUserByEmail(t, email)).toBeUndefined();
      expect(await auditActions(t, seatOwner.organizationId)).toContain('team.invitation_withdrawn');
      expect((await invitationDetails(token)).statusCode).toBe(400);
      const late = await t.request({
        method: 'POST',
        url: '/api/user/set-password',
        payload: { token, newPassword: NEW_PASSWORD },
      });
      expect(late.statusCode).toBe(400);
      // The seat it held is free: the member gets it.
      const given = await giveMember();
      expect(given.statusCode, given.body).toBe(200);
    });

    it('"give access now" without a free seat answers "Maximum access capacity reached." and creates and sends nothing', async () => {
      const fullOwner = await createOwner(t, 'owner@no-seat.example.org', { seatLimit: 1 });
      const email = 'analyst@no-seat.example.org';
      const before = (await readOutbox(t.config.dataDir)).length;
      const response = await invite(fullOwner.cookie, email, true);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ message: TEAM_MESSAGES.capacityReached });
      expect(await findUserByEmail(t, email)).toBeUndefined();
      expect(await auditActions(t, fullOwner.organizationId)).not.toContain('team.user_invited');
      expect((await readOutbox(t.config.dataDir)).length).toBe(before);
      // Without the seat the invitation goes out as before.
      const plain = await invite(fullOwner.cookie, email, false);
      expect(plain.statusCode).toBe(200);
      expect(await findUserByEmail(t, email)).toMatchObject({ status: 'INVITED', has_access: false });
    });

    it('the invitation details tell nothing for an unknown or malformed token, or without one', async () => {
      for (const token of ['unknown-token', 'x'.repeat(200)]) {
        const response = await invitationDetails(token);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ message: PASSWORD_FLOW_MESSAGES.invalidToken });
      }
      expect((await t.request({ method: 'GET', url: '/api/user/invitation' })).statusCode).toBe(400);
    });

    it('lets only owners invite (403) and only signed-in users (401)', async () => {
      const member = await createMember(t, owner.organizationId, 'member@invite.example.org', true);
      const forbidden = await invite(member.cookie, 'x@invite.example.org');
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ message: TEAM_MESSAGES.ownersOnly });
      expect((await invite('', 'x@invite.example.org')).statusCode).toBe(401);
      expect(await findUserByEmail(t, 'x@invite.example.org')).toBeUndefined();
    });
  });

  describe('seats', () => {
    it('gives access up to the seat limit, then answers 400 "Maximum access capacity reached."', async () => {
      const owner = await createOwner(t, 'owner@seats.example.org', { seatLimit: 2 });
      const a = await createMember(t, owner.organizationId, 'a@seats.example.org');
      const b = await createMember(t, owner.organizationId, 'b@seats.example.org');
      expect((await give(owner.cookie, a.hashedId, owner.organizationId)).statusCode).toBe(200);
      expect((await userInfo(a.cookie)).json()).toMatchObject({ access: true });
      const full = await give(owner.cookie, b.hashedId, owner.organizationId);
      expect(full.statusCode).toBe(400);
      expect(full.json()).toMatchObject({ statusCode: 400, message: TEAM_MESSAGES.capacityReached });
      expect((await findUserByEmail(t, b.email))!.has_access).toBe(false);
      // Giving again to a user who has a seat changes nothing.
      expect((await give(owner.cookie, a.hashedId, owner.organizationId)).statusCode).toBe(200);
      const users = await organizationUsers(t, owner.cookie);
      expect(users.filter((u) => u.access)).toHaveLength(2);
    });

    it('removing access ends that user’s sessions at once and frees the seat', async () => {
      const owner = await createOwner(t, 'owner@remove.example.org', { seatLimit: 2 });
      const a = await createMember(t, owner.organizationId, 'a@remove.example.org', true);
      const b = await createMember(t, owner.organizationId, 'b@remove.example.org');
      const secondSession = await login(t, a.email);
      expect(await sessionCountOf(t, a.id)).toBe(2);

      const removed = await remove(owner.cookie, a.hashedId, owner.organizationId);
      expect(removed.statusCode, removed.body).toBe(200);
      expect(await sessionCountOf(t, a.id)).toBe(0);
      expect((await userInfo(a.cookie)).statusCode).toBe(401);
      expect((await userInfo(secondSession)).statusCode).toBe(401);
      // Signing in again works, without access.
      expect((await userInfo(await login(t, a.email))).json()).toMatchObject({ access: false });
      expect((await give(owner.cookie, b.hashedId, owner.organizationId)).statusCode).toBe(200);
      expect(await auditActions(t, owner.organizationId)).toEqual(
        expect.arrayContaining(['team.access_removed', 'team.access_granted']),
      );
    });

    it('the trial allows one user with access at a time, and the seat is transferable', async () => {
      const owner = await createOwner(t, 'owner@trial.example.org', { planType: 'TRIAL', seatLimit: 1 });
      const analyst = await createMember(t, owner.organizationId, 'analyst@trial.example.org');
      expect((await give(owner.cookie, analyst.hashedId, owner.organizationId)).statusCode).toBe(400);

      // The owner hands over their own seat and stays signed in in the session that asked.
      const otherOwnerSession = await login(t, owner.email);
      expect((await remove(owner.cookie, owner.hashedId, owner.organizationId)).statusCode).toBe(200);
      // Without a seat but with a plan in force: the web app offers "Give yourself access", not "expired".
      expect((await userInfo(owner.cookie)).json()).toMatchObject({
        access: false,
        userRole: 'OWNER',
        planActive: true,
      });
      expect((await userInfo(otherOwnerSession)).statusCode).toBe(401);
      expect((await give(owner.cookie, analyst.hashedId, owner.organizationId)).statusCode).toBe(200);
      expect((await userInfo(analyst.cookie)).json()).toMatchObject({ access: true, restricted: true });
      expect((await give(owner.cookie, owner.hashedId, owner.organizationId)).statusCode).toBe(400);
    });

    it('refuses a pending invitation (409) and an organization without a plan (400)', async () => {
      const owner = await createOwner(t, 'owner@noplan.example.org', null);
      expect((await userInfo(owner.cookie)).json()).toMatchObject({ planActive: false });
      const member = await createMember(t, owner.organizationId, 'm@noplan.example.org');
      const noPlan = await give(owner.cookie, member.hashedId, owner.organizationId);
      expect(noPlan.statusCode).toBe(400);
      expect(noPlan.json()).toMatchObject({ message: TEAM_MESSAGES.capacityReached });

      expect((await invite(owner.cookie, 'pending@noplan.example.org')).statusCode).toBe(200);
      const pending = (await findUserByEmail(t, 'pending@noplan.example.org'))!;
      const response = await give(owner.cookie, pending.hashed_id, owner.organizationId);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ message: TEAM_MESSAGES.invitationPending });
    });

    it('lets only the owner give or remove access', async () => {
      const owner = await createOwner(t, 'owner@guard.example.org', { seatLimit: 5 });
      const member = await createMember(t, owner.organizationId, 'm@guard.example.org', true);
      const other = await createMember(t, owner.organizationId, 'o@guard.example.org');
      expect((await give(member.cookie, other.hashedId, owner.organizationId)).statusCode).toBe(403);
      expect((await remove(member.cookie, owner.hashedId, owner.organizationId)).statusCode).toBe(403);
      expect((await give('', other.hashedId, owner.organizationId)).statusCode).toBe(401);
      expect((await findUserByEmail(t, other.email))!.has_access).toBe(false);
      expect((await findUserByEmail(t, owner.email))!.has_access).toBe(true);
    });

    it('never exceeds the seat limit when many grants arrive at the same moment', async () => {
      const owner = await createOwner(t, 'owner@race.example.org', { seatLimit: 4 });
      const members = await Promise.all(
        Array.from({ length: 12 }, (_, i) => createMember(t, owner.organizationId, `r${i}@race.example.org`)),
      );
      const answers = await Promise.all(
        members.map((m) => give(owner.cookie, m.hashedId, owner.organizationId)),
      );
      const codes = answers.map((a) => a.statusCode).sort();
      // The owner holds one of the 4 seats: exactly 3 grants win, the other 9 are told the limit is reached.
      expect(codes.filter((c) => c === 200)).toHaveLength(3);
      expect(codes.filter((c) => c === 400)).toHaveLength(9);
      const withAccess = await t.db
        .selectFrom('users')
        .select('id')
        .where('organization_id', '=', owner.organizationId)
        .where('has_access', '=', true)
        .execute();
      expect(withAccess).toHaveLength(4);
    });

    it('holds the limit when two different seats are given concurrently, many times over', async () => {
      const owner = await createOwner(t, 'owner@race2.example.org', { seatLimit: 2 });
      const a = await createMember(t, owner.organizationId, 'a@race2.example.org');
      const b = await createMember(t, owner.organizationId, 'b@race2.example.org');
      for (let round = 0; round < 10; round++) {
        const [ra, rb] = await Promise.all([
          give(owner.cookie, a.hashedId, owner.organizationId),
          give(owner.cookie, b.hashedId, owner.organizationId),
        ]);
        expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 400]);
        const holders = await t.db
          .selectFrom('users')
          .select('hashed_id')
          .where('organization_id', '=', owner.organizationId)
          .where('has_access', '=', true)
          .execute();
        expect(holders).toHaveLength(2);
        const winner = holders.find((h) => h.hashed_id !== owner.hashedId)!.hashed_id;
        expect((await remove(owner.cookie, winner, owner.organizationId)).statusCode).toBe(200);
      }
    });
  });

  describe('users list', () => {
    it('lists the current user first, then users with access, then the others, for owners only', async () => {
      const owner = await createOwner(t, 'owner@list.example.org', { seatLimit: 5 });
      await t.db.updateTable('users').set({ has_access: false }).where('id', '=', owner.id).execute();
      const early = await createMember(t, owner.organizationId, 'early@list.example.org');
      const withAccess = await createMember(t, owner.organizationId, 'access@list.example.org', true);
      expect((await invite(owner.cookie, 'pending@list.example.org')).statusCode).toBe(200);
      const users = await organizationUsers(t, owner.cookie);
      expect(users.map((u) => u.email)).toEqual([
        owner.email,
        withAccess.email,
        early.email,
        'pending@list.example.org',
      ]);
      expect(users[0]).toMatchObject({ userRole: 'OWNER', status: 'ACTIVE', access: false });
      expect(users[1]).toMatchObject({ userRole: 'USER', status: 'ACTIVE', access: true });
      expect(users[3]).toMatchObject({ status: 'PENDING', access: false });
      expect(users.every((u) => u.organization.id === owner.organizationId)).toBe(true);
      const denied = await t.request({
        method: 'GET',
        url: '/api/user/organization/users',
        cookie: withAccess.cookie,
      });
      expect(denied.statusCode).toBe(403);
    });

    it('after a 3-seat plan, a 2-seat plan in force: the list shows access for its two seat holders only, as search grants it', async () => {
      const owner = await createOwner(t, 'owner@shrunk.example.org', null);
      await createPlan(t, owner.organizationId, {
        seatLimit: 3,
        startDate: new Date(Date.now() - 40 * 24 * HOUR),
        endDate: new Date(Date.now() - 10 * 24 * HOUR),
      });
      await createPlan(t, owner.organizationId, { seatLimit: 2 });
      const first = await createMember(t, owner.organizationId, 'first@shrunk.example.org', true);
      const beyond = await createMember(t, owner.organizationId, 'beyond@shrunk.example.org', true);

      const users = await organizationUsers(t, owner.cookie);
      const accessOf = (email: string) => users.find((u) => u.email === email)?.access;
      expect(accessOf(owner.email)).toBe(true);
      expect(accessOf(first.email)).toBe(true);
      expect(accessOf(beyond.email)).toBe(false);
      expect((await userInfo(beyond.cookie)).json()).toMatchObject({ access: false });
      expect((await userInfo(first.cookie)).json()).toMatchObject({ access: true });
      // Listed without access, the user beyond the seats can be deleted, as the list offers; a seat holder cannot.
      expect((await deleteUser(owner.cookie, first.hashedId)).statusCode).toBe(409);
      const deleted = await deleteUser(owner.cookie, beyond.hashedId);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(await findUserByEmail(t, beyond.email)).toBeUndefined();
    });

    it('with no plan in force, the list shows who gets access when the next plan starts, and they cannot be deleted', async () => {
      const owner = await createOwner(t, 'owner@lapsed.example.org', null);
      await createPlan(t, owner.organizationId, {
        seatLimit: 3,
        startDate: new Date(Date.now() - 40 * 24 * HOUR),
        endDate: new Date(Date.now() - 10 * 24 * HOUR),
      });
      const kept = await createMember(t, owner.organizationId, 'kept@lapsed.example.org', true);
      const users = await organizationUsers(t, owner.cookie);
      expect(users.find((u) => u.email === kept.email)?.access).toBe(true);
      expect((await userInfo(kept.cookie)).json()).toMatchObject({ access: false });
      expect((await deleteUser(owner.cookie, kept.hashedId)).statusCode).toBe(409);
    });
  });

  describe('deleting a user', () => {
    it('deletes a user without access with their searches, saved searches, results and sessions', async () => {
      const owner = await createOwner(t, 'owner@delete.example.org', { seatLimit: 3 });
      const leaving = await createMember(t, owner.organizationId, 'leaving@delete.example.org');
      const staying = await createMember(t, owner.organizationId, 'staying@delete.example.org');
      const search = await createSearch(t, leaving);
      const kept = await createSearch(t, staying);
      const saved = await createSavedSearch(t, leaving);
      const keptSaved = await createSavedSearch(t, staying);

      const response = await deleteUser(owner.cookie, leaving.hashedId);
      expect(response.statusCode, response.body).toBe(200);
      expect(await findUserByEmail(t, leaving.email)).toBeUndefined();
      expect((await userInfo(leaving.cookie)).statusCode).toBe(401);
      const results = await t.db
        .selectFrom('search_results')
        .select('search_id')
        .where('search_id', 'in', [search.id, kept.id])
        .execute();
      expect(results.map((r) => r.search_id)).toEqual([kept.id, kept.id]);
      expect(
        await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute(),
      ).toHaveLength(0);
      const savedLeft = await t.db
        .selectFrom('saved_searches')
        .select('id')
        .where('id', 'in', [saved.id, keptSaved.id])
        .execute();
      expect(savedLeft.map((r) => r.id)).toEqual([keptSaved.id]);
      const savedResults = await t.db
        .selectFrom('saved_search_results')
        .select('saved_search_id')
        .where('saved_search_id', '=', saved.id)
        .execute();
      expect(savedResults).toHaveLength(0);
      expect((await organizationUsers(t, owner.cookie)).map((u) => u.email)).not.toContain(leaving.email);
      // The log still names who was deleted.
      const entry = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'team.user_deleted')
        .where('organization_id', '=', owner.organizationId)
        .executeTakeFirstOrThrow();
      expect(entry.detail).toMatchObject({ email: leaving.email });
      expect(entry.actor_email).toBe(owner.email);
    });

    it("keeps a deleted user's search while a colleague's saved search of it waits to copy it, then lets it go", async () => {
      const owner = await createOwner(t, 'owner@delete-pending.example.org', { seatLimit: 2 });
      const leaving = await createMember(t, owner.organizationId, 'leaving@delete-pending.example.org');
      const search = await createSearch(t, leaving);
      // The owner saved the member's search a moment ago; its copy job has not run yet.
      const pending = await createPendingSave(t, owner, search.id);

      expect((await deleteUser(owner.cookie, leaving.hashedId)).statusCode).toBe(200);
      const kept = await t.db.selectFrom('searches').select('user_id').where('id', '=', search.id).execute();
      expect(kept).toEqual([{ user_id: null }]);

      await t.container.services.savedSearches.runSaveJob({ savedSearchId: pending.id });
      const saved = await t.db
        .selectFrom('saved_searches')
        .select(['status', 'result_count'])
        .where('id', '=', pending.id)
        .executeTakeFirstOrThrow();
      expect(saved).toEqual({ status: 'COMPLETED', result_count: 2 });
      // Copied, the search has nobody left to keep it for.
      expect(await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute()).toEqual(
        [],
      );
    });

    it("lets a deleted user's kept search go when the saved search waiting for it is deleted instead", async () => {
      const owner = await createOwner(t, 'owner@delete-pending-2.example.org', { seatLimit: 2 });
      const leaving = await createMember(t, owner.organizationId, 'leaving@delete-pending-2.example.org');
      const search = await createSearch(t, leaving);
      const pending = await createPendingSave(t, owner, search.id);
      expect((await deleteUser(owner.cookie, leaving.hashedId)).statusCode).toBe(200);
      expect(
        await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute(),
      ).toHaveLength(1);
      const removed = await t.request({
        method: 'DELETE',
        url: '/api/saved-search/remove',
        cookie: owner.cookie,
        payload: { id: pending.id },
      });
      expect(removed.statusCode, removed.body).toBeLessThan(300);
      expect(await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute()).toEqual(
        [],
      );
    });

    it('ends the face watches the deleted user created, deleting their descriptors; the others run on', async () => {
      const owner = await createOwner(t, 'owner@watches.example.org', { seatLimit: 3 });
      const leaving = await createMember(t, owner.organizationId, 'leaving@watches.example.org');
      const staying = await createMember(t, owner.organizationId, 'staying@watches.example.org');
      const watchOf = async (userId: number) => {
        const row = await t.db
          .insertInto('face_watches')
          .values({
            organization_id: owner.organizationId,
            user_id: userId,
            name: 'Watched face',
            descriptor_sealed: Buffer.from('sealed descriptor'),
            face_image: Buffer.from('face crop'),
            model_id: 'test-model',
            ends_at: new Date(Date.now() + 30 * 24 * HOUR),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return row.id;
      };
      const leavingWatch = await watchOf(leaving.id);
      const stayingWatch = await watchOf(staying.id);

      expect((await deleteUser(owner.cookie, leaving.hashedId)).statusCode).toBe(200);
      const watches = await t.db
        .selectFrom('face_watches')
        .select(['id', 'user_id', 'ended_at', 'descriptor_sealed', 'face_image'])
        .where('id', 'in', [leavingWatch, stayingWatch])
        .orderBy('id')
        .execute();
      expect(watches[0]).toMatchObject({
        id: leavingWatch,
        user_id: null,
        descriptor_sealed: null,
        face_image: null,
      });
      expect(watches[0]!.ended_at).toBeInstanceOf(Date);
      expect(watches[1]).toMatchObject({ id: stayingWatch, user_id: staying.id, ended_at: null });
      expect(watches[1]!.descriptor_sealed).not.toBeNull();
      // Logged as ended, by the owner who deleted the user.
      const ended = await t.db
        .selectFrom('audit_log')
        .select(['target', 'actor_email'])
        .where('action', '=', 'face-watch.ended')
        .where('organization_id', '=', owner.organizationId)
        .execute();
      expect(ended).toEqual([{ target: `face-watch:${leavingWatch}`, actor_email: owner.email }]);
    });

    it('refuses users with access, pending invitations and the owner (409), and keeps them', async () => {
      const owner = await createOwner(t, 'owner@keep.example.org', { seatLimit: 3 });
      const seated = await createMember(t, owner.organizationId, 'seated@keep.example.org', true);
      expect((await invite(owner.cookie, 'pending@keep.example.org')).statusCode).toBe(200);
      const pending = (await findUserByEmail(t, 'pending@keep.example.org'))!;
      const cases: [string, string][] = [
        [seated.hashedId, TEAM_MESSAGES.deleteOnlyWithoutAccess],
        [pending.hashed_id, TEAM_MESSAGES.deleteNotPending],
        [owner.hashedId, TEAM_MESSAGES.deleteNotOwner],
      ];
      for (const [hashedId, message] of cases) {
        const response = await deleteUser(owner.cookie, hashedId);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ message });
      }
      expect(await organizationUsers(t, owner.cookie)).toHaveLength(3);
      const notFound = await deleteUser(owner.cookie, 'no-such-user');
      expect(notFound.statusCode).toBe(404);
      const byMember = await deleteUser(seated.cookie, pending.hashed_id);
      expect(byMember.statusCode).toBe(403);
    });

    it('refuses to delete a user the platform blocked (409), so that re-inviting the address cannot undo the block', async () => {
      const owner = await createOwner(t, 'owner@blocked-keep.example.org', { seatLimit: 3 });
      const blocked = await createMember(t, owner.organizationId, 'blocked@blocked-keep.example.org', true);
      const admin = await createAdmin(t, 'admin@blocked-keep.example.org');
      const block = await t.request({
        method: 'POST',
        url: `/api/admin/users/${blocked.id}/block`,
        cookie: admin,
      });
      expect(block.statusCode, block.body).toBe(200);

      const response = await deleteUser(owner.cookie, blocked.hashedId);
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ message: TEAM_MESSAGES.deleteBlocked });
      expect(await findUserByEmail(t, blocked.email)).toMatchObject({ status: 'BLOCKED', has_access: false });
      // The address still belongs to the blocked account: inviting it with a seat gives nothing back.
      const again = await invite(owner.cookie, blocked.email, true);
      expect(again.statusCode).toBe(409);
      expect(await findUserByEmail(t, blocked.email)).toMatchObject({ status: 'BLOCKED', has_access: false });
    });
  });

  describe('password and account', () => {
    const changePassword = (cookie: string, currentPassword: string, newPassword: string) =>
      t.request({
        method: 'POST',
        url: '/api/user/change-password',
        cookie,
        payload: { currentPassword, newPassword },
      });
    const deleteAccount = (cookie: string, password: string) =>
      t.request({ method: 'DELETE', url: '/api/user/delete', cookie, payload: { password } });

    it('changes the password after checking the current one; other sessions end, this one stays', async () => {
      const owner = await createOwner(t, 'owner@password.example.org');
      const other = await login(t, owner.email);

      const missing = await changePassword(owner.cookie, '', NEW_PASSWORD);
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({
        violations: [{ field: 'currentPassword', message: 'Please enter your current password.' }],
      });
      const wrong = await changePassword(owner.cookie, 'Wrong.Pass1', NEW_PASSWORD);
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json().violations[0].field).toBe('currentPassword');
      const weak = await changePassword(owner.cookie, FIXTURE_PASSWORD, 'weakpass');
      expect(weak.statusCode).toBe(400);
      expect(weak.json().violations[0]).toMatchObject({
        field: 'newPassword',
        message: 'Use at least one capital letter',
      });
      expect((await userInfo(other)).statusCode).toBe(200);

      const changed = await changePassword(owner.cookie, FIXTURE_PASSWORD, NEW_PASSWORD);
      expect(changed.statusCode, changed.body).toBe(200);
      expect((await userInfo(owner.cookie)).statusCode).toBe(200);
      expect((await userInfo(other)).statusCode).toBe(401);
      const oldPassword = await t.request({
        method: 'POST',
        url: '/api/user/login',
        payload: { mail: owner.email, password: FIXTURE_PASSWORD },
      });
      expect(oldPassword.statusCode).toBe(401);
      await login(t, owner.email, NEW_PASSWORD);
      expect(await auditActions(t, owner.organizationId)).toContain('user.password_changed');
    });

    it('refuses to delete an owner’s account', async () => {
      const owner = await createOwner(t, 'owner@stay.example.org');
      const response = await deleteAccount(owner.cookie, FIXTURE_PASSWORD);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({
        message: 'Account deletion is not allowed for organization owners.',
      });
      expect(await findUserByEmail(t, owner.email)).toBeDefined();
    });

    it('answers 403 to a wrong password, then deletes the account with its searches and signs it out', async () => {
      const owner = await createOwner(t, 'owner@bye.example.org', { seatLimit: 3 });
      const member = await createMember(t, owner.organizationId, 'member@bye.example.org', true);
      const search = await createSearch(t, member);
      const saved = await createSavedSearch(t, member);

      const wrong = await deleteAccount(member.cookie, 'Wrong.Pass1');
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json()).toMatchObject({
        message: 'The password you entered is incorrect. Please try again.',
      });
      expect(await findUserByEmail(t, member.email)).toBeDefined();

      const response = await deleteAccount(member.cookie, FIXTURE_PASSWORD);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.cookies.find((c) => c.name === 'osint_session')?.value).toBe('');
      expect(await findUserByEmail(t, member.email)).toBeUndefined();
      expect((await userInfo(member.cookie)).statusCode).toBe(401);
      expect(
        await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute(),
      ).toHaveLength(0);
      expect(
        await t.db.selectFrom('saved_searches').select('id').where('id', '=', saved.id).execute(),
      ).toHaveLength(0);
      // The freed seat can be given again.
      expect((await organizationUsers(t, owner.cookie)).filter((u) => u.access)).toHaveLength(1);
      expect(await auditActions(t, owner.organizationId)).toContain('user.account_deleted');
    });

    it('changes nothing when the deletion fails half-way: the account, its seat and its work stay, no entry is logged', async () => {
      const owner = await createOwner(t, 'owner@half-way.example.org', { seatLimit: 3 });
      const member = await createMember(t, owner.organizationId, 'member@half-way.example.org', true);
      const search = await createSearch(t, member);
      // A real failure inside the deletion: the database refuses to delete this user's searches.
      await sql
        .raw(
          `create function refuse_search_delete() returns trigger language plpgsql as $$
           begin raise exception 'refused for the test'; end $$;
           create trigger refuse_search_delete before delete on searches
           for each row when (old.user_id = ${member.id}) execute function refuse_search_delete();`,
        )
        .execute(t.db);
      try {
        const response = await deleteAccount(member.cookie, FIXTURE_PASSWORD);
        expect(response.statusCode).toBe(500);
      } finally {
        await sql
          .raw('drop trigger refuse_search_delete on searches; drop function refuse_search_delete();')
          .execute(t.db);
      }
      expect(await findUserByEmail(t, member.email)).toMatchObject({ has_access: true });
      expect(
        await t.db.selectFrom('searches').select('id').where('id', '=', search.id).execute(),
      ).toHaveLength(1);
      expect(await auditActions(t, owner.organizationId)).not.toContain('user.account_deleted');
      expect((await deleteAccount(member.cookie, FIXTURE_PASSWORD)).statusCode).toBe(200);
    });
  });
});
