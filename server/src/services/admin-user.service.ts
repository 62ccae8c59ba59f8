import type { AdminUserRow, UserStatus } from '@osint/contract/api-types';
import { TRIAL_DAYS, TRIAL_SEATS } from '@osint/contract/constants';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { conflict, notFound } from '../lib/http-error.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { UserRepository } from '../repositories/user.repository.ts';
import type { MailService } from './mail.service.ts';
import type { AuthUser, SessionService } from './session.service.ts';

const DAY_MS = 86_400_000;

export class AdminUserService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly users: UserRepository,
    private readonly audit: AuditRepository,
    private readonly sessions: SessionService,
    private readonly mail: MailService,
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
      organization: {
        id: row.organization_id,
        name: row.organization_name,
        link: row.organization_link,
        type: row.organization_type,
      },
    }));
  }

  /**
   * Approves a registration. The owner of an organization that never had a plan gets the 7-day trial
   * with one seat, and that seat.
   */
  async approve(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User not found.');
    if (user.status === 'ACTIVE') throw conflict('This user is already approved.');
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
        .where('status', 'in', ['PENDING_APPROVAL', 'EMAIL_UNVERIFIED', 'REJECTED'])
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
    if (!approved) throw conflict('This user cannot be approved in its current state.');
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.approved',
      target: `user:${user.id}`,
      ip,
    });
    await this.mail.send(user.email, mailTemplates.accountApproved(`${this.config.publicUrl}/login`));
  }

  async reject(admin: AuthUser, userId: number, ip: string | null): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('User not found.');
    const rejected = await this.users.updateStatusIf(userId, ['PENDING_APPROVAL', 'EMAIL_UNVERIFIED'], {
      status: 'REJECTED',
    });
    if (!rejected) throw conflict('Only registrations waiting for approval can be rejected.');
    await this.sessions.endAllForUser(userId);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: user.organization_id,
      action: 'admin.user.rejected',
      target: `user:${user.id}`,
      ip,
    });
    await this.mail.send(user.email, mailTemplates.accountRejected());
  }
}
