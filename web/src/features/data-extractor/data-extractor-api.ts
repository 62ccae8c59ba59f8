import type {
  ExtractionDetailsResponse,
  ExtractionListItem,
  ExtractionListResponse,
  ExtractionSort,
  ExtractionState,
  ExtractionSummary,
  NameDescriptionRequest,
  SeenWithConnection,
  StartExtractionRequest,
} from '@osint/contract/data-extractor';
import { EXTRACTION_REPORT_FILENAME } from '@osint/contract/data-extractor';
import type { WatchlistImportResult, WatchlistListResponse } from '@osint/contract/watchlist';
import { api, apiFile, ApiError } from '../../lib/api-client.ts';

/**
 * The calls of spec 001 §7 Data extractor. The admin pages make the same calls under /api/admin with
 * numeric ids (spec 001 §2 Admin area): every function takes the context.
 */
export type ExtractorContext = 'user' | 'admin';

const base = (context: ExtractorContext) =>
  context === 'admin' ? '/admin/data-extractor' : '/data-extractor';
const seg = (id: string) => encodeURIComponent(id);

export function startExtraction(request: StartExtractionRequest): Promise<ExtractionListItem> {
  return api<ExtractionListItem>('/data-extractor', { method: 'POST', body: request });
}

export interface ExtractionListQuery {
  pageNumber: number;
  pageSize: number;
  search?: string | undefined;
  status?: Exclude<ExtractionState, 'FAILED'> | undefined;
  checkedStatus?: 'NEW' | undefined;
}

export async function fetchExtractions(
  context: ExtractorContext,
  query: ExtractionListQuery,
): Promise<ExtractionListResponse> {
  const answer = await api<ExtractionListResponse>(base(context), { query: { ...query } });
  // Spec 001 §7: an answer without totalResultCount is a failure.
  if (typeof answer?.totalResultCount !== 'number') throw new Error('totalResultCount missing');
  return answer;
}

export function updateExtraction(id: string, body: NameDescriptionRequest): Promise<unknown> {
  return api(`/data-extractor/${seg(id)}`, { method: 'PATCH', body });
}

export function deleteExtraction(id: string): Promise<unknown> {
  return api(`/data-extractor/${seg(id)}`, { method: 'DELETE' });
}

export function fetchSummary(context: ExtractorContext, id: string): Promise<ExtractionSummary> {
  return api<ExtractionSummary>(`${base(context)}/results/${seg(id)}`);
}

export interface DetailFilters {
  show: 'all' | 'checked' | 'unchecked';
  sortBy: ExtractionSort;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  /** A person name, or undefined for ALL RESULTS. */
  name: string | undefined;
  /** A connection's name, or undefined for None. */
  seenWith: string | undefined;
}

export function fetchDetails(
  context: ExtractorContext,
  id: string,
  filters: DetailFilters,
  pageNumber: number,
  pageSize: number,
): Promise<ExtractionDetailsResponse> {
  return api<ExtractionDetailsResponse>(`${base(context)}/results/details/${seg(id)}`, {
    query: {
      pageNumber,
      pageSize,
      // Flags are sent only when on; checked is omitted for All (spec 001 §7).
      politician: filters.politician || undefined,
      sanctions: filters.sanctions || undefined,
      criminal: filters.criminal || undefined,
      checked: filters.show === 'all' ? undefined : filters.show === 'checked',
      sortBy: filters.sortBy,
      name: filters.name,
      seenWith: filters.seenWith,
    },
  });
}

export function fetchConnections(context: ExtractorContext, resultId: string): Promise<SeenWithConnection[]> {
  return api<SeenWithConnection[] | { connections: SeenWithConnection[] }>(
    `${base(context)}/results/${seg(resultId)}/connections`,
  ).then((answer) => (Array.isArray(answer) ? answer : (answer?.connections ?? [])));
}

export function checkResult(resultId: string): Promise<unknown> {
  return api(`/data-extractor/results/${seg(resultId)}/checked`, { method: 'PATCH' });
}

export function checkWikipedia(extractionId: string): Promise<unknown> {
  return api(`/data-extractor/results/${seg(extractionId)}/wikipedia/checked`, { method: 'PATCH' });
}

export function updateResult(resultId: string, body: NameDescriptionRequest): Promise<unknown> {
  return api(`/data-extractor/results/${seg(resultId)}`, { method: 'PATCH', body });
}

export function deleteResult(resultId: string): Promise<unknown> {
  return api(`/data-extractor/results/${seg(resultId)}`, { method: 'DELETE' });
}

export function generateExtractionReport(
  context: ExtractorContext,
  extractionId: string,
  hashedId: string[],
  containWikipediaData: boolean,
) {
  return apiFile(
    `${base(context)}/results/${seg(extractionId)}/generate-report`,
    EXTRACTION_REPORT_FILENAME,
    {
      method: 'POST',
      body: { hashedId, containWikipediaData },
    },
  );
}

/** Admin watch-lists (contract/src/watchlist.ts). The file goes as the raw request body. */
export async function importWatchlist(name: string, file: File): Promise<WatchlistImportResult> {
  const response = await fetch(`/api/admin/watchlists?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/octet-stream' },
    body: file,
  });
  const text = await response.text();
  let body: { message?: string } = {};
  try {
    body = text ? (JSON.parse(text) as { message?: string }) : {};
  } catch {
    // Not JSON: the status alone has to do.
  }
  if (!response.ok) throw new ApiError(response.status, body.message ?? response.statusText);
  return body as WatchlistImportResult;
}

export function fetchWatchlists(): Promise<WatchlistListResponse> {
  return api<WatchlistListResponse>('/admin/watchlists');
}

export function deleteWatchlist(listName: string): Promise<unknown> {
  return api(`/admin/watchlists/${seg(listName)}`, { method: 'DELETE' });
}

export const EXTRACTOR_KEYS = {
  alert: ['data-extractor', 'new'] as const,
  summary: (context: ExtractorContext, id: string) => ['data-extractor', context, 'summary', id] as const,
  watchlists: ['admin', 'watchlists'] as const,
};
