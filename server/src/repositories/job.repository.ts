import { sql } from 'kysely';
import { inTransaction, type Db } from '../db/database.ts';
import type { Job, JobStatus } from '../db/schema.ts';
import { RUNNING_CAP_PER_ORGANIZATION } from '../jobs/job-queue.ts';

/**
 * A job to insert: its queue and JSON payload; optionally when it is due, its attempts, a unique key, and
 * the organization it works for (which takes its turn in the queue by it: claimNext).
 */
export interface NewJob {
  queue: string;
  payload: unknown;
  runAt?: Date;
  maxAttempts?: number;
  uniqueKey?: string;
  organizationId?: number | null;
}

/** How far back a claim looks for when an organization was last served (older counts as never). */
const SERVED_WITHIN = '1 hour';

/** How many due jobs of each (queue, organization) a claim ranks, at least (a capped queue: its cap). */
const CANDIDATES_PER_LINE = 8;

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
        organization_id: job.organizationId ?? null,
      })
      .onConflict((oc) => oc.column('unique_key').doNothing())
      .execute();
  }

  /**
   * Claims the next due job of the given queues. SKIP LOCKED lets any number of workers claim concurrently
   * without waiting on each other; a RUNNING job whose worker died is reclaimed after `staleAfterMs`, while
   * it has attempts left: one whose every attempt ended with its worker (a job that crashes the process or
   * exhausts its memory) is dead instead, or it would bring down each worker that takes it, for ever.
   *
   * Organizations take turns, so one organization's backlog never holds up another's jobs. Jobs of no
   * organization take their turns together, as one more organization. The claim ranks candidates: each
   * (queue, organization)'s first CANDIDATES_PER_LINE due jobs in its line (run_at, id; a capped queue's
   * first `cap` if more), a stale RUNNING job (below) counting as due in its place. Among them it takes:
   * 1. the organization with the fewest jobs running (of these queues): whoever has nothing running is
   *    served before one that already has a worker;
   * 2. then by the job's place in its own organization's line over these queues (1 for each
   *    organization's oldest due job, 2 for the next, …): heads of line before seconds. This also spreads
   *    claims made at the same moment, which see the same running counts, over the organizations. The
   *    place is counted among the candidates: exact up to CANDIDATES_PER_LINE, and any later one still
   *    counts as beyond it;
   * 3. then the organization served longest ago (its last claim of one of these queues, within
   *    SERVED_WITHIN; never before any), so that with one free worker organizations alternate instead of
   *    the oldest backlog going first;
   * 4. then the oldest due job (run_at, id), the first-come order within an organization.
   * An organization never waits for more than one turn of every other one with work, and jobs of no
   * organization are one of them, so none starve. A queue of RUNNING_CAP_PER_ORGANIZATION lets an
   * organization start its job only while its running ones and the due ones before it in that queue stay
   * within the cap (counting the ones before it too keeps two simultaneous claims from both starting one).
   * Only the candidates can win, so more than CANDIDATES_PER_LINE claims at the same moment on one
   * organization's line find its candidates locked and come back empty (the runner polls again).
   * The cost grows with the number of (queue, organization) pairs with queued jobs and the running jobs,
   * not with the backlog: the pairs are found one index lookup each (jobs_queued_line_idx), each one's
   * first jobs by a range read of it, the stale and running jobs by jobs_running_idx, and each candidate
   * organization's last claim by one lookup per queue (jobs_served_idx).
   * It stays one UPDATE: the job's own due condition is in the locking query, so a job another worker
   * claimed after this statement's snapshot is rechecked when locked and skipped, never claimed twice.
   */
  async claimNext(queues: string[], workerId: string, staleAfterMs: number): Promise<Job | undefined> {
    const staleInterval = sql`make_interval(secs => ${staleAfterMs / 1000})`;
    const stale = sql`status = 'RUNNING' and locked_at < now() - ${staleInterval}`;
    await sql`
      update jobs set status = 'DEAD', finished_at = now(), locked_at = null, last_error = ${workerLostError}
      where queue = any(${queues}::text[]) and ${stale} and attempts >= max_attempts`.execute(this.db);
    const due = sql`((status = 'QUEUED' and run_at <= now()) or (${stale} and attempts < max_attempts))`;
    const organization = sql`coalesce(organization_id, 0)`;
    const capQueues = Object.keys(RUNNING_CAP_PER_ORGANIZATION);
    const caps = Object.values(RUNNING_CAP_PER_ORGANIZATION);
    const result = await sql<Job>`
      update jobs set status = 'RUNNING', locked_at = now(), locked_by = ${workerId},
        attempts = attempts + 1, claimed_at = now()
      where id = (
        with recursive lines (queue, organization) as (
          select q.queue, (
            select ${organization} from jobs
            where status = 'QUEUED' and jobs.queue = q.queue
            order by ${organization} limit 1)
          from unnest(${queues}::text[]) as q (queue)
          union all
          select lines.queue, (
            select ${organization} from jobs
            where status = 'QUEUED' and jobs.queue = lines.queue and ${organization} > lines.organization
            order by ${organization} limit 1)
          from lines
          where lines.organization is not null
        ),
        caps as (
          select * from unnest(${capQueues}::text[], ${caps}::int[]) as caps (queue, cap)
        ),
        candidates as (
          select heads.id, lines.organization, lines.queue, heads.run_at as line_at
          from lines
          left join caps on caps.queue = lines.queue
          cross join lateral (
            select id, run_at from jobs
            where status = 'QUEUED' and jobs.queue = lines.queue and ${organization} = lines.organization
              and run_at <= now()
            order by run_at, id
            limit greatest(${CANDIDATES_PER_LINE}::int, caps.cap)
          ) as heads
          where lines.organization is not null
          union all
          select id, ${organization}, queue, run_at
          from jobs
          where queue = any(${queues}::text[]) and ${stale} and attempts < max_attempts
        ),
        in_queue as (
          select candidates.*,
            row_number() over (partition by organization, queue order by line_at, id) as place_in_queue
          from candidates
        ),
        waiting as (
          select in_queue.*,
            row_number() over (partition by organization order by line_at, id) as place
          from in_queue
          left join caps using (queue)
          where place_in_queue <= greatest(${CANDIDATES_PER_LINE}::int, caps.cap)
        ),
        running as (
          select ${organization} as organization, queue, count(*) as running
          from jobs
          where queue = any(${queues}::text[]) and status = 'RUNNING' and locked_at >= now() - ${staleInterval}
          group by 1, 2
        ),
        organizations as (
          select organization,
            (select coalesce(sum(running), 0) from running
             where running.organization = waiting.organization) as running,
            (select max(served.claimed_at)
             from unnest(${queues}::text[]) as q (queue)
             cross join lateral (
               select claimed_at from jobs
               where ${organization} = waiting.organization and jobs.queue = q.queue
                 and claimed_at > now() - ${SERVED_WITHIN}::interval
               order by claimed_at desc
               limit 1
             ) as served) as served
          from waiting
          group by organization
        )
        select jobs.id
        from jobs
        join waiting on waiting.id = jobs.id
        join organizations org on org.organization = waiting.organization
        left join running on running.organization = waiting.organization and running.queue = waiting.queue
        left join caps on caps.queue = waiting.queue
        where jobs.queue = any(${queues}::text[]) and ${due}
          and (waiting.organization = 0 or caps.cap is null
            or coalesce(running.running, 0) + waiting.place_in_queue <= caps.cap)
        order by org.running, waiting.place, org.served nulls first, jobs.run_at, jobs.id
        for update of jobs skip locked
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
