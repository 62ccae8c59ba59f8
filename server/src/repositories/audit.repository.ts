import type { AuditAction } from '@osint/contract/audit';
import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';

export interface AuditEntry {
  actorUserId: number | null;
  organizationId: number | null;
  /** One of the contract's actions: each has the label the account and admin pages show. */
  action: AuditAction;
  target?: string;
  detail?: Record<string, unknown>;
  ip?: string | null;
}

export interface AuditFilter {
  organizationId?: number | undefined;
  /** Entries by this user or about this user (target `user:<id>`). */
  userId?: number | undefined;
  /** Part of the actor's e-mail address. */
  userEmail?: string | undefined;
  /** An action (`team.access_granted`) or an area (`team`), matching every action of that area. */
  action?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

const likeEscape = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The audit trail: append-only (a database trigger refuses updates and deletes). */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  async insert(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        actor_user_id: entry.actorUserId,
        // Kept with the entry: the log still names its actor after the account is deleted.
        actor_email:
          entry.actorUserId === null
            ? null
            : sql<string | null>`(select email from users where id = ${entry.actorUserId})`,
        // An id that names no organization (an admin's export filtered by a wrong id) is kept in the
        // entry's detail only; the entry itself must still be written.
        organization_id:
          entry.organizationId === null
            ? null
            : sql<number | null>`(select id from organizations where id = ${entry.organizationId})`,
        action: entry.action,
        target: entry.target ?? null,
        detail: JSON.stringify(entry.detail ?? {}),
        ip: entry.ip ?? null,
      })
      .execute();
  }

  /**
   * Anonymises, in one statement, the entries not yet anonymised that are older than `systemCutoff`,
   * except billing and admin records (actions `billing.*` and `admin.*`, and entries whose actor is a
   * platform admin), which are kept until `recordsCutoff`: the IP address and the link to the user go, the
   * e-mail becomes `pseudonym:` + 16 hex digits of SHA-256(salt ‖ e-mail), the same for every entry of one
   * address, and so does an address the detail names (`detail.email`: the person invited, blocked…).
   * Entries that name nobody (system entries) are left as they are. The append-only trigger allows this
   * change only with `osint.audit_anonymise` set (migrations 0017, 0034).
   */
  async anonymiseBefore(options: {
    systemCutoff: Date;
    recordsCutoff: Date;
    salt: string;
    now: Date;
  }): Promise<number> {
    // The same address gives the same pseudonym wherever it stands (actor or detail).
    const pseudonym = (email: RawBuilder<unknown>) =>
      sql<string>`'pseudonym:' || substr(encode(sha256(convert_to(${options.salt} || lower(${email}), 'UTF8')), 'hex'), 1, 16)`;
    return this.db.transaction().execute(async (tx) => {
      await sql`select set_config('osint.audit_anonymise', 'on', true)`.execute(tx);
      const result = await sql`
        update audit_log a set
          ip = null,
          actor_user_id = null,
          actor_email = case
            when a.actor_email is null then null
            else ${pseudonym(sql`a.actor_email`)}
          end,
          detail = case
            when a.detail ->> 'email' is null then a.detail
            else jsonb_set(a.detail, '{email}', to_jsonb(${pseudonym(sql`a.detail ->> 'email'`)}))
          end,
          anonymised_at = ${options.now}
        where a.anonymised_at is null
          and (a.ip is not null or a.actor_user_id is not null or a.actor_email is not null
            or a.detail ->> 'email' is not null)
          and (
            a.at < ${options.recordsCutoff}
            or (
              a.at < ${options.systemCutoff}
              and a.action not like 'billing.%'
              and a.action not like 'admin.%'
              and not exists (select 1 from users u where u.id = a.actor_user_id and u.is_admin)
            )
          )`.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  /** Whether the user signed in successfully before from this IP address. */
  async hasSignedInFrom(userId: number, ip: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('audit_log')
      .select('id')
      .where('actor_user_id', '=', userId)
      .where('action', '=', 'user.login')
      .where('ip', '=', ip)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** One page of entries, newest first. */
  find(filter: AuditFilter, page: { limit: number; offset: number }) {
    return this.select(filter)
      .orderBy('audit_log.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }

  /** Entries older than `beforeId`, newest first: the export reads the whole log in batches this way. */
  findBefore(filter: AuditFilter, beforeId: number | undefined, limit: number) {
    let query = this.select(filter);
    if (beforeId !== undefined) query = query.where('audit_log.id', '<', beforeId);
    return query.orderBy('audit_log.id', 'desc').limit(limit).execute();
  }

  async count(filter: AuditFilter): Promise<number> {
    const row = await this.db
      .selectFrom('audit_log')
      .where((eb) => this.conditions(eb, filter))
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  private select(filter: AuditFilter) {
    return this.db
      .selectFrom('audit_log')
      .leftJoin('organizations', 'organizations.id', 'audit_log.organization_id')
      .leftJoin('users', 'users.id', 'audit_log.actor_user_id')
      .where((eb) => this.conditions(eb, filter))
      .select([
        'audit_log.id',
        'audit_log.at',
        'audit_log.action',
        'audit_log.actor_user_id',
        'audit_log.target',
        'audit_log.detail',
        'audit_log.ip',
        'audit_log.organization_id',
        'organizations.name as organization_name',
        // Who the actor is now: whether an entry is the provider's staff acting on an organization.
        'users.is_admin as actor_is_admin',
        'users.organization_id as actor_organization_id',
      ])
      .select((eb) => eb.fn.coalesce('users.email', 'audit_log.actor_email').as('actor_email'));
  }

  private conditions(eb: ExpressionBuilder<Database, 'audit_log'>, filter: AuditFilter) {
    const parts = [];
    if (filter.organizationId !== undefined)
      parts.push(eb('audit_log.organization_id', '=', filter.organizationId));
    if (filter.userId !== undefined) {
      parts.push(
        eb.or([
          eb('audit_log.actor_user_id', '=', filter.userId),
          eb('audit_log.target', '=', `user:${filter.userId}`),
        ]),
      );
    }
    if (filter.userEmail)
      parts.push(eb('audit_log.actor_email', 'ilike', `%${likeEscape(filter.userEmail)}%`));
    if (filter.action) {
      parts.push(
        eb.or([
          eb('audit_log.action', '=', filter.action),
          eb('audit_log.action', 'like', `${likeEscape(filter.action)}.%`),
        ]),
      );
    }
    if (filter.from) parts.push(eb('audit_log.at', '>=', filter.from));
    if (filter.to) parts.push(eb('audit_log.at', '<', filter.to));
    return eb.and(parts);
  }
}
