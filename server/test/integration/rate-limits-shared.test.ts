import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITED_MESSAGE } from '@osint/contract/constants';
import { createAppCluster, type AppCluster } from '../support/app-cluster.ts';
import { createUser, FIXTURE_PASSWORD } from '../support/fixtures.ts';
import type { TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Rate limits hold across API processes: the counters live in the database (rate_limit_windows), so two
// API instances behind a load balancer do not give an attacker twice the attempts.

let cluster: AppCluster;
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  cluster = await createAppCluster(['api', 'api'], { rateLimit: { enabled: true } });
  [first, second] = cluster.apps as [TestApp, TestApp];
  await createUser(first, { email: 'victim@shared-limits.example.org' });
});
afterAll(() => cluster?.close());

const login = (on: TestApp, ip: string, mail: string, password: string) =>
  on.request({ method: 'POST', url: '/api/user/login', payload: { mail, password }, remoteAddress: ip });

describe(`rate limits shared by API processes (${TEST_DATABASE_KIND})`, () => {
  it('counts sign-in attempts on every instance against one limit', async () => {
    const mail = 'victim@shared-limits.example.org';
    // Ten guesses, alternating between the instances: each one saw only five.
    for (let i = 0; i < 10; i++) {
      const response = await login(i % 2 ? second : first, `198.51.100.${i}`, mail, `Guess.Number${i}`);
      expect(response.statusCode, `attempt ${i + 1}`).toBe(401);
    }
    for (const instance of [first, second]) {
      const limited = await login(instance, '198.51.100.99', mail, FIXTURE_PASSWORD);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: RATE_LIMITED_MESSAGE,
      });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    }
  });

  it('starts a new window once the old one has ended, on any instance', async () => {
    const mail = 'victim@shared-limits.example.org';
    await first.db
      .updateTable('rate_limit_windows')
      .set({ reset_at: new Date(Date.now() - 1000) })
      .where('key', '=', `login:mail:${mail}`)
      .execute();
    expect((await login(second, '198.51.100.100', mail, FIXTURE_PASSWORD)).statusCode).toBe(200);
    const row = await first.db
      .selectFrom('rate_limit_windows')
      .select(['count', 'reset_at'])
      .where('key', '=', `login:mail:${mail}`)
      .executeTakeFirstOrThrow();
    expect(row.count).toBe(1);
    expect(row.reset_at.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  });

  it('keeps each key to one row however many requests are counted', async () => {
    const before = await first.db
      .selectFrom('rate_limit_windows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        login(i % 2 ? second : first, '198.51.100.200', 'nobody@shared-limits.example.org', 'Wrong.Pass1'),
      ),
    );
    const counted = await first.db
      .selectFrom('rate_limit_windows')
      .select(['key', 'count'])
      .where('key', 'in', ['login:ip:198.51.100.200', 'login:mail:nobody@shared-limits.example.org'])
      .orderBy('key')
      .execute();
    // 20 concurrent attempts counted exactly: the IP's limit is 30, the account's 10 (the rest were 429).
    expect(counted).toEqual([
      { key: 'login:ip:198.51.100.200', count: 20 },
      { key: 'login:mail:nobody@shared-limits.example.org', count: 20 },
    ]);
    const after = await first.db
      .selectFrom('rate_limit_windows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n) - Number(before.n)).toBe(2);
  });
});
