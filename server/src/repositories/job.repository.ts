import { sql } from 'kysely';
import { inTransaction, type Db } from '../db/database.ts';
import type { Job, JobStatus } from '../db/schema.ts';

/** A job to insert: its queue and JSON payload; optionally when it is due, its attempts, a unique key. */
export interface NewJob {
  queue: string;
  payload: unknown;
  runAt?: Date;
  maxAttempts?: number;
  uniqueKey?: string;
}

/**
 * Inserts a row and the job that processes it in one transaction: both commit or neither does. A row
 * committed before its job is queued stays PENDING for good when the enqueue fails or the process dies in
 * between (nothing sweeps such rows). `insertRow` writes on the transaction it is given; `jobOf` makes
 * the job from what it returned (its id). On a `db` that already is a transaction, runs in that one.
 * The job is not announced to this process's runner: call JobQueue.wake() once this has returned.
 */
export function insertWithJob<T>(
  db: Db,
  insertRow: (tx: Db) => Promise<T>,
  jobOf: (row: T) => NewJob,
): Promise<T> {
  const run = async (tx: Db) => {
    const row = await insertRow(tx);
    await new JobRepository(tx).insert(jobOf(row));
    return row;
  };
  return inTransaction(db, run);
}

/** Why a job that was running on its last attempt when its worker died is dead (before: the earlier error). */
const WORKER_LOST = 'Its worker stopped while running its last attempt.';
const workerLostError = sql<string>`${WORKER_LOST}::text || coalesce(' Before: ' || last_error, '')`;

export class JobRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a job; with a unique key, a second insert of the same key is ignored (idempotent enqueue). */
  async insert(job: NewJob) {
    await this.db
      .insertInto('jobs')
      .values({
        queue: job.queue,
        payload: JSON.stringify(job.payload),
        ...(job.runAt ? { run_at: job.runAt } : {}),
        ...(job.maxAttempts ? { max_attempts: job.maxAttempts } : {}),
        unique_key: job.uniqueKey ?? null,
      })
      .onConflict((oc) => oc.column('unique_key').doNothing())
      .execute();
  }

  /**
   * Claims the next due job of the given queues. SKIP LOCKED lets any number of workers claim concurrently
   * without waiting on each other; a RUNNING job whose worker died is reclaimed after `staleAfterMs`, while
   * it has attempts left: one whose every attempt ended with its worker (a job that crashes the process or
   * exhausts its memory) is dead instead, or it would bring down each worker that takes it, for ever.
   */
  async claimNext(queues: string[], workerId: string, staleAfterMs: number): Promise<Job | undefined> {
    const stale = sql`status = 'RUNNING' and locked_at < now() - make_interval(secs => ${staleAfterMs / 1000})`;
    await sql`
      update jobs set status = 'DEAD', finished_at = now(), locked_at = null, last_error = ${workerLostError}
      where queue = any(${queues}::text[]) and ${stale} and attempts >= max_attempts`.execute(this.db);
    const result = await sql<Job>`
      update jobs set status = 'RUNNING', locked_at = now(), locked_by = ${workerId}, attempts = attempts + 1
      where id = (
        select id from jobs
        where queue = any(${queues}::text[])
          and ((status = 'QUEUED' and run_at <= now()) or (${stale} and attempts < max_attempts))
        order by run_at, id
        for update skip locked
        limit 1
      )
      returning *`.execute(this.db);
    return result.rows[0];
  }

  /**
   * Makes the QUEUED jobs of `queue` whose payload's `key` is `value` due now (a job already due keeps its
   * place). Returns how many there were.
   */
  async runQueuedNow(queue: string, key: string, value: number): Promise<number> {
    const result = await this.db
      .updateTable('jobs')
      .set({ run_at: sql`least(run_at, now())` })
      .where('queue', '=', queue)
      .where('status', '=', 'QUEUED')
      .where(sql`payload ->> ${key}`, '=', String(value))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Which worker holds each RUNNING job. */
  async runningLocks(): Promise<{ id: number; lockedBy: string }[]> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id', 'locked_by'])
      .where('status', '=', 'RUNNING')
      .execute();
    return rows.flatMap((row) => (row.locked_by ? [{ id: row.id, lockedBy: row.locked_by }] : []));
  }

  /**
   * Queues a RUNNING job of a worker known to be dead again, due now, or marks it dead when that was its
   * last attempt (see claimNext); false when it is no longer that worker's (finished, or already taken over).
   */
  async requeueAbandoned(id: number, lockedBy: string): Promise<boolean> {
    const lastAttempt = sql<boolean>`attempts >= max_attempts`;
    const result = await this.db
      .updateTable('jobs')
      .set({
        status: sql`case when ${lastAttempt} then 'DEAD' else 'QUEUED' end`,
        run_at: sql`now()`,
        locked_at: null,
        finished_at: sql`case when ${lastAttempt} then now() end`,
        last_error: sql`case when ${lastAttempt} then ${workerLostError} else last_error end`,
      })
      .where('id', '=', id)
      .where('locked_by', '=', lockedBy)
      .where('status', '=', 'RUNNING')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** A running job's sign of life: while it is renewed, no other worker takes the job for a dead one's. */
  async heartbeat(id: number, workerId: string): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({ locked_at: new Date() })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .where('status', '=', 'RUNNING')
      .execute();
  }

  /**
   * A finished job; with `erasePayload`, what it carried is dropped but its `to` and `subject` (what a
   * mail was, not what it said: PAYLOAD_ERASED_WHEN_DONE).
   */
  async markDone(id: number, workerId: string, options: { erasePayload?: boolean } = {}): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set({
        status: 'DONE',
        finished_at: new Date(),
        locked_at: null,
        ...(options.erasePayload
          ? {
              payload: sql<string>`(select coalesce(jsonb_object_agg(key, value), '{}'::jsonb)
                from jsonb_each(jobs.payload) where key in ('to', 'subject'))`,
            }
          : {}),
      })
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .execute();
  }

  async markFailed(id: number, workerId: string, error: string, retryAt: Date | undefined): Promise<void> {
    await this.db
      .updateTable('jobs')
      .set(
        retryAt
          ? { status: 'QUEUED', run_at: retryAt, last_error: error, locked_at: null }
          : { status: 'DEAD', finished_at: new Date(), last_error: error, locked_at: null },
      )
      .where('id', '=', id)
      .where('locked_by', '=', workerId)
      .execute();
  }

  /** One page of the jobs in a state, newest first (by when they finished, then were created). */
  async listByStatus(
    status: JobStatus,
    page: number,
    pageSize: number,
  ): Promise<{ rows: Job[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('jobs')
        .selectAll()
        .where('status', '=', status)
        .orderBy(sql`coalesce(finished_at, run_at)`, 'desc')
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      this.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('status', '=', status)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.count) };
  }

  async findById(id: number): Promise<Job | undefined> {
    return this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Queues a dead job again for a fresh round of attempts, now. Only a DEAD job changes (a second retry,
   * or a retry racing another, finds it QUEUED and does nothing); its last error stays until it runs.
   */
  async requeueDead(id: number): Promise<Job | undefined> {
    return this.db
      .updateTable('jobs')
      .set({
        status: 'QUEUED',
        attempts: 0,
        run_at: new Date(),
        finished_at: null,
        locked_at: null,
        locked_by: null,
      })
      .where('id', '=', id)
      .where('status', '=', 'DEAD')
      .returningAll()
      .executeTakeFirst();
  }

  async countByStatus(queue: string) {
    return this.db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
      .where('queue', '=', queue)
      .groupBy('status')
      .execute();
  }
}
