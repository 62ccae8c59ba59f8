import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { FastSpringSubscriptionState } from '../db/schema.ts';

/** FastSpring subscriptions as this product last understood them: state, seats, paid-through date. */
export class FastSpringSubscriptionRepository {
  constructor(private readonly db: Db) {}

  /** Creates the row if missing and locks it for the rest of the transaction (events of one subscription run one at a time). */
  async lockOrCreate(subscription: {
    id: string;
    organizationId: number;
    product: string;
    seatLimit: number;
    stateChangedAt: Date;
  }) {
    await this.db
      .insertInto('fastspring_subscriptions')
      .values({
        id: subscription.id,
        organization_id: subscription.organizationId,
        product: subscription.product,
        seat_limit: subscription.seatLimit,
        state: 'ACTIVE',
        state_changed_at: subscription.stateChangedAt,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return this.db
      .selectFrom('fastspring_subscriptions')
      .selectAll()
      .where('id', '=', subscription.id)
      .forUpdate()
      .executeTakeFirstOrThrow();
  }

  findById(id: string) {
    return this.db.selectFrom('fastspring_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(
    id: string,
    changes: {
      state?: FastSpringSubscriptionState;
      stateChangedAt?: Date;
      seatLimit?: number;
      billingPlanId?: number;
      paidThrough?: Date;
      /** Kept at the latest date reported: events arrive in any order. */
      chargedThrough?: Date;
      deactivatedAt?: Date;
    },
  ): Promise<void> {
    await this.db
      .updateTable('fastspring_subscriptions')
      .set({
        ...(changes.state ? { state: changes.state } : {}),
        ...(changes.stateChangedAt ? { state_changed_at: changes.stateChangedAt } : {}),
        ...(changes.seatLimit ? { seat_limit: changes.seatLimit } : {}),
        ...(changes.billingPlanId ? { billing_plan_id: changes.billingPlanId } : {}),
        ...(changes.paidThrough ? { paid_through: changes.paidThrough } : {}),
        ...(changes.chargedThrough
          ? {
              charged_through: sql<Date>`greatest(coalesce(charged_through, ${changes.chargedThrough}), ${changes.chargedThrough})`,
            }
          : {}),
        ...(changes.deactivatedAt ? { deactivated_at: changes.deactivatedAt } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .execute();
  }
}
