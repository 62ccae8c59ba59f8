import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCanonicalPath, NON_CANONICAL_PATH_MESSAGE } from '../../src/plugins/canonical-path.plugin.ts';
import { createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The Origin check and the session and admin guards decide on the path the router matched, and a path
// spelled another way than clients spell it is refused before any of them runs.

const FOREIGN = 'https://attacker.example.net';

describe(`origin: checks follow the routed path (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    await createUser(t, { email: 'victim@origin.example.org' });
    cookie = await login(t, 'victim@origin.example.org');
  });
  afterAll(() => t.close());

  const userInfo = () => t.request({ method: 'GET', url: '/api/user/user-info', cookie });

  it('item 7: a percent-encoded path cannot bypass the Origin check', async () => {
    for (const url of ['/%61pi/user/logout', '/api/user/%6Cogout', '//api/user/logout']) {
      const response = await t.app.inject({ method: 'POST', url, headers: { origin: FOREIGN, cookie } });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json().message).toBe(NON_CANONICAL_PATH_MESSAGE);
      expect(response.cookies.filter((c) => c.name === 'osint_session')).toEqual([]);
    }
    expect((await userInfo()).statusCode).toBe(200);
    // Dot segments and backslashes (which the test client resolves before sending) are refused the same way.
    for (const path of [
      '/api/./user/logout',
      '/x/../api/user/logout',
      '/api/user/logout/..',
      '/api\\user/logout',
    ])
      expect(isCanonicalPath(path), path).toBe(false);

    // The canonical spelling meets the Origin check as always.
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/user/logout',
      headers: { origin: FOREIGN, cookie },
    });
    expect(foreign.statusCode).toBe(403);
    expect((await userInfo()).statusCode).toBe(200);
  });

  it('item 7: encoded parameters stay allowed, and guards still see the route they reach', async () => {
    // A route parameter may need encoding (a watch-list name with a space): canonical, routed, guarded.
    const encoded = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/watchlists/my%20list',
      headers: { origin: FOREIGN, cookie },
    });
    expect(encoded.statusCode).toBe(403);
    expect(encoded.json().message).toBe('This request must come from the application itself.');
    const admin = await t.request({ method: 'DELETE', url: '/api/admin/watchlists/my%20list', cookie });
    expect(admin.statusCode).toBe(403);
    expect(admin.json().message).toBe('Administrators only.');
    // A page of the web app whose path carries an encoded address is served, not refused.
    const page = await t.app.inject({ method: 'GET', url: '/search/https%3A%2F%2Fnews.example.org%2Fa.jpg' });
    expect(page.statusCode).toBe(200);
  });
});
