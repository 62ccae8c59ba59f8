import { formatDateTime, formatDay } from './dates.ts';
import { PLAN_TYPE_LABELS, formatUsd } from './pricing.ts';
import { SEARCH_TYPE_LABELS } from './search.ts';

/**
 * The audit trail's actions: what the server writes and how the admin and account pages name them.
 * An action is `<area>.<what>`; filtering by an area ("team") matches every action of it.
 */
export const AUDIT_ACTIONS = {
  'user.registered': 'Registered',
  'user.registration_released': 'Unconfirmed registration released by the owner of the address',
  'user.registration_repeated': 'Registration attempted with this address (the owner was told by e-mail)',
  'user.login': 'Signed in',
  'user.login_failed': 'Sign-in failed',
  'user.password_changed': 'Changed password',
  'user.reset_password': 'Reset password by e-mail link',
  'user.set_password': 'Set password from invitation',
  'user.account_deleted': 'Deleted own account',
  'team.user_invited': 'Invited a user',
  'team.access_granted': 'Gave access',
  'team.access_removed': 'Removed access',
  'team.user_deleted': 'Deleted a user',
  'team.invitation_withdrawn': 'Withdrew an invitation',
  'team.invitation_lapsed': 'An invitation whose link expired unused was closed',
  'search.performed': 'Face search',
  'search.deleted': 'Deleted a search from the history',
  'search.report': 'Generated a search report',
  'search.minor': 'Searched a face that may belong to a person under 18 (verified law enforcement)',
  'search.refused_minor': 'Search refused: the face may belong to a person under 18',
  'search.minor_review_requested': 'Asked the platform to review a face refused as a possible minor',
  'search.minor_reviewed': 'Searched a face the platform approved after review (one search)',
  'face-watch.created': 'Started watching a face',
  'face-watch.changed': 'Changed a face watch (muted, renewed)',
  'face-watch.ended': 'Ended a face watch',
  'face-alert.viewed': 'Viewed face alerts',
  'face-alert.removed': 'Removed a face alert',
  'saved-search.saved': 'Saved a search',
  'saved-search.deleted': 'Deleted a saved search',
  'saved-search.report': 'Generated a saved-search report',
  'data-extractor.started': 'Started an AI data extraction',
  'data-extractor.deleted': 'Deleted an AI data extraction',
  'data-extractor.report': 'Generated an AI data extraction report',
  'billing.order_created': 'Placed an order',
  'billing.order_paid': 'Order marked as paid',
  'billing.order_cancelled': 'Cancelled an order',
  'billing.subscription_cancelled': 'Card subscription cancelled at FastSpring (the plan was ended)',
  'admin.user.approved': 'Approved a registration',
  'admin.user.rejected': 'Rejected a registration',
  'admin.user.blocked': 'Blocked a user',
  'admin.user.unblocked': 'Unblocked a user',
  'admin.billing_plan.created': 'Created a billing plan',
  'admin.billing_plan.ended': 'Ended a billing plan early',
  'admin.audit.exported': 'Exported the audit log',
  'admin.job.retried': 'Retried a failed job',
  'admin.organization.law_enforcement_verified': 'Verified an organization as law enforcement',
  'admin.organization.law_enforcement_revoked':
    'Withdrew the law-enforcement verification of an organization',
  'admin.minor_review.approved': 'Approved one search of a reviewed face (judged an adult)',
  'admin.minor_review.refused': 'Refused the review of a face (final)',
  'admin.saved_search.viewed': 'Opened an organization’s saved search',
  'admin.data_extraction.viewed': 'Opened an organization’s AI data extraction',
  'retention.content_deleted': 'Searches and extractions deleted after 30 days of inactivity',
  'retention.audit_anonymised': 'Audit entries older than 90 days anonymised',
  'retention.minor_reviews_expired': 'Face reviews undecided after 7 days expired (face images deleted)',
  'admin.watchlist.imported': 'Imported a watch-list',
  'admin.watchlist.deleted': 'Deleted a watch-list',
  'crawl.start': 'Started a crawl',
  'face.opt_out': 'Added a face opt-out',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The groups the filters offer, each matching the actions that start with its key. */
export const AUDIT_AREAS = {
  user: 'Sign-in and passwords',
  team: 'Team and access',
  search: 'Searches',
  'saved-search': 'Saved searches and reports',
  'data-extractor': 'AI data extractor',
  billing: 'Billing',
  admin: 'Admin actions',
  crawl: 'Crawls',
  face: 'Opt-outs',
} as const;

/** The action's label; an action written by an older version and since renamed still reads as words. */
export function auditActionLabel(action: string): string {
  return (AUDIT_ACTIONS as Record<string, string>)[action] ?? humanize(action.split('.').at(-1) ?? action);
}

const yesNo = (value: unknown) => (value ? 'yes' : 'no');
const fromTable = (table: Record<string, string>) => (value: unknown) =>
  table[String(value)] ?? humanize(String(value));
/**
 * A date in a detail, or the value as it is when it is not one: keys are shared by many actions (a face
 * watch's `from` says where its face came from, a filter's `from` is a date), and an audit page must show
 * every entry rather than fail on one.
 */
const dateOr = (format: (iso: string) => string) => (value: unknown) => {
  const text = String(value);
  return Number.isNaN(Date.parse(text)) ? text : format(text);
};
const day = dateOr(formatDay);
const moment = dateOr(formatDateTime);

/** Why a sign-in failed: the two checks, or the status of the account (in lower case). */
const LOGIN_FAILURE_REASONS: Record<string, string> = {
  unknown_email: 'unknown e-mail address',
  wrong_password: 'wrong password',
  email_unverified: 'e-mail address not confirmed',
  pending_approval: 'registration awaiting approval',
  rejected: 'registration rejected',
  blocked: 'account blocked',
  invited: 'invitation not accepted yet',
};

/**
 * What the keys of an entry's detail mean and how their values read: the account and admin pages show
 * "Order number: 2026-0001", never "orderNumber: 2026-0001". `null` hides a key that only helps
 * machines (ids that the entry's target already names).
 */
export const AUDIT_DETAIL_FIELDS: Record<
  string,
  { label: string; value?: (value: unknown) => string } | null
> = {
  email: { label: 'E-mail' },
  resent: { label: 'Invitation sent again', value: yesNo },
  queue: { label: 'Job', value: (value) => humanize(String(value)) },
  previousStatus: { label: 'Status before', value: (value) => humanize(String(value)) },
  hadAccess: { label: 'Had access', value: yesNo },
  name: { label: 'Name' },
  searchHash: null,
  planId: null,
  optOutId: null,
  results: { label: 'Results' },
  wikipedia: { label: 'Wikipedia included', value: yesNo },
  reason: { label: 'Reason', value: fromTable(LOGIN_FAILURE_REASONS) },
  planType: { label: 'Plan', value: fromTable(PLAN_TYPE_LABELS) },
  startDate: { label: 'Starts', value: day },
  endDate: { label: 'Ends', value: day },
  seatLimit: { label: 'Seats' },
  seats: { label: 'Seats' },
  orderNumber: { label: 'Order number' },
  amount: { label: 'Amount', value: (value) => `${formatUsd(Number(value))} USD` },
  type: { label: 'Search type', value: fromTable(SEARCH_TYPE_LABELS) },
  removedFaces: { label: 'Faces removed' },
  seeds: { label: 'Seed addresses' },
  format: { label: 'Format', value: (value) => String(value).toUpperCase() },
  entryCount: { label: 'Entries' },
  skippedCount: { label: 'Entries skipped' },
  searches: { label: 'Searches deleted' },
  savedSearches: { label: 'Saved searches deleted' },
  extractions: { label: 'Extractions deleted' },
  lastActivityAt: { label: 'Last activity', value: (value) => (value ? moment(value) : 'never') },
  filter: {
    label: 'Filter',
    value: (value) => auditDetailText((value ?? {}) as Record<string, unknown>) || 'none',
  },
  action: { label: 'Action', value: (value) => auditActionLabel(String(value)) },
  organizationId: { label: 'Organization', value: (value) => `#${String(value)}` },
  from: { label: 'From', value: moment },
  endsAt: { label: 'Ends at', value: moment },
  to: { label: 'To', value: moment },
  reviewReason: { label: 'Reason' },
  reviewId: { label: 'Review', value: (value) => `#${String(value)}` },
  expiredReviews: { label: 'Reviews expired' },
};

/** "someKey" or "some_key" → "Some key": a key with no entry in the table still reads as words. */
function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An entry's detail as "Label: value" pairs joined by " · ". */
export function auditDetailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .flatMap(([key, value]) => {
      const field = AUDIT_DETAIL_FIELDS[key];
      if (field === null || value === undefined) return [];
      const label = field?.label ?? humanize(key);
      const text = field?.value
        ? field.value(value)
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value);
      return [`${label}: ${text}`];
    })
    .join(' · ');
}

