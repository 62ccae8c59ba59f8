import {
  END_PLAN_MESSAGES,
  END_PLAN_REASON_MAX_LENGTH,
  LAW_ENFORCEMENT_MESSAGES,
  type LawEnforcementInput,
  type LawEnforcementStatus,
  validateBillingPlan,
  type AdminBillingPlanView,
  type AdminOrganizationDetail,
  type AdminOrganizationPage,
  type AdminOrganizationStatus,
  type CreateBillingPlanInput,
} from '@osint/contract/admin';
import { toViolations } from '@osint/contract/validation';
import type { UserStatus } from '@osint/contract/api-types';
import { PLAN_TYPE_LABELS } from '@osint/contract/pricing';
import type { BillingPlanRow } from '../db/schema.ts';
import { badRequest, conflict, notFound } from '../lib/http-error.ts';
import type { AdminOrganizationRepository } from '../repositories/admin-organization.repository.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import type { OrderRepository } from '../repositories/order.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { TeamRepository } from '../repositories/team.repository.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { MailService } from './mail.service.ts';
import type { SubscriptionCancelService } from './subscription-cancel.service.ts';
import type { AuthUser } from './session.service.ts';

const ORGANIZATION_NOT_FOUND = 'Organization not found.';
const UNCONFIRMED_OWNER =
  'The owner has not confirmed their e-mail address yet: a plan can be made once the registration is confirmed.';

