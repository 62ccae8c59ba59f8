import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, login } from '../support/fixtures.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../support/test-app.ts';

/**
 * Property-based hardening: every route of the OpenAPI description gets random and hostile bodies, query
 * strings, path parameters and headers, anonymously and signed in as a user and as an admin. Whatever
 * arrives, the answer is never a 5xx, never shows a stack trace or an internal path, and every error
 * is `{statusCode, error, message, violations?}` with the status of the response.
 */

const RUNS_PER_ROUTE = Number(process.env.HARDENING_RUNS ?? 8);

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProperties: Record<string, unknown> | undefined;
  hasBody: boolean;
}

// Strings an attacker tries first: injections, traversal, prototype keys, control and odd Unicode
// characters, numbers that overflow, huge values.
const HOSTILE_STRINGS = [
  '',
  ' ',
  "' OR 1=1 --",
  '"; drop table users; --',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '\u0000',
  '\uFFFF\uD800',
  '🙂'.repeat(40),
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  '-1',
  '0',
  '1e309',
  'NaN',
  '9007199254740993',
  '99999999999999999999999999',
  '2147483648',
  '-2147483649',
  'true',
  'null',
  '[]',
  '{}',
  'a'.repeat(5000),
  'x@y',
  'Robert@@example..org',
  '2024-02-30T25:61:61Z',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'data:image/png;base64,AAAA',
  '/9j/4AAQSkZJRgABAQ==',
];

/** encodeURIComponent that also takes lone surrogates (sent as the raw, invalid bytes they stand for). */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return escape(value);
  }
}

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

const hostileScalar = fc.oneof(
  hostileString,
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 0.5, -0),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** A body that names the route's own fields (so validation passes more often) with hostile values. */
function bodyFor(op: Operation): fc.Arbitrary<{ payload: string | undefined; contentType?: string }> {
  const fields = Object.keys(op.bodyProperties ?? {});
  const shaped = fields.length
    ? fc
        .record(Object.fromEntries(fields.map((f) => [f, hostileValue])), { requiredKeys: [] })
        .map((o) => JSON.stringify(o))
    : fc.constant('{}');
  const prototypeKeys = fc
    .constantFrom('__proto__', 'constructor')
    .map((key) => `{"${key}": {"isAdmin": true, "polluted": 1}${fields[0] ? `, "${fields[0]}": "x"` : ''}}`);
  const raw = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.constantFrom('', '{', '{"a":', 'null', '[]', '"text"', '1e999', '{"a":1,"a":2}', '\u0000'),
    fc.string({ maxLength: 200 }),
    fc.constant(`{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`),
  );
  const json = fc.oneof(
    { weight: 4, arbitrary: shaped },
    { weight: 1, arbitrary: prototypeKeys },
    { weight: 2, arbitrary: raw },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/xml',
        'application/json; charset=nonsense',
      ),
    },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ payload: json, contentType }) },
    { weight: 1, arbitrary: fc.constant({ payload: undefined }) },
  );
}

function queryFor(op: Operation): fc.Arbitrary<string> {
  const keys = [...op.queryParams, 'page', 'pageSize', '__proto__', 'constructor[prototype]', 'a[b][c]'];
  const pair = fc
    .tuple(fc.constantFrom(...keys), fc.oneof(hostileString, fc.integer().map(String)))
    .map(([k, v]) => `${encode(k)}=${encode(v)}`);
  return fc.oneof(
    fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&')),
    fc.constantFrom('%', '%zz', '&&&', '=', 'page=%E0%A4%A', 'pageSize[]=1&pageSize[]=2', '?'),
  );
}

const pathParam = fc.oneof(
  hostileString.map((s) => encode(s)),
  fc.integer().map(String),
  fc.constantFrom('0', '-1', '1', '2', '3', '999999999999', '1.5', '%', '%2e%2e', '..', 'null'),
);

const hostileHeaders = fc.record(
  {
    'accept-language': hostileString.map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
    'x-forwarded-for': fc.constantFrom('1.2.3.4, 5.6.7.8', 'not-an-ip', '::1', '999.999.999.999', ''),
    'x-forwarded-proto': fc.constantFrom('https', 'gopher', ''),
    'x-forwarded-host': fc.constantFrom('evil.example', 'localhost:3000'),
    'user-agent': hostileString.map((s) => s.replace(/[^\t\x20-\x7e]/g, '')),
    accept: fc.constantFrom('*/*', 'text/html', 'application/xml', ''),
    extraCookie: fc.constantFrom(
      'osint_session=forged',
      'osint_session=',
      '__Host-osint_session=forged',
      'osint_session=%zz',
      'a=b; osint_session="quoted"',
    ),
  },
  { requiredKeys: [] },
);

