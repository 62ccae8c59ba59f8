import { addDays, addMonths, isIsoDate, startOfUtcDay, utcIsoDate } from '@osint/contract/pricing';

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
