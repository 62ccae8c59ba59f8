import {
  EXTRACTION_DONE_PAGE_SIZE,
  EXTRACTION_ESTIMATE_MS,
  EXTRACTION_PENDING_PAGE_SIZE,
  EXTRACTION_POLL_MS,
  EXTRACTOR_MESSAGES,
  type ExtractionListItem,
} from '@osint/contract/data-extractor';
import { useQueryClient } from '@tanstack/react-query';
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
import {
  deleteExtraction,
  EXTRACTOR_KEYS,
  fetchExtractions,
  updateExtraction,
  type ExtractorContext,
} from './data-extractor-api.ts';
import { EditExtractionModal } from './extraction-modals.tsx';

function useExtractionPages(
  context: ExtractorContext,
  status: 'PENDING' | 'DONE',
  pageSize: number,
  search: string,
) {
  return usePagedList(
    `${context}|${status}|${search}`,
    pageSize,
    (pageNumber, size) =>
      fetchExtractions(context, { status, pageNumber, pageSize: size, search: search || undefined }).then(
        (answer) => ({ items: answer.dataExtractorListItemList, total: answer.totalResultCount }),
      ),
    (item) => item.id,
  );
}

/**
 * The AI data extractor list (spec 001 §2): "In progress" (3 a page) and "Done" (5 a page, search, lazy
 * loading). While anything is pending the list polls every 180 s; when the pending count changes, Done
 * and the menu alert are refetched (spec 001 §4). Admins see every organization's extractions, read-only.
 */
export function ExtractionList({ context }: { context: ExtractorContext }) {
  const queryClient = useQueryClient();
  const admin = context === 'admin';
  const [search, setSearch] = useState('');
  const debounced = useDebounced(search.trim());
  const pending = useExtractionPages(context, 'PENDING', EXTRACTION_PENDING_PAGE_SIZE, '');
  const done = useExtractionPages(context, 'DONE', EXTRACTION_DONE_PAGE_SIZE, debounced);
  const [editing, setEditing] = useState<ExtractionListItem>();
  const [deleting, setDeleting] = useState<ExtractionListItem>();
  const { reload: reloadPending } = pending;
  const { reload: reloadDone } = done;

  usePendingRefresh(pending, done, EXTRACTION_POLL_MS, () => {
    void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.alert });
  });

  const { firstLoad, empty } = listState(pending, done, search, debounced);
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
          <PendingSection list={pending} render={(item) => <PendingItem item={item} admin={admin} />} />
          <DoneSection
            list={done}
            search={search}
            onSearch={setSearch}
            searchLabel="Search extractions"
            placeholder="Search by name or description"
            emptyText={debounced ? `No extraction matches “${debounced}”.` : EXTRACTOR_MESSAGES.emptyList}
            render={(item) => (
              <DoneItem
                item={item}
                to={detailPath(item)}
                admin={admin}
                onEdit={() => setEditing(item)}
                onDelete={() => setDeleting(item)}
              />
            )}
          />
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
        <ConfirmDeleteItem
          title="Delete extraction"
          text={
            <>
              “<bdi>{deleting.name}</bdi>” and its extracted data will be deleted for everyone in your
              organization.
            </>
          }
          remove={() => deleteExtraction(deleting.id)}
          failureLog="Deleting the extraction failed"
          onFinished={() => {
            setDeleting(undefined);
            void reloadDone();
            void reloadPending();
            void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.alert });
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </section>
  );
}

function PendingItem({ item, admin }: { item: ExtractionListItem; admin: boolean }) {
  const total = item.resultCount;
  const share = total > 0 ? Math.round((item.processedCount / total) * 100) : 0;
  return (
    <ItemCard name={item.name} image={item.imagePath} pending>
      {admin && <ItemOrganization name={item.organizationName} />}
      <ItemDescription text={item.description} />
      <PendingStatus
        what="Extraction in progress"
        createdAt={item.createdAt}
        estimateMs={EXTRACTION_ESTIMATE_MS}
      />
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
    </ItemCard>
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
    <ItemCard
      name={item.name}
      image={item.imagePath}
      highlight={isNew}
      badges={
        <>
          {isNew && <span className="badge badge--info">New</span>}
          {failed && <span className="badge badge--danger">Failed</span>}
        </>
      }
      onEdit={admin ? undefined : onEdit}
      editTitle="Edit name and description"
      actions={
        <>
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
        </>
      }
    >
      {admin && <ItemOrganization name={item.organizationName} />}
      <ItemDescription text={item.description} />
      <DoneMeta createdAt={item.createdAt} resultCount={item.resultCount}>
        {item.bestName && (
          <>
            {' '}
            ·{' '}
            <strong className="extractor-item__best" dir="auto">
              {item.bestName}
            </strong>
          </>
        )}
      </DoneMeta>
    </ItemCard>
  );
}
