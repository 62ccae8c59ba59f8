import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every /api/admin route the server describes, with its path parameters filled in. */
async function adminRoutes(t: TestApp): Promise<{ method: Method; url: string }[]> {
  const response = await t.request({ method: 'GET', url: '/api/docs/json' });
  const document = response.json<{ paths: Record<string, Record<string, unknown>> }>();
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/api/admin'))
    .flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => METHODS.has(method))
        .map((method) => ({
          method: method.toUpperCase() as Method,
          url: path.replace(/\{[^}]+\}/g, '1'),
        })),
    );
}

/** Rows an admin call could have changed; a refused call changes none of them. */
async function snapshot(t: TestApp) {
  const count = async (table: 'billing_plans' | 'crawls' | 'face_opt_outs' | 'jobs') =>
    (await t.db.selectFrom(table).select('id').execute()).length;
  const users = await t.db.selectFrom('users').select(['id', 'status', 'has_access']).orderBy('id').execute();
  const audit = await t.db
    .selectFrom('audit_log')
    .select('action')
    .where('action', 'like', 'admin.%')
    .execute();
  return {
    plans: await count('billing_plans'),
    crawls: await count('crawls'),
    optOuts: await count('face_opt_outs'),
    jobs: await count('jobs'),
    users,
    adminAudit: audit.length,
  };
}

describe(`every admin route refuses guests and non-admins (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let userCookie: string;
  let adminCookie: string;
  let routes: { method: Method; url: string }[];

  beforeAll(async () => {
    t = await createTestApp();
    adminCookie = await createAdmin(t);
    // Id 1 exists for every kind of object the paths name: the admin (user 1, organization 1) and this owner.
    await createUser(t, { email: 'owner@guard.example.org', role: 'OWNER' });
    await createUser(t, { email: 'pending@guard.example.org', role: 'USER', organizationId: 1 });
    userCookie = await login(t, 'owner@guard.example.org');
    routes = await adminRoutes(t);
  });
  afterAll(() => t.close());

  it('finds the admin routes in the OpenAPI document', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'GET /api/admin/users',
      'GET /api/admin/users/1',
      'POST /api/admin/users/1/approve',
      'POST /api/admin/users/1/block',
      'GET /api/admin/organizations/1',
      'POST /api/admin/organizations/1/billing-plans',
      'GET /api/admin/audit',
      'GET /api/admin/audit/export',
      'POST /api/admin/crawl',
      'GET /api/admin/opt-outs',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('answers 401 to a guest and 403 to a signed-in user on every one of them, changing nothing', async () => {
    const before = await snapshot(t);
    for (const route of routes) {
      const withBody = route.method !== 'GET' && route.method !== 'DELETE';
      const call = (cookie?: string) => t.request({ ...route, cookie, ...(withBody ? { payload: {} } : {}) });
      const guest = await call();
      expect(guest.statusCode, `${route.method} ${route.url} as a guest`).toBe(401);
      expect(guest.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
      const user = await call(userCookie);
      expect(user.statusCode, `${route.method} ${route.url} as a user`).toBe(403);
      expect(user.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('lets the admin through the same guard', async () => {
    const response = await t.request({ method: 'GET', url: '/api/admin/users/1', cookie: adminCookie });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: 1, admin: true });
  });
});
