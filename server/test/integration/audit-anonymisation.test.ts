import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, createUser } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Spec 000 §9 "system logs at most 90 days, anonymised; billing and admin records 7 years", with a
// controlled clock: entries are dated relative to the "now" given to the retention sweep.

const DAY = 86_400_000;
const NOW = new Date('2031-06-15T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

describe(`audit log anonymisation (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let analyst: { id: number; organizationId: number };
  let adminId: number;

  async function entry(
    action: string,
    days: number,
    actorUserId: number,
    ip = '203.0.113.7',
    detail: object = { results: 3 },
  ) {
    const row = await t.db
      .insertInto('audit_log')
      .values({
        at: ago(days),
        actor_user_id: actorUserId,
        actor_email: sql<string>`(select email from users where id = ${actorUserId})`,
        organization_id: analyst.organizationId,
        action,
        target: 'search:abc',
        detail: JSON.stringify(detail),
        ip,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const read = (id: number) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor_user_id', 'actor_email', 'ip', 'action', 'target', 'detail', 'anonymised_at', 'at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    t = await createTestApp();
    analyst = await createUser(t, { email: 'analyst@agency.example.org' });
    await createAdmin(t, 'admin@provider.example.org');
    adminId = (await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'admin@provider.example.org')
      .executeTakeFirstOrThrow())!.id;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('anonymises entries older than 90 days and keeps billing and admin actors for 7 years', async () => {
    const old = await entry('search.performed', 91, analyst.id);
    const oldToo = await entry('user.login', 200, analyst.id);
    const recent = await entry('search.performed', 89, analyst.id);
    const billing = await entry('billing.order_created', 400, analyst.id);
    const adminAction = await entry('admin.user.approved', 400, adminId);
    const byAdmin = await entry('face.opt_out', 400, adminId);
    const ancientAdmin = await entry('admin.user.approved', 7 * 366, adminId);
    // An entry that names a person in its detail (here the analyst, invited again by a colleague).
    const naming = await entry('team.user_invited', 95, analyst.id, '203.0.113.7', {
      email: 'Analyst@agency.example.org',
      resent: true,
    });

    await t.container.services.retention.sweep(NOW);

    const anonymised = await read(old);
    expect(anonymised).toMatchObject({ actor_user_id: null, ip: null, action: 'search.performed' });
    expect(anonymised.actor_email).toMatch(/^pseudonym:[0-9a-f]{16}$/);
    expect(anonymised.anonymised_at).not.toBeNull();
    // What was done and when stays; the pseudonym is the same for every entry of one person.
    expect(anonymised.target).toBe('search:abc');
    expect(anonymised.at.getTime()).toBe(ago(91).getTime());
    expect((await read(oldToo)).actor_email).toBe(anonymised.actor_email);
    expect(anonymised.actor_email).not.toContain('analyst');
    // The address in the detail becomes the same pseudonym; the rest of the detail stays.
    const named = await read(naming);
    const namedDetail = typeof named.detail === 'string' ? JSON.parse(named.detail) : named.detail;
    expect(namedDetail).toEqual({ email: anonymised.actor_email, resent: true });

    for (const id of [recent, billing]) {
      expect(await read(id)).toMatchObject({
        actor_user_id: analyst.id,
        actor_email: 'analyst@agency.example.org',
        ip: '203.0.113.7',
        anonymised_at: null,
      });
    }
    for (const id of [adminAction, byAdmin]) {
      expect(await read(id)).toMatchObject({ actor_user_id: adminId, anonymised_at: null });
    }
    expect(await read(ancientAdmin)).toMatchObject({
      actor_user_id: null,
      ip: null,
      anonymised_at: expect.any(Date),
    });

    // One audited statement.
    const records = await t.db
      .selectFrom('audit_log')
      .select(['detail', 'actor_user_id'])
      .where('action', '=', 'retention.audit_anonymised')
      .execute();
    expect(records).toHaveLength(1);
    const detail =
      typeof records[0]!.detail === 'string' ? JSON.parse(records[0]!.detail) : records[0]!.detail;
    expect(detail).toMatchObject({ entries: 4 });

    // A second sweep changes nothing more.
    await t.container.services.retention.sweep(NOW);
    expect(
      await t.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'retention.audit_anonymised')
        .execute(),
    ).toHaveLength(1);
  });

  it('stays append-only: no other update, nor this one outside the sweep', async () => {
    const id = await entry('search.performed', 120, analyst.id);
    await expect(
      t.db.updateTable('audit_log').set({ ip: null }).where('id', '=', id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(
      sql`update audit_log set ip = null, actor_user_id = null, actor_email = 'pseudonym:0', anonymised_at = now()
          where id = ${id}`.execute(t.db),
    ).rejects.toThrow(/append-only/);
    await expect(t.db.deleteFrom('audit_log').where('id', '=', id).execute()).rejects.toThrow(/append-only/);
    expect(await read(id)).toMatchObject({ ip: '203.0.113.7', anonymised_at: null });
  });
});
