/**
 * Admin watch-lists (issue 5): lists of politically exposed persons, sanctioned and wanted people that the
 * AI data extractor matches names against. An admin uploads a file as the raw request body of
 * `POST /api/admin/watchlists?name=<list name>`; its format is detected from its content: OpenSanctions
 * FollowTheMoney JSON lines (`entities.ftm.json`) or the OpenSanctions simple CSV (`targets.simple.csv`).
 * Importing a list under a name that already exists replaces that list.
 */

export type WatchlistFormat = 'ftm' | 'csv';

/** POST /api/admin/watchlists?name=<list name> (raw body: the file) */
export interface WatchlistImportResult {
  listName: string;
  format: WatchlistFormat;
  /** Entries stored (persons and organisations with at least one name). */
  entryCount: number;
  politicianCount: number;
  sanctionsCount: number;
  criminalCount: number;
  /** Lines or rows that could not be read (bad JSON, no name); they are skipped, never stored. */
  skippedCount: number;
  importedAt: string;
}

/** An item of GET /api/admin/watchlists */
export interface WatchlistSummary {
  listName: string;
  format: WatchlistFormat;
  entryCount: number;
  politicianCount: number;
  sanctionsCount: number;
  criminalCount: number;
  importedAt: string;
  /** E-mail of the admin who imported it; null when imported by the command line or the demo. */
  importedBy: string | null;
}

/** GET /api/admin/watchlists */
export interface WatchlistListResponse {
  lists: WatchlistSummary[];
}

/** DELETE /api/admin/watchlists/{listName} answers 204. */

/** A list name: letters, digits, spaces, dots, dashes and underscores, 1–80 characters. */
export const WATCHLIST_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9 ._-]{0,79}$';
export const WATCHLIST_DEFAULT_NAME = 'default';
/** Largest file the upload route accepts (the command line has no limit: it streams). */
export const WATCHLIST_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export const WATCHLIST_MESSAGES = {
  unrecognisedFormat:
    'The file is neither FollowTheMoney JSON lines (entities.ftm.json) nor an OpenSanctions simple CSV (targets.simple.csv).',
  emptyList: 'The file holds no person or organisation with a name.',
  invalidName:
    'A list name has 1 to 80 letters, digits, spaces, dots, dashes or underscores and starts with a letter or digit.',
  tooLarge: 'The file is larger than 50 MB; import it with npm run watchlist:import.',
  notFound: 'No watch-list has this name.',
} as const;