/** What an error answer must look like, and what no answer may ever contain. */
function checkResponse(response: LightMyRequestResponse, label: string): void {
  const where = `${label} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, where).toBeLessThan(500);
  const text = response.body;
  expect(text, where).not.toMatch(/\bat .+\(.+:\d+:\d+\)/);
  expect(text, where).not.toMatch(/node_modules|\/work\/|server\/src|file:\/\/\/(?!etc)|\.ts:\d+/);
  expect(text, where).not.toMatch(
    /TypeError|ReferenceError|SyntaxError: |Kysely|PGlite|violates .* constraint/,
  );
  if (response.statusCode >= 400) {
    expect(String(response.headers['content-type']), where).toContain('application/json');
    const body = response.json() as Record<string, unknown>;
    expect(
      Object.keys(body).every((k) => ['statusCode', 'error', 'message', 'violations'].includes(k)),
      where,
    ).toBe(true);
    expect(body.statusCode, where).toBe(response.statusCode);
    expect(typeof body.error, where).toBe('string');
    expect(typeof body.message, where).toBe('string');
    if (body.violations !== undefined) {
      expect(Array.isArray(body.violations), where).toBe(true);
      for (const v of body.violations as Record<string, unknown>[]) {
        expect(typeof v.field, where).toBe('string');
        expect(typeof v.message, where).toBe('string');
      }
    }
  }
}

type Role = 'anonymous' | 'user' | 'admin';
const USER_EMAIL = 'analyst@hardening.example.org';
const ADMIN_EMAIL = 'admin@hardening.example.org';

describe('property-based routes', () => {
  let t: TestApp;
  let operations: Operation[] = [];
  const cookies: Record<Role, string | undefined> = {
    anonymous: undefined,
    user: undefined,
    admin: undefined,
  };
  let fixtureIds: number[] = [];

  /** A random call may block, lock or sign out the test's own accounts: put them back before each route. */
  async function restoreAccounts(): Promise<void> {
    await t.db
      .updateTable('users')
      .set({ status: 'ACTIVE', has_access: true })
      .where('id', 'in', fixtureIds)
      .execute();
    for (const [role, email] of [
      ['user', USER_EMAIL],
      ['admin', ADMIN_EMAIL],
    ] as const) {
      const info = await t.request({ method: 'GET', url: '/api/user/user-info', cookie: cookies[role] });
      if (info.statusCode !== 200) cookies[role] = await login(t, email);
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    // No background work: random crawl URLs and mails stay queued instead of running.
    await t.container.jobRunner.stop();
    const user = await createUser(t, { email: USER_EMAIL });
    await createPlan(t, user.organizationId, { seatLimit: 3 });
    const admin = await createUser(t, { email: ADMIN_EMAIL, admin: true });
    fixtureIds = [user.id, admin.id];
    cookies.user = await login(t, USER_EMAIL);
    cookies.admin = await login(t, ADMIN_EMAIL);
    const doc = (await t.request({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const parameters = (op.parameters ?? []) as { in: string; name: string }[];
        const requestBody = op.requestBody as
          { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined;
        operations.push({
          method: method.toUpperCase(),
          path,
          pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          hasBody: Boolean(requestBody),
          bodyProperties: requestBody?.content['application/json']?.schema?.properties,
        });
      }
    }
    // Sign-out and account deletion last, so that they do not cut the other routes' sessions short.
    operations = operations.sort(
      (a, b) => Number(/logout|\/delete$/.test(a.path)) - Number(/logout|\/delete$/.test(b.path)),
    );
  });
  afterAll(() => t.close());

  it('finds the whole API in the OpenAPI description', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.some((op) => op.path === '/api/user/login')).toBe(true);
    expect(operations.some((op) => op.path.startsWith('/api/admin/'))).toBe(true);
  });

  for (const role of ['anonymous', 'user', 'admin'] as Role[]) {
    it(`every route answers random and hostile input without a 5xx or a leak (${role})`, async () => {
      let requests = 0;
      for (const op of operations) {
        if (role !== 'anonymous') await restoreAccounts();
        await fc.assert(
          fc.asyncProperty(
            fc.array(pathParam, { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
            queryFor(op),
            bodyFor(op),
            hostileHeaders,
            fc.boolean(),
            async (params, query, body, headers, withOrigin) => {
              let url = op.path;
              op.pathParams.forEach((name, i) => (url = url.replace(`{${name}}`, params[i] ?? '')));
              if (query) url += `?${query}`;
              const { extraCookie, ...rest } = headers;
              const session = cookies[role];
              const cookie = [session, extraCookie].filter(Boolean).join('; ');
              const sendBody = op.hasBody || op.method !== 'GET';
              const response: LightMyRequestResponse = await t.app.inject({
                method: op.method as 'GET',
                url,
                headers: {
                  ...rest,
                  ...(withOrigin ? { origin: TEST_ORIGIN } : {}),
                  ...(cookie ? { cookie } : {}),
                  ...(sendBody && body.payload !== undefined
                    ? { 'content-type': body.contentType ?? 'application/json' }
                    : {}),
                },
                ...(sendBody && body.payload !== undefined ? { payload: body.payload } : {}),
              });
              requests += 1;
              checkResponse(response, `${role} ${op.method} ${url}`);
            },
          ),
          { numRuns: RUNS_PER_ROUTE, endOnFailure: true },
        );
      }
      expect(requests).toBeGreaterThanOrEqual(operations.length * RUNS_PER_ROUTE);
    });
  }

  it('answers unknown routes and methods in the error shape too', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.array(pathParam, { minLength: 1, maxLength: 4 }),
        async (method, segments) => {
          const url = `/api/${segments.join('/')}`;
          const response = await t.request({ method: method as 'GET', url, cookie: cookies.user });
          checkResponse(response, `${method} ${url}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
