import { spawnSync } from 'node:child_process';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { JobRunner } from '../../src/jobs/job-runner.ts';
import { JobRepository } from '../../src/repositories/job.repository.ts';
import { createTestDatabase } from '../support/test-database.ts';

// Security round 2, "also": after a crash in single-process mode the jobs that were running waited the
// full JOB_STALE_AFTER_MS before anyone ran them again. A runner that starts now queues at once the jobs
// left RUNNING by a process of this machine that no longer exists; a live process's jobs and another
// machine's (whose death cannot be seen from here) still wait for their lock to go stale.

const QUEUE = 'test.takeover';
/** Far longer than the test: a job that runs did not get there by going stale. */
const STALE_AFTER_MS = 10 * 60_000;

/** The id of a process that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (!child.pid) throw new Error('could not start a process');
  return child.pid;
}

describe('job takeover: a starting runner takes over the jobs of dead local processes', () => {
  let handle: DatabaseHandle;
  let runner: JobRunner | undefined;

  beforeAll(async () => {
    handle = await createTestDatabase();
  });
  afterAll(async () => {
    await runner?.stop();
    await handle.close();
  });

  /** A runner of the test queue (not started), recording the payloads of the jobs it runs. */
  function runnerRecording(): unknown[] {
    const ran: unknown[] = [];
    const log = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
    runner = new JobRunner(new JobRepository(handle.db), log, {
      pollIntervalMs: 50,
      concurrency: 1,
      staleAfterMs: STALE_AFTER_MS,
    });
    runner.register(QUEUE, async (payload) => {
      ran.push(payload);
    });
    return ran;
  }

  async function runningJob(
    lockedBy: string,
    { attempts = 1, lockedAt = new Date() }: { attempts?: number; lockedAt?: Date } = {},
  ): Promise<number> {
    const row = await handle.db
      .insertInto('jobs')
      .values({
        queue: QUEUE,
        payload: JSON.stringify({ lockedBy }),
        status: 'RUNNING',
        attempts,
        max_attempts: 3,
        locked_at: lockedAt,
        locked_by: lockedBy,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  it('runs a dead local process’s job at once, and leaves a live one’s and another machine’s alone', async () => {
    const host = os.hostname();
    const crashed = await runningJob(`${host}/${deadPid()}-0badf00d`);
    const live = await runningJob(`${host}/${process.ppid}-a11ve000`);
    const elsewhere = await runningJob(`other-machine.example.org/${deadPid()}-e15e0000`);

    const ran = runnerRecording();
    const started = performance.now();
    runner!.start();
    await expect.poll(() => ran.length, { timeout: 10_000, interval: 50 }).toBe(1);
    expect(performance.now() - started).toBeLessThan(10_000);
    // A moment more: nothing else may be taken.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ran).toHaveLength(1);

    const rows = await handle.db
      .selectFrom('jobs')
      .select(['id', 'status', 'attempts', 'locked_by'])
      .orderBy('id')
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(crashed)).toMatchObject({ status: 'DONE', attempts: 2 });
    expect(byId.get(crashed)!.locked_by).toMatch(new RegExp(`^${host}/${process.pid}-`));
    expect(byId.get(live)).toMatchObject({ status: 'RUNNING', attempts: 1 });
    expect(byId.get(elsewhere)).toMatchObject({ status: 'RUNNING', attempts: 1 });
    await runner?.stop();
    runner = undefined;
    await handle.db.deleteFrom('jobs').execute();
  });

  it('a job whose worker died on its last attempt is dead, not run again: a job that crashes its worker stops there', async () => {
    const host = os.hostname();
    // Died on its last attempt in a process of this machine, and on another machine long ago.
    const crashedLast = await runningJob(`${host}/${deadPid()}-0badf00d`, { attempts: 3 });
    const staleLast = await runningJob(`other-machine.example.org/${deadPid()}-e15e0000`, {
      attempts: 3,
      lockedAt: new Date(Date.now() - 2 * STALE_AFTER_MS),
    });
    await handle.db
      .updateTable('jobs')
      .set({ last_error: 'SMTP timeout' })
      .where('id', '=', staleLast)
      .execute();
    // Stale with attempts left: run again.
    const staleEarlier = await runningJob(`other-machine.example.org/${deadPid()}-e15e0001`, {
      attempts: 2,
      lockedAt: new Date(Date.now() - 2 * STALE_AFTER_MS),
    });

    const ran = runnerRecording();
    runner!.start();
    await expect.poll(() => ran.length, { timeout: 10_000, interval: 50 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ran).toHaveLength(1);

    const rows = await handle.db.selectFrom('jobs').selectAll().orderBy('id').execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(staleEarlier)).toMatchObject({ status: 'DONE', attempts: 3 });
    for (const id of [crashedLast, staleLast]) {
      expect(byId.get(id)).toMatchObject({ status: 'DEAD', attempts: 3, locked_at: null });
      expect(byId.get(id)!.finished_at).toBeInstanceOf(Date);
      expect(byId.get(id)!.last_error).toMatch(/stopped while running its last attempt/);
    }
    // The error of the attempt before stays readable for the admin who retries it.
    expect(byId.get(staleLast)!.last_error).toBe(
      'Its worker stopped while running its last attempt. Before: SMTP timeout',
    );
  });
});
