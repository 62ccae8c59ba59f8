import {
  SAVED_SEARCH_DONE_PAGE_SIZE,
  SAVED_SEARCH_ESTIMATE_MS,
  SAVED_SEARCH_PENDING_PAGE_SIZE,
  SAVED_SEARCH_REFRESH_MS,
  type SavedSearch,
  type SavedSearchStatus,
} from '@osint/contract/search';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import {
  ConfirmDeleteItem,
  DoneMeta,
  DoneSection,
  ItemCard,
  ItemDescription,
  ItemOrganization,
  PendingSection,
  listState,
  PendingStatus,
} from '../../components/item-list.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useDebounced, usePagedList } from '../../lib/use-paged-list.ts';
import { usePendingRefresh } from '../../lib/use-pending-refresh.ts';
import { EditSavedSearchModal } from './saved-search-modals.tsx';
import {
  deleteSavedSearch,
  fetchSavedSearches,
  savedSearchesPath,
  type SavedSearchContext,
} from './saved-searches-api.ts';

function useSavedSearchPages(
  context: SavedSearchContext,
  status: SavedSearchStatus,
  pageSize: number,
  search: string,
) {
  return usePagedList(
    `${context}|${status}|${search}`,
    pageSize,
    (pageNumber, size) =>
      fetchSavedSearches(context, { status, pageNumber, pageSize: size, search: search || undefined }).then(
        (answer) => ({ items: answer.results, total: answer.totalResultCount }),
      ),
    (item) => item.id,
  );
}

/**
 * Spec 001 §2 Saved Searches: "In progress" and "Done" sections, each paged, refreshed while pending.
 * Admins see every organization's, each naming its organization, without edit or delete.
 */
export function SavedSearchList({ context }: { context: SavedSearchContext }) {
  const admin = context === 'admin';
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search.trim());
  const pending = useSavedSearchPages(context, 'PENDING', SAVED_SEARCH_PENDING_PAGE_SIZE, '');
  const done = useSavedSearchPages(context, 'COMPLETED', SAVED_SEARCH_DONE_PAGE_SIZE, debounced);
  const [editing, setEditing] = useState<SavedSearch>();
  const [deleting, setDeleting] = useState<SavedSearch>();
  const { reload: reloadPending } = pending;
  const { reload: reloadDone } = done;

  // While anything is pending it refreshes every 90 seconds; a pending save that finished moves to Done.
  usePendingRefresh(pending, done, SAVED_SEARCH_REFRESH_MS);

  const { firstLoad, empty } = listState(pending, done, search, debounced);

  return (
    <section
      className={admin ? 'saved-searches saved-searches--admin' : 'container page saved-searches'}
      aria-labelledby="saved-searches-title"
    >
      <header className="saved-searches__header">
        <div>
          {admin && <p className="page__eyebrow">Search</p>}
          <h1 className="page__title" id="saved-searches-title">
            Saved Searches
          </h1>
          {admin && <p className="page__lead">Every organization’s saved searches, read-only.</p>}
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
        <div className="card saved-empty" role="status">
          {admin ? (
            <h2 className="saved-empty__title">No organization has saved a search yet</h2>
          ) : (
            <>
              <h2 className="saved-empty__title">You haven't saved any results yet</h2>
              <p>
                Run a face search and choose “Save result” to keep its results here under a name and a note.
              </p>
              <Link className="btn btn-primary" to="/search">
                Go to search
              </Link>
            </>
          )}
        </div>
      ) : (
        <>
          <PendingSection list={pending} render={(item) => <PendingItem item={item} />} />
          <DoneSection
            list={done}
            search={search}
            onSearch={setSearch}
            searchLabel="Search saved searches"
            placeholder="Search by name or note"
            emptyText={
              debounced ? `No saved search matches “${debounced}”.` : 'No completed saved searches yet.'
            }
            render={(item) =>
              admin ? (
                <DoneItem item={item} to={`${savedSearchesPath(context)}/${item.hash}`} />
              ) : (
                <DoneItem
                  item={item}
                  to={`${savedSearchesPath(context)}/${item.hash}`}
                  onEdit={() => setEditing(item)}
                  onDelete={() => setDeleting(item)}
                />
              )
            }
          />
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
        <ConfirmDeleteItem
          title="Delete saved search"
          text={
            <>
              “<bdi>{deleting.name}</bdi>” and its saved results will be deleted for everyone in your
              organization.
            </>
          }
          remove={() => deleteSavedSearch(deleting.id)}
          failureLog="Deleting the saved search failed"
          onFinished={() => {
            setDeleting(undefined);
            void reloadDone();
            void reloadPending();
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function PendingItem({ item }: { item: SavedSearch }) {
  return (
    <ItemCard name={item.name} image={item.image} pending>
      <ItemOrganization name={item.organizationName} />
      <PendingStatus
        what="Saving in progress"
        createdAt={item.createdAt}
        estimateMs={SAVED_SEARCH_ESTIMATE_MS}
      />
    </ItemCard>
  );
}

/** A done saved search; without onEdit and onDelete (the admin's view) it is read-only. */
function DoneItem({
  item,
  to,
  onEdit,
  onDelete,
}: {
  item: SavedSearch;
  to: string;
  onEdit?: () => void;
  onDelete?: () => void;
}) {
  return (
    <ItemCard
      name={item.name}
      image={item.image}
      onEdit={onEdit}
      editTitle="Edit name and note"
      actions={
        <>
          {onDelete && (
            <Button
              variant="secondary"
              className="btn-sm"
              onClick={onDelete}
              aria-label={`Delete ${item.name}`}
            >
              Delete
            </Button>
          )}
          <Link className="btn btn-primary btn-sm" to={to}>
            Check the results
          </Link>
        </>
      }
    >
      <ItemOrganization name={item.organizationName} />
      <ItemDescription text={item.description} />
      <DoneMeta createdAt={item.createdAt} resultCount={item.resultCount} />
    </ItemCard>
  );
}
