import { addDays, planEndDate, startOfUtcDay, utcIsoDate } from '@osint/contract/pricing';
import type { BillingPlanRow } from '../db/schema.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import { maxDate } from './plan-dates.ts';

/** Where a new paid plan goes, or which paid plans it would overlap when it cannot go anywhere. */
export type Placement = { start: string; moved: string | undefined } | { overlapping: string };

/**
 * Where a newly paid plan goes among the organization's paid plans in force or to come. Two paid plans
 * must not overlap: the buyer would pay twice for the same days. The purchase pages refuse a new plan while
 * one is billed, but a payment started before another plan was paid (a card checkout left open, a bank
 * transfer on its way) still arrives.
 *
 * - A fixed period is placed as a renewal: from the day the paid plans end, keeping every month paid for.
 * - A subscription cannot wait behind another plan (it is charged every month from now), nor can a fixed
 *   period wait behind a subscription, whose end moves with every renewal: there is no right day to start,
 *   so the caller refuses (`overlapping` names the plans in the way).
 *
 * Call it inside the transaction that adds the plan, after `organizations.lockForBilling`, so that two
 * payments of one organization see each other's plans.
 */
export async function placeAmongPaidPlans(
  plans: BillingPlanRepository,
  organizationId: number,
  kind: 'FIXED' | 'MONTHLY',
  chosen: string,
  months: number,
  now: Date,
): Promise<Placement> {
  // Plans overlap only in days still to come: a plan that ended earlier today (a subscription lapses at
  // its time of day) is over, though the new plan's first day began at midnight.
  const later = await plans.findPaidRunningAfter(organizationId, maxDate(startOfUtcDay(chosen), now));
  // A new subscription runs until it is deactivated: every plan still running after its start overlaps it.
  const until = kind === 'FIXED' ? startOfUtcDay(planEndDate('FIXED', chosen, months)) : undefined;
  const overlapping = later.filter((plan) => until === undefined || plan.start_date < until);
  if (overlapping.length === 0) return { start: chosen, moved: undefined };
  const described = overlapping.map(describePlan).join(', ');

  if (kind === 'FIXED' && later.every((plan) => plan.plan_type !== 'SUBSCRIPTION')) {
    // Plans cover [start 00:00 UTC, end); an end later in its day (a plan made by hand) moves the start
    // to the next day, so the two do not share that day.
    const lastEnd = new Date(Math.max(...later.map((plan) => plan.end_date.getTime())));
    const endDay = utcIsoDate(lastEnd);
    const start = startOfUtcDay(endDay) < lastEnd ? addDays(endDay, 1) : endDay;
    return {
      start,
      moved: `Chosen start ${chosen} overlapped ${described}: starts when the paid plans end.`,
    };
  }
  return { overlapping: described };
}

/** A plan as a payment's note names it. */
export function describePlan(plan: BillingPlanRow): string {
  return `plan ${plan.id} (${plan.plan_type}, ${utcIsoDate(plan.start_date)} → ${utcIsoDate(plan.end_date)})`;
}
