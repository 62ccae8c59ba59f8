import { RETENTION_INACTIVE_DAYS } from '@osint/contract/constants';
import type { FastifyBaseLogger } from 'fastify';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { RetentionDeletion, RetentionRepository } from '../repositories/retention.repository.ts';

const DAY_MS = 86_400_000;
/** The sweep runs once an hour; one queued run per hour whatever the number of workers. */
export const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Spec 000 §9: an organization's searches, saved searches and extractions are deleted after
 * RETENTION_INACTIVE_DAYS days of inactivity (see RetentionRepository.findInactiveWithContent for what
 * counts as activity). Accounts, billing and the audit log stay.
 */
export class RetentionService {
  constructor(
    private readonly retention: RetentionRepository,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Deletes the content of every organization inactive since `now` − 30 days. */
  async sweep(now = new Date()): Promise<{ organizationId: number; deleted: RetentionDeletion }[]> {
    const cutoff = new Date(now.getTime() - RETENTION_INACTIVE_DAYS * DAY_MS);
    const done: { organizationId: number; deleted: RetentionDeletion }[] = [];
    for (const organization of await this.retention.findInactiveWithContent(cutoff)) {
      const deleted = await this.retention.deleteContentIfInactive(organization.id, cutoff);
      if (!deleted) continue;
      done.push({ organizationId: organization.id, deleted });
      await this.audit.insert({
        actorUserId: null,
        organizationId: organization.id,
        action: 'retention.content_deleted',
        target: `organization:${organization.id}`,
        detail: { ...deleted, lastActivityAt: organization.lastActivityAt?.toISOString() ?? null },
      });
    }
    if (done.length > 0)
      this.log.info({ organizations: done.length }, 'retention sweep deleted inactive content');
    return done;
  }

  /** Runs a sweep now and keeps the chain going (started by every process that runs jobs). */
  async startSweep(): Promise<void> {
    await this.queue.enqueue(QUEUES.retentionSweep, {});
  }

  async runSweepJob(): Promise<void> {
    await this.sweep();
    const bucket = Math.floor(Date.now() / RETENTION_SWEEP_INTERVAL_MS) + 1;
    await this.queue.enqueue(
      QUEUES.retentionSweep,
      {},
      { uniqueKey: `retention.sweep:${bucket}`, runAt: new Date(bucket * RETENTION_SWEEP_INTERVAL_MS) },
    );
  }
}
