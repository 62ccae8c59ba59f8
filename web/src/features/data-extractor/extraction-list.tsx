import {
  EXTRACTION_DONE_PAGE_SIZE,
  EXTRACTION_ESTIMATE_MS,
  EXTRACTION_PENDING_PAGE_SIZE,
  EXTRACTION_POLL_MS,
  EXTRACTOR_MESSAGES,
  type ExtractionListItem,
} from '@osint/contract/data-extractor';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ResultThumbnail } from '../../components/results/result-card.tsx';
import { useDebounced, useLoadOnScroll, usePagedList } from '../../lib/use-paged-list.ts';
import {
  deleteExtraction,
  EXTRACTOR_KEYS,
  fetchExtractions,
  updateExtraction,
  type ExtractorContext,
} from './data-extractor-api.ts';
import { EditExtractionModal } from './extraction-modals.tsx';

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });

function useExtractionPages(
  context: ExtractorContext,
  status: 'PENDING' | 'DONE',
  pageSize: number,
  search: string,
) {
  return usePagedList(`${context}|${status}|${search}`, pageSize, (pageNumber, size) =>
    fetchExtractions(context, { status, pageNumber, pageSize: size, search: search || undefined }).then(
      (answer) => ({ items: answer.dataExtractorListItemList, total: answer.totalResultCount }),
    ),
  );
}

/**
 * The AI data extractor list (spec 001 §2): "In progress" (3 a page) and "Done" (5 a page, search, lazy
 * loading). While anything is pending the list polls every 180 s; when the pending count changes, Done
 * and the menu alert are refetched (spec 001 §4). Admins see every organization's extractions, read-only.
 */
