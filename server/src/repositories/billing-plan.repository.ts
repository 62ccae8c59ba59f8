import { sql, type SelectQueryBuilder } from 'kysely';
import type { PlanType } from '@osint/contract/api-types';
import { inTransaction, type Db } from '../db/database.ts';
import type { BillingPlanRow, Database } from '../db/schema.ts';
import { JobRepository, type NewJob } from './job.repository.ts';

/**
 * Until when a plan counts: its end; for a trial, no later than the start of the first paid plan that runs
 * during or after it. Billing starts after the trial (spec 000 §1), so once a paid plan has started the
 * trial is over for good: a paid plan an admin ends early, or a card subscription FastSpring deactivates,
 * leaves the organization without a plan (EXPIRED, "Renew your plan"), not back on the trial. A paid plan
 * that never ran (ended at its own start) takes nothing over, nor does one that ended before the trial
 * began (a trial granted afterwards). The plan in force, the last expired plan and the expiry sweep all
 * read a plan's end through this expression; it refers to the table as `billing_plans`.
 */
export const countsUntil = sql<Date>`case when billing_plans.plan_type = 'TRIAL' then least(
    billing_plans.end_date,
    (select min(greatest(paid.start_date, billing_plans.start_date))
       from billing_plans as paid
      where paid.organization_id = billing_plans.organization_id
        and paid.plan_type <> 'TRIAL'
        and paid.end_date > paid.start_date
        and paid.end_date > billing_plans.start_date))
  else billing_plans.end_date end`;

/**
 * The one rule for "the plan in force" at `at`, applied to a query over `billing_plans` (one organization's):
 * the plans whose period [start, end) holds `at`, a trial only until a paid plan takes over (`countsUntil`),
 * a paid plan before a trial, then the one that started last. A paid plan bought during a trial starts at
 * 00:00 UTC of a calendar day, which may be before the trial's approval time on that same day; it still
 * takes over at once. Access, seat grants, the account page, the admin pages and the face-alert standing
 * all read the plan through this rule.
 */
export function inForceFirst<DB extends Database, O>(
  query: SelectQueryBuilder<DB, 'billing_plans', O>,
  at: Date,
): SelectQueryBuilder<DB, 'billing_plans', O> {
  const plans = query as unknown as SelectQueryBuilder<Database, 'billing_plans', O>;
  return plans
    .where('billing_plans.start_date', '<=', at)
    .where(countsUntil, '>', at)
    .orderBy(sql`billing_plans.plan_type = 'TRIAL'`)
    .orderBy('billing_plans.start_date', 'desc')
    .orderBy('billing_plans.id', 'desc') as unknown as SelectQueryBuilder<DB, 'billing_plans', O>;
}

export class BillingPlanRepository {
  constructor(private readonly db: Db) {}

  insert(plan: {
    organizationId: number;
    planType: PlanType;
    startDate: Date;
    endDate: Date;
    seatLimit: number;
  }) {
    return this.db
      .insertInto('billing_plans')
      .values({
        organization_id: plan.organizationId,
        plan_type: plan.planType,
        start_date: plan.startDate,
        end_date: plan.endDate,
        seat_limit: plan.seatLimit,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The plan in force at `at` (see `inForceFirst`). */
  findActive(organizationId: number, at: Date = new Date()) {
    return inForceFirst(
      this.db.selectFrom('billing_plans').selectAll().where('organization_id', '=', organizationId),
      at,
    ).executeTakeFirst();
  }

  /**
   * The latest end of the paid plans still running or to come after `at`: where a renewal (or a card order
   * that would overlap them) starts. A plan cancelled before it started ends at its own start and never
   * runs; its end is only its would-be start day, which must not push the next plan away and leave a gap.
   */
  async findLatestPaidEnd(organizationId: number, at: Date = new Date()): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('billing_plans')
      .select((eb) => eb.fn.max('end_date').as('end'))
      .where('organization_id', '=', organizationId)
      .where('plan_type', '!=', 'TRIAL')
      .where('end_date', '>', at)
      .whereRef('end_date', '>', 'start_date')
      .executeTakeFirst();
    return row?.end ? new Date(row.end) : undefined;
  }

  /**
   * The paid plans in force or to come that still run after `from` (a plan cancelled before it started
   * never runs), earliest first: what a new plan starting at `from` must not overlap.
   */
  findPaidRunningAfter(organizationId: number, from: Date) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('plan_type', '!=', 'TRIAL')
      .whereRef('end_date', '>', 'start_date')
      .where('end_date', '>', from)
      .orderBy('start_date')
      .orderBy('id')
      .execute();
  }

  /** A paid plan in force at `at` or still to come; one that never runs (ended at its own start) is not. */
  findPaidNotEnded(organizationId: number, at: Date = new Date()) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('plan_type', '!=', 'TRIAL')
      .where('end_date', '>', at)
      .whereRef('end_date', '>', 'start_date')
      .orderBy('start_date')
      .orderBy('id')
      .executeTakeFirst();
  }

