import fs from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.ts';
import { createUser, FIXTURE_PASSWORD } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Security headers and the session cookie, over plain http and behind https (PUBLIC_URL https, or a
// trusted proxy's X-Forwarded-Proto), on the single-page app's pages and on the API.

const HTTPS_URL = 'https://osint.example.org';
const TOKEN_PAGES = [
  '/reset-password?token=0123456789abcdef0123456789abcdef',
  '/set-password?token=0123456789abcdef0123456789abcdef',
  '/verify-email/0123456789abcdef0123456789abcdef',
];
const MAIL = 'owner@headers.example.org';

function csp(response: LightMyRequestResponse): Map<string, string[]> {
  const header = String(response.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return Array.isArray(header) ? header : header ? [header] : [];
}

describe('headers', () => {
  let t: TestApp;
  let https: BuiltApp;
  let proxied: BuiltApp;
  let webDir: string;

  const login = (app: BuiltApp['app'], origin: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/user/login',
      headers: { origin, ...headers },
      payload: { mail: MAIL, password: FIXTURE_PASSWORD },
    });

  beforeAll(async () => {
    t = await createTestApp();
    // A built web app of one page, served the way the product serves web/dist.
    webDir = path.join(t.config.dataDir, 'web');
    await fs.mkdir(webDir);
    await fs.writeFile(
      path.join(webDir, 'index.html'),
      '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app.js"></script></body></html>',
    );
    await t.app.close();
    t = { ...t, ...(await buildApp({ ...t.config, webDistDir: webDir }, t.db, { logger: false })) };
    await createUser(t, { email: MAIL });
    https = await buildApp({ ...t.config, webDistDir: webDir, publicUrl: HTTPS_URL }, t.db, {
      logger: false,
    });
    // Other test files may run after this one in the same process: the variable is put back as it was.
    const previous = process.env.TRUST_PROXY;
    process.env.TRUST_PROXY = '1';
    try {
      proxied = await buildApp({ ...t.config, webDistDir: webDir }, t.db, { logger: false });
    } finally {
      if (previous === undefined) delete process.env.TRUST_PROXY;
      else process.env.TRUST_PROXY = previous;
    }
  });
  afterAll(async () => {
    await https.app.close();
    await proxied.app.close();
    await t.close();
  });

  it('sends a Content-Security-Policy without unsafe-inline or unsafe-eval for scripts, and frame-ancestors none', async () => {
    for (const url of ['/', ...TOKEN_PAGES, '/api/health', '/api/user/user-info']) {
      const response = await t.app.inject({ method: 'GET', url });
      const policy = csp(response);
      const scripts = policy.get('script-src') ?? policy.get('default-src');
      expect(scripts, url).toBeDefined();
      expect(scripts, url).not.toContain("'unsafe-inline'");
      expect(scripts, url).not.toContain("'unsafe-eval'");
      expect(policy.get('script-src-attr'), url).toEqual(["'none'"]);
      expect(policy.get('frame-ancestors'), url).toEqual(["'none'"]);
      expect(policy.get('object-src'), url).toEqual(["'none'"]);
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('serves the web app without inline scripts, so the policy can forbid them', async () => {
    const source = await fs.readFile(path.resolve(import.meta.dirname, '../../../web/index.html'), 'utf8');
    const scripts = [...source.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc=/);
      expect(body!.trim()).toBe('');
    }
    expect(source).not.toMatch(/\son[a-z]+=/i);
  });

  it('sends Referrer-Policy no-referrer on the pages that carry tokens in their URL', async () => {
    for (const url of TOKEN_PAGES) {
      for (const app of [t.app, https.app]) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.body).toContain('<div id="root">');
        expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      }
    }
  });

  it('sends HSTS behind https only: PUBLIC_URL https, or X-Forwarded-Proto https from a trusted proxy', async () => {
    const hsts = (response: LightMyRequestResponse) => response.headers['strict-transport-security'];
    expect(hsts(await t.app.inject({ method: 'GET', url: '/' }))).toBeUndefined();
    // Without TRUST_PROXY a client cannot claim https for itself.
    expect(
      hsts(await t.app.inject({ method: 'GET', url: '/', headers: { 'x-forwarded-proto': 'https' } })),
    ).toBeUndefined();
    for (const response of [
      await https.app.inject({ method: 'GET', url: '/' }),
      await https.app.inject({ method: 'GET', url: '/api/health' }),
      await proxied.app.inject({ method: 'GET', url: '/', headers: { 'x-forwarded-proto': 'https' } }),
    ]) {
      const value = String(hsts(response));
      expect(Number(/max-age=(\d+)/.exec(value)?.[1])).toBeGreaterThanOrEqual(31_536_000);
      expect(value).toContain('includeSubDomains');
    }
    expect(hsts(await proxied.app.inject({ method: 'GET', url: '/' }))).toBeUndefined();
  });

  it('names the session cookie __Host-osint_session behind https: Secure, Path=/, no Domain; only that name is read there', async () => {
    const response = await login(https.app, HTTPS_URL);
    expect(response.statusCode, response.body).toBe(200);
    const [cookie] = setCookies(response);
    expect(setCookies(response)).toHaveLength(1);
    expect(cookie).toMatch(/^__Host-osint_session=[^;]+;/);
    expect(cookie).toMatch(/;\s*Secure(;|$)/i);
    expect(cookie).toMatch(/;\s*Path=\/(;|$)/);
    expect(cookie).toMatch(/;\s*HttpOnly(;|$)/i);
    expect(cookie).not.toMatch(/;\s*Domain=/i);
    const token = response.cookies[0]!.value;
    const info = (app: BuiltApp['app'], cookieHeader: string) =>
      app.inject({ method: 'GET', url: '/api/user/user-info', headers: { cookie: cookieHeader } });
    expect((await info(https.app, `__Host-osint_session=${token}`)).statusCode).toBe(200);
    // The unprefixed name is what a sibling subdomain could plant: behind https it is not read.
    expect((await info(https.app, `osint_session=${token}`)).statusCode).toBe(401);
    // Over plain http it is the other way round.
    expect((await info(t.app, `osint_session=${token}`)).statusCode).toBe(200);
    expect((await info(t.app, `__Host-osint_session=${token}`)).statusCode).toBe(401);

    const logout = await https.app.inject({
      method: 'POST',
      url: '/api/user/logout',
      headers: { origin: HTTPS_URL, cookie: `__Host-osint_session=${token}` },
    });
    expect(logout.statusCode).toBe(200);
    const cleared = setCookies(logout)[0]!;
    expect(cleared).toMatch(/^__Host-osint_session=;/);
    expect(cleared).toMatch(/;\s*Secure(;|$)/i);
    expect(cleared).toMatch(/;\s*Path=\/(;|$)/);
    expect((await info(https.app, `__Host-osint_session=${token}`)).statusCode).toBe(401);
  });

  it('uses the __Host- cookie behind a trusted proxy that forwards https, and the plain one over http', async () => {
    const overHttps = await login(proxied.app, 'https://osint.internal', {
      'x-forwarded-proto': 'https',
      host: 'osint.internal',
    });
    expect(overHttps.statusCode, overHttps.body).toBe(200);
    expect(setCookies(overHttps)[0]).toMatch(/^__Host-osint_session=[^;]+;.*Secure/i);
    const overHttp = await login(proxied.app, 'http://localhost:3000');
    expect(overHttp.statusCode, overHttp.body).toBe(200);
    expect(setCookies(overHttp)[0]).toMatch(/^osint_session=/);
    expect(setCookies(overHttp)[0]).not.toMatch(/Secure/i);
  });

  it('takes the client address the trusted proxy appended, not one the client wrote before it', async () => {
    const response = await login(proxied.app, 'http://localhost:3000', {
      'x-forwarded-for': '203.0.113.9, 198.51.100.20',
    });
    expect(response.statusCode, response.body).toBe(200);
    const session = await t.db
      .selectFrom('sessions')
      .select('ip')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(session.ip).toBe('198.51.100.20');
  });
});
