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
 * Queues of short jobs someone waits for: mail (invitations, password resets, e-mail confirmations,
 * alert notices), the requests that send one, a support message's forwarding, an alert digest. Each takes
 * a moment (a database read, one SMTP exchange). The runner keeps a slot of its own for them (its
 * `reserved` loops, see createContainer), so that they never wait behind the long jobs (extractions, saved
 * searches' copies, crawl slices, sweeps), however many of those are queued; the other slots run every
 * queue, these included.
 */
export const SHORT_QUEUES: readonly string[] = [
  QUEUES.sendMail,
  QUEUES.passwordReset,
  QUEUES.verificationResend,
  QUEUES.forwardSupportMessage,
  QUEUES.faceAlertDigest,
];

/**
 * How many jobs of one queue an organization may have running at once, for queues whose jobs run long:
 * such jobs would otherwise fill every slot for minutes, and another organization's job could not start
 * before one ends. An extraction reads up to 1,000 results and fetches their pages (15 s timeouts each,
 * retries), so an organization runs one at a time: the other slots stay free for the other
 * organizations' extractions and saves, and for its own saves. Jobs of no organization have no cap (they
 * are the platform's own, few). Enforced by JobRepository.claimNext.
 */
export const RUNNING_CAP_PER_ORGANIZATION: Readonly<Record<string, number>> = {
  [QUEUES.runExtraction]: 1,
};

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
    options: { uniqueKey?: string; runAt?: Date; maxAttempts?: number; organizationId?: number | null } = {},
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
