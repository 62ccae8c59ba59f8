import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, FIXTURE_PASSWORD } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// The per-address sign-in limit stops guessing without locking the owner out: the right password from an
// IP address the user signed in from before still works while the address is over its limit.

describe(`lockout (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  const mail = 'analyst@lockout.example.org';
  const office = '198.51.100.20';

  beforeAll(async () => {
    t = await createTestApp({ rateLimit: { enabled: true } });
    await createUser(t, { email: mail });
  });
  afterAll(() => t.close());

  const signIn = (password: string, ip: string) =>
    t.request({ method: 'POST', url: '/api/user/login', payload: { mail, password }, remoteAddress: ip });

  it('item 9: ten wrong passwords from elsewhere do not lock the owner out of a place they signed in from before', async () => {
    expect((await signIn(FIXTURE_PASSWORD, office)).statusCode).toBe(200);
    for (let i = 0; i < 12; i++) await signIn(`Wrong.Guess${i}`, `203.0.113.${i}`);

    // The address is over its limit: guesses, and the right password from a new place, get 429.
    expect((await signIn('Wrong.Guess99', '203.0.113.99')).statusCode).toBe(429);
    expect((await signIn(FIXTURE_PASSWORD, '203.0.113.100')).statusCode).toBe(429);
    // A wrong password from the known place gets 429 too: the limit still stops guessing from there.
    expect((await signIn('Wrong.Guess100', office)).statusCode).toBe(429);

    const owner = await signIn(FIXTURE_PASSWORD, office);
    expect(owner.statusCode, owner.body).toBe(200);
    expect(owner.cookies.some((c) => c.name === 'osint_session' && c.value)).toBe(true);
  });
});
