import { ADMIN_USER_MESSAGES, type AdminUserDetail } from '@osint/contract/admin';
import type { AdminUserRow, UserStatus } from '@osint/contract/api-types';
import { TRIAL_DAYS, TRIAL_SEATS } from '@osint/contract/constants';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { conflict, notFound } from '../lib/http-error.ts';
import type { AdminOrganizationRepository } from '../repositories/admin-organization.repository.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { UserTokenRepository } from '../repositories/user-token.repository.ts';
import type { UserRepository } from '../repositories/user.repository.ts';
import type { AuditService } from './audit.service.ts';
import type { MailService } from './mail.service.ts';
import type { AuthUser, SessionService } from './session.service.ts';

const DAY_MS = 86_400_000;

export class AdminUserService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly users: UserRepository,
    private readonly tokens: UserTokenRepository,
    private readonly audit: AuditRepository,
    private readonly sessions: SessionService,
    private readonly mail: MailService,
    private readonly organizations: OrganizationRepository,
    private readonly adminOrganizations: AdminOrganizationRepository,
    private readonly auditLog: AuditService,
    private readonly seats: SeatRepository,
  ) {}

  async list(filter: {
    status?: UserStatus;
    search?: string;
    page: number;
    pageSize: number;
  }): Promise<AdminUserRow[]> {
    const rows = await this.users.findAllWithOrganization({
      status: filter.status,
      search: filter.search?.trim() || undefined,
      limit: filter.pageSize,
      offset: (filter.page - 1) * filter.pageSize,
    });
    return rows.map((row) => ({
      id: row.id,
      email: row.email,
      status: row.status,
      role: row.role,
      admin: row.is_admin,
      createdAt: row.created_at.toISOString(),
      emailVerifiedAt: row.email_verified_at?.toISOString() ?? null,
      lastActiveAt: row.last_active_at?.toISOString() ?? null,
      organization: {
        id: row.organization_id,
        name: row.organization_name,
        link: row.organization_link,
        type: row.organization_type,
      },
    }));
  }

  /**
   * Approves a registration waiting for approval, or one rejected after its e-mail was confirmed
   * (canApproveUser). The owner of an organization that never had a plan gets the 7-day trial with one
   * seat, and that seat.
   */
  async approve(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ADMIN_USER_MESSAGES.notFound);
    if (user.status === 'ACTIVE') throw conflict(ADMIN_USER_MESSAGES.alreadyApproved);
    if (user.status === 'EMAIL_UNVERIFIED' || (user.status === 'REJECTED' && !user.email_verified_at))
      throw conflict(ADMIN_USER_MESSAGES.emailNotConfirmed);
    const approvedAt = new Date();
    const approved = await this.db.transaction().execute(async (tx) => {
      const changed = await tx
        .updateTable('users')
        .set({
          status: 'ACTIVE',
          approved_at: approvedAt,
          ...(user.role === 'OWNER' ? { has_access: true } : {}),
        })
        .where('id', '=', userId)
        // canApproveUser, checked again in the update: the state may have changed since it was read.
        .where((eb) =>
          eb.or([
            eb('status', '=', 'PENDING_APPROVAL'),
            eb.and([eb('status', '=', 'REJECTED'), eb('email_verified_at', 'is not', null)]),
          ]),
        )
        .executeTakeFirst();
      if (changed.numUpdatedRows === 0n) return false;
      const hadPlan = await tx
        .selectFrom('billing_plans')
        .select('id')
        .where('organization_id', '=', user.organization_id)
        .executeTakeFirst();
      if (user.role === 'OWNER' && !hadPlan) {
        await tx
          .insertInto('billing_plans')
          .values({
            organization_id: user.organization_id,
            plan_type: 'TRIAL',
            start_date: approvedAt,
            end_date: new Date(approvedAt.getTime() + TRIAL_DAYS * DAY_MS),
            seat_limit: TRIAL_SEATS,
          })
          .execute();
      }
      return true;
    });
    if (!approved) throw conflict(ADMIN_USER_MESSAGES.cannotApproveState);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.approved',
      target: `user:${user.id}`,
      ip,
    });
    await this.mail.send(
      user.email,
      mailTemplates.accountApproved(`${this.config.publicUrl}/login`),
      user.organization_id,
    );
  }

  /**
   * Declines a registration waiting for approval. An unconfirmed one is left alone: rejecting it would
   * mail the address's owner about a request they may never have made.
   */
  async reject(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ADMIN_USER_MESSAGES.notFound);
    const rejected = await this.users.updateStatusIf(userId, ['PENDING_APPROVAL'], { status: 'REJECTED' });
    if (!rejected) throw conflict(ADMIN_USER_MESSAGES.cannotRejectState);
    await this.sessions.endAllForUser(userId);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.rejected',
      target: `user:${user.id}`,
      ip,
    });
    await this.mail.send(user.email, mailTemplates.accountRejected(), user.organization_id);
  }

  /** One user with their organization, live sessions, usage and latest audit entries. */
  async get(userId: number): Promise<AdminUserDetail> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ADMIN_USER_MESSAGES.notFound);
    const [organization, sessions, searchCount, activity, hasAccess] = await Promise.all([
      this.organizations.findById(user.organization_id),
      this.sessions.listForUser(user.id),
      this.adminOrganizations.countSearches({ userId: user.id }),
      this.auditLog.list({ userId: user.id }, 1, 20),
      // As search grants it and the owner's team list shows it (seat holders of the plan in force).
      this.seats.accessAsGranted(user.organization_id),
    ]);
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    return {
      id: user.id,
      hashedId: user.hashed_id,
      email: user.email,
      status: user.status,
      role: user.role,
      admin: user.is_admin,
      access: hasAccess(user),
      newsletter: user.newsletter,
      createdAt: user.created_at.toISOString(),
      emailVerifiedAt: iso(user.email_verified_at),
      approvedAt: iso(user.approved_at),
      blockedAt: iso(user.blocked_at),
      passwordChangedAt: iso(user.password_changed_at),
      lastActiveAt: iso(user.last_active_at),
      organization: organization
        ? { id: organization.id, name: organization.name, link: organization.link, type: organization.type }
        : { id: user.organization_id, name: '', link: '', type: '' },
      sessions: sessions.map((s) => ({
        createdAt: s.created_at.toISOString(),
        lastSeenAt: s.last_seen_at.toISOString(),
        expiresAt: s.expires_at.toISOString(),
        ip: s.ip,
        userAgent: s.user_agent,
      })),
      searchCount,
      recentActivity: activity.entries,
    };
  }

  /**
   * Blocks an active or invited user: sessions end at once, the seat is freed, and every unused link
   * (invitation, password reset) stops working, so the account cannot be given a password while blocked.
   */
  async block(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ADMIN_USER_MESSAGES.notFound);
    if (user.is_admin) throw conflict(ADMIN_USER_MESSAGES.cannotBlockAdmin);
    const blocked = await this.users.updateStatusIf(userId, ['ACTIVE', 'INVITED'], {
      status: 'BLOCKED',
      blocked_at: new Date(),
      has_access: false,
    });
    if (!blocked) throw conflict(ADMIN_USER_MESSAGES.cannotBlockState);
    await this.sessions.endAllForUser(userId);
    await this.tokens.expireUnused(userId);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.blocked',
      target: `user:${user.id}`,
      detail: { email: user.email, previousStatus: user.status, hadAccess: user.has_access },
      ip,
    });
  }

  /** Lets a blocked user sign in again; an account that never set its password returns to INVITED. */
  async unblock(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(ADMIN_USER_MESSAGES.notFound);
    const unblocked = await this.users.updateStatusIf(userId, ['BLOCKED'], {
      status: user.password_hash ? 'ACTIVE' : 'INVITED',
      blocked_at: null,
    });
    if (!unblocked) throw conflict(ADMIN_USER_MESSAGES.notBlocked);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.unblocked',
      target: `user:${user.id}`,
      detail: { email: user.email },
      ip,
    });
  }
}
