import type { BillingPlan, OrganizationData, PlanType } from '@osint/contract/api-types';
import type { AllBillingPlans, OrderDto } from '@osint/contract/pricing';

/** Spec 000 §2 "Subscription view statuses". */
export type SubscriptionStatus = 'ACTIVE' | 'PAYMENT_CONFIRMED' | 'PAYMENT_PENDING' | 'EXPIRED';

export interface PlanFacts {
  planType: PlanType;
  startDate: string;
  endDate: string;
  seatLimit: number;
  periodMonths: number;
}

export interface AccountBilling {
  activePlan: PlanFacts | null;
  futurePlan: PlanFacts | null;
  expiredPlan: PlanFacts | null;
  /** The latest pending order. */
  pendingOrder: OrderDto | null;
}

export interface SubscriptionView {
  status: SubscriptionStatus;
  plan: PlanFacts | null;
  order: OrderDto | null;
}

const DAY_MS = 86_400_000;

/** Whole months a period spans (a 31-day month and a 28-day one both count as one). */
export function periodMonthsOf(startDate: string, endDate: string): number {
  const days = (Date.parse(endDate) - Date.parse(startDate)) / DAY_MS;
  return Math.max(1, Math.round(days / 30.44));
}

function facts(plan: BillingPlan & { periodMonths?: number }): PlanFacts {
  return {
    planType: plan.planType,
    startDate: plan.startDate,
    endDate: plan.endDate,
    seatLimit: plan.seatLimit,
    periodMonths: plan.periodMonths ?? periodMonthsOf(plan.startDate, plan.endDate),
  };
}

/**
 * What the account page knows about billing: the plans and orders answers when the server has them
 * (null otherwise), else only the plan in force from the organization data.
 */
export function accountBillingOf(
  organization: OrganizationData,
  plans: AllBillingPlans | null | undefined,
  orders: OrderDto[] | null | undefined,
): AccountBilling {
  const active = plans ? plans.activeBillingPlan : organization.activeBillingPlan;
  const pendingOrder =
    (orders ?? [])
      .filter((order) => order.orderStatus === 'PENDING')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
  return {
    activePlan: active ? facts(active) : null,
    futurePlan: plans?.futureBillingPlan ? facts(plans.futureBillingPlan) : null,
    expiredPlan: plans?.expiredBillingPlan ? facts(plans.expiredBillingPlan) : null,
    pendingOrder,
  };
}

/**
 * The My Subscription panel (spec 000 §2, spec 001 §2 order summary): the active paid plan first, else the
 * future plan, else the pending order, else — when no plan is in force — the expired view. Undefined when
 * only a trial is running (the Free Trial panel covers it).
 */
export function subscriptionViewOf(billing: AccountBilling): SubscriptionView | undefined {
  const { activePlan, futurePlan, pendingOrder, expiredPlan } = billing;
  if (activePlan && activePlan.planType !== 'TRIAL')
    return { status: 'ACTIVE', plan: activePlan, order: null };
  if (futurePlan) return { status: 'PAYMENT_CONFIRMED', plan: futurePlan, order: null };
  if (pendingOrder) return { status: 'PAYMENT_PENDING', plan: null, order: pendingOrder };
  if (!activePlan) return { status: 'EXPIRED', plan: expiredPlan, order: null };
  return undefined;
}

/** Days left of a plan, counting a started day as a day. */
export function daysLeft(endDate: string, now: number = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(endDate) - now) / DAY_MS));
}
