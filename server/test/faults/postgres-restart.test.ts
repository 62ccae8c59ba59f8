import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../../src/plugins/error-handler.plugin.ts';
import { createUser, FIXTURE_PASSWORD } from '../support/fixtures.ts';
import { startFaultApp, type FaultApp } from '../support/fault-app.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { TEST_ORIGIN } from '../support/test-app.ts';

// PostgreSQL restarted under load (issue 8): an API process (WORKERS=0) serving real HTTP on loopback
// keeps answering while its database goes away: requests fail with a clear 503 in the error shape, and
// once the server is back they succeed again without restarting the API. This test runs its own
// PostgreSQL server (it stops and starts it), on either project.

let fault: FaultApp;
let base: string;
let cookie: string;

beforeAll(async () => {
  fault = await startFaultApp('osint-fault-pg-');
  base = await fault.t.app.listen({ host: '127.0.0.1', port: 0 });
  // A seat on an active plan: the saved-search list it reads is the organization's work (access rule).
  const analyst = await createUser(fault.t, { email: 'analyst@restart.example.org' });
  await createPlan(fault.t, analyst.organizationId, { seatLimit: 1 });
  const signIn = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { origin: TEST_ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify({ mail: 'analyst@restart.example.org', password: FIXTURE_PASSWORD }),
  });
  expect(signIn.status).toBe(200);
  cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
}, 60_000);

afterAll(async () => {
  await fault?.close();
});

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
  /** When the request was sent. */
  at: number;
}

/** Signed-in calls that read the database (session, then the list), one after another. */
async function client(until: () => boolean, answers: Answer[]): Promise<void> {
  while (!until()) {
    const at = Date.now();
    const response = await fetch(`${base}/api/saved-search?pageNumber=1&pageSize=5`, {
      headers: { origin: TEST_ORIGIN, cookie },
    });
    const text = await response.text();
    answers.push({
      status: response.status,
      body: JSON.parse(text) as unknown,
      retryAfter: response.headers.get('retry-after'),
      at,
    });
    if (response.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PostgreSQL restarted under load', () => {
  it('answers 503 in the error shape while the database is down and recovers without a restart', async () => {
    const answers: Answer[] = [];
    let done = false;
    const clients = Array.from({ length: 4 }, () => client(() => done, answers));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const okBefore = answers.filter((a) => a.status === 200).length;
    fault.postgres.halt();
    const haltedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await fault.postgres.resume();
    const resumedAt = Date.now();
    // Recovery: a 200 again within 10 s of the server being back, then keep going for a moment.
    for (;;) {
      const lastOk = answers.findLast((a) => a.status === 200);
      if (lastOk && lastOk.at > resumedAt) break;
      expect(Date.now() - resumedAt, 'no 200 within 10 s after PostgreSQL came back').toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    done = true;
    await Promise.all(clients);

    expect(okBefore).toBeGreaterThan(0);
    // Sent once the server was down (halt() waits for its shutdown) and before it was back.
    const during = answers.filter((a) => a.at > haltedAt && a.at < resumedAt - 500);
    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((a) => a.status !== 503)).toEqual([]);
    // Every answer is a 200 or the clear 503, never a 500 and never a stack trace.
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([200, 503]);
    for (const failed of answers.filter((a) => a.status === 503)) {
      expect(failed.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: DATABASE_UNAVAILABLE_MESSAGE,
      });
      expect(failed.retryAfter).toBe('5');
    }
    // After recovery the same session still works (nothing was lost) and writes succeed too.
    const after = answers.filter((a) => a.at > resumedAt + 2_000 || a === answers.at(-1));
    expect(after.filter((a) => a.status !== 200)).toEqual([]);
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
  });

  it('reports the database as unavailable on /api/health while it is down', async () => {
    fault.postgres.halt();
    try {
      const health = await fetch(`${base}/api/health`);
      expect(health.status).toBe(503);
      const list = await fetch(`${base}/api/saved-search`, { headers: { origin: TEST_ORIGIN, cookie } });
      expect(list.status).toBe(503);
    } finally {
      await fault.postgres.resume();
    }
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${base}/api/health`)).status !== 200) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