/** The provider's view of one organization, and the billing plans it creates by hand. */
export class AdminOrganizationService {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly team: TeamRepository,
    private readonly plans: BillingPlanRepository,
    private readonly adminOrganizations: AdminOrganizationRepository,
    private readonly audit: AuditRepository,
    private readonly orders: OrderRepository,
    private readonly mail: MailService,
    private readonly publicUrl: string,
    private readonly subscriptions: SubscriptionCancelService,
    private readonly seats: SeatRepository,
  ) {}

  async get(id: number): Promise<AdminOrganizationDetail> {
    const organization = await this.organizations.findById(id);
    if (!organization) throw notFound(ORGANIZATION_NOT_FOUND);
    const now = new Date();
    const [members, plans, active, searchCount, orders, faceAlerts] = await Promise.all([
      this.team.findMembers(id),
      this.adminOrganizations.findPlans(id),
      this.plans.findActive(id, now),
      this.adminOrganizations.countSearches({ organizationId: id }),
      this.orders.findByOrganization(id),
      this.adminOrganizations.countFaceWatches(id),
    ]);
    const owner = members.find((m) => m.role === 'OWNER');
    // Access as search grants it, as the owner's team list shows it (beyond a smaller plan's seats: none).
    const hasAccess = await this.seats.accessAsGranted(id, now);
    const views = plans.map((plan) => this.planView(plan, active?.id, now));
    return {
      id: organization.id,
      name: organization.name,
      link: organization.link,
      type: organization.type,
      createdAt: organization.created_at.toISOString(),
      lastActiveAt: organization.last_active_at.toISOString(),
      owner: owner ? { id: owner.id, email: owner.email, status: owner.status } : null,
      users: members.map((m) => ({
        id: m.id,
        email: m.email,
        status: m.status,
        role: m.role,
        access: hasAccess(m),
        createdAt: m.created_at.toISOString(),
        lastActiveAt: m.last_active_at?.toISOString() ?? null,
      })),
      seats: { used: members.filter(hasAccess).length, limit: active?.seat_limit ?? 0 },
      activePlan: views.find((v) => v.state === 'ACTIVE') ?? null,
      plans: views,
      orders: orders.map((order) => ({
        id: order.id,
        orderNumber: order.order_number,
        status: order.status,
        paymentMethod: order.payment_method,
        amount: order.amount,
        currency: order.currency,
        months: order.months,
        seatLimit: order.seat_limit,
        startDate: order.start_date.toISOString(),
        endDate: order.end_date.toISOString(),
        createdAt: order.created_at.toISOString(),
        paidAt: order.paid_at?.toISOString() ?? null,
      })),
      searchCount,
      faceAlerts,
      lawEnforcement: lawEnforcementStatus(organization),
    };
  }

  /**
   * Verifies an organization as law enforcement (with a note of the evidence) or withdraws it; audited
   * with the note, and the owner is told by e-mail. An organization whose owner has not confirmed the
   * address is not verified, as it gets no plan (createPlan); a withdrawal is always allowed.
   */
  async setLawEnforcement(
    admin: AuthUser,
    organizationId: number,
    input: LawEnforcementInput,
    ip: string | null,
  ): Promise<LawEnforcementStatus> {
    const note = input.note?.trim() ?? '';
    if (input.verified && !note) throw badRequest(LAW_ENFORCEMENT_MESSAGES.noteRequired);
    if (input.verified)
      await this.refuseUnconfirmedOwner(organizationId, LAW_ENFORCEMENT_MESSAGES.unconfirmedOwner);
    const organization = await this.organizations.updateLawEnforcement(
      organizationId,
      input.verified ? { verifiedAt: new Date(), note } : null,
    );
    if (!organization) throw notFound(ORGANIZATION_NOT_FOUND);
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId,
      action: input.verified
        ? 'admin.organization.law_enforcement_verified'
        : 'admin.organization.law_enforcement_revoked',
      target: `organization:${organizationId}`,
      detail: note ? { note } : {},
      ip,
    });
    // Only an owner who may sign in is told: not one blocked, rejected or never confirmed.
    for (const to of await this.seats.findOwnerEmails(organizationId)) {
      await this.mail.send(
        to,
        input.verified
          ? mailTemplates.lawEnforcementVerified(organization.name)
          : mailTemplates.lawEnforcementRevoked(organization.name),
        organizationId,
      );
    }
    return lawEnforcementStatus(organization);
  }

  /** GET /api/admin/organizations: every organization, newest first, found by name, link or a user's address. */
  async list(query: {
    pageNumber: number;
    pageSize: number;
    search?: string | undefined;
  }): Promise<AdminOrganizationPage> {
    const { rows, total } = await this.adminOrganizations.findPage({
      search: query.search?.trim() || undefined,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
      at: new Date(),
    });
    return {
      totalResultCount: total,
      results: rows.map((row) => ({
        id: row.id,
        name: row.name,
        link: row.link,
        type: row.type,
        createdAt: row.created_at.toISOString(),
        lastActiveAt: row.last_active_at.toISOString(),
        owner:
          row.owner_id !== null && row.owner_email !== null && row.owner_status !== null
            ? { id: row.owner_id, email: row.owner_email, status: row.owner_status }
            : null,
        plan:
          row.plan_type !== null && row.end_date !== null
            ? { planType: row.plan_type, endDate: row.end_date.toISOString() }
            : null,
        seats: { used: Number(row.seats_used ?? 0), limit: row.seat_limit ?? 0 },
        userCount: Number(row.user_count ?? 0),
        status: organizationStatus(row.owner_status, row.plan_type, Boolean(row.had_plan)),
      })),
    };
  }

  /** A plan made by hand: a manual subscription or fixed period, a VIRTUAL plan, or a trial extension. */
  async createPlan(
    admin: AuthUser,
    organizationId: number,
    input: CreateBillingPlanInput,
    ip: string | null,
  ): Promise<AdminBillingPlanView> {
    const organization = await this.organizations.findById(organizationId);
    if (!organization) throw notFound(ORGANIZATION_NOT_FOUND);
    await this.refuseUnconfirmedOwner(organizationId, UNCONFIRMED_OWNER);
    const errors = validateBillingPlan(input);
    const first = Object.values(errors)[0];
    if (first) throw badRequest(first, toViolations(errors));
    const plan = await this.plans.insert({
      organizationId,
      planType: input.planType,
      startDate: new Date(input.startDate),
      endDate: new Date(input.endDate),
      seatLimit: input.seatLimit,
    });
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId,
      action: 'admin.billing_plan.created',
      target: `billing_plan:${plan.id}`,
      detail: {
        planType: plan.plan_type,
        startDate: plan.start_date.toISOString(),
        endDate: plan.end_date.toISOString(),
        seatLimit: plan.seat_limit,
      },
      ip,
    });
    const active = await this.plans.findActive(organizationId);
    return this.planView(plan, active?.id, new Date());
  }

  /**
   * POST /api/admin/billing-plans/{id}/end: ends a plan now (or, not started yet, cancels it), a trial
   * included (spec 000 §1: revoked for misuse). Access follows at once, since access is the plan's dates;
   * audited with the reason, and the owner is told why by e-mail.
   */
  async endPlan(
    admin: AuthUser,
    planId: number,
    input: { reason: string },
    ip: string | null,
  ): Promise<AdminBillingPlanView> {
    const reason = input.reason.trim();
    if (!reason)
      throw badRequest(END_PLAN_MESSAGES.reasonRequired, [
        { field: 'reason', message: END_PLAN_MESSAGES.reasonRequired },
      ]);
    if (reason.length > END_PLAN_REASON_MAX_LENGTH)
      throw badRequest(`The reason can be at most ${END_PLAN_REASON_MAX_LENGTH} characters.`);
    const now = new Date();
    // A card subscription is cancelled by a job committed with the end: the card is not charged again.
    const plan = await this.plans.endEarly(planId, { at: now, by: admin.id, reason }, (ended) =>
      this.subscriptions.jobFor(ended),
    );
    if (!plan) {
      if (!(await this.plans.findById(planId))) throw notFound(END_PLAN_MESSAGES.planNotFound);
      throw conflict(END_PLAN_MESSAGES.alreadyEnded);
    }
    if (plan.subscription_cancel_requested_at) this.subscriptions.queued();
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: plan.organization_id,
      action: 'admin.billing_plan.ended',
      target: `billing_plan:${plan.id}`,
      detail: { planType: plan.plan_type, endDate: plan.end_date.toISOString(), note: reason },
      ip,
    });
    // Only an owner who may sign in is told: not one blocked, rejected or never confirmed.
    for (const to of await this.seats.findOwnerEmails(plan.organization_id))
      await this.mail.send(
        to,
        mailTemplates.planEndedByProvider(
          PLAN_TYPE_LABELS[plan.plan_type],
          reason,
          `${this.publicUrl}/contact`,
        ),
        plan.organization_id,
      );
    const active = await this.plans.findActive(plan.organization_id, now);
    return this.planView(plan, active?.id, now);
  }

  /**
   * 409 when the organization's owner has not confirmed the address. An unconfirmed registration is
   * deleted, organization and all, when its address registers again or the mailbox's owner releases it:
   * what the provider grants it would go with it, or pass to whoever registered someone else's address.
   */
  private async refuseUnconfirmedOwner(organizationId: number, message: string): Promise<void> {
    const owner = (await this.team.findMembers(organizationId)).find((m) => m.role === 'OWNER');
    if (owner?.status === 'EMAIL_UNVERIFIED') throw conflict(message);
  }

  private planView(plan: BillingPlanRow, activeId: number | undefined, now: Date): AdminBillingPlanView {
    return planView(plan, activeId, now, this.subscriptions.automatic);
  }
}

