import {
  addDays,
  addMonths,
  BILLING_MESSAGES,
  isIsoDate,
  MAX_START_MONTHS_AHEAD,
  startOfUtcDay,
  utcIsoDate,
} from '@osint/contract/pricing';

const DAY_MS = 86_400_000;

/** An instant plus whole months, with the pricing module's month-end rules and the same time of day. */
export function addMonthsToInstant(at: Date, months: number): Date {
  const day = utcIsoDate(at);
  const timeOfDay = at.getTime() - startOfUtcDay(day).getTime();
  return new Date(startOfUtcDay(addMonths(day, months)).getTime() + timeOfDay);
}

/**
 * The first day a plan may start. A customer west of UTC may still be on the previous calendar day, so
 * "today" reaches back one day.
 */
export function earliestStartDate(now: Date = new Date()): string {
  return addDays(utcIsoDate(now), -1);
}

/**
 * The last day a plan may be ordered to start: `MAX_START_MONTHS_AHEAD` months after "today", where a
 * customer east of UTC may already be on the next calendar day.
 */
export function latestStartDate(now: Date = new Date()): string {
  return addMonths(addDays(utcIsoDate(now), 1), MAX_START_MONTHS_AHEAD);
}

/**
 * Why a requested start date (bank order, card checkout session) cannot be ordered, or undefined. Checked
 * before anything is stored, so a refused date leaves no order, session or invoice behind.
 */
export function startDateError(startDate: string, now: Date = new Date()): string | undefined {
  if (!isIsoDate(startDate)) return 'Please choose a start date.';
  if (startDate < earliestStartDate(now)) return BILLING_MESSAGES.startDateInPast;
  if (startDate > latestStartDate(now)) return BILLING_MESSAGES.startDateTooFar;
  return undefined;
}

/** A chosen start date that has passed by the time of payment moves to today: the buyer keeps every month. */
export function effectiveStartDate(chosen: string | undefined, now: Date = new Date()): string {
  const today = utcIsoDate(now);
  if (!chosen || !isIsoDate(chosen) || chosen < today) return today;
  return chosen;
}

/** Whole months a plan spans, at least 1 (the period shown on the order summary). */
export function periodMonths(start: Date, end: Date): number {
  return Math.max(1, Math.round((end.getTime() - start.getTime()) / (30.44 * DAY_MS)));
}

export const maxDate = (a: Date, b: Date): Date => (a.getTime() >= b.getTime() ? a : b);
export const minDate = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);

/**
 * Where a card subscription's plan ends once FastSpring deactivated the subscription at `deactivatedAt`.
 * FastSpring's paid period runs from the payment to its next charge date (`chargedThrough`); the plan's
 * runs from its chosen start, which may come later (even after FastSpring's period has ended), so the plan
 * ends later than FastSpring's period by that shift. A deactivation takes away only what it cut off
 * FastSpring's paid period (nothing when it comes at the period's end, as after a cancellation), and that
 * much comes off the plan's end; a plan left with nothing ends at its start and never runs. Without a
 * known charged-through date the two ends are taken as one: the plan ends at the deactivation.
 */
export function endAfterDeactivation(
  plan: { start: Date; end: Date },
  deactivatedAt: Date,
  chargedThrough: Date | null | undefined,
): Date {
  const paidThrough = chargedThrough ?? plan.end;
  const cut = Math.max(0, paidThrough.getTime() - deactivatedAt.getTime());
  return maxDate(plan.start, new Date(plan.end.getTime() - cut));
}