export function ExtractionList({ context }: { context: ExtractorContext }) {
  const searchId = useId();
  const queryClient = useQueryClient();
  const admin = context === 'admin';
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search.trim());
  const pending = useExtractionPages(context, 'PENDING', EXTRACTION_PENDING_PAGE_SIZE, '');
  const done = useExtractionPages(context, 'DONE', EXTRACTION_DONE_PAGE_SIZE, debounced);
  const [editing, setEditing] = useState<ExtractionListItem>();
  const [deleting, setDeleting] = useState<ExtractionListItem>();
  const [busy, setBusy] = useState(false);
  const { reload: reloadPending } = pending;
  const { reload: reloadDone } = done;

  useEffect(() => {
    if (pending.total === 0) return;
    const timer = setInterval(() => void reloadPending(), EXTRACTION_POLL_MS);
    return () => clearInterval(timer);
  }, [pending.total, reloadPending]);
  const lastPending = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (pending.loading) return;
    if (lastPending.current !== undefined && lastPending.current !== pending.total) {
      void reloadDone();
      void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.alert });
    }
    lastPending.current = pending.total;
  }, [pending.total, pending.loading, reloadDone, queryClient]);

  const sentinel = useLoadOnScroll(done.hasMore, done.loading, done.loadMore);

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await deleteExtraction(deleting.id);
    } catch (error) {
      // Spec 001 §8: logged only.
      console.error('Deleting the extraction failed', error);
    } finally {
      setBusy(false);
      setDeleting(undefined);
      void reloadDone();
      void reloadPending();
      void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.alert });
    }
  };

  const firstLoad =
    (pending.loading && pending.items.length === 0) ||
    (done.loading && done.items.length === 0 && !debounced);
  const empty = !firstLoad && pending.total === 0 && done.total === 0 && !debounced && !search;
  const detailPath = (item: ExtractionListItem) =>
    `${admin ? '/admin' : ''}/data-extractor/${encodeURIComponent(item.id)}`;

  return (
    <section
      className={admin ? 'extractor extractor--admin' : 'container page extractor'}
      aria-labelledby="extractor-title"
    >
      <header className="extractor__header">
        <div>
          {admin && <p className="page__eyebrow">Search</p>}
          <h1 className="page__title" id="extractor-title">
            AI Data Extractor
          </h1>
          <p className="page__lead">
            {admin
              ? 'Every organization’s extractions, read-only.'
              : 'Who the people in your search results are: names, politician, sanctions and criminal flags with their evidence, and connections.'}
          </p>
        </div>
        {!admin && (
          <Link className="btn btn-primary" to="/search">
            New search
          </Link>
        )}
      </header>

      {firstLoad ? (
        <LoadingPlaceholder />
      ) : empty ? (
        <div className="card extractor-empty" role="status">
          <h2 className="extractor-empty__title">{EXTRACTOR_MESSAGES.emptyList}</h2>
          {!admin && (
            <>
              <p>Run a face search and start the AI Data Extractor from its results.</p>
              <Link className="btn btn-primary" to="/search">
                Go to search
              </Link>
            </>
          )}
        </div>
      ) : (
        <>
          {pending.total > 0 && (
            <section className="extractor-section" aria-labelledby="extractor-pending-title">
              <h2 className="extractor-section__title" id="extractor-pending-title">
                In progress
              </h2>
              <ul className="extractor-list">
                {pending.items.map((item) => (
                  <li key={item.id}>
                    <PendingItem item={item} admin={admin} />
                  </li>
                ))}
              </ul>
              {pending.hasMore && (
                <Button variant="secondary" onClick={pending.loadMore} loading={pending.loading}>
                  SHOW MORE
                </Button>
              )}
            </section>
          )}

          <section className="extractor-section" aria-labelledby="extractor-done-title">
            <div className="extractor-section__head">
              <h2 className="extractor-section__title" id="extractor-done-title">
                Done
              </h2>
              <div className="extractor-search-box">
                <label htmlFor={searchId} className="visually-hidden">
                  Search extractions
                </label>
                <input
                  id={searchId}
                  className="input"
                  type="search"
                  placeholder="Search by name or description"
                  value={search}
                  onChange={(event) => setSearch(event.target.value)}
                />
              </div>
            </div>
            {done.items.length === 0 && !done.loading ? (
              <p className="extractor-section__empty">
                {debounced ? `No extraction matches “${debounced}”.` : EXTRACTOR_MESSAGES.emptyList}
              </p>
            ) : (
              <ul className="extractor-list">
                {done.items.map((item) => (
                  <li key={item.id}>
                    <DoneItem
                      item={item}
                      to={detailPath(item)}
                      admin={admin}
                      onEdit={() => setEditing(item)}
                      onDelete={() => setDeleting(item)}
                    />
                  </li>
                ))}
              </ul>
            )}
            {done.hasMore && (
              <div ref={sentinel} className="extractor-section__more">
                <Button variant="secondary" onClick={done.loadMore} loading={done.loading}>
                  SHOW MORE
                </Button>
              </div>
            )}
          </section>
        </>
      )}

      {editing && (
        <EditExtractionModal
          initialName={editing.name}
          initialDescription={editing.description}
          onClose={() => setEditing(undefined)}
          onSave={async (name, description) => {
            try {
              await updateExtraction(editing.id, { name, description });
            } catch (error) {
              console.error('Updating the extraction failed', error);
            }
            setEditing(undefined);
            void reloadDone();
          }}
        />
      )}
      {deleting && (
        <ConfirmDeleteModal
          title="Delete extraction"
          text={`“${deleting.name}” and its extracted data will be deleted for everyone in your organization.`}
          busy={busy}
          onConfirm={() => void confirmDelete()}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function Organization({ item }: { item: ExtractionListItem }) {
  if (!item.organizationName) return null;
  return (
    <span className="extractor-item__org">
      <span className="visually-hidden">Organization: </span>
      {item.organizationName}
    </span>
  );
}

function PendingItem({ item, admin }: { item: ExtractionListItem; admin: boolean }) {
  const start = new Date(item.createdAt);
  const end = new Date(start.getTime() + EXTRACTION_ESTIMATE_MS);
  const total = item.resultCount;
  const share = total > 0 ? Math.round((item.processedCount / total) * 100) : 0;
  return (
    <article className="extractor-item extractor-item--pending" aria-label={item.name}>
      <div className="extractor-item__image">
        <ResultThumbnail src={item.imagePath} alt={`Searched face of ${item.name}`} />
      </div>
      <div className="extractor-item__body">
        <p className="extractor-item__name">{item.name}</p>
        {admin && <Organization item={item} />}
        {item.description && <p className="extractor-item__description">{item.description}</p>}
        <p className="extractor-item__status">
          <span className="badge badge--warning">PENDING</span> <strong>Stand by</strong> · Extraction in
          progress
        </p>
        <p className="extractor-item__meta">
          Started <time dateTime={start.toISOString()}>{time.format(start)}</time> · estimated end{' '}
          <time dateTime={end.toISOString()}>{time.format(end)}</time>
        </p>
        <div className="extractor-progress">
          <div
            className="progress"
            role="progressbar"
            aria-label={`Progress of ${item.name}`}
            aria-valuemin={0}
            aria-valuemax={total}
            aria-valuenow={item.processedCount}
            aria-valuetext={`${item.processedCount} of ${total} results analysed`}
          >
            <div className="progress__bar" style={{ width: `${share}%` }} />
          </div>
          <span className="extractor-progress__label">
            {item.processedCount}/{total} results analysed
          </span>
        </div>
      </div>
      <span className="spinner extractor-item__spinner" aria-hidden="true" />
    </article>
  );
}

function DoneItem({
  item,
  to,
  admin,
  onEdit,
  onDelete,
}: {
  item: ExtractionListItem;
  to: string;
  admin: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const isNew = !admin && item.status === 'NEW';
  const failed = item.state === 'FAILED';
  return (
    <article className={`extractor-item${isNew ? ' extractor-item--new' : ''}`} aria-label={item.name}>
      <div className="extractor-item__image">
        <ResultThumbnail src={item.imagePath} alt={`Searched face of ${item.name}`} />
      </div>
      <div className="extractor-item__body">
        <div className="extractor-item__title-row">
          <p className="extractor-item__name">{item.name}</p>
          {isNew && <span className="badge badge--info">New</span>}
          {failed && <span className="badge badge--danger">Failed</span>}
          {!admin && (
            <button
              type="button"
              className="extractor-icon-button"
              onClick={onEdit}
              aria-label={`Edit ${item.name}`}
              title="Edit name and description"
            >
              <svg viewBox="0 0 24 24" aria-hidden="true" width="18" height="18">
                <path
                  d="M4 20h4L19 9l-4-4L4 16v4Zm11-15 4 4"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinejoin="round"
                />
              </svg>
            </button>
          )}
        </div>
        {admin && <Organization item={item} />}
        {item.description && <p className="extractor-item__description">{item.description}</p>}
        <p className="extractor-item__meta">
          <time dateTime={item.createdAt}>{dateTime.format(new Date(item.createdAt))}</time> ·{' '}
          {item.resultCount} {item.resultCount === 1 ? 'result' : 'results'}
          {item.bestName && (
            <>
              {' '}
              · <strong className="extractor-item__best">{item.bestName}</strong>
            </>
          )}
        </p>
      </div>
      <div className="extractor-item__actions">
        {!admin && (
          <Button
            variant="secondary"
            className="btn-sm"
            onClick={onDelete}
            aria-label={`Delete ${item.name}`}
          >
            Delete
          </Button>
        )}
        <Link className="btn btn-primary btn-sm" to={to} aria-label={`Open ${item.name}`}>
          Open
        </Link>
      </div>
    </article>
  );
}
