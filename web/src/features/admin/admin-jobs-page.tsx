import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ADMIN_JOBS_PAGE_SIZE, type AdminJobPage, type AdminJobRow } from '@osint/contract/admin-jobs';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
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
  'billing.subscription-cancel': 'Card subscription cancellation',
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
        <DataTable
          caption="Failed jobs, most recent failure first"
          columns={jobColumns}
          rows={jobs.data?.items}
          rowKey={(job) => job.id}
          actions={(job) => <RetryButton job={job} />}
          heading={
            jobs.data &&
            jobs.data.total > 0 && (
              <h2 className="admin-section-title admin-panel-heading">
                {jobs.data.total} failed {jobs.data.total === 1 ? 'job' : 'jobs'}
              </h2>
            )
          }
          loading={jobs.isPending}
          stale={jobs.isPlaceholderData}
          error={
            jobs.isError && {
              title: 'The failed jobs could not be loaded.',
              onRetry: () => void jobs.refetch(),
            }
          }
          empty={{
            title: 'No failed jobs.',
            text: 'Every background job has completed or is still being tried.',
          }}
          paging={{ page, pageCount: lastPage, onPageChange: setPage }}
        />
      </div>
    </section>
  );
}

const jobColumns: DataTableColumn<AdminJobRow>[] = [
  { header: '#', cell: (job) => job.id },
  {
    header: 'Queue',
    cell: (job) => (
      <>
        {QUEUE_LABELS[job.queue] ?? job.queue}
        <div className="admin-muted admin-code">{job.queue}</div>
      </>
    ),
  },
  { header: 'Attempts', cell: (job) => `${job.attempts} of ${job.maxAttempts}` },
  {
    header: 'Last error',
    className: 'admin-break admin-jobs-error',
    cell: (job) => job.lastError ?? <span className="admin-muted">—</span>,
  },
  { header: 'Failed', cell: (job) => <When iso={job.finishedAt ?? job.runAt} withTime /> },
];

/** Retry of one failed job; its own mutation, so each row shows its own progress. */
function RetryButton({ job }: { job: AdminJobRow }) {
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
    <Button
      variant="secondary"
      className="btn-sm"
      loading={retry.isPending}
      onClick={() => retry.mutate()}
      aria-label={`Retry job ${job.id}`}
    >
      Retry
    </Button>
  );
}
