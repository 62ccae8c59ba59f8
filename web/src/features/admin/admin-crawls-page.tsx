import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextArea } from '../../components/text-field.tsx';
import { violationsByField } from '../../lib/api-client.ts';
import { ADMIN_KEYS, adminApi, type CrawlRow, type CrawlStatus } from './admin-api.ts';
import { AdminHeader, errorText, When } from './admin-ui.tsx';
import './admin.css';

/** How often the list refreshes while a crawl is queued or running. */
const REFRESH_MS = 3000;
const MAX_SEEDS = 100;

const STATUS_BADGES: Record<CrawlStatus, { label: string; tone: string }> = {
  QUEUED: { label: 'Queued', tone: 'neutral' },
  RUNNING: { label: 'Running', tone: 'info' },
  DONE: { label: 'Done', tone: 'success' },
  STOPPED: { label: 'Stopped', tone: 'warning' },
  FAILED: { label: 'Failed', tone: 'danger' },
};

const isLive = (crawl: CrawlRow) => crawl.status === 'QUEUED' || crawl.status === 'RUNNING';

/** /admin/crawls: start a crawl from seed URLs and follow every crawl's progress. */
export function AdminCrawlsPage() {
  const crawls = useQuery({
    queryKey: ADMIN_KEYS.crawls,
    queryFn: adminApi.crawls,
    refetchInterval: (query) => (query.state.data?.some(isLive) ? REFRESH_MS : false),
  });
  const [open, setOpen] = useState<string>();
  const live = crawls.data?.some(isLive) ?? false;

  return (
    <section className="admin-page" aria-labelledby="admin-crawls-title">
      <AdminHeader
        eyebrow="Index"
        title={<span id="admin-crawls-title">Crawls</span>}
        lead="Crawl public websites into the face index. A crawl follows links within the seed sites, respects robots.txt and never fetches private addresses."
      />
      <StartCrawlForm />
      <div className="card admin-panel">
        <div className="admin-panel-heading admin-heading-row">
          <h2 className="admin-section-title">Crawls</h2>
          {live && (
            <span className="admin-live" role="status">
              <span className="admin-live-dot" aria-hidden="true" /> Updating every {REFRESH_MS / 1000} s
            </span>
          )}
        </div>
        <DataTable
          caption="Crawls, newest first"
          columns={crawlColumns}
          rows={crawls.data}
          rowKey={(crawl) => crawl.id}
          actionsLabel="Details"
          actions={(crawl) => (
            <Button
              variant="ghost"
              className="btn-sm"
              aria-expanded={open === crawl.id}
              onClick={() => setOpen(open === crawl.id ? undefined : crawl.id)}
            >
              {open === crawl.id ? 'Hide' : 'Details'}
            </Button>
          )}
          detail={(crawl) => open === crawl.id && <CrawlDetailView crawl={crawl} />}
          loading={crawls.isPending}
          error={
            crawls.isError && {
              title: 'The crawls could not be loaded.',
              onRetry: () => void crawls.refetch(),
            }
          }
          empty={{
            title: 'No crawls yet.',
            text: 'Start one above with the addresses of the sites to index.',
          }}
        />
      </div>
    </section>
  );
}

const crawlColumns: DataTableColumn<CrawlRow>[] = [
  {
    header: 'Seeds',
    cell: (crawl) => (
      <>
        <span className="admin-seeds admin-break">
          {crawl.seeds.slice(0, 2).join(', ')}
          {crawl.seeds.length > 2 && ` +${crawl.seeds.length - 2}`}
        </span>
        {crawl.demo && <span className="badge admin-inline-badge">Demo</span>}
      </>
    ),
  },
  {
    header: 'Status',
    cell: (crawl) => (
      <span className={`badge badge--${STATUS_BADGES[crawl.status].tone}`}>
        {STATUS_BADGES[crawl.status].label}
      </span>
    ),
  },
  { header: 'Pages', cell: (crawl) => crawl.pages },
  { header: 'Images', cell: (crawl) => crawl.images },
  { header: 'Faces', cell: (crawl) => crawl.faces },
  { header: 'Errors', cell: (crawl) => crawl.errors },
  { header: 'Started', cell: (crawl) => <When iso={crawl.startedAt ?? crawl.createdAt} withTime /> },
  { header: 'Finished', cell: (crawl) => <When iso={crawl.finishedAt} withTime /> },
];

