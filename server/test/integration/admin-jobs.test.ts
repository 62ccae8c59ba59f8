import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminJobPage, AdminJobRow } from '@osint/contract/admin-jobs';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// Dead jobs through the real job runner: a handler that fails on its only attempt dies, an admin sees it
// with its error and retries it, and the runner then completes it.

const FLAKY = 'hardening.flaky';

describe(`admin jobs (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  let admin: string;
  let user: string;
  const calls: string[] = [];
  let failNext = true;

  const list = async (query = 'state=failed') => {
    const response = await t.request({ method: 'GET', url: `/api/admin/jobs?${query}`, cookie: admin });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<AdminJobPage>();
  };
  const stateOf = async (id: number) =>
    (await t.db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  async function until(check: () => Promise<boolean>, what: string) {
    const deadline = Date.now() + 15_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    t.container.jobRunner.register(FLAKY, async (payload) => {
      calls.push((payload as { name: string }).name);
      if (failNext) {
        failNext = false;
        throw new Error('The remote server said no (503).');
      }
    });
    admin = await createAdmin(t);
    await createUser(t, { email: 'analyst@jobs.example.org' });
    user = await login(t, 'analyst@jobs.example.org');
  });
  afterAll(() => t.close());

  it('shows a job that failed its last attempt, and retries it once on request', async () => {
    await t.container.queue.enqueue(FLAKY, { name: 'first' }, { maxAttempts: 1 });
    const job = await t.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', FLAKY)
      .executeTakeFirstOrThrow();
    await until(async () => (await stateOf(job.id)) === 'DEAD', 'the job to die');

    const failed = await list();
    expect(failed.total).toBe(1);
    const row = failed.items[0]!;
    expect(row).toMatchObject({
      id: job.id,
      queue: FLAKY,
      state: 'failed',
      attempts: 1,
      maxAttempts: 1,
      lastError: 'The remote server said no (503).',
    });
    expect(Date.parse(row.finishedAt!)).toBeGreaterThan(Date.parse(row.createdAt) - 1000);

    const retry = await t.request({ method: 'POST', url: `/api/admin/jobs/${job.id}/retry`, cookie: admin });
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json<AdminJobRow>()).toMatchObject({ id: job.id, state: 'queued', attempts: 0 });
    await until(async () => (await stateOf(job.id)) === 'DONE', 'the retried job to complete');
    expect(calls).toEqual(['first', 'first']);
    expect((await list()).total).toBe(0);
    expect((await list('state=done')).items.map((j) => j.id)).toContain(job.id);

    // Done jobs are not retried again, and nothing runs twice.
    const again = await t.request({ method: 'POST', url: `/api/admin/jobs/${job.id}/retry`, cookie: admin });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'Only failed jobs can be retried.',
    });
    expect(calls).toEqual(['first', 'first']);

    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('action', '=', 'admin.job.retried')
      .execute();
    expect(audit).toEqual([{ action: 'admin.job.retried', target: `job:${job.id}` }]);
  });

  it('answers 404 for an unknown job and 400 for an id that is not one', async () => {
    const unknown = await t.request({ method: 'POST', url: '/api/admin/jobs/987654/retry', cookie: admin });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Job not found.' });
    for (const id of ['abc', '0', '99999999999']) {
      const bad = await t.request({ method: 'POST', url: `/api/admin/jobs/${id}/retry`, cookie: admin });
      expect(bad.statusCode, id).toBe(400);
    }
    expect(
      (await t.request({ method: 'GET', url: '/api/admin/jobs?state=lost', cookie: admin })).statusCode,
    ).toBe(400);
  });

  it('pages the list, newest failure first', async () => {
    const base = Date.parse('2030-01-01T00:00:00Z');
    await t.db
      .insertInto('jobs')
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          queue: 'mail.send',
          payload: JSON.stringify({ n: i }),
          status: 'DEAD' as const,
          attempts: 5,
          max_attempts: 5,
          last_error: `failure ${i}`,
          finished_at: new Date(base + i * 60_000),
        })),
      )
      .execute();
    const first = await list('state=failed&page=1&pageSize=20');
    expect(first.total).toBe(25);
    expect(first.items).toHaveLength(20);
    expect(first.items[0]!.lastError).toBe('failure 24');
    const second = await list('state=failed&page=2&pageSize=20');
    expect(second.items.map((j) => j.lastError)).toEqual([
      'failure 4',
      'failure 3',
      'failure 2',
      'failure 1',
      'failure 0',
    ]);
    // The default state is failed.
    expect((await list('')).total).toBe(25);
  });

  it('is for admins only', async () => {
    expect((await t.request({ method: 'GET', url: '/api/admin/jobs' })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/admin/jobs', cookie: user })).statusCode).toBe(403);
    const job = await t.db
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'DEAD')
      .executeTakeFirstOrThrow();
    const asUser = await t.request({ method: 'POST', url: `/api/admin/jobs/${job.id}/retry`, cookie: user });
    expect(asUser.statusCode).toBe(403);
    expect(await stateOf(job.id)).toBe('DEAD');
  });
});
