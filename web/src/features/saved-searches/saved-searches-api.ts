import type {
  SavedSearchListResponse,
  SavedSearchResultsResponse,
  SavedSearchStatus,
} from '@osint/contract/search';
import { api, apiFile } from '../../lib/api-client.ts';

/**
 * Whose saved searches a page shows: the organization's own, or every organization's read-only on the
 * admin pages, whose calls are the same under /api/admin (spec 001 §2 Admin area).
 */
export type SavedSearchContext = 'user' | 'admin';

export const savedSearchesPath = (context: SavedSearchContext) =>
  context === 'admin' ? '/admin/saved-searches' : '/saved-searches';

export function fetchSavedSearches(
  context: SavedSearchContext,
  query: {
    status: SavedSearchStatus;
    pageNumber: number;
    pageSize: number;
    search?: string | undefined;
  },
): Promise<SavedSearchListResponse> {
  const path = context === 'admin' ? '/admin/saved-search' : '/saved-search';
  return api<SavedSearchListResponse>(path, { query }).then((answer) => {
    // Spec 001 §7: an answer without totalResultCount is a failure.
    if (typeof answer?.totalResultCount !== 'number') throw new Error('totalResultCount missing');
    return answer;
  });
}

export function fetchSavedResults(
  context: SavedSearchContext,
  hash: string,
): Promise<SavedSearchResultsResponse> {
  const path =
    context === 'admin'
      ? `/admin/saved-search/${encodeURIComponent(hash)}`
      : `/saved-search/results/${encodeURIComponent(hash)}`;
  return api<SavedSearchResultsResponse>(path);
}

export function deleteSavedSearch(id: number): Promise<unknown> {
  return api('/saved-search/remove', { method: 'DELETE', body: { id } });
}

export function updateSavedSearch(id: number, name: string, description: string): Promise<unknown> {
  return api('/saved-search/update', { method: 'POST', body: { id, name, description } });
}

export function deleteSavedResults(
  saveSearchId: number,
  searchResultIds: number[],
): Promise<{ removed: number; remaining: number }> {
  return api('/saved-search/remove/result', { method: 'DELETE', body: { saveSearchId, searchResultIds } });
}

export function generateReport(context: SavedSearchContext, dataResultsId: number[]) {
  const path = context === 'admin' ? '/admin/saved-search' : '/saved-search';
  return apiFile(`${path}/generate-report`, 'saved-search-report.pdf', {
    method: 'POST',
    body: { dataResultsId },
  });
}