/** One entry as the API returns it (admin: every entry; owner: their organization's). */
export interface AuditEntryView {
  id: number;
  at: string;
  action: string;
  actor: { id: number | null; email: string | null } | null;
  organization: { id: number; name: string } | null;
  target: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
}

export interface AuditPage {
  entries: AuditEntryView[];
  totalResultCount: number;
}

/** Shown to owners instead of the provider's staff member who acted on their organization. */
export const PROVIDER_STAFF_LABEL = 'OSINT Platform staff';

/** What a target names ("order:12" → "Order #12"); targets of other forms are shown as they are. */
const TARGET_KINDS: Record<string, string> = {
  user: 'User',
  order: 'Order',
  'saved-search': 'Saved search',
  'data-extractor': 'Extraction',
  billing_plan: 'Billing plan',
  job: 'Job',
  search: 'Search',
  organization: 'Organization',
  watchlist: 'Watch-list',
  'minor-review': 'Review',
};

export function auditTargetLabel(target: string): string {
  const match = /^([a-z_-]+):(.+)$/.exec(target);
  const kind = match ? TARGET_KINDS[match[1]!] : undefined;
  if (!match || !kind) return target;
  const id = match[2]!;
  return /^\d+$/.test(id) ? `${kind} #${id}` : `${kind} ${id}`;
}
