import { randomBytes } from 'node:crypto';
import {
  AUDIT_ANONYMISE_AFTER_DAYS,
  AUDIT_RECORDS_KEPT_YEARS,
  RETENTION_INACTIVE_DAYS,
} from '@osint/contract/constants';
import type { FastifyBaseLogger } from 'fastify';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import type { AppSettingsRepository } from '../repositories/app-settings.repository.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { RetentionDeletion, RetentionRepository } from '../repositories/retention.repository.ts';
import type { MinorReviewService } from './minor-review.service.ts';

const DAY_MS = 86_400_000;
/** The secret mixed into audit pseudonyms, so that nobody can test a guessed e-mail against them. */
const PSEUDONYM_SALT_KEY = 'audit_pseudonym_salt';
/** The sweep runs once an hour; one queued run per hour whatever the number of workers. */
export const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;

/**
 * Spec 000 §9: an organization's searches, saved searches and extractions are deleted after
 * RETENTION_INACTIVE_DAYS days of inactivity (see RetentionRepository.findInactiveWithContent for what
 * counts as activity). Accounts, billing and the audit log stay; audit entries are anonymised after
 * AUDIT_ANONYMISE_AFTER_DAYS days (billing and admin records after AUDIT_RECORDS_KEPT_YEARS years).
 */
export class RetentionService {
  constructor(
    private readonly retention: RetentionRepository,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
    private readonly log: FastifyBaseLogger,
    private readonly settings: Pick<AppSettingsRepository, 'getOrCreate'>,
    private readonly minorReviews: Pick<MinorReviewService, 'expireOld'>,
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
    await this.anonymiseAuditLog(now);
    // Finished jobs: done ones after the content retention, dead ones (retried by an admin, or not) after
    // the logs' 90 days.
    const jobs = await this.retention.deleteFinishedJobs(
      new Date(now.getTime() - RETENTION_INACTIVE_DAYS * DAY_MS),
      new Date(now.getTime() - AUDIT_ANONYMISE_AFTER_DAYS * DAY_MS),
    );
    if (jobs > 0) this.log.info({ jobs }, 'retention sweep deleted finished jobs');
    // Face crops waiting for a platform review are kept 7 days at most.
    await this.minorReviews.expireOld(now);
    return done;
  }

  /** Anonymises the audit entries past their time (one statement), and records that it did. */
  async anonymiseAuditLog(now = new Date()): Promise<number> {
    const systemCutoff = new Date(now.getTime() - AUDIT_ANONYMISE_AFTER_DAYS * DAY_MS);
    const recordsCutoff = new Date(now);
    recordsCutoff.setUTCFullYear(recordsCutoff.getUTCFullYear() - AUDIT_RECORDS_KEPT_YEARS);
    const salt = await this.settings.getOrCreate(PSEUDONYM_SALT_KEY, randomBytes(32).toString('base64url'));
    const entries = await this.audit.anonymiseBefore({ systemCutoff, recordsCutoff, salt, now });
    if (entries > 0) {
      await this.audit.insert({
        actorUserId: null,
        organizationId: null,
        action: 'retention.audit_anonymised',
        detail: {
          entries,
          before: systemCutoff.toISOString(),
          recordsBefore: recordsCutoff.toISOString(),
        },
      });
      this.log.info({ entries }, 'retention sweep anonymised audit entries');
    }
    return entries;
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
