import type { BillingPlanRow } from '../db/schema.ts';
import { forbidden } from '../lib/http-error.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { AuthUser } from './session.service.ts';

export interface Access {
  /** May search and use results: admins, and users with a seat in an organization with a plan in force. */
  granted: boolean;
  /** Original sources (image and page URLs) are withheld: trial plans (spec 001 §6). */
  restricted: boolean;
  plan: BillingPlanRow | undefined;
  /** A platform admin blocked the organization's owner: nobody in it has access. */
  organizationBlocked: boolean;
}

export const NO_ACCESS_MESSAGE =
  'Search access is unavailable: your organization has no active plan or you have no seat. Contact your account owner.';
export const ORGANIZATION_BLOCKED_MESSAGE =
  "Search access is unavailable: your organization's account is blocked. Please contact support.";

/** The one place that decides what a signed-in user may do with search results. */
export class AccessService {
  constructor(
    private readonly plans: BillingPlanRepository,
    private readonly seats: SeatRepository,
  ) {}

  async of(user: AuthUser): Promise<Access> {
    const plan = await this.plans.findActive(user.organizationId);
    if (user.isAdmin) return { granted: true, restricted: false, plan, organizationBlocked: false };
    // Blocking the owner suspends the organization: its members keep their seats but not their access.
    const organizationBlocked = await this.seats.isOwnerBlocked(user.organizationId);
    // Seat limits hold here, not only when access is given: after a larger plan ends, a smaller one grants
    // its seats to the owner first, then in the order users joined.
    const granted =
      !organizationBlocked &&
      user.hasAccess &&
      plan !== undefined &&
      (await this.seats.findSeatHolderIds(user.organizationId, plan.seat_limit)).includes(user.id);
    return { granted, restricted: !granted || plan?.plan_type === 'TRIAL', plan, organizationBlocked };
  }

  async require(user: AuthUser): Promise<Access> {
    const access = await this.of(user);
    if (!access.granted) {
      throw forbidden(access.organizationBlocked ? ORGANIZATION_BLOCKED_MESSAGE : NO_ACCESS_MESSAGE);
    }
    return access;
  }
}
