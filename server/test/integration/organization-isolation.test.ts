import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import {
  createMember,
  createOwner,
  createSearch,
  organizationUsers,
  type Member,
} from '../support/team-fixtures.ts';

// A user of organization A who uses the ids of organization B gets 404 (or 403), and B's data is untouched.
describe(`organization isolation of the team and account calls (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let ownerA: Member;
  let memberA: Member;
  let ownerB: Member;
  let seatedB: Member;
  let idleB: Member;
  let searchB: { id: number; hashed_id: string };

  beforeAll(async () => {
    t = await createTestApp();
    ownerA = await createOwner(t, 'owner@org-a.example.org', { seatLimit: 10 });
    memberA = await createMember(t, ownerA.organizationId, 'member@org-a.example.org', true);
    ownerB = await createOwner(t, 'owner@org-b.example.org', { seatLimit: 10 });
    seatedB = await createMember(t, ownerB.organizationId, 'seated@org-b.example.org', true);
    idleB = await createMember(t, ownerB.organizationId, 'idle@org-b.example.org', false);
    searchB = await createSearch(t, seatedB);
  });
  afterAll(() => t.close());

  /** Every call of organization A's owner and member that names something of organization B. */
  const crossCalls = () => {
    const calls: { name: string; method: 'POST' | 'DELETE'; url: string; payload?: object }[] = [];
    for (const target of [seatedB, idleB, ownerB]) {
      for (const organizationId of [ownerB.organizationId, ownerA.organizationId]) {
        const payload = { userHashedId: target.hashedId, organizationId };
        calls.push({
          name: `give ${target.email} in org ${organizationId}`,
          method: 'POST',
          url: '/api/user/give',
          payload,
        });
        calls.push({
          name: `remove ${target.email} in org ${organizationId}`,
          method: 'POST',
          url: '/api/user/remove',
          payload,
        });
      }
      calls.push({ name: `delete ${target.email}`, method: 'DELETE', url: `/api/user/${target.hashedId}` });
    }
    // A's own user named with B's organization id.
    calls.push({
      name: 'give an own user with the other organization id',
      method: 'POST',
      url: '/api/user/give',
      payload: { userHashedId: memberA.hashedId, organizationId: ownerB.organizationId },
    });
    calls.push({
      name: "remove records of the other organization's search",
      method: 'POST',
      url: '/api/search/remove-records',
      payload: { hash: searchB.hashed_id, recordHashes: ['x'] },
    });
    return calls;
  };

  it('answers 404 to the owner of A for every id of B', async () => {
    for (const call of crossCalls()) {
      const response = await t.request({ ...call, cookie: ownerA.cookie });
      expect(response.statusCode, call.name).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });

  it('answers 403 or 404 to a member of A for every id of B', async () => {
    for (const call of crossCalls()) {
      const response = await t.request({ ...call, cookie: memberA.cookie });
      expect([403, 404], call.name).toContain(response.statusCode);
    }
  });

  it('left everything of B as it was', async () => {
    const users = await organizationUsers(t, ownerB.cookie);
    expect(users.map((u) => [u.email, u.access])).toEqual([
      [ownerB.email, true],
      [seatedB.email, true],
      [idleB.email, false],
    ]);
    expect((await findUserByEmail(t, idleB.email))!.status).toBe('ACTIVE');
    const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie: seatedB.cookie });
    expect(info.statusCode).toBe(200);
    const results = await t.db
      .selectFrom('search_results')
      .select('removed_at')
      .where('search_id', '=', searchB.id)
      .execute();
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.removed_at === null)).toBe(true);
  });

  it('shows each owner only their own users and their own audit entries', async () => {
    const usersA = await organizationUsers(t, ownerA.cookie);
    expect(usersA.every((u) => u.organization.id === ownerA.organizationId)).toBe(true);
    expect(usersA.map((u) => u.email)).not.toContain(seatedB.email);
    const audit = await t.request({
      method: 'GET',
      url: '/api/user/organization/audit',
      cookie: ownerA.cookie,
    });
    const entries = audit.json<{ entries: { organization: { id: number } | null }[] }>().entries;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.organization?.id === ownerA.organizationId)).toBe(true);
  });
});
