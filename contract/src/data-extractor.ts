/**
 * What the AI data extractor's pages and the API agree on (spec 001 §2 AI data extractor, §3 extraction
 * entities, §4, §5, §7 Data extractor, §9). User calls live under /api/data-extractor and identify an
 * extraction and its results by hashedId; admin calls live under /api/admin/data-extractor and use the
 * numeric id (spec 001 §2 Admin area). Both are strings in JSON so one type serves both.
 */
import { nameStamp } from './search.ts';

/** Progress of an extraction: the job runs while PENDING (FAILED when it gave up after its retries). */
export type ExtractionState = 'PENDING' | 'DONE' | 'FAILED';
/** A done extraction is NEW until its owner's organization opens it, then CHECKED. */
export type ExtractionCheckedStatus = 'NEW' | 'CHECKED';

/** POST /api/data-extractor */
export interface StartExtractionRequest {
  name?: string;
  description?: string;
  searchHash: string;
  /** The searched face, JPEG or PNG base64 without a data: prefix: the list's thumbnail. */
  image: string;
}

/** An item of GET /api/data-extractor (also the answer of POST /api/data-extractor). */
export interface ExtractionListItem {
  /** hashedId for users, numeric id (as a string) for admins: the detail route's parameter. */
  id: string;
  name: string;
  description: string;
  state: ExtractionState;
  status: ExtractionCheckedStatus;
  createdAt: string;
  completedAt: string | null;
  /** PENDING only: createdAt + EXTRACTION_ESTIMATE_MS. */
  estimatedEndAt: string;
  /** URL of the searched face's thumbnail (GET …/data-extractor/image/{id}). */
  imagePath: string;
  /** Results analysed so far / in all (progress of a pending extraction). */
  processedCount: number;
  resultCount: number;
  bestName: string | null;
  /** Admin lists only: the organization the extraction belongs to. */
  organizationName?: string;
}

/**
 * GET /api/data-extractor?pageNumber=1&pageSize=5&search=…&status=PENDING|DONE, or checkedStatus=NEW
 * (done extractions not yet opened: the menu alert).
 */
export interface ExtractionListResponse {
  dataExtractorListItemList: ExtractionListItem[];
  totalResultCount: number;
}

/** PATCH /api/data-extractor/{id} and PATCH /api/data-extractor/results/{id} */
export interface NameDescriptionRequest {
  name: string;
  description?: string;
}

/** Per-name counts (spec 001 §3 extraction aggregate). */
export interface NameStatistic {
  name: string;
  /** Results (links) attributed to this name. */
  linkCount: number;
  politicianCount: number;
  criminalCount: number;
  sanctionsCount: number;
  seenWithCount: number;
}

/** GET /api/data-extractor/results/{extractionId}: the names summary of the detail page. */
export interface ExtractionSummary {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  state: ExtractionState;
  /** Counts over all results (the "ALL RESULTS" entry). */
  nameStatistic: NameStatistic;
  /** One entry per distinct person name, most links first. */
  nameList: NameStatistic[];
  bestName: string | null;
  namesFound: number;
  /** Names of persons seen with the subject, for the "Seen with" filter. */
  seenWithNames: string[];
}

export type ExtractionFlag = 'politician' | 'sanctions' | 'criminal';

/** Where a flag's evidence comes from, as the page and the PDF report name it. */
export const EVIDENCE_SOURCE_LABELS: Record<FlagEvidence['source'], string> = {
  watchlist: 'Watch-list',
  page: 'Page',
  llm: 'AI reading',
};

/** Why a flag was raised: a watch-list entry or a sentence of a page. Every flag has at least one. */
export interface FlagEvidence {
  flag: ExtractionFlag;
  source: 'watchlist' | 'page' | 'llm';
  /** The sentence, or the list entry as "Name — list (topics)". */
  text: string;
  /** The page the sentence is on, or the entry's source URL when the list gives one. */
  url: string | null;
  /** watchlist: the list's name and the entry's id; the name-matching score (0–1). */
  listName?: string;
  entryId?: string;
  score?: number;
}

/** One result of an extraction: a search result and who the page says the person is. */
export interface ExtractedResult {
  /** hashedId for users, numeric id (as a string) for admins. */
  hashedId: string;
  personName: string;
  personDesc: string;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  seenWith: boolean;
  checked: boolean;
  /** Null for restricted (trial) users, as in search results. */
  sourceUrl: string | null;
  imageUrl: string | null;
  sourceTitle: string;
  thumbnailUrl: string;
  similarity: number;
  /** The face model that computed `similarity` (see SearchResult.scoreModel). */
  scoreModel: string | null;
  crawledAt: string;
  /** Other names the pages give for this face, best first: the edit modal's choices. */
  alternativeNames: string[];
  evidence: FlagEvidence[];
  /** Names of the connections (the full list: GET …/results/{id}/connections). */
  seenWithNames: string[];
}

/** The single Wikipedia-type result of an extraction (for its best name). */
export interface WikipediaResult {
  name: string;
  personDescription: string;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  checked: boolean;
  /** The article; null for trial plans, which do not open sources (spec 001 §6), as `sourceUrl`. */
  url: string | null;
  /** The sentences of the article behind each flag (their url null for trial plans, as `url`). */
  evidence: FlagEvidence[];
}

export type ExtractionSort = 'smart' | 'date' | 'similarity';

/**
 * GET /api/data-extractor/results/details/{extractionId}?pageNumber=1&pageSize=25&politician=true&
 * sanctions=true&criminal=true&checked=true|false&sortBy=smart|date|similarity&name=…&seenWith=…
 * (flags are sent only when on; checked is omitted for All).
 */
export interface ExtractionDetailsResponse {
  responses: ExtractedResult[];
  wikipediaResult: WikipediaResult | null;
  totalResultCount: number;
}

/** GET /api/data-extractor/results/{resultId}/connections */
export interface SeenWithConnection {
  id: string;
  name: string;
  imgUrl: string | null;
  aboutUrl: string | null;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  /** Why each of the connection's flags was raised (urls null for trial plans, as `aboutUrl`). */
  evidence: FlagEvidence[];
}

/** POST /api/data-extractor/results/{extractionId}/generate-report */
export interface ExtractionReportRequest {
  hashedId: string[];
  containWikipediaData: boolean;
}

/** Spec 001 §9 and ARCHITECTURE §5: a pending extraction is expected to end 10 minutes after it started. */
export const EXTRACTION_ESTIMATE_MS = 10 * 60_000;
export const EXTRACTION_PENDING_PAGE_SIZE = 3;
export const EXTRACTION_DONE_PAGE_SIZE = 5;
export const EXTRACTION_POLL_MS = 180_000;
export const EXTRACTION_DETAIL_STEP = 25;
export const EXTRACTION_NAME_MAX_LENGTH = 120;
export const EXTRACTION_REPORT_FILENAME = 'data-extractor-report.pdf';

export const EXTRACTOR_MESSAGES = {
  startFailure: 'Something went wrong while generating report. Please try again later.',
  nameEmpty: 'Name cannot be empty.',
  emptyList: 'There are no completed requests yet',
  noFilteredResults: 'No results for the chosen filters',
  reportFailure: 'Something went wrong while generating the report.',
  reportFailureHint: 'Please try again later or reach out to our support.',
  /** A report request that chose neither a result nor the Wikipedia result. */
  reportEmpty: 'Choose at least one result for the report.',
} as const;

/** "AI DATA EXTRACTION DD.MM.YYYY, HH:MM" in local time (spec 001 §5). */
export function defaultExtractionName(date: Date): string {
  return `AI DATA EXTRACTION ${nameStamp(date)}`;
}