function lawEnforcementStatus(organization: {
  law_enforcement_verified_at: Date | null;
  law_enforcement_note: string | null;
}): LawEnforcementStatus {
  return {
    verified: organization.law_enforcement_verified_at !== null,
    verifiedAt: organization.law_enforcement_verified_at?.toISOString() ?? null,
    note: organization.law_enforcement_note,
  };
}

function planView(
  plan: BillingPlanRow,
  activeId: number | undefined,
  now: Date,
  cancelledOnEnd: boolean,
): AdminBillingPlanView {
  const state =
    plan.ended_at !== null
      ? 'ENDED'
      : plan.id === activeId
        ? 'ACTIVE'
        : plan.start_date > now
          ? 'FUTURE'
          : plan.end_date <= now
            ? 'EXPIRED'
            : 'SUPERSEDED';
  return {
    id: plan.id,
    planType: plan.plan_type,
    startDate: plan.start_date.toISOString(),
    endDate: plan.end_date.toISOString(),
    seatLimit: plan.seat_limit,
    createdAt: plan.created_at.toISOString(),
    state,
    endedEarly:
      plan.ended_at !== null ? { at: plan.ended_at.toISOString(), reason: plan.end_reason ?? '' } : null,
    cardSubscription: plan.fastspring_subscription_id
      ? {
          id: plan.fastspring_subscription_id,
          cancelRequestedAt: plan.subscription_cancel_requested_at?.toISOString() ?? null,
          cancelledAt: plan.subscription_cancelled_at?.toISOString() ?? null,
          cancelError: plan.subscription_cancel_error,
          cancelledOnEnd,
        }
      : null,
  };
}

/** The owner's registration decides first; an approved organization is described by its plan. */
function organizationStatus(
  ownerStatus: UserStatus | null,
  planType: BillingPlanRow['plan_type'] | null,
  hadPlan: boolean,
): AdminOrganizationStatus {
  if (
    ownerStatus === 'EMAIL_UNVERIFIED' ||
    ownerStatus === 'PENDING_APPROVAL' ||
    ownerStatus === 'REJECTED' ||
    ownerStatus === 'BLOCKED'
  )
    return ownerStatus;
  if (planType === 'TRIAL') return 'TRIAL';
  if (planType) return 'ACTIVE';
  return hadPlan ? 'EXPIRED' : 'NO_PLAN';
}
