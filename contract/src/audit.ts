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
  'search.performed': 'Face search',
  'saved-search.saved': 'Saved a search',
  'saved-search.deleted': 'Deleted a saved search',
  'saved-search.report': 'Generated a saved-search report',
  'billing.order_created': 'Placed an order',
  'billing.order_paid': 'Order marked as paid',
  'admin.user.approved': 'Approved a registration',
  'admin.user.rejected': 'Rejected a registration',
  'admin.user.blocked': 'Blocked a user',
  'admin.user.unblocked': 'Unblocked a user',
  'admin.billing_plan.created': 'Created a billing plan',
  'admin.audit.exported': 'Exported the audit log',
  'admin.job.retried': 'Retried a failed job',
  'retention.content_deleted': 'Searches and extractions deleted after 30 days of inactivity',
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

export function auditActionLabel(action: string): string {
  return (AUDIT_ACTIONS as Record<string, string>)[action] ?? action;
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
