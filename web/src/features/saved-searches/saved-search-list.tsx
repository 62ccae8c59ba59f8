import {
  SAVED_SEARCH_DONE_PAGE_SIZE,
  SAVED_SEARCH_ESTIMATE_MS,
  SAVED_SEARCH_PENDING_PAGE_SIZE,
  SAVED_SEARCH_REFRESH_MS,
  type SavedSearch,
  type SavedSearchStatus,
} from '@osint/contract/search';
import { useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ResultThumbnail } from '../../components/results/result-card.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { useDebounced, useLoadOnScroll, usePagedList } from '../../lib/use-paged-list.ts';
import { EditSavedSearchModal } from './saved-search-modals.tsx';
import { deleteSavedSearch, fetchSavedSearches } from './saved-searches-api.ts';

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit' });

function useSavedSearchPages(status: SavedSearchStatus, pageSize: number, search: string) {
  return usePagedList(`${status}|${search}`, pageSize, (pageNumber, size) =>
    fetchSavedSearches({ status, pageNumber, pageSize: size, search: search || undefined }).then(
      (answer) => ({ items: answer.results, total: answer.totalResultCount }),
    ),
  );
}

/** Spec 001 §2 Saved Searches: "In progress" and "Done" sections, each paged, refreshed while pending. */
export function SavedSearchList() {
  const searchId = useId();
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search.trim());
  const pending = useSavedSearchPages('PENDING', SAVED_SEARCH_PENDING_PAGE_SIZE, '');
  const done = useSavedSearchPages('COMPLETED', SAVED_SEARCH_DONE_PAGE_SIZE, debounced);
  const [editing, setEditing] = useState<SavedSearch>();
  const [deleting, setDeleting] = useState<SavedSearch>();
  const [busy, setBusy] = useState(false);
  const { reload: reloadPending } = pending;
  const { reload: reloadDone } = done;

  // While anything is pending, both lists refresh every 90 seconds.
  useEffect(() => {
    if (pending.total === 0) return;
    const timer = setInterval(() => void reloadPending(), SAVED_SEARCH_REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending.total, reloadPending]);
  // A pending save that finished moves to Done: refetch it when the pending count changes.
  const lastPending = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (pending.loading) return;
    if (lastPending.current !== undefined && lastPending.current !== pending.total) void reloadDone();
    lastPending.current = pending.total;
  }, [pending.total, pending.loading, reloadDone]);

  // Lazy loading of Done on scroll; SHOW MORE does the same for keyboards.
  const { hasMore, loadMore, loading } = done;
  const sentinel = useLoadOnScroll(hasMore, loading, loadMore);

  const confirmDelete = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await deleteSavedSearch(deleting.id);
    } catch (error) {
      // Spec 001 §8: logged only.
      console.error('Deleting the saved search failed', error);
    } finally {
      setBusy(false);
      setDeleting(undefined);
      void reloadDone();
      void reloadPending();
    }
  };

  const firstLoad =
    (pending.loading && pending.items.length === 0) ||
    (done.loading && done.items.length === 0 && !debounced);
  const empty = !firstLoad && pending.total === 0 && done.total === 0 && !debounced && !search;

  return (
    <section className="container page saved-searches" aria-labelledby="saved-searches-title">
      <header className="saved-searches__header">
        <h1 className="page__title" id="saved-searches-title">
          Saved Searches
        </h1>
        <Link className="btn btn-primary" to="/search">
          New search
        </Link>
      </header>

      {firstLoad ? (
        <LoadingPlaceholder />
      ) : empty ? (
        <div className="card saved-empty" role="status">
          <h2 className="saved-empty__title">You haven't saved any results yet</h2>
          <p>Run a face search and choose “Save result” to keep its results here under a name and a note.</p>
          <Link className="btn btn-primary" to="/search">
            Go to search
          </Link>
        </div>
      ) : (
        <>
          {pending.total > 0 && (
            <section className="saved-section" aria-labelledby="saved-pending-title">
              <h2 className="saved-section__title" id="saved-pending-title">
                In progress
              </h2>
              <ul className="saved-list">
                {pending.items.map((item) => (
                  <li key={item.id}>
                    <PendingItem item={item} />
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

          <section className="saved-section" aria-labelledby="saved-done-title">
            <div className="saved-section__head">
              <h2 className="saved-section__title" id="saved-done-title">
                Done
              </h2>
              <div className="saved-search-box">
                <label htmlFor={searchId} className="visually-hidden">
                  Search saved searches
                </label>
                <input
                  id={searchId}
                  className="input"
                  type="search"
                  placeholder="Search by name or note"
                  value={search}
                  onChange={(event) => setSearch(event.target.value)}
                />
              </div>
            </div>
            {done.items.length === 0 && !done.loading ? (
              <p className="saved-section__empty">
                {debounced ? `No saved search matches “${debounced}”.` : 'No completed saved searches yet.'}
              </p>
            ) : (
              <ul className="saved-list">
                {done.items.map((item) => (
                  <li key={item.id}>
                    <DoneItem
                      item={item}
                      onEdit={() => setEditing(item)}
                      onDelete={() => setDeleting(item)}
                    />
                  </li>
                ))}
              </ul>
            )}
            {done.hasMore && (
              <div ref={sentinel} className="saved-section__more">
                <Button variant="secondary" onClick={done.loadMore} loading={done.loading}>
                  SHOW MORE
                </Button>
              </div>
            )}
          </section>
        </>
      )}

      {editing && (
        <EditSavedSearchModal
          savedSearch={editing}
          onClose={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            void reloadDone();
          }}
        />
      )}
      {deleting && (
        <ConfirmDeleteModal
          title="Delete saved search"
          text={`“${deleting.name}” and its saved results will be deleted for everyone in your organization.`}
          busy={busy}
          onConfirm={() => void confirmDelete()}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function PendingItem({ item }: { item: SavedSearch }) {
  const start = new Date(item.createdAt);
  const end = new Date(start.getTime() + SAVED_SEARCH_ESTIMATE_MS);
  return (
    <article className="saved-item saved-item--pending" aria-label={item.name}>
      <div className="saved-item__image">
        <ResultThumbnail src={item.image} alt={`Searched face of ${item.name}`} />
      </div>
      <div className="saved-item__body">
        <p className="saved-item__name">{item.name}</p>
        <p className="saved-item__status">
          <span className="badge badge--warning">PENDING</span> <strong>Stand by</strong> · Saving in progress
        </p>
        <p className="saved-item__meta">
          Started <time dateTime={start.toISOString()}>{time.format(start)}</time> · estimated end{' '}
          <time dateTime={end.toISOString()}>{time.format(end)}</time>
        </p>
      </div>
      <span className="spinner saved-item__spinner" aria-hidden="true" />
    </article>
  );
}

function DoneItem({
  item,
  onEdit,
  onDelete,
}: {
  item: SavedSearch;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <article className="saved-item" aria-label={item.name}>
      <div className="saved-item__image">
        <ResultThumbnail src={item.image} alt={`Searched face of ${item.name}`} />
      </div>
      <div className="saved-item__body">
        <div className="saved-item__title-row">
          <p className="saved-item__name">{item.name}</p>
          <button
            type="button"
            className="icon-button"
            onClick={onEdit}
            aria-label={`Edit ${item.name}`}
            title="Edit name and note"
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
        </div>
        {item.description && <p className="saved-item__description">{item.description}</p>}
        <p className="saved-item__meta">
          <time dateTime={item.createdAt}>{dateTime.format(new Date(item.createdAt))}</time> ·{' '}
          {item.resultCount} {item.resultCount === 1 ? 'result' : 'results'}
        </p>
      </div>
      <div className="saved-item__actions">
        <Button variant="secondary" className="btn-sm" onClick={onDelete} aria-label={`Delete ${item.name}`}>
          Delete
        </Button>
        <Link className="btn btn-primary btn-sm" to={`/saved-searches/${item.hash}`}>
          Check the results
        </Link>
      </div>
    </article>
  );
}
