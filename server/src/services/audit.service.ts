import { PROVIDER_STAFF_LABEL, type AuditEntryView, type AuditPage } from '@osint/contract/audit';
import { TEAM_MESSAGES } from '@osint/contract/team';
import { forbidden } from '../lib/http-error.ts';
import type { AuditFilter, AuditRepository } from '../repositories/audit.repository.ts';
import type { AccessService } from './access.service.ts';
import type { AuthUser } from './session.service.ts';

type AuditRow = Awaited<ReturnType<AuditRepository['find']>>[number];

const EXPORT_BATCH = 1000;
export const CSV_COLUMNS = [
  'id',
  'time',
  'action',
  'actor_user_id',
  'actor_email',
  'organization_id',
  'organization_name',
  'target',
  'ip',
  'detail',
] as const;

/** Reading the audit trail: the provider's admins see all of it, an owner their organization's. */
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly access: AccessService,
  ) {}

  async list(filter: AuditFilter, page: number, pageSize: number): Promise<AuditPage> {
    const [rows, total] = await Promise.all([
      this.audit.find(filter, { limit: pageSize, offset: (page - 1) * pageSize }),
      this.audit.count(filter),
    ]);
    return { entries: rows.map(toView), totalResultCount: total };
  }

  /**
   * The owner's view of their organization's log. The provider's staff who acted on the organization
   * (approvals, plans) are shown as the provider, without their address or IP. An owner without work
   * access (no seat, no plan in force) still runs the team and sees who did what and when, but not what
   * the work was: entries about searches, saved searches, extractions and watches lose their target and
   * detail (names, often a person's, and search hashes), as the work itself needs a seat.
   */
  async listForOrganization(
    owner: AuthUser,
    filter: Omit<AuditFilter, 'organizationId' | 'userEmail'>,
    page: number,
    pageSize: number,
  ): Promise<AuditPage> {
    if (owner.role !== 'OWNER') throw forbidden(TEAM_MESSAGES.ownersOnly);
    const scoped = { ...filter, organizationId: owner.organizationId };
    const [rows, total, access] = await Promise.all([
      this.audit.find(scoped, { limit: pageSize, offset: (page - 1) * pageSize }),
      this.audit.count(scoped),
      this.access.of(owner),
    ]);
    return {
      entries: rows.map((row) => {
        const view = isStaffAction(row, owner.organizationId)
          ? { ...toView(row), actor: { id: null, email: PROVIDER_STAFF_LABEL }, ip: null }
          : toView(row);
        return access.granted || !isWorkAction(row.action) ? view : { ...view, target: null, detail: {} };
      }),
      totalResultCount: total,
    };
  }

  /** The export is itself an audited admin action; the CSV streams afterwards. */
  async exportCsv(admin: AuthUser, filter: AuditFilter, ip: string | null): Promise<AsyncGenerator<string>> {
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: filter.organizationId ?? null,
      action: 'admin.audit.exported',
      detail: {
        filter: Object.fromEntries(
          Object.entries(filter)
            .filter(([, value]) => value !== undefined)
            .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
        ),
      },
      ip,
    });
    return this.csvLines(filter);
  }

  /** The whole filtered log as CSV lines, newest first, read in batches so any size streams. */
  private async *csvLines(filter: AuditFilter): AsyncGenerator<string> {
    yield `${CSV_COLUMNS.join(',')}\r\n`;
    let before: number | undefined;
    for (;;) {
      const rows = await this.audit.findBefore(filter, before, EXPORT_BATCH);
      if (rows.length === 0) return;
      yield rows.map((row) => `${csvLine(row)}\r\n`).join('');
      before = rows.at(-1)!.id;
      if (rows.length < EXPORT_BATCH) return;
    }
  }
}

/**
 * An action of the provider's staff on an organization: an admin action, or any action (a bank transfer
 * marked paid, a plan created) by an admin or by anyone who is not a member of the organization.
 */
/** Actions about the organization's work (see requireWorkAccess), including the platform's views of it. */
const WORK_ACTION_PREFIXES = [
  'search.',
  'saved-search.',
  'data-extractor.',
  'face-watch.',
  'face-alert.',
  'admin.saved_search.',
  'admin.data_extraction.',
  'admin.minor_review.',
];

function isWorkAction(action: string): boolean {
  return WORK_ACTION_PREFIXES.some((prefix) => action.startsWith(prefix));
}

function isStaffAction(row: AuditRow, organizationId: number): boolean {
  return (
    row.action.startsWith('admin.') ||
    row.actor_is_admin === true ||
    (row.actor_organization_id !== null && row.actor_organization_id !== organizationId)
  );
}

function toView(row: AuditRow): AuditEntryView {
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    actor:
      row.actor_user_id === null && row.actor_email === null
        ? null
        : { id: row.actor_user_id, email: row.actor_email },
    organization:
      row.organization_id === null ? null : { id: row.organization_id, name: row.organization_name ?? '' },
    target: row.target,
    detail: parseDetail(row.detail),
    ip: row.ip,
  };
}

function parseDetail(detail: unknown): Record<string, unknown> {
  if (typeof detail === 'string') {
    try {
      return JSON.parse(detail) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return (detail ?? {}) as Record<string, unknown>;
}

function csvLine(row: AuditRow): string {
  return [
    row.id,
    row.at.toISOString(),
    row.action,
    row.actor_user_id ?? '',
    row.actor_email ?? '',
    row.organization_id ?? '',
    row.organization_name ?? '',
    row.target ?? '',
    row.ip ?? '',
    JSON.stringify(parseDetail(row.detail)),
  ]
    .map((value) => csvCell(String(value)))
    .join(',');
}

/**
 * RFC 4180 quoting, and a leading apostrophe for text a spreadsheet would run as a formula
 * (=, +, -, @, tab, carriage return): an organization name must not become code in the admin's sheet.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
