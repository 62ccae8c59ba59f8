import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { PlanType, UserRole, UserStatus } from '@osint/contract/api-types';
import type { FlagEvidence } from '@osint/contract/data-extractor';

/** Table types for Kysely. Each table group has its repository; SQL lives only there. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  link: string;
  type: string;
  created_at: CreatedAt;
  last_active_at: DefaultedTimestamp;
  /** Set by an admin: the organization may search faces that may belong to minors. */
  law_enforcement_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The admin's note of the evidence, required to verify. */
  law_enforcement_note: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UsersTable {
  id: Generated<number>;
  hashed_id: string;
  organization_id: number;
  email: string;
  password_hash: string | null;
  role: UserRole;
  is_admin: Generated<boolean>;
  status: UserStatus;
  has_access: Generated<boolean>;
  newsletter: Generated<boolean>;
  email_verified_at: Timestamp | null;
  approved_at: Timestamp | null;
  password_changed_at: Timestamp | null;
  last_active_at: Timestamp | null;
  created_at: CreatedAt;
  invited_by: ColumnType<number | null, number | null | undefined, number | null>;
  blocked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: CreatedAt;
  last_seen_at: DefaultedTimestamp;
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
}

export type TokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'SET_PASSWORD';

export interface UserTokensTable {
  id: Generated<number>;
  user_id: number;
  purpose: TokenPurpose;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface BillingPlansTable {
  id: Generated<number>;
  organization_id: number;
  plan_type: PlanType;
  start_date: Timestamp;
  end_date: Timestamp;
  seat_limit: number;
  created_at: CreatedAt;
  order_id: ColumnType<number | null, number | null | undefined, number | null>;
  fastspring_subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  activation_notified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  expiry_notified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Set when an admin ended the plan early (migration 0020); end_date then says when. */
  ended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  ended_by: ColumnType<number | null, number | null | undefined, number | null>;
  end_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the plan's end queued the cancellation of its card subscription at FastSpring (migration 0030). */
  subscription_cancel_requested_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When FastSpring confirmed the cancellation of the plan's card subscription (its API or webhook). */
  subscription_cancelled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Why the last attempt to cancel it failed; null once cancelled or before any attempt. */
  subscription_cancel_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SupportMessagesTable {
  id: Generated<number>;
  user_id: number | null;
  email: string;
  subject: string;
  message: string;
  created_at: CreatedAt;
}

export interface SupportAttachmentsTable {
  id: Generated<number>;
  message_id: number;
  file_name: string;
  content_type: string;
  content: Buffer;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: CreatedAt;
  actor_user_id: number | null;
  organization_id: number | null;
  action: string;
  target: string | null;
  detail: Json<Record<string, unknown>>;
  ip: string | null;
  actor_email: ColumnType<string | null, string | null | undefined, never>;
  /** Set by the retention sweep when the entry's IP and actor were removed (pseudonymised e-mail kept). */
  anonymised_at: ColumnType<Date | null, never, never>;
}

export type JobStatus = 'QUEUED' | 'RUNNING' | 'DONE' | 'DEAD';

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: Json<unknown>;
  status: Generated<JobStatus>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  run_at: DefaultedTimestamp;
  locked_at: Timestamp | null;
  locked_by: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: CreatedAt;
  finished_at: Timestamp | null;
  /** The organization the job works for; null for the platform's own work (see JobRepository.claimNext). */
  organization_id: number | null;
  /** When a worker last claimed it; kept once it is done (locked_at is not). */
  claimed_at: Timestamp | null;
}

export type CrawlStatus = 'QUEUED' | 'RUNNING' | 'DONE' | 'STOPPED' | 'FAILED';

export interface CrawlsTable {
  id: Generated<number>;
  public_id: string;
  seeds: Json<string[]>;
  options: Json<Record<string, unknown>>;
  status: Generated<CrawlStatus>;
  is_demo: Generated<boolean>;
  pages: Generated<number>;
  images: Generated<number>;
  faces: Generated<number>;
  errors: Generated<number>;
  last_error: string | null;
  requested_by: number | null;
  created_at: CreatedAt;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** The run holding the crawl (`host/pid-random`), while it runs (migration 0029). */
  lease_owner: string | null;
  /** When that run's lease ends unless renewed; past it, the run is taken for gone. */
  lease_expires_at: Timestamp | null;
}

export interface CrawlFrontierTable {
  crawl_id: string;
  url: string;
  kind: 'page' | 'image' | 'sitemap';
  host: string;
  depth: number;
  referrer: string | null;
  data: Json<Record<string, string>> | null;
  state: 'queued' | 'claimed' | 'done' | 'failed' | 'skipped';
  attempts: Generated<number>;
  due_at: DefaultedTimestamp;
  last_error: string | null;
  seq: Generated<number>;
}

/** Since when a host's robots.txt cannot be read, per crawl (migration 0037). */
export interface CrawlRobotsOutagesTable {
  crawl_id: string;
  host: string;
  since: Timestamp;
}

export interface CrawlHostPausesTable {
  crawl_id: string;
  host: string;
  until: Timestamp;
}

export interface PagesTable {
  id: Generated<number>;
  url: string;
  title: Generated<string>;
  text: Generated<string>;
  lang: string | null;
  content_hash: string | null;
  first_crawled_at: DefaultedTimestamp;
  last_crawled_at: DefaultedTimestamp;
}

export interface ImagesTable {
  id: Generated<number>;
  content_hash: string;
  phash: string | null;
  width: number | null;
  height: number | null;
  mime_type: string | null;
  thumbnail_path: string | null;
  face_count: Generated<number>;
  first_indexed_at: DefaultedTimestamp;
  analyzed_at: Timestamp | null;
}

export interface ImageOccurrencesTable {
  id: Generated<number>;
  image_id: number;
  page_id: number;
  image_url: string;
  alt: Generated<string>;
  caption: Generated<string>;
  nearby_text: Generated<string>;
  first_seen_at: DefaultedTimestamp;
  last_seen_at: DefaultedTimestamp;
}

/** An image URL a page showed before the image was stored (migration 0037). */
export interface PendingImageOccurrencesTable {
  image_url: string;
  page_id: number;
  alt: Generated<string>;
  caption: Generated<string>;
  nearby_text: Generated<string>;
  seen_at: Timestamp;
  /** The crawl whose page recorded it (migration 0041); null when recorded before. */
  crawl_id: string | null;
}

export interface FacesTable {
  id: Generated<number>;
  image_id: number;
  box_x: number;
  box_y: number;
  box_width: number;
  box_height: number;
  score: number;
  quality: number;
  /** Float32 little-endian, L2-normalised. */
  descriptor: Buffer;
  model_id: string;
  /** The face of the previous model this one was re-derived from by a reindex (migration 0011). */
  previous_face_id: number | null;
  /** The age estimate at indexing said the face may belong to a minor; null: indexed before estimates. */
  possible_minor: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  created_at: CreatedAt;
}

export interface FaceIndexLogTable {
  seq: Generated<number>;
  face_id: number;
  op: 'add' | 'remove';
  at: CreatedAt;
}

export interface FaceOptOutsTable {
  id: Generated<number>;
  descriptor: Buffer;
  model_id: string;
  reason: string;
  created_by: number | null;
  /** Set on an opt-out re-derived for another model from this one (migration 0011). */
  derived_from: number | null;
  created_at: CreatedAt;
}

export type FaceModelState = 'active' | 'building' | 'retired';

/**
 * Descriptor models (migration 0011): the one searches use, the one a reindex builds beside it (with
 * its resumable cursor and counts), and retired ones.
 */
export interface FaceModelsTable {
  model_id: string;
  dimensions: number;
  state: FaceModelState;
  cursor_image_id: Generated<number>;
  images_done: Generated<number>;
  images_unavailable: Generated<number>;
  faces_added: Generated<number>;
  faces_refused: Generated<number>;
  started_at: DefaultedTimestamp;
  activated_at: Timestamp | null;
  retired_at: Timestamp | null;
}

/** Images a reindex could not fetch again for now (migration 0047): fetched again before its switch. */
export interface FaceModelUnreachableImagesTable {
  model_id: string;
  image_id: number;
}

export type SearchType = 'OSINT' | 'SOCIAL_MEDIA_SEARCH';

/** Watched faces (migration 0022); the descriptor is sealed, and deleted when the watch ends. */
export interface FaceWatchesTable {
  id: Generated<number>;
  organization_id: number;
  user_id: number | null;
  name: string;
  note: Generated<string>;
  type: Generated<SearchType>;
  descriptor_sealed: Buffer | null;
  /** The watched face's crop (JPEG), to show it and to search it again; deleted with the descriptor. */
  face_image: Buffer | null;
  /**
   * Crops of the other uploaded faces and the indexed faces (results the analyst added) the watched search was
   * searched with, besides the face it shows (migration 0035).
   */
  other_face_images: ColumnType<Uint8Array[], Buffer[] | undefined, Buffer[]>;
  added_face_ids: ColumnType<number[], number[] | undefined, number[]>;
  model_id: string;
  possible_minor: Generated<boolean>;
  muted: Generated<boolean>;
  created_at: CreatedAt;
  ends_at: Timestamp;
  ended_at: Timestamp | null;
  notified_at: Timestamp | null;
  changed_at: DefaultedTimestamp;
}

export type FaceAlertStatus = 'NEW' | 'SEEN';

export interface FaceAlertsTable {
  id: Generated<number>;
  watch_id: number;
  organization_id: number;
  /** Null once the face left the index without a replacement (a model switch that did not find it). */
  face_id: number | null;
  /** The face it showed was flagged as a possible minor when it left the index (migration 0046). */
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  image_id: number;
  phash: string | null;
  similarity: number;
  /** The face model that computed `similarity` (null: not known, stored before this was kept). */
  score_model_id: string | null;
  image_url: string;
  source_url: string;
  source_title: Generated<string>;
  first_indexed_at: Timestamp;
  face_box_x: number;
  face_box_y: number;
  face_box_width: number;
  face_box_height: number;
  image_width: number | null;
  image_height: number | null;
  status: Generated<FaceAlertStatus>;
  log_seq: number;
  created_at: CreatedAt;
}

export interface FaceAlertCopiesTable {
  id: Generated<number>;
  alert_id: number;
  /** As face_alerts.face_id. */
  face_id: number | null;
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  image_id: number;
  image_url: string;
  source_url: string;
  created_at: CreatedAt;
}

export interface FaceWatchCursorTable {
  id: number;
  seq: number;
  log_at: Date | null;
  updated_at: DefaultedTimestamp;
}

export interface SearchesTable {
  id: Generated<number>;
  hashed_id: string;
  organization_id: number;
  user_id: number | null;
  type: SearchType;
  duration_ms: number;
  result_count: number;
  /** The searched face (JPEG crop), when the client sent it with the search. */
  face_image: Buffer | null;
  /** SHA-256 digests (32 bytes each, concatenated) of the crops the upload answered for the searched faces. */
  crop_digests: Buffer | null;
  /** A searched face was flagged as a possible minor at upload (migration 0027). */
  possible_minor: Generated<boolean>;
  /**
   * Indexed faces searched together with the kept face: results the analyst chose to search again with
   * (migration 0031); empty for a search of uploaded faces only.
   */
  added_face_ids: ColumnType<number[], number[] | undefined, number[]>;
  /**
   * Crops of the other uploaded faces searched with the kept one (other photos of the person; migration
   * 0033), in the order searched; empty for a search of one face.
   */
  other_face_images: ColumnType<Uint8Array[], Buffer[] | undefined, Buffer[]>;
  created_at: CreatedAt;
}

export interface SearchResultsTable {
  id: Generated<number>;
  search_id: number;
  record_hash: string;
  rank: number;
  face_id: number | null;
  /** The face it showed was flagged as a possible minor when it left the index (migration 0046). */
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  image_id: number | null;
  group_key: string;
  similarity: number;
  /** The face model that computed `similarity` (null: not known, stored before this was kept). */
  score_model_id: string | null;
  image_url: string;
  source_url: string;
  source_title: Generated<string>;
  crawled_at: Timestamp;
  removed_at: Timestamp | null;
  /** The matched face's box in its image, in the image's pixels (null for results stored before 0014). */
  face_box_x: number | null;
  face_box_y: number | null;
  face_box_width: number | null;
  face_box_height: number | null;
  image_width: number | null;
  image_height: number | null;
}

export type SavedSearchStatus = 'PENDING' | 'COMPLETED';

/** Saved searches (migration 0004): a copy of a search's results, made by the saved-search.save job. */
export interface SavedSearchesTable {
  id: Generated<number>;
  hashed_id: string;
  organization_id: number;
  user_id: number | null;
  search_id: number | null;
  name: string;
  description: Generated<string>;
  type: SearchType;
  duration_ms: Generated<number>;
  image: Buffer;
  status: Generated<SavedSearchStatus>;
  result_count: Generated<number>;
  /** Its search's face was flagged as a possible minor at upload (migration 0027). */
  possible_minor: Generated<boolean>;
  /** Results of earlier searches searched with the face (searches.added_face_ids), copied when saved (0032). */
  added_face_count: Generated<number>;
  /** Other uploaded faces its search was searched with (searches.other_face_images), copied when saved (0033). */
  other_face_count: Generated<number>;
  /**
   * Crops of the other uploaded faces and the indexed faces (results the analyst added) its search was
   * searched with, besides the face it shows (migration 0035).
   */
  other_face_images: ColumnType<Uint8Array[], Buffer[] | undefined, Buffer[]>;
  added_face_ids: ColumnType<number[], number[] | undefined, number[]>;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
}

export interface SavedSearchResultsTable {
  id: Generated<number>;
  saved_search_id: number;
  record_hash: string;
  rank: number;
  group_key: string;
  similarity: number;
  /** The face model that computed `similarity` (null: not known, stored before this was kept). */
  score_model_id: string | null;
  quality: number | null;
  image_url: string;
  source_url: string;
  source_title: Generated<string>;
  crawled_at: Timestamp;
  /**
   * The indexed face the copied result shows (search_results.face_id; migration 0036): reads apply the
   * minors rule to it as to live results. Null where the result had none or was copied earlier.
   */
  face_id: number | null;
  /** The face it showed was flagged as a possible minor when it left the index (migration 0046). */
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  thumbnail: Buffer | null;
  /** The matched face's box in its image, in the image's pixels (null for results saved before 0015). */
  face_box_x: number | null;
  face_box_y: number | null;
  face_box_width: number | null;
  face_box_height: number | null;
  image_width: number | null;
  image_height: number | null;
}

export type OrderStatus = 'PENDING' | 'COMPLETED' | 'CANCELED';

/** Bank-transfer and card orders (migration 0006); amounts in whole USD. */
/** A new plan, the renewal of the plan in force, or users added to it (contract `OrderType`). */
export type OrderType = 'PLAN' | 'RENEWAL' | 'ADD_USERS';

export interface OrdersTable {
  id: Generated<number>;
  order_number: string;
  invoice_number: ColumnType<string, never, never>;
  organization_id: number | null;
  created_by: number | null;
  status: ColumnType<OrderStatus, OrderStatus | undefined, OrderStatus>;
  payment_method: 'BANK_TRANSFER' | 'CARD';
  plan_kind: 'MONTHLY' | 'FIXED';
  start_date: Timestamp;
  end_date: Timestamp;
  months: number;
  seat_limit: number;
  base_price: number;
  additional_user_fee: number;
  /** The annual discount taken off base price + additional user fee (0 for other periods). */
  discount: Generated<number>;
  order_type: Generated<OrderType>;
  /** ADD_USERS only: how many users the order adds (seat_limit is the plan's new total). */
  added_users: number | null;
  amount: number;
  currency: Generated<string>;
  organization_name: string;
  buyer: Json<Record<string, string>> | null;
  fastspring_order_id: string | null;
  fastspring_reference: string | null;
  created_at: CreatedAt;
  paid_at: Timestamp | null;
  completed_by: number | null;
  /** Optional buyer references printed on the invoices (migration 0020). */
  vat_id: ColumnType<string | null, string | null | undefined, string | null>;
  purchase_order: ColumnType<string | null, string | null | undefined, string | null>;
  /** The final (paid) invoice's number, given when the order is marked paid. */
  final_invoice_number: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The last final-invoice number given in a year (migration 0020). */
export interface InvoiceCountersTable {
  year: number;
  last_number: number;
}

export type FastSpringSubscriptionState = 'ACTIVE' | 'CANCELED' | 'OVERDUE' | 'DEACTIVATED';

export interface FastSpringSubscriptionsTable {
  id: string;
  organization_id: number | null;
  product: string;
  seat_limit: number;
  state: FastSpringSubscriptionState;
  billing_plan_id: number | null;
  paid_through: Timestamp | null;
  /** FastSpring's own next charge date, the latest reported (migration 0051): see `endAfterDeactivation`. */
  charged_through: Timestamp | null;
  state_changed_at: Timestamp;
  deactivated_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: DefaultedTimestamp;
}

/** Watch-lists (migration 0007): an imported OpenSanctions list, replaced whole on re-import. */
export interface WatchlistsTable {
  id: Generated<number>;
  name: string;
  /** IMPORTING while a new version is written; READY once swapped in (one READY list per name). */
  state: Generated<'IMPORTING' | 'READY'>;
  format: 'ftm' | 'csv';
  entry_count: Generated<number>;
  politician_count: Generated<number>;
  sanctions_count: Generated<number>;
  criminal_count: Generated<number>;
  skipped_count: Generated<number>;
  imported_at: DefaultedTimestamp;
  imported_by: number | null;
}

export interface WatchlistEntriesTable {
  id: Generated<number>;
  list_id: number;
  list_name: string;
  entity_id: string;
  schema: string;
  name: string;
  aliases: string[];
  topics: string[];
  countries: string[];
  birth_dates: string[];
  source_url: string | null;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  /** Normalised name tokens and their 4-letter prefixes (extractor/name-match.ts nameKeys). */
  name_keys: string[];
}

/** FastSpring events (one row per event id) and bank payments recorded by an admin. */
export interface PaymentsTable {
  id: Generated<number>;
  source: 'FASTSPRING' | 'BANK_TRANSFER';
  event_id: string | null;
  event_type: string;
  live: Generated<boolean>;
  organization_id: number | null;
  order_id: number | null;
  fastspring_order_id: string | null;
  fastspring_subscription_id: string | null;
  amount_cents: number | null;
  currency: string | null;
  outcome: 'PROCESSED' | 'IGNORED' | 'FAILED';
  note: string | null;
  payload: Json<unknown>;
  occurred_at: Timestamp;
  received_at: CreatedAt;
  recorded_by: number | null;
}

export type ExtractionStateColumn = 'PENDING' | 'DONE' | 'FAILED';
export type ExtractionStatusColumn = 'NEW' | 'CHECKED';

/** AI data extractions (migration 0008): one search's results analysed by the data-extractor.run job. */
export interface DataExtractionsTable {
  id: Generated<number>;
  hashed_id: string;
  organization_id: number;
  user_id: number | null;
  search_id: number | null;
  name: string;
  description: Generated<string>;
  image: Buffer;
  state: Generated<ExtractionStateColumn>;
  status: Generated<ExtractionStatusColumn>;
  result_count: Generated<number>;
  processed_count: Generated<number>;
  best_name: string | null;
  names_found: Generated<number>;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
  notified_at: Timestamp | null;
}

export interface DataExtractionResultsTable {
  id: Generated<number>;
  extraction_id: number;
  hashed_id: string;
  record_hash: string;
  rank: number;
  similarity: number;
  /** The face model that computed `similarity` (null: not known, stored before this was kept). */
  score_model_id: string | null;
  image_url: string;
  source_url: string;
  source_title: Generated<string>;
  crawled_at: Timestamp;
  /**
   * The indexed face the copied result shows (search_results.face_id; migration 0036): reads apply the
   * minors rule to it as to live results. Null where the result had none or was copied earlier.
   */
  face_id: number | null;
  /** The face it showed was flagged as a possible minor when it left the index (migration 0046). */
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  thumbnail: Buffer | null;
  person_name: Generated<string>;
  person_desc: Generated<string>;
  politician: Generated<boolean>;
  sanctions: Generated<boolean>;
  criminal: Generated<boolean>;
  seen_with: Generated<boolean>;
  checked: Generated<boolean>;
  alternative_names: ColumnType<string[], string | undefined, string>;
  evidence: ColumnType<FlagEvidence[], string | undefined, string>;
  removed: Generated<boolean>;
  /** The matched face's box in its image, in the image's pixels (null for results copied before 0015). */
  face_box_x: number | null;
  face_box_y: number | null;
  face_box_width: number | null;
  face_box_height: number | null;
  image_width: number | null;
  image_height: number | null;
}

export interface DataExtractionConnectionsTable {
  id: Generated<number>;
  result_id: number;
  hashed_id: string;
  name: string;
  /**
   * The person's face on the result's page and its indexed image, when the face index named it (migration
   * 0039): the connections list shows that photo through the extraction, and the minors rule reads the face.
   */
  face_id: number | null;
  /** The face it showed was flagged as a possible minor when it left the index (migration 0046). */
  gone_face_was_minor: Generated<boolean>;
  /** The face it showed was opted out: the row is shown to nobody (migration 0049). */
  gone_face_opted_out: Generated<boolean>;
  image_id: number | null;
  about_url: string | null;
  politician: Generated<boolean>;
  sanctions: Generated<boolean>;
  criminal: Generated<boolean>;
  evidence: ColumnType<FlagEvidence[], string | undefined, string>;
}

export interface DataExtractionWikipediaTable {
  extraction_id: number;
  name: string;
  person_description: Generated<string>;
  politician: Generated<boolean>;
  sanctions: Generated<boolean>;
  criminal: Generated<boolean>;
  url: string;
  checked: Generated<boolean>;
  /** The sentences of the article behind each flag (migration 0038). */
  evidence: ColumnType<FlagEvidence[], string | undefined, string>;
}

/** Shared state of several processes over one database (migration 0010). */
export interface AppSettingsTable {
  key: string;
  value: string;
  created_at: CreatedAt;
}

/** Stored files (thumbnails of indexed images) by key, in the database every process shares (migration 0024). */
export interface StoredBlobsTable {
  key: string;
  bytes: Buffer;
  created_at: CreatedAt;
}

/** The face-index snapshot published for each descriptor model (migration 0025); its file is in stored_blobs. */
export interface FaceIndexPublicationsTable {
  model_id: string;
  file: string;
  seq: number;
  face_count: number;
  size_bytes: number;
  chunk_bytes: number;
  chunk_count: number;
  dimensions: number;
  quantization: string;
  connectivity: number;
  sha256: string;
  published_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface RateLimitWindowsTable {
  key: string;
  count: number;
  reset_at: Date;
}

export type MinorReviewRowStatus = 'PENDING' | 'APPROVED' | 'REFUSED' | 'EXPIRED';

/** A face refused by the minors gate, sent to the platform for review (migration 0018). */
export interface MinorReviewsTable {
  id: Generated<number>;
  organization_id: number;
  requested_by: number | null;
  /** Keyed hash of the face's descriptor and model: binds the approval to that face. */
  face_fingerprint: string;
  reason: string;
  /** The face crop, encrypted (QueryFaceTokens.sealBytes); null once decided or expired. */
  crop: Buffer | null;
  status: ColumnType<MinorReviewRowStatus, MinorReviewRowStatus | undefined, MinorReviewRowStatus>;
  created_at: CreatedAt;
  decided_at: Date | null;
  decided_by: number | null;
  decision_reason: string | null;
  /** When the one approved search was made. */
  search_used_at: Date | null;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_tokens: UserTokensTable;
  billing_plans: BillingPlansTable;
  support_messages: SupportMessagesTable;
  support_attachments: SupportAttachmentsTable;
  audit_log: AuditLogTable;
  jobs: JobsTable;
  crawls: CrawlsTable;
  crawl_frontier: CrawlFrontierTable;
  crawl_robots_outages: CrawlRobotsOutagesTable;
  crawl_host_pauses: CrawlHostPausesTable;
  pages: PagesTable;
  images: ImagesTable;
  image_occurrences: ImageOccurrencesTable;
  pending_image_occurrences: PendingImageOccurrencesTable;
  faces: FacesTable;
  face_index_log: FaceIndexLogTable;
  face_opt_outs: FaceOptOutsTable;
  face_models: FaceModelsTable;
  face_model_unreachable_images: FaceModelUnreachableImagesTable;
  searches: SearchesTable;
  face_watches: FaceWatchesTable;
  face_alerts: FaceAlertsTable;
  face_alert_copies: FaceAlertCopiesTable;
  face_watch_cursor: FaceWatchCursorTable;
  search_results: SearchResultsTable;
  saved_searches: SavedSearchesTable;
  saved_search_results: SavedSearchResultsTable;
  watchlists: WatchlistsTable;
  watchlist_entries: WatchlistEntriesTable;
  orders: OrdersTable;
  invoice_counters: InvoiceCountersTable;
  fastspring_subscriptions: FastSpringSubscriptionsTable;
  payments: PaymentsTable;
  data_extractions: DataExtractionsTable;
  data_extraction_results: DataExtractionResultsTable;
  data_extraction_connections: DataExtractionConnectionsTable;
  data_extraction_wikipedia: DataExtractionWikipediaTable;
  app_settings: AppSettingsTable;
  rate_limit_windows: RateLimitWindowsTable;
  minor_reviews: MinorReviewsTable;
  stored_blobs: StoredBlobsTable;
  face_index_publications: FaceIndexPublicationsTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Organization = Selectable<OrganizationsTable>;
export type BillingPlanRow = Selectable<BillingPlansTable>;
export type OrderRow = Selectable<OrdersTable>;
export type PaymentRow = Selectable<PaymentsTable>;
export type FastSpringSubscriptionRow = Selectable<FastSpringSubscriptionsTable>;
export type Job = Selectable<JobsTable>;
