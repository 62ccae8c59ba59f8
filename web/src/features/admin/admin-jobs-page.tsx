import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ADMIN_JOBS_PAGE_SIZE, type AdminJobPage, type AdminJobRow } from '@osint/contract/admin-jobs';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { api } from '../../lib/api-client.ts';
import { AdminHeader, errorText, When } from './admin-ui.tsx';
import './admin.css';

const FAILED_JOBS_KEY = ['admin', 'jobs', 'failed'] as const;

/** Readable names of the product's queues; unknown ones show as they are. */
const QUEUE_LABELS: Record<string, string> = {
  'mail.send': 'E-mail',
  'support.forward': 'Support message',
  'crawl.run': 'Crawl',
  'saved-search.save': 'Saved search',
  'billing.plan-sweep': 'Billing plan check',
  'data-extractor.run': 'AI data extraction',
  'retention.sweep': 'Data retention',
};

/** /admin/jobs: background jobs that failed their last attempt, with their error and a Retry. */
export function AdminJobsPage() {
  const [page, setPage] = useState(1);
  const jobs = useQuery({
    queryKey: [...FAILED_JOBS_KEY, page],
    queryFn: () =>
      api<AdminJobPage>('/admin/jobs', {
        query: { state: 'failed', page, pageSize: ADMIN_JOBS_PAGE_SIZE },
      }),
    placeholderData: keepPreviousData,
  });
  const lastPage = jobs.data ? Math.max(1, Math.ceil(jobs.data.total / ADMIN_JOBS_PAGE_SIZE)) : 1;
  return (
    <section className="admin-page" aria-labelledby="admin-jobs-title">
      <AdminHeader
        eyebrow="Operations"
        title={<span id="admin-jobs-title">Failed jobs</span>}
        lead="Background work (e-mails, crawls, saved searches, extractions) that failed on every attempt. Retry a job once its cause is fixed; it runs again from the start."
      />
      <div className="card admin-panel">
        {jobs.isPending ? (
          <LoadingPlaceholder />
        ) : jobs.isError ? (
          <div className="admin-empty" role="alert">
            <p className="admin-empty-title">The failed jobs could not be loaded.</p>
            <Button variant="secondary" onClick={() => void jobs.refetch()}>
              Try again
            </Button>
          </div>
        ) : jobs.data.items.length === 0 ? (
          <div className="admin-empty">
            <p className="admin-empty-title">No failed jobs.</p>
            <p>Every background job has completed or is still being tried.</p>
          </div>
        ) : (
          <>
            <h2 className="admin-section-title admin-panel-heading">
              {jobs.data.total} failed {jobs.data.total === 1 ? 'job' : 'jobs'}
            </h2>
            <div className={`admin-table-wrap${jobs.isPlaceholderData ? ' admin-table-wrap--stale' : ''}`}>
              <table className="admin-table">
                <caption className="visually-hidden">Failed jobs, most recent failure first</caption>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Queue</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last error</th>
                    <th scope="col">Failed</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {jobs.data.items.map((job) => (
                    <FailedJobRow key={job.id} job={job} />
                  ))}
                </tbody>
              </table>
            </div>
            {lastPage > 1 && (
              <nav className="admin-pager" aria-label="Pages">
                <Button
                  variant="secondary"
                  className="btn-sm"
                  disabled={page <= 1}
                  onClick={() => setPage(page - 1)}
                >
                  Previous
                </Button>
                <span className="admin-pager-label" aria-live="polite">
                  Page {page} of {lastPage}
                </span>
                <Button
                  variant="secondary"
                  className="btn-sm"
                  disabled={page >= lastPage}
                  onClick={() => setPage(page + 1)}
                >
                  Next
                </Button>
              </nav>
            )}
          </>
        )}
      </div>
    </section>
  );
}

function FailedJobRow({ job }: { job: AdminJobRow }) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const retry = useMutation({
    mutationFn: () => api<AdminJobRow>(`/admin/jobs/${job.id}/retry`, { method: 'POST' }),
    onSuccess: async () => {
      showBanner({ message: `Job #${job.id} is queued again.`, type: 'success' });
      await queryClient.invalidateQueries({ queryKey: FAILED_JOBS_KEY });
    },
    onError: async (failure) => {
      showBanner({ message: errorText(failure, 'The job could not be retried.'), type: 'danger' });
      await queryClient.invalidateQueries({ queryKey: FAILED_JOBS_KEY });
    },
  });
  return (
    <tr>
      <td data-label="#">{job.id}</td>
      <td data-label="Queue">
        {QUEUE_LABELS[job.queue] ?? job.queue}
        <div className="admin-muted admin-code">{job.queue}</div>
      </td>
      <td data-label="Attempts">
        {job.attempts} of {job.maxAttempts}
      </td>
      <td data-label="Last error" className="admin-break admin-jobs-error">
        {job.lastError ?? <span className="admin-muted">—</span>}
      </td>
      <td data-label="Failed">
        <When iso={job.finishedAt ?? job.runAt} withTime />
      </td>
      <td className="admin-actions-cell">
        <Button
          variant="secondary"
          className="btn-sm"
          loading={retry.isPending}
          onClick={() => retry.mutate()}
          aria-label={`Retry job ${job.id}`}
        >
          Retry
        </Button>
      </td>
    </tr>
  );
}