  /**
   * The plan that ended last before `at` (spec 001 §3 expiredBillingPlan); a trial a paid plan took over
   * ended when that plan started (`countsUntil`), so a paid plan ended since is the one shown.
   */
  findLastExpired(organizationId: number, at: Date = new Date()) {
    // A plan that never ran (ended at its own start) did not expire.
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .whereRef('end_date', '>', 'start_date')
      .where(countsUntil, '<=', at)
      .orderBy(countsUntil, 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /** The next plan to start after `at` (spec 001 §3 futureBillingPlan). */
  findNextFuture(organizationId: number, at: Date = new Date()) {
    return (
      this.db
        .selectFrom('billing_plans')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('start_date', '>', at)
        // A future plan ended before it started has no length and never starts.
        .whereRef('end_date', '>', 'start_date')
        .orderBy('start_date')
        .orderBy('id')
        .executeTakeFirst()
    );
  }

  findById(id: number) {
    return this.db.selectFrom('billing_plans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByOrderId(orderId: number) {
    return this.db.selectFrom('billing_plans').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  }

  findBySubscriptionId(subscriptionId: string) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('fastspring_subscription_id', '=', subscriptionId)
      .executeTakeFirst();
  }

  /** A plan paid by an order or a FastSpring subscription; a replay finds the unique index and inserts nothing. */
  insertPaid(plan: {
    organizationId: number;
    planType: PlanType;
    startDate: Date;
    endDate: Date;
    seatLimit: number;
    orderId?: number;
    subscriptionId?: string;
  }) {
    return this.db
      .insertInto('billing_plans')
      .values({
        organization_id: plan.organizationId,
        plan_type: plan.planType,
        start_date: plan.startDate,
        end_date: plan.endDate,
        seat_limit: plan.seatLimit,
        order_id: plan.orderId ?? null,
        fastspring_subscription_id: plan.subscriptionId ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Moves a plan's end or changes its seats (FastSpring renewals and deactivations). A plan an admin ended
   * is left alone: its end is the admin's decision, and FastSpring, which does not know of it, must not
   * extend it again. False when nothing changed because the plan was ended (or does not exist).
   */
  async updatePeriod(id: number, changes: { endDate?: Date; seatLimit?: number }): Promise<boolean> {
    const result = await this.db
      .updateTable('billing_plans')
      .set({
        ...(changes.endDate ? { end_date: changes.endDate } : {}),
        ...(changes.seatLimit ? { seat_limit: changes.seatLimit } : {}),
      })
      .where('id', '=', id)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Ends a plan at `at` (a plan not started yet ends at its own start, so it never grants access), once:
   * undefined when the plan does not exist or had already ended. The expiry notice is claimed too: the
   * owner is told by the message that says why. `cancelJobOf` may queue the cancellation of the ended
   * plan's card subscription in the same transaction (the plan never ends without it), which the plan
   * then records as requested.
   */
  endEarly(
    id: number,
    change: { at: Date; by: number; reason: string },
    cancelJobOf: (plan: BillingPlanRow) => NewJob | null = () => null,
  ) {
    return inTransaction(this.db, async (tx) => {
      const plan = await tx
        .updateTable('billing_plans')
        .set({
          end_date: sql<Date>`greatest(start_date, ${change.at})`,
          ended_at: change.at,
          ended_by: change.by,
          end_reason: change.reason,
          expiry_notified_at: sql<Date>`coalesce(expiry_notified_at, ${change.at})`,
        })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .where('end_date', '>', change.at)
        .returningAll()
        .executeTakeFirst();
      const job = plan && cancelJobOf(plan);
      if (!job) return plan;
      await new JobRepository(tx).insert(job);
      return tx
        .updateTable('billing_plans')
        .set({ subscription_cancel_requested_at: change.at })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /**
   * The outcome of an attempt to cancel the plan's card subscription: cancelled at `cancelledAt` (the
   * first confirmation is kept), or why not.
   */
  recordSubscriptionCancel(id: number, outcome: { cancelledAt: Date } | { error: string }) {
    const change =
      'cancelledAt' in outcome
        ? {
            subscription_cancelled_at: sql<Date>`coalesce(subscription_cancelled_at, ${outcome.cancelledAt})`,
            subscription_cancel_error: null,
          }
        : { subscription_cancel_error: outcome.error };
    return this.db.updateTable('billing_plans').set(change).where('id', '=', id).execute();
  }

  /** Paid plans that have started and whose start nobody was told about yet (the plan sweep's work). */
  findStartedUnnotified(at: Date, limit: number) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('plan_type', '!=', 'TRIAL')
      .where('activation_notified_at', 'is', null)
      .where('start_date', '<=', at)
      .where('end_date', '>', at)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Plans that have ended and whose end nobody was told about yet; `taken_over` marks a trial that ended
   * because a paid plan started (`countsUntil`), which nobody needs to be told about. A plan that never
   * ran (ended at its own start) did not expire.
   */
  findEndedUnnotified(at: Date, limit: number) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .select(sql<boolean>`${countsUntil} < billing_plans.end_date`.as('taken_over'))
      .where('expiry_notified_at', 'is', null)
      .whereRef('end_date', '>', 'start_date')
      .where(countsUntil, '<=', at)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Claims a notification once: false when another worker (or an earlier run) already marked it. */
  async markNotified(id: number, kind: 'activation' | 'expiry', at: Date): Promise<boolean> {
    const column = kind === 'activation' ? 'activation_notified_at' : 'expiry_notified_at';
    const result = await this.db
      .updateTable('billing_plans')
      .set({ [column]: at })
      .where('id', '=', id)
      .where(column, 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
