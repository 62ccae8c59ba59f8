import type {
  SavedSearchListResponse,
  SavedSearchResultsResponse,
  SavedSearchStatus,
} from '@osint/contract/search';
import { api, apiFile } from '../../lib/api-client.ts';

export function fetchSavedSearches(query: {
  status: SavedSearchStatus;
  pageNumber: number;
  pageSize: number;
  search?: string | undefined;
}): Promise<SavedSearchListResponse> {
  return api<SavedSearchListResponse>('/saved-search', { query }).then((answer) => {
    // Spec 001 §7: an answer without totalResultCount is a failure.
    if (typeof answer?.totalResultCount !== 'number') throw new Error('totalResultCount missing');
    return answer;
  });
}

export function fetchSavedResults(hash: string): Promise<SavedSearchResultsResponse> {
  return api<SavedSearchResultsResponse>(`/saved-search/results/${encodeURIComponent(hash)}`);
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

export function generateReport(dataResultsId: number[]) {
  return apiFile('/saved-search/generate-report', 'saved-search-report.pdf', {
    method: 'POST',
    body: { dataResultsId },
  });
}
