import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { MAX_RELOAD_PAGE_SIZE } from '@osint/contract/constants';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../support/test-app.ts';
import { createOwner } from '../support/team-fixtures.ts';
import {
  createUser,
  FIXTURE_PASSWORD,
  findUserByEmail,
  login,
  registrationBody,
} from '../support/fixtures.ts';

const ORIGIN_REFUSED = {
  statusCode: 403,
  error: 'Forbidden',
  message: 'This request must come from the application itself.',
};

describe('API basics: health, OpenAPI, errors, Origin check', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers GET /api/health with 200', async () => {
    const response = await t.request({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('keeps answering when the database server ends its idle connections', async () => {
    // Several pooled connections, then every one but the current one ended by the server (on PGlite
    // there is only one session and nothing to end).
    await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(t.db)));
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`.execute(t.db);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 3; i++) {
      const response = await t.request({ method: 'GET', url: '/api/health' });
      expect(response.statusCode).toBe(200);
    }
  });

  it('describes the API as an OpenAPI document at /api/docs/json, with a browsable page at /api/docs', async () => {
    const response = await t.request({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
    expect(document.openapi).toMatch(/^3\./);
    expect(document.paths['/api/user/login']).toHaveProperty('post');
    expect(document.paths['/api/support/contact-support']).toHaveProperty('post');
    expect(document.paths['/api/health']).toHaveProperty('get');

    const page = await t.request({ method: 'GET', url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it.each(['GET', 'POST', 'DELETE'] as const)(
    'answers an unknown %s /api route with 404 in the error shape',
    async (method) => {
      const response = await t.request({ method, url: '/api/no-such-thing?x=1' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: `No route ${method} /api/no-such-thing.`,
      });
    },
  );

  it('answers a JSON body over 1 MB with 413 in the error shape', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/user/login',
      payload: { mail: 'big@example.org', password: 'x'.repeat(1024 * 1024 + 1) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.json()).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: expect.any(String),
    });
  });

  it(`answers the paged lists' pages of up to ${MAX_RELOAD_PAGE_SIZE} (a reload asks for every page shown at once)`, async () => {
    const { cookie } = await createOwner(t, 'owner@paged-lists.example.org');
    for (const list of ['/api/saved-search', '/api/data-extractor']) {
      const page = (size: number) =>
        t.request({ method: 'GET', url: `${list}?pageNumber=1&pageSize=${size}`, cookie });
      expect((await page(MAX_RELOAD_PAGE_SIZE)).statusCode, list).toBe(200);
      expect((await page(MAX_RELOAD_PAGE_SIZE + 1)).statusCode, list).toBe(400);
    }
  });

  describe('Origin check on state-changing calls', () => {
    const email = 'owner@origin.example.org';
    let cookie: string;
    let userId: number;

    beforeAll(async () => {
      userId = (await createUser(t, { email })).id;
      cookie = await login(t, email);
    });

    /** A request as another site (or a script outside a browser) would send it: no Origin unless given. */
    const foreign = (options: InjectOptions, origin?: string) =>
      t.app.inject({
        ...options,
        headers: { ...(origin ? { origin } : {}), cookie, ...(options.headers ?? {}) },
      });

    const userInfo = () => t.request({ method: 'GET', url: '/api/user/user-info', cookie });

    it.each([
      ['no Origin', undefined],
      ['a foreign Origin', 'https://evil.example'],
      ['a look-alike Origin', `${TEST_ORIGIN}.evil.example`],
      ['the right host over another scheme', TEST_ORIGIN.replace('http:', 'https:')],
      ['the right host on another port', 'http://localhost:3001'],
      ['an opaque Origin', 'null'],
    ])('refuses POST with %s, and nothing changes', async (_label, origin) => {
      const login = await foreign(
        { method: 'POST', url: '/api/user/login', payload: { mail: email, password: FIXTURE_PASSWORD } },
        origin,
      );
      expect(login.statusCode).toBe(403);
      expect(login.json()).toEqual(ORIGIN_REFUSED);
      expect(login.headers['set-cookie']).toBeUndefined();

      const newsletter = await foreign(
        { method: 'POST', url: '/api/user/subscribe_newsletter', payload: { subscribed: true } },
        origin,
      );
      expect(newsletter.json()).toEqual(ORIGIN_REFUSED);
      expect((await findUserByEmail(t, email))!.newsletter).toBe(false);

      const logout = await foreign({ method: 'POST', url: '/api/user/logout' }, origin);
      expect(logout.json()).toEqual(ORIGIN_REFUSED);
      expect((await userInfo()).statusCode).toBe(200);

      const mail = `applicant-${Date.now()}@origin.example.org`;
      const register = await foreign(
        { method: 'POST', url: '/api/user/register', payload: registrationBody(mail) },
        origin,
      );
      expect(register.json()).toEqual(ORIGIN_REFUSED);
      expect(await findUserByEmail(t, mail)).toBeUndefined();

      const contact = await foreign(
        {
          method: 'POST',
          url: '/api/support/contact-support',
          payload: { email, subject: 'Forged', message: 'Sent from another site' },
        },
        origin,
      );
      expect(contact.json()).toEqual(ORIGIN_REFUSED);
      expect(await t.db.selectFrom('support_messages').select('id').execute()).toHaveLength(0);
    });

    it.each(['PUT', 'PATCH', 'DELETE'] as const)(
      'refuses %s without Origin or from a foreign one',
      async (method) => {
        for (const origin of [undefined, 'https://evil.example']) {
          const response = await foreign(
            { method, url: '/api/user/delete', payload: { password: FIXTURE_PASSWORD } },
            origin,
          );
          expect(response.statusCode).toBe(403);
          expect(response.json()).toEqual(ORIGIN_REFUSED);
        }
        expect((await findUserByEmail(t, email))?.id).toBe(userId);
        expect((await userInfo()).statusCode).toBe(200);
      },
    );

    it('lets GET through without Origin or from a foreign one, without opening it to other sites', async () => {
      for (const origin of [undefined, 'https://evil.example']) {
        const response = await foreign({ method: 'GET', url: '/api/user/user-info' }, origin);
        expect(response.statusCode).toBe(200);
        expect(response.json().email).toBe(email);
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect((await foreign({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    });

    it('accepts the same calls from the product itself', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/api/user/subscribe_newsletter',
        payload: { subscribed: true },
        cookie,
      });
      expect(response.statusCode).toBe(200);
      expect((await findUserByEmail(t, email))!.newsletter).toBe(true);
    });
  });
});