function CrawlDetailView({ crawl }: { crawl: CrawlRow }) {
  const detail = useQuery({
    queryKey: ADMIN_KEYS.crawl(crawl.id),
    queryFn: () => adminApi.crawl(crawl.id),
    refetchInterval: isLive(crawl) ? REFRESH_MS : false,
  });
  if (detail.isPending) return <LoadingPlaceholder />;
  if (detail.isError) return <p className="admin-muted">The details could not be loaded.</p>;
  const { frontier, failures } = detail.data;
  return (
    <div className="admin-crawl-detail">
      <p className="admin-muted admin-break">Seeds: {crawl.seeds.join(', ')}</p>
      {crawl.lastError && <p className="admin-error-text">Last error: {crawl.lastError}</p>}
      <table className="admin-mini-table">
        <caption className="visually-hidden">Addresses by kind and state</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Queued</th>
            <th scope="col">In progress</th>
            <th scope="col">Done</th>
            <th scope="col">Failed</th>
            <th scope="col">Skipped</th>
          </tr>
        </thead>
        <tbody>
          {(['page', 'image', 'sitemap'] as const).map((kind) => (
            <tr key={kind}>
              <th scope="row">{kind}s</th>
              <td>{frontier[kind].queued}</td>
              <td>{frontier[kind].claimed}</td>
              <td>{frontier[kind].done}</td>
              <td>{frontier[kind].failed}</td>
              <td>{frontier[kind].skipped}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {failures.length > 0 && (
        <ul className="admin-failures">
          {failures.map((f) => (
            <li key={f.url} className="admin-break">
              <span className="admin-code">{f.url}</span> — {f.error ?? 'failed'} ({f.attempts}{' '}
              {f.attempts === 1 ? 'attempt' : 'attempts'})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function StartCrawlForm() {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const start = useMutation({
    mutationFn: (urls: string[]) => adminApi.startCrawl(urls),
    onSuccess: async (_data, urls) => {
      setText('');
      showBanner({
        message: `The crawl of ${urls.length} ${urls.length === 1 ? 'site' : 'sites'} has started.`,
        type: 'success',
      });
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.crawls });
    },
    onError: (failure) => {
      const fields = violationsByField(failure);
      setError(Object.values(fields)[0] ?? errorText(failure, 'The crawl could not be started.'));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const urls = text
      .split(/[\s,]+/)
      .map((u) => u.trim())
      .filter(Boolean);
    if (urls.length === 0) return setError('Enter at least one address.');
    if (urls.length > MAX_SEEDS) return setError(`Enter at most ${MAX_SEEDS} addresses.`);
    const invalid = urls.find((u) => !/^https?:\/\/[^\s/]+/i.test(u));
    if (invalid) return setError(`"${invalid}" is not a web address (http:// or https://).`);
    setError(undefined);
    start.mutate(urls);
  };
  return (
    <form className="card admin-form admin-form--wide" onSubmit={submit} noValidate>
      <TextArea
        label="Seed addresses"
        rows={3}
        placeholder={'https://news.example.org\nhttps://another-site.example.com'}
        value={text}
        error={error}
        onChange={(event) => {
          setText(event.target.value);
          setError(undefined);
        }}
      />
      <p className="admin-muted admin-form-hint">
        One address per line. Each site is crawled within its own host.
      </p>
      <div className="admin-form-actions">
        <Button type="submit" loading={start.isPending}>
          Start crawl
        </Button>
      </div>
    </form>
  );
}
