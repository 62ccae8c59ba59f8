import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { QUEUES } from '../../src/jobs/job-queue.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createTestDatabase } from '../support/test-database.ts';

// One organization's load never stalls another's: jobs used to be claimed first come, first served
// across every organization, and two runner slots served every queue. An organization queueing many
// extractions or saves held up every other organization's saves, extractions and all e-mail
// (invitations, password resets, alert notices) until its backlog was through.

const QUEUE = 'test.fair';
const STALE_AFTER_MS = 10 * 60_000;
const A = 1;
const B = 2;

describe('job claim: organizations take turns within a queue', () => {
  let handle: DatabaseHandle;
  let jobs: JobRepository;

  beforeAll(async () => {
    handle = await createTestDatabase();
    jobs = new JobRepository(handle.db);
  });
  afterAll(async () => {
    await handle.close();
  });
  afterEach(async () => {
    await handle.db.deleteFrom('jobs').execute();
  });

  /** Queues `count` jobs of `organizationId`, due in the order queued (each a second after the last). */
  let clock = Date.now() - 3_600_000;
  async function queue(queueName: string, organizationId: number | null, count = 1): Promise<void> {
    for (let i = 0; i < count; i++) {
      clock += 1_000;
      await jobs.insert({
        queue: queueName,
        payload: { organizationId, i },
        runAt: new Date(clock),
        organizationId,
      });
    }
  }

  const claim = (queues = [QUEUE], worker = 'worker-1') => jobs.claimNext(queues, worker, STALE_AFTER_MS);
  const organizationOf = (job: { payload: unknown } | undefined) =>
    (job?.payload as { organizationId: number | null } | undefined)?.organizationId;

  it('a job of B queued after ten of A is claimed second, not eleventh', async () => {
    await queue(QUEUE, A, 10);
    await queue(QUEUE, B);
    const first = await claim();
    const second = await claim(undefined, 'worker-2');
    expect([organizationOf(first), organizationOf(second)]).toEqual([A, B]);
    // Then A's backlog, in its order.
    const rest = [];
    for (let job = await claim(); job; job = await claim()) rest.push(job);
    expect(rest.map(organizationOf)).toEqual(Array(9).fill(A));
    expect(rest.map((job) => (job.payload as { i: number }).i)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('with one worker, each finishing before the next claim, organizations alternate', async () => {
    await queue(QUEUE, A, 4);
    await queue(QUEUE, B, 2);
    const order = [];
    for (let job = await claim(); job; job = await claim()) {
      order.push(organizationOf(job));
      await jobs.markDone(job.id, 'worker-1');
    }
    expect(order).toEqual([A, B, A, B, A, A]);
  });

  it('jobs of no organization take their turn like one more organization', async () => {
    await queue(QUEUE, A, 10);
    await queue(QUEUE, null);
    const first = await claim();
    await jobs.markDone(first!.id, 'worker-1');
    const second = await claim();
    expect([organizationOf(first), organizationOf(second)]).toEqual([A, null]);
  });

  it('an organization runs one extraction at a time: the other slot stays free for another', async () => {
    await queue(QUEUES.runExtraction, A, 3);
    const running = await claim([QUEUES.runExtraction]);
    expect(organizationOf(running)).toBe(A);
    // A's second waits for its first, even with a slot free.
    expect(await claim([QUEUES.runExtraction], 'worker-2')).toBeUndefined();
    await queue(QUEUES.runExtraction, B);
    expect(organizationOf(await claim([QUEUES.runExtraction], 'worker-2'))).toBe(B);
    await jobs.markDone(running!.id, 'worker-1');
    expect(organizationOf(await claim([QUEUES.runExtraction]))).toBe(A);
  });

  it('six workers claiming at once take each job once, and B in their first round', async () => {
    await queue(QUEUE, A, 20);
    await queue(QUEUE, B);
    const claimed: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        for (let job = await claim(undefined, `w${worker}`); job; job = await claim(undefined, `w${worker}`))
          claimed.push(job.id);
      }),
    );
    expect(new Set(claimed).size).toBe(21);
    expect(claimed).toHaveLength(21);
    const rows = await handle.db
      .selectFrom('jobs')
      .select(['organization_id', 'attempts'])
      .orderBy('claimed_at')
      .orderBy('id')
      .execute();
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    expect(rows.findIndex((row) => row.organization_id === B)).toBeLessThan(6);
  });

  it('behind backlogs longer than the jobs a claim ranks, lines keep their order and blocked ones hold up no one', async () => {
    // The claim ranks only each (queue, organization)'s first due jobs: a backlog, a capped queue whose
    // first jobs are blocked, a stale job further down a line, and jobs not yet due must not change
    // which job is next.
    const runningSince = async (organizationId: number, queueName: string, lockedAt: Date, runAt: Date) =>
      handle.db
        .insertInto('jobs')
        .values({
          queue: queueName,
          payload: JSON.stringify({ organizationId, running: true }),
          status: 'RUNNING',
          attempts: 1,
          run_at: runAt,
          locked_at: lockedAt,
          locked_by: 'other-worker',
          organization_id: organizationId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    // A's extractions come first in time, but A runs one already: they are blocked by the cap.
    await queue(QUEUES.runExtraction, A, 12);
    const running = await runningSince(A, QUEUES.runExtraction, new Date(), new Date(clock));
    await queue(QUEUE, A, 10);
    // A job whose worker died, 11th in A's line.
    clock += 1_000;
    const stale = await runningSince(A, QUEUE, new Date(Date.now() - 2 * STALE_AFTER_MS), new Date(clock));
    await queue(QUEUE, A, 10);
    await queue(QUEUES.runExtraction, B, 12);
    // Not due yet: neither claimed nor counted.
    await jobs.insert({
      queue: QUEUE,
      payload: { organizationId: 3 },
      runAt: new Date(Date.now() + 3_600_000),
      organizationId: 3,
    });

    const queues = [QUEUE, QUEUES.runExtraction];
    const order: { organization: number | null | undefined; queue: string; i?: number; id: number }[] = [];
    for (let job = await claim(queues); job; job = await claim(queues)) {
      order.push({
        organization: organizationOf(job),
        queue: job.queue,
        i: (job.payload as { i?: number }).i,
        id: job.id,
      });
      await jobs.markDone(job.id, 'worker-1');
    }
    // B has nothing running: its extractions, one at a time, before A's line; A's extractions wait.
    expect(order.slice(0, 12).map((job) => [job.organization, job.queue])).toEqual(
      Array(12).fill([B, QUEUES.runExtraction]),
    );
    const lineOfA = order.slice(12);
    expect(lineOfA.map((job) => job.organization)).toEqual(Array(21).fill(A));
    expect(lineOfA.every((job) => job.queue === QUEUE)).toBe(true);
    expect(lineOfA[10]!.id).toBe(stale.id);
    expect(lineOfA.filter((job) => job.id !== stale.id).map((job) => job.i)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => i),
      ...Array.from({ length: 10 }, (_, i) => i),
    ]);
    // A's running extraction ends: its first extraction is next.
    await jobs.markDone(running.id, 'other-worker');
    const next = await claim(queues);
    expect([organizationOf(next), next?.queue, (next?.payload as { i?: number }).i]).toEqual([
      A,
      QUEUES.runExtraction,
      0,
    ]);
  });

  it('a stale job keeps being taken over, and one on its last attempt still dies', async () => {
    const lockedAt = new Date(Date.now() - 2 * STALE_AFTER_MS);
    const staleJob = async (attempts: number) => {
      const row = await handle.db
        .insertInto('jobs')
        .values({
          queue: QUEUES.runExtraction,
          payload: JSON.stringify({ organizationId: A }),
          status: 'RUNNING',
          attempts,
          max_attempts: 3,
          locked_at: lockedAt,
          locked_by: 'dead-worker',
          organization_id: A,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const staleLast = await staleJob(3);
    const staleEarlier = await staleJob(1);
    // Its own stale row does not count against the organization's cap.
    const taken = await claim([QUEUES.runExtraction]);
    expect(taken).toMatchObject({ id: staleEarlier, status: 'RUNNING', attempts: 2, locked_by: 'worker-1' });
    expect(await jobs.findById(staleLast)).toMatchObject({ status: 'DEAD', locked_at: null });
  });
});

describe('job runner: mail never waits behind long jobs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.container.jobRunner.stop();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends a mail while extractions hold every other slot', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let extracting = 0;
    // Extractions that run until the test lets them go: the long jobs of four organizations.
    t.container.jobRunner.register(QUEUES.runExtraction, async () => {
      extracting++;
      await released;
    });
    const jobs = new JobRepository(t.db);
    for (const organizationId of [1, 2, 3, 4]) {
      await jobs.insert({
        queue: QUEUES.runExtraction,
        payload: { extractionId: organizationId },
        runAt: new Date(Date.now() - 60_000),
        organizationId,
      });
    }
    await t.container.queue.enqueue(QUEUES.sendMail, {
      to: 'someone@example.org',
      subject: 'Your invitation',
      text: 'Welcome.',
    });
    t.container.jobRunner.start();
    try {
      const mailState = () =>
        t.db
          .selectFrom('jobs')
          .select('status')
          .where('queue', '=', QUEUES.sendMail)
          .executeTakeFirstOrThrow()
          .then((row) => row.status);
      await expect.poll(mailState, { timeout: 5_000, interval: 50 }).toBe('DONE');
      // Sent while the extractions were still running, every slot that runs them taken.
      await expect.poll(() => extracting, { timeout: 5_000, interval: 50 }).toBe(2);
      const states = await t.db
        .selectFrom('jobs')
        .select('status')
        .where('queue', '=', QUEUES.runExtraction)
        .execute();
      expect(states.map((row) => row.status).sort()).toEqual(['QUEUED', 'QUEUED', 'RUNNING', 'RUNNING']);
    } finally {
      release();
      await t.container.jobRunner.stop();
    }
  });
});
