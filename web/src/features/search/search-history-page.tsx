import {
  defaultSaveName,
  SEARCH_HISTORY_PAGE_SIZE,
  SEARCH_TYPE_LABELS,
  searchResultsPath,
  type SearchHistoryItem,
} from '@osint/contract/search';
import { useQueryClient } from '@tanstack/react-query';
import { formatDateTime } from '@osint/contract/dates';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { StateMessage } from '../../components/data-table.tsx';
import { ConfirmDeleteItem, DoneMeta, ItemCard } from '../../components/item-list.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useLoadOnScroll, usePagedList } from '../../lib/use-paged-list.ts';
import { useSession } from '../../lib/session.tsx';
import { deleteSearch, fetchSearchHistory } from './search-api.ts';
import '../../components/item-list.css';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import './search.css';

type HistoryEntry = SearchHistoryItem & { id: string };

/**
 * /search/history: the organization's searches, newest first, reopenable and deletable. Retention
 * deletes them with the rest of the organization's content after 30 days of inactivity.
 */
export function SearchHistoryPage() {
  const { session } = useSession();
  const queryClient = useQueryClient();
  // The paged list shows a failed load as an empty list; the page remembers the failure so it is not
  // mistaken for "No searches yet".
  const [failed, setFailed] = useState(false);
  const [retrying, setRetrying] = useState(false);
  const list = usePagedList<HistoryEntry>('history', SEARCH_HISTORY_PAGE_SIZE, (pageNumber, pageSize) =>
    fetchSearchHistory(pageNumber, pageSize).then(
      (answer) => {
        setFailed(false);
        return {
          items: answer.results.map((item) => ({ ...item, id: item.searchHash })),
          total: answer.totalResultCount,
        };
      },
      (error: unknown) => {
        setFailed(true);
        throw error;
      },
    ),
  );
  const sentinel = useLoadOnScroll(list.hasMore, list.loading, list.loadMore);
  const [deleting, setDeleting] = useState<HistoryEntry>();

  if (!session) return null;
  if (!session.user.access) return <WorkAccessNotice />;
  const firstLoad = list.loading && list.items.length === 0;
  return (
    <section className="container page search-history" aria-labelledby="search-history-title">
      <header className="search-history__header">
        <div>
          <h1 className="page__title" id="search-history-title">
            Search history
          </h1>
          <p className="page__lead">
            Your organization’s searches, newest first. They are kept until your organization has been
            inactive for 30 days; save a search to give it a name and a note.
          </p>
        </div>
        <Link className="btn btn-primary" to="/search">
          New search
        </Link>
      </header>
      {firstLoad ? (
        <LoadingPlaceholder />
      ) : failed && list.items.length === 0 ? (
        <StateMessage className="card" role="alert" state={{ title: 'The searches could not be loaded.' }}>
          <Button
            variant="secondary"
            loading={retrying}
            onClick={() => {
              setRetrying(true);
              void list.reload().finally(() => setRetrying(false));
            }}
          >
            Try again
          </Button>
        </StateMessage>
      ) : list.items.length === 0 ? (
        <div className="card saved-empty" role="status">
          <h2 className="saved-empty__title">No searches yet</h2>
          <p>Your organization’s face searches appear here, so you can reopen their results.</p>
        </div>
      ) : (
        <>
          <p className="search-history__count" role="status">
            {list.total} {list.total === 1 ? 'search' : 'searches'}
          </p>
          <ul className="item-list" aria-label="Searches">
            {list.items.map((item) => (
              <li key={item.id}>
                <HistoryItem item={item} onDelete={() => setDeleting(item)} />
              </li>
            ))}
          </ul>
          {list.hasMore && (
            <div ref={sentinel} className="item-section__more">
              <Button variant="secondary" onClick={list.loadMore} loading={list.loading}>
                Show more
              </Button>
            </div>
          )}
        </>
      )}
      {deleting && (
        <ConfirmDeleteItem
          title="Delete search"
          text={`The search of ${formatDateTime(deleting.createdAt)} and its results will be deleted for everyone in your organization. Saved copies stay.`}
          remove={() =>
            deleteSearch(deleting.searchHash).then(() =>
              // Back to its results must not show the deleted search from the cache.
              queryClient.removeQueries({ queryKey: ['search', deleting.searchHash] }),
            )
          }
          failureLog="Deleting the search failed"
          explainRefusal
          onFinished={() => {
            setDeleting(undefined);
            void list.reload();
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function HistoryItem({ item, onDelete }: { item: HistoryEntry; onDelete: () => void }) {
  const name = defaultSaveName(new Date(item.createdAt));
  return (
    <ItemCard
      name={name}
      image={item.image ?? ''}
      actions={
        <>
          <Button variant="secondary" className="btn-sm" onClick={onDelete} aria-label={`Delete ${name}`}>
            Delete
          </Button>
          <Link
            className="btn btn-primary btn-sm"
            to={searchResultsPath(item.searchHash)}
            aria-label={`Open the results of ${name}`}
          >
            Open results
          </Link>
        </>
      }
    >
      <p className="item-card__description">
        {SEARCH_TYPE_LABELS[item.type]} · by {item.userEmail ?? 'a deleted user'}
      </p>
      <DoneMeta createdAt={item.createdAt} resultCount={item.numberOfResults} />
    </ItemCard>
  );
}
