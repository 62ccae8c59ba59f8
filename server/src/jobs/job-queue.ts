import type { Job } from '../db/schema.ts';
import type { JobRepository } from '../repositories/job.repository.ts';
import type { JobRunner } from './job-runner.ts';

/** The names of every queue, so producers and handlers cannot drift apart. */
export const QUEUES = {
  sendMail: 'mail.send',
  forwardSupportMessage: 'support.forward',
  runCrawl: 'crawl.run',
  saveSearch: 'saved-search.save',
  billingPlanSweep: 'billing.plan-sweep',
  cancelSubscription: 'billing.subscription-cancel',
  retentionSweep: 'retention.sweep',
  runExtraction: 'data-extractor.run',
  passwordReset: 'user.password-reset',
  verificationResend: 'user.verification-resend',
  faceAlertDigest: 'face-alert.digest',
} as const;

/**
 * Queues whose payload must not outlive the job's work: mail carries one-time links (password reset,
 * invitation, e-mail confirmation, whose tokens are otherwise kept only as hashes) and addresses; a
 * password-reset or resend request carries the address typed in. Their payload is erased when the job is done, but
 * for a mail's recipient and subject (a dead job keeps it all for an admin's retry; the links expire by
 * themselves), and the job itself goes with the retention sweep.
 */
export const PAYLOAD_ERASED_WHEN_DONE: ReadonlySet<string> = new Set([
  QUEUES.sendMail,
  QUEUES.passwordReset,
  QUEUES.verificationResend,
]);

export class JobQueue {
  constructor(
    private readonly jobs: JobRepository,
    private readonly localRunner: JobRunner | undefined,
  ) {}

  async enqueue(
    queue: string,
    payload: unknown,
    options: { uniqueKey?: string; runAt?: Date; maxAttempts?: number } = {},
  ): Promise<void> {
    await this.jobs.insert({ queue, payload, ...options });
    this.localRunner?.wake();
  }

  /**
   * Wakes this process's runner for jobs committed with their rows by a repository (insertWithJob), which
   * does not go through `enqueue`; call it once the transaction has committed.
   */
  wake(): void {
    this.localRunner?.wake();
  }

  /** Makes the queued jobs of `queue` whose payload has `key: value` due now; how many there were. */
  async runNow(queue: string, key: string, value: number): Promise<number> {
    const moved = await this.jobs.runQueuedNow(queue, key, value);
    if (moved > 0) this.localRunner?.wake();
    return moved;
  }

  /** Queues a dead job again (admin retry): the job as queued, or undefined when it was not dead. */
  async retryDead(id: number): Promise<Job | undefined> {
    const job = await this.jobs.requeueDead(id);
    if (job) this.localRunner?.wake();
    return job;
  }
}
