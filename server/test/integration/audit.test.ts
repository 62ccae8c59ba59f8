import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_STAFF_LABEL, type AuditPage } from '@osint/contract/audit';
import { SHIPPED_MODEL } from '../../src/services/face-index.service.ts';
import { createAdmin, FIXTURE_PASSWORD, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';
import { createMember, createOwner, createPlan, type Member } from '../support/team-fixtures.ts';

const DAY = 86_400_000;

/** Parses RFC 4180 CSV (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

describe(`audit trail (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let admin: string;
  let owner: Member;
  let member: Member;
  let other: Member;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createAdmin(t);
    // A fixed period: its renewal is the bank order the billing entries below come from.
    owner = await createOwner(t, 'owner@audited.example.org', { planType: 'ONE_TIME_PAYMENT', seatLimit: 3 });
    member = await createMember(t, owner.organizationId, 'analyst@audited.example.org');
    other = await createOwner(t, '=hyperlink("x")@other.example.org', { seatLimit: 1 });
    await t.db
      .updateTable('organizations')
      .set({ name: '@SUM(1+1)' })
      .where('id', '=', other.organizationId)
      .execute();
    // A failed sign-in with a known and with an unknown address.
    for (const mail of [member.email, 'nobody@audited.example.org']) {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/login',
        payload: { mail, password: 'Wrong.Pass1' },
      });
      expect(response.statusCode).toBe(401);
    }
    await t.request({
      method: 'POST',
      url: '/api/user/give',
      cookie: owner.cookie,
      payload: { userHashedId: member.hashedId, organizationId: owner.organizationId },
    });
  });
  afterAll(() => t.close());

  const adminAudit = async (query: Record<string, string | number>) => {
    const response = await t.request({
      method: 'GET',
      url: '/api/admin/audit',
      cookie: admin,
      query: query as never,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<AuditPage>();
  };

  it('records sign-in success and failure, with the attempted address and never the password', async () => {
    const page = await adminAudit({ action: 'user.login_failed' });
    expect(page.totalResultCount).toBe(2);
    const [unknown, known] = page.entries;
    expect(unknown).toMatchObject({
      action: 'user.login_failed',
      actor: null,
      organization: null,
      detail: { email: 'nobody@audited.example.org', reason: 'unknown_email' },
    });
    expect(known).toMatchObject({
      actor: { email: member.email },
      organization: { id: owner.organizationId },
      detail: { reason: 'wrong_password' },
    });
    expect(JSON.stringify(page)).not.toContain('Wrong.Pass1');
    const logins = await adminAudit({ action: 'user.login', userId: member.id });
    expect(logins.entries.map((e) => e.action)).toEqual(['user.login']);
  });

  it('records a face search with who, when and how many results, and nothing of the photo', async () => {
    const dims = SHIPPED_MODEL.dimensions;
    const descriptor = new Float32Array(dims).fill(1 / Math.sqrt(dims));
    const hash = await t.container.services.queryFaces.seal({
      descriptor,
      modelId: SHIPPED_MODEL.modelId,
      possibleMinor: false,
      organizationId: owner.organizationId,
      userId: member.id,
    });
    const response = await t.request({
      method: 'POST',
      url: '/api/search',
      cookie: member.cookie,
      payload: { faces: [hash], type: 'OSINT' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const { searchHash, numberOfResults } = response.json<{ searchHash: string; numberOfResults: number }>();
    const page = await adminAudit({ action: 'search' });
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      action: 'search.performed',
      actor: { id: member.id, email: member.email },
      organization: { id: owner.organizationId },
      target: `search:${searchHash}`,
      detail: { type: 'OSINT', results: numberOfResults },
    });
    expect(Object.keys(page.entries[0]!.detail).sort()).toEqual(['results', 'type']);
  });

  it('filters by organization, user, action area and date range', async () => {
    const all = await adminAudit({ pageSize: 200 });
    const byOrganization = await adminAudit({ organizationId: owner.organizationId, pageSize: 200 });
    expect(byOrganization.totalResultCount).toBeGreaterThan(0);
    expect(byOrganization.totalResultCount).toBeLessThan(all.totalResultCount);
    expect(byOrganization.entries.every((e) => e.organization?.id === owner.organizationId)).toBe(true);

    const byUser = await adminAudit({ userId: member.id, pageSize: 200 });
    // Entries by the user (sign-ins, the search) and about the user (the owner gave access).
    expect(byUser.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['user.login', 'user.login_failed', 'team.access_granted', 'search.performed']),
    );
    expect(byUser.entries.every((e) => e.actor?.id === member.id || e.target === `user:${member.id}`)).toBe(
      true,
    );
    const byEmail = await adminAudit({ user: 'ANALYST@audited', pageSize: 200 });
    expect(byEmail.entries.every((e) => e.actor?.email === member.email)).toBe(true);

    const team = await adminAudit({ action: 'team' });
    expect(team.entries.map((e) => e.action)).toEqual(['team.access_granted']);
    expect((await adminAudit({ action: 'tea' })).totalResultCount).toBe(0);

    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    expect((await adminAudit({ from: today, to: today })).totalResultCount).toBe(all.totalResultCount);
    expect((await adminAudit({ from: tomorrow })).totalResultCount).toBe(0);
    expect((await adminAudit({ to: new Date(Date.now() - DAY).toISOString() })).totalResultCount).toBe(0);
    const invalid = await t.request({ method: 'GET', url: '/api/admin/audit?from=someday', cookie: admin });
    expect(invalid.statusCode).toBe(400);

    const first = await adminAudit({ page: 1, pageSize: 2 });
    const second = await adminAudit({ page: 2, pageSize: 2 });
    expect(first.entries).toHaveLength(2);
    expect(second.entries[0]!.id).toBeLessThan(first.entries[1]!.id);
  });

  it('exports the filtered log as CSV, safe to open in a spreadsheet, and records the export', async () => {
    const response = await t.request({
      method: 'GET',
      url: `/api/admin/audit/export?organizationId=${other.organizationId}`,
      cookie: admin,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv/);
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const rows = parseCsv(response.body);
    expect(rows[0]).toEqual([
      'id',
      'time',
      'action',
      'actor_user_id',
      'actor_email',
      'organization_id',
      'organization_name',
      'target',
      'ip',
      'detail',
    ]);
    const login = rows.find((r) => r[2] === 'user.login')!;
    // The address starts with "=": a spreadsheet would run it; the export makes it text.
    expect(login[4]).toBe(`'${other.email}`);
    expect(login[6]).toBe(`'@SUM(1+1)`);
    expect(rows.slice(1).every((r) => r[5] === String(other.organizationId))).toBe(true);
    expect(JSON.parse(rows.find((r) => r[2] === 'user.login')![9]!)).toEqual({});

    const everything = parseCsv(
      (await t.request({ method: 'GET', url: '/api/admin/audit/export', cookie: admin })).body,
    );
    const total = (await adminAudit({})).totalResultCount;
    // The export is recorded before the file is written, so the file lists every entry, its own included.
    expect(everything.length - 1).toBe(total);
    expect(everything[1]![2]).toBe('admin.audit.exported');
    expect((await adminAudit({ action: 'admin.audit.exported' })).totalResultCount).toBe(2);

    // A filter naming no organization gives an empty file (it was a 500: the export's own entry broke the
    // organization foreign key); the entry keeps the requested id in its detail.
    const unknown = await t.request({
      method: 'GET',
      url: '/api/admin/audit/export?organizationId=2000000000',
      cookie: admin,
    });
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect(parseCsv(unknown.body)).toHaveLength(1);
    const recorded = await adminAudit({ action: 'admin.audit.exported' });
    expect(recorded.totalResultCount).toBe(3);
    expect(recorded.entries[0]!.detail).toMatchObject({ filter: { organizationId: 2000000000 } });
  });

  it('refuses a date the database cannot compare with, or a day that does not exist, before anything is recorded', async () => {
    const exportsBefore = (await adminAudit({ action: 'admin.audit.exported' })).totalResultCount;
    const invalid = { message: 'Please enter a valid date.' };
    for (const [field, value] of [
      ['from', '0000-01-01'],
      ['from', '-100000-01-01T00:00:00Z'],
      ['from', '+275000-01-01T00:00:00Z'],
      ['to', '-010000-01-01'],
      ['to', '2024-02-30'],
    ] as const) {
      for (const url of ['/api/admin/audit', '/api/admin/audit/export']) {
        const response = await t.request({ method: 'GET', url, cookie: admin, query: { [field]: value } });
        expect(response.statusCode, `${url} ${field}=${value}`).toBe(400);
        expect(response.json()).toMatchObject({ ...invalid, violations: [{ field, ...invalid }] });
      }
    }
    expect((await adminAudit({ action: 'admin.audit.exported' })).totalResultCount).toBe(exportsBefore);
    expect((await adminAudit({ from: '2024-02-29', to: '9998-12-31' })).totalResultCount).toBeGreaterThan(0);
  });

  it('item 8: a bank transfer marked paid by staff shows as the provider in the owner’s log, without e-mail or IP', async () => {
    const buyer = {
      name: 'Agency',
      street: '1 Quay Road',
      cityPostcode: '12-345',
      city: 'Port',
      country: 'Freedonia',
    };
    const ordered = await t.request({
      method: 'POST',
      url: '/api/order/renew',
      cookie: owner.cookie,
      payload: { seatAmount: 2, period: 1, buyer },
    });
    expect(ordered.statusCode, ordered.body).toBe(200);
    const order = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', owner.organizationId)
      .where('status', '=', 'PENDING')
      .executeTakeFirstOrThrow();
    const paid = await t.request({
      method: 'POST',
      url: `/api/admin/orders/${order.id}/mark-paid`,
      cookie: admin,
      remoteAddress: '192.0.2.77',
    });
    expect(paid.statusCode, paid.body).toBe(200);

    const page = (
      await t.request({
        method: 'GET',
        url: '/api/user/organization/audit?action=billing',
        cookie: owner.cookie,
      })
    ).json<AuditPage>();
    const entry = page.entries.find((e) => e.action === 'billing.order_paid')!;
    expect(entry.actor).toEqual({ id: null, email: PROVIDER_STAFF_LABEL });
    expect(entry.ip).toBeNull();
    expect(JSON.stringify(page)).not.toContain('admin@provider.example.org');
    expect(JSON.stringify(page)).not.toContain('192.0.2.77');
    // The owner's own order keeps its actor.
    const placed = page.entries.find((e) => e.action === 'billing.order_created')!;
    expect(placed.actor).toEqual({ id: owner.id, email: owner.email });
    // The admins' view keeps the whole entry.
    const full = await adminAudit({ action: 'billing.order_paid' });
    expect(full.entries[0]).toMatchObject({
      actor: { email: 'admin@provider.example.org' },
      ip: '192.0.2.77',
    });
  });

  it('shows an owner their organization’s log only, with the provider’s staff unnamed', async () => {
    await t.request({
      method: 'POST',
      url: `/api/admin/organizations/${owner.organizationId}/billing-plans`,
      cookie: admin,
      payload: {
        planType: 'VIRTUAL',
        startDate: new Date().toISOString(),
        endDate: new Date(Date.now() + 30 * DAY).toISOString(),
        seatLimit: 4,
      },
    });
    const response = await t.request({
      method: 'GET',
      url: '/api/user/organization/audit',
      cookie: owner.cookie,
    });
    expect(response.statusCode).toBe(200);
    const page = response.json<AuditPage>();
    expect(page.entries.every((e) => e.organization?.id === owner.organizationId)).toBe(true);
    expect(page.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['team.access_granted', 'search.performed', 'admin.billing_plan.created']),
    );
    const plan = page.entries.find((e) => e.action === 'admin.billing_plan.created')!;
    expect(plan.actor).toEqual({ id: null, email: PROVIDER_STAFF_LABEL });
    expect(plan.ip).toBeNull();
    expect(JSON.stringify(page)).not.toContain('admin@provider.example.org');

    // The owner cannot widen the filter to another organization.
    const widened = await t.request({
      method: 'GET',
      url: `/api/user/organization/audit?organizationId=${other.organizationId}`,
      cookie: owner.cookie,
    });
    expect(widened.json<AuditPage>().entries.every((e) => e.organization?.id === owner.organizationId)).toBe(
      true,
    );
    const member403 = await t.request({
      method: 'GET',
      url: '/api/user/organization/audit',
      cookie: member.cookie,
    });
    expect(member403.statusCode).toBe(403);
  });

  it('shows an owner without work access who did what, but not the names and targets of the work', async () => {
    const lapsed = await createOwner(t, 'owner@lapsed-audit.example.org', null);
    const plan = await createPlan(t, lapsed.organizationId, { seatLimit: 2 });
    const analyst = await createMember(t, lapsed.organizationId, 'analyst@lapsed-audit.example.org', true);
    await t.db
      .insertInto('audit_log')
      .values([
        {
          actor_user_id: analyst.id,
          organization_id: lapsed.organizationId,
          action: 'saved-search.saved',
          target: 'saved-search:77',
          detail: JSON.stringify({ name: 'Иван Петров, Riga', searchHash: 'abc123' }),
          ip: null,
        },
        {
          actor_user_id: lapsed.id,
          organization_id: lapsed.organizationId,
          action: 'team.user_invited',
          target: `user:${analyst.id}`,
          detail: JSON.stringify({ email: analyst.email }),
          ip: null,
        },
      ])
      .execute();
    const log = async () => {
      const response = await t.request({
        method: 'GET',
        url: '/api/user/organization/audit',
        cookie: lapsed.cookie,
      });
      expect(response.statusCode, response.body).toBe(200);
      const entries = response.json<AuditPage>().entries;
      return (action: string) => entries.find((e) => e.action === action)!;
    };
    // With a seat the owner sees the work's name.
    let entry = await log();
    expect(entry('saved-search.saved')).toMatchObject({
      target: 'saved-search:77',
      detail: { name: 'Иван Петров, Riga' },
    });
    // The plan ends: the owner still sees who saved a search and when, not what it was.
    await t.db
      .updateTable('billing_plans')
      .set({ end_date: new Date(Date.now() - 1000) })
      .where('id', '=', plan.id)
      .execute();
    entry = await log();
    expect(entry('saved-search.saved')).toMatchObject({
      actor: { id: analyst.id, email: analyst.email },
      target: null,
      detail: {},
    });
    expect(entry('team.user_invited')).toMatchObject({ detail: { email: analyst.email } });
  });

  it('is append-only: the database refuses to change or delete entries, and entries outlive their actor', async () => {
    await expect(t.db.updateTable('audit_log').set({ action: 'forged' }).execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(t.db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
    const before = await adminAudit({});

    const leaving = await createMember(t, owner.organizationId, 'leaving@audited.example.org');
    await login(t, leaving.email, FIXTURE_PASSWORD);
    const deleted = await t.request({
      method: 'DELETE',
      url: `/api/user/${leaving.hashedId}`,
      cookie: owner.cookie,
    });
    expect(deleted.statusCode).toBe(200);
    const entries = await adminAudit({ user: 'leaving@audited' });
    expect(entries.entries.length).toBeGreaterThanOrEqual(2);
    expect(entries.entries.every((e) => e.actor?.email === leaving.email && e.actor.id === null)).toBe(true);
    expect((await adminAudit({})).totalResultCount).toBeGreaterThan(before.totalResultCount);
  });
});
