import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { isProcessAlive } from '../lib/data-dir-lock.ts';
import type { JobRepository } from '../repositories/job.repository.ts';
import { PAYLOAD_ERASED_WHEN_DONE } from './job-queue.ts';

export type JobHandler = (payload: unknown) => Promise<void>;

export interface JobRunnerOptions {
  pollIntervalMs: number;
  /** Loops that run jobs of every registered queue. */
  concurrency: number;
  /**
   * Further loops that run only jobs of these queues (registered ones): slots kept for short jobs, which
   * thus never wait for a long job of another queue to end, however many are queued (SHORT_QUEUES).
   */
  reserved?: { queues: readonly string[]; concurrency: number };
  /**
   * A RUNNING job untouched this long belonged to a dead worker and is claimed again. The runner renews
   * its running jobs every quarter of this (a heartbeat), so a long job is never mistaken for a dead one
   * and a killed worker's job is taken over by a live one soon after (issue 8, fault tests).
   */
  staleAfterMs: number;
  /** First retry delay; each further retry waits four times longer. */
  retryBaseMs?: number;
}

/** Backoff before retry N: 5 s, 20 s, 80 s, … capped at 30 minutes (the base is JOB_RETRY_BASE_MS). */
export function retryDelayMs(attempt: number, baseMs = 5_000): number {
  return Math.min(baseMs * 4 ** (attempt - 1), 30 * 60_000);
}

/**
 * A runner's id: this machine, this process, and a random part. From the machine and the process, a
 * runner that starts recognises jobs left RUNNING by a process of this machine that no longer exists.
 */
export function newWorkerId(): string {
  return `${os.hostname()}/${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** The process id in a runner id of this machine; undefined for another machine's (or an older form). */
export function localPidOf(workerId: string): number | undefined {
  const prefix = `${os.hostname()}/`;
  if (!workerId.startsWith(prefix)) return undefined;
  const pid = Number(/^(\d+)-/.exec(workerId.slice(prefix.length))?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Runs job handlers in `concurrency` loops, plus `reserved.concurrency` loops for the reserved queues only.
 * Each loop claims a due job, runs it, and sleeps for the poll interval when there is nothing to do; an
 * enqueue in this process wakes the sleepers at once.
 */
export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly workerId = newWorkerId();
  private stopped = true;
  private loops: Promise<void>[] = [];
  private sleepers = new Set<() => void>();

  constructor(
    private readonly jobs: JobRepository,
    private readonly log: FastifyBaseLogger,
    private readonly options: JobRunnerOptions,
  ) {}

  register(queue: string, handler: JobHandler): void {
    this.handlers.set(queue, handler);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const takenOver = this.takeOverDeadJobs().catch((error: unknown) => {
      this.log.warn({ err: error }, 'could not take over the jobs of dead processes');
    });
    const reserved = this.options.reserved;
    this.loops = [
      ...Array.from({ length: this.options.concurrency }, () => takenOver.then(() => this.loop())),
      ...Array.from({ length: reserved?.concurrency ?? 0 }, () =>
        takenOver.then(() => this.loop(reserved!.queues)),
      ),
    ];
  }

  /**
   * Jobs left RUNNING by a process of this machine that has since died (a crash, a kill, a restart in
   * single-process mode) are queued again at once, instead of waiting out `staleAfterMs` as a job of a
   * process elsewhere must (whose death cannot be seen from here).
   */
  private async takeOverDeadJobs(): Promise<void> {
    const running = await this.jobs.runningLocks();
    const dead = running.filter(({ lockedBy }) => {
      const pid = localPidOf(lockedBy);
      return pid !== undefined && pid !== process.pid && !isProcessAlive(pid);
    });
    for (const { id, lockedBy } of dead) {
      if (await this.jobs.requeueAbandoned(id, lockedBy)) {
        this.log.warn({ jobId: id, lockedBy }, 'job of a dead process queued again');
      }
    }
  }

  wake(): void {
    for (const resolve of this.sleepers) resolve();
    this.sleepers.clear();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await Promise.all(this.loops);
  }

  /** Runs jobs until stopped: of `only` these queues, or of every registered queue. */
  private async loop(only?: readonly string[]): Promise<void> {
    while (!this.stopped) {
      const ran = await this.runNext(only).catch((error: unknown) => {
        this.log.error({ err: error }, 'job loop error');
        return false;
      });
      if (!ran && !this.stopped) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollIntervalMs);
      const sleepers = this.sleepers;
      function done() {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      }
      sleepers.add(done);
    });
  }

  private async runNext(only: readonly string[] | undefined): Promise<boolean> {
    const queues = [...this.handlers.keys()].filter((queue) => !only || only.includes(queue));
    if (queues.length === 0) return false;
    const job = await this.jobs.claimNext(queues, this.workerId, this.options.staleAfterMs);
    if (!job) return false;
    const heartbeat = setInterval(() => {
      this.jobs.heartbeat(job.id, this.workerId).catch((error: unknown) => {
        this.log.warn({ jobId: job.id, err: error }, 'job heartbeat failed');
      });
    }, this.options.staleAfterMs / 4);
    heartbeat.unref();
    try {
      await this.handlers.get(job.queue)!(job.payload);
      await this.jobs.markDone(job.id, this.workerId, {
        erasePayload: PAYLOAD_ERASED_WHEN_DONE.has(job.queue),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryAt =
        job.attempts < job.max_attempts
          ? new Date(Date.now() + retryDelayMs(job.attempts, this.options.retryBaseMs))
          : undefined;
      this.log.warn({ jobId: job.id, queue: job.queue, attempt: job.attempts, err: error }, 'job failed');
      await this.jobs.markFailed(job.id, this.workerId, message, retryAt);
    } finally {
      clearInterval(heartbeat);
    }
    return true;
  }
}
