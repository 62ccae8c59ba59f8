import {
  JOB_NOT_FAILED_MESSAGE,
  JOB_NOT_FOUND_MESSAGE,
  type AdminJobPage,
  type AdminJobRow,
  type AdminJobState,
} from '@osint/contract/admin-jobs';
import type { Job, JobStatus } from '../db/schema.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { HttpError, notFound } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { JobRepository } from '../repositories/job.repository.ts';
import type { AuthUser } from './session.service.ts';

const STATUS_OF: Record<AdminJobState, JobStatus> = {
  failed: 'DEAD',
  queued: 'QUEUED',
  running: 'RUNNING',
  done: 'DONE',
};
const STATE_OF: Record<JobStatus, AdminJobState> = {
  DEAD: 'failed',
  QUEUED: 'queued',
  RUNNING: 'running',
  DONE: 'done',
};

/** Admin → Jobs: background jobs by state, and a retry for the ones that failed for good. */
export class AdminJobsService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
  ) {}

  async list(state: AdminJobState, page: number, pageSize: number): Promise<AdminJobPage> {
    const { rows, total } = await this.jobs.listByStatus(STATUS_OF[state], page, pageSize);
    return { items: rows.map(toRow), total, page, pageSize };
  }

  async retry(admin: AuthUser, id: number): Promise<AdminJobRow> {
    const job = await this.queue.retryDead(id);
    if (!job) {
      if (!(await this.jobs.findById(id))) throw notFound(JOB_NOT_FOUND_MESSAGE);
      throw new HttpError(409, JOB_NOT_FAILED_MESSAGE);
    }
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: null,
      action: 'admin.job.retried',
      target: `job:${id}`,
      detail: { queue: job.queue },
    });
    return toRow(job);
  }
}

function toRow(job: Job): AdminJobRow {
  return {
    id: job.id,
    queue: job.queue,
    state: STATE_OF[job.status],
    attempts: job.attempts,
    maxAttempts: job.max_attempts,
    // Errors are the handlers' own messages; a long stack would only clutter the page.
    lastError: job.last_error ? job.last_error.slice(0, 2000) : null,
    createdAt: job.created_at.toISOString(),
    runAt: job.run_at.toISOString(),
    finishedAt: job.finished_at ? job.finished_at.toISOString() : null,
  };
}
