import { SEARCH_MESSAGES, SEARCH_TYPE_LABELS, type SavedSearchResult } from '@osint/contract/search';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAccessRestrictedModal } from '../../components/access-restricted-modal.tsx';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { sortResults, type ResultSort } from '../../components/results/result-grouping.ts';
import { ResultsEmpty } from '../../components/results/results-empty.tsx';
import { ResultsGrid } from '../../components/results/results-grid.tsx';
import { ResultsToolbar } from '../../components/results/results-toolbar.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { ReportModal } from '../../components/report-modal.tsx';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { WatchFaceModal } from '../face-alerts/watch-face-modal.tsx';
import {
  deleteSavedResults,
  fetchSavedResults,
  generateReport,
  savedSearchesPath,
  type SavedSearchContext,
} from './saved-searches-api.ts';
import { formatDateTime } from '@osint/contract/dates';

/**
 * Saved Results (spec 001 §2): sort, grouping (on by default), selection, delete, GENERATE REPORT. The
 * admin's view of any organization's saved search is read-only: selection and reports, no delete.
 */
export function SavedResultsView({ hash, context }: { hash: string; context: SavedSearchContext }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { session } = useSession();
  const admin = context === 'admin';
  const listPath = savedSearchesPath(context);
  const queryKey = ['saved-search-results', context, hash];
  const query = useQuery({
    queryKey,
    queryFn: () => fetchSavedResults(context, hash),
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });
  const [sort, setSort] = useState<ResultSort>('default');
  const [grouping, setGrouping] = useState(true);
  // Results start selected (spec 001 §3 isSelected); kept as the unselected ones.
  const [unselected, setUnselected] = useState<ReadonlySet<number>>(new Set());
  const { openRestricted, restrictedModal } = useAccessRestrictedModal();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteError, setDeleteError] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const [reportIds, setReportIds] = useState<number[]>();
  const [watchOpen, setWatchOpen] = useState(false);

  const results = useMemo(() => query.data?.results ?? [], [query.data]);
  const sorted = useMemo(() => sortResults(results, sort), [results, sort]);
  const selectedIds = sorted.filter((r) => !unselected.has(r.id)).map((r) => r.id);
  const allSelected = results.length > 0 && selectedIds.length === results.length;

  if (query.isPending) return <LoadingPlaceholder />;
  if (query.isError || !query.data) {
    const status = query.error instanceof ApiError ? query.error.status : 0;
    if (status === 403 && !admin) return <WorkAccessNotice />;
    const [title, text] =
      status === 404
        ? [
            'Saved search not found',
            admin
              ? 'It may have been deleted.'
              : 'It may have been deleted, or it belongs to another organization.',
          ]
        : ['Something went wrong', 'The saved results could not be loaded. Please try again later.'];
    return (
      <section className="container page">
        <div className="card saved-empty" role="alert">
          <h1 className="saved-empty__title">{title}</h1>
          <p>{text}</p>
          <Link className="btn btn-primary" to={listPath}>
            Back to Saved Searches
          </Link>
        </div>
      </section>
    );
  }
  const saved = query.data;

  const changeSort = (value: ResultSort) => {
    setSort(value);
    // Changing the sort re-selects everything (spec 001 §4).
    setUnselected(new Set());
  };
  const toggle = (id: number) =>
    setUnselected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const removeSelected = async () => {
    setDeleting(true);
    setDeleteError(undefined);
    try {
      const { remaining } = await deleteSavedResults(saved.id, selectedIds);
      setConfirmDelete(false);
      if (remaining === 0) {
        // Nothing left: back to the list (spec 001 §2).
        navigate(listPath);
        return;
      }
      queryClient.setQueryData(queryKey, {
        ...saved,
        results: saved.results.filter((r: SavedSearchResult) => !selectedIds.includes(r.id)),
        numberOfResults: remaining,
        resultCount: remaining,
      });
      setUnselected(new Set());
    } catch (error) {
      console.error('Deleting saved results failed', error);
      setDeleteError(SEARCH_MESSAGES.deleteSavedResultFailure);
    } finally {
      setDeleting(false);
    }
  };

  return (
    <section
      className={admin ? 'saved-results saved-searches--admin' : 'container page saved-results'}
      aria-labelledby="saved-results-title"
    >
      <header className="saved-results__header">
        <div className="saved-results__heading">
          <Button variant="secondary" className="btn-sm" onClick={() => navigate(listPath)}>
            ← Back
          </Button>
          <h1 className="page__title" id="saved-results-title">
            Saved Results
          </h1>
        </div>
        {!admin && (
          <div className="saved-results__header-actions">
            {/* The watch is made from the face the saved search keeps. */}
            <Button variant="secondary" onClick={() => setWatchOpen(true)}>
              Watch this face
            </Button>
            <Link className="btn btn-secondary" to="/search">
              New search
            </Link>
          </div>
        )}
      </header>

      <div className="card saved-results__summary">
        <img className="saved-results__face" src={saved.image} alt="Searched face" />
        <div>
          <p className="saved-item__name" dir="auto">
            {saved.name}
          </p>
          {saved.organizationName && (
            <p className="saved-item__org">
              <span className="visually-hidden">Organization: </span>
              <bdi>{saved.organizationName}</bdi>
            </p>
          )}
          {saved.description && (
            <p className="saved-item__description" dir="auto">
              {saved.description}
            </p>
          )}
          <p className="saved-item__meta">
            {SEARCH_TYPE_LABELS[saved.type]} · saved{' '}
            <time dateTime={saved.createdAt}>{formatDateTime(saved.createdAt)}</time> ·{' '}
            {saved.numberOfResults} {saved.numberOfResults === 1 ? 'result' : 'results'}
          </p>
        </div>
      </div>

      {saved.status === 'PENDING' ? (
        <div className="card saved-empty" role="status">
          <p className="saved-empty__title">Saving in progress</p>
          <p>The results are being copied. Check back in a few minutes.</p>
        </div>
      ) : results.length === 0 ? (
        <ResultsEmpty>
          <p>This saved search has no results. Try a new search with a different or clearer image.</p>
          {!admin && (
            <Link className="btn btn-primary" to="/search">
              New search
            </Link>
          )}
        </ResultsEmpty>
      ) : (
        <>
          <ResultsToolbar sort={sort} onSort={changeSort} grouping={grouping} onGrouping={setGrouping}>
            <label className="checkbox saved-results__select-all">
              <input
                type="checkbox"
                checked={allSelected}
                onChange={() => setUnselected(allSelected ? new Set(results.map((r) => r.id)) : new Set())}
              />
              <span>Select All</span>
            </label>
            <div className="saved-results__actions">
              {!admin && (
                <Button
                  variant="secondary"
                  disabled={selectedIds.length === 0}
                  onClick={() => {
                    setDeleteError(undefined);
                    setConfirmDelete(true);
                  }}
                >
                  Delete selected
                </Button>
              )}
              <Button disabled={selectedIds.length === 0} onClick={() => setReportIds(selectedIds)}>
                GENERATE REPORT ({selectedIds.length})
              </Button>
            </div>
          </ResultsToolbar>
          <ResultsGrid
            results={sorted}
            grouping={grouping}
            resetKey={`${hash}:${sort}`}
            restricted={!admin && (session?.user.restricted ?? false)}
            onRestricted={openRestricted}
            selection={{ isSelected: (id) => !unselected.has(id), toggle }}
          />
        </>
      )}

      {watchOpen && <WatchFaceModal searchHash={hash} onClose={() => setWatchOpen(false)} />}
      {restrictedModal}
      {confirmDelete && (
        <ConfirmDeleteModal
          title="Delete selected results"
          text={
            <>
              {selectedIds.length} {selectedIds.length === 1 ? 'result' : 'results'} will be deleted from “
              <bdi>{saved.name}</bdi>”.
            </>
          }
          error={deleteError}
          busy={deleting}
          onConfirm={() => void removeSelected()}
          onClose={() => setConfirmDelete(false)}
        />
      )}
      {reportIds && (
        <ReportModal
          count={reportIds.length}
          generate={() => generateReport(context, reportIds)}
          failure={{ message: SEARCH_MESSAGES.reportFailure, hint: SEARCH_MESSAGES.reportFailureHint }}
          onClose={() => setReportIds(undefined)}
        />
      )}
    </section>
  );
}
