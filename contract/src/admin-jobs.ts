/** Background jobs as admins see them (GET /api/admin/jobs, POST /api/admin/jobs/{id}/retry). */

/** `failed`: dead for good after its last attempt (the queue's DEAD state). */
export const ADMIN_JOB_STATES = ['failed', 'queued', 'running', 'done'] as const;
export type AdminJobState = (typeof ADMIN_JOB_STATES)[number];

export interface AdminJobRow {
  id: number;
  queue: string;
  state: AdminJobState;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: string;
  /** When it runs next (queued) or ran last. */
  runAt: string;
  /** When it died (failed) or completed (done). */
  finishedAt: string | null;
}

export interface AdminJobPage {
  items: AdminJobRow[];
  total: number;
  page: number;
  pageSize: number;
}

export const ADMIN_JOBS_PAGE_SIZE = 20;
export const JOB_NOT_FOUND_MESSAGE = 'Job not found.';
export const JOB_NOT_FAILED_MESSAGE = 'Only failed jobs can be retried.';
