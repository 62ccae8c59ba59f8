import type { Db } from '../db/database.ts';

/** FAILED: money arrived that does not match what was ordered; no plan was made, an admin reviews it. */
export type PaymentOutcome = 'PROCESSED' | 'IGNORED' | 'FAILED';

export interface NewPayment {
  source: 'FASTSPRING' | 'BANK_TRANSFER';
  eventId?: string;
  eventType: string;
  live?: boolean;
  organizationId?: number | null;
  orderId?: number | null;
  fastspringOrderId?: string | null;
  fastspringSubscriptionId?: string | null;
  amountCents?: number | null;
  currency?: string | null;
  outcome: PaymentOutcome;
  note?: string | null;
  payload?: unknown;
  occurredAt: Date;
  recordedBy?: number | null;
}

/** FastSpring events (one row per event id: the idempotency record) and bank payments. */
export class PaymentRepository {
  constructor(private readonly db: Db) {}

  /**
   * Records a payment. A FastSpring event whose id is already recorded inserts nothing and returns
   * undefined: inside the transaction that processes the event, that is the "seen before" answer, and a
   * concurrent delivery of the same event waits on the unique index until the first one commits.
   */
  insert(payment: NewPayment) {
    return this.db
      .insertInto('payments')
      .values({
        source: payment.source,
        event_id: payment.eventId ?? null,
        event_type: payment.eventType,
        live: payment.live ?? false,
        organization_id: payment.organizationId ?? null,
        order_id: payment.orderId ?? null,
        fastspring_order_id: payment.fastspringOrderId ?? null,
        fastspring_subscription_id: payment.fastspringSubscriptionId ?? null,
        amount_cents: payment.amountCents ?? null,
        currency: payment.currency ?? null,
        outcome: payment.outcome,
        note: payment.note ?? null,
        payload: JSON.stringify(payment.payload ?? {}),
        occurred_at: payment.occurredAt,
        recorded_by: payment.recordedBy ?? null,
      })
      .onConflict((oc) => oc.column('event_id').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  async update(
    id: number,
    changes: {
      outcome: PaymentOutcome;
      note: string | null;
      organizationId: number | null;
      orderId: number | null;
    },
  ): Promise<void> {
    await this.db
      .updateTable('payments')
      .set({
        outcome: changes.outcome,
        note: changes.note,
        organization_id: changes.organizationId,
        order_id: changes.orderId,
      })
      .where('id', '=', id)
      .execute();
  }

  findById(id: number) {
    return this.db
      .selectFrom('payments')
      .leftJoin('organizations', 'organizations.id', 'payments.organization_id')
      .leftJoin('orders', 'orders.id', 'payments.order_id')
      .selectAll('payments')
      .select(['organizations.name as organization_name', 'orders.order_number'])
      .where('payments.id', '=', id)
      .executeTakeFirst();
  }

  findAll(filter: { source?: 'FASTSPRING' | 'BANK_TRANSFER'; page: number; pageSize: number }) {
    let query = this.db
      .selectFrom('payments')
      .leftJoin('organizations', 'organizations.id', 'payments.organization_id')
      .leftJoin('orders', 'orders.id', 'payments.order_id')
      .selectAll('payments')
      .select(['organizations.name as organization_name', 'orders.order_number']);
    if (filter.source) query = query.where('payments.source', '=', filter.source);
    return query
      .orderBy('payments.received_at', 'desc')
      .orderBy('payments.id', 'desc')
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize)
      .execute();
  }

  /** The FastSpring events recorded for a FastSpring order (its order.completed, whatever the outcome). */
  findByFastSpringOrderId(fastspringOrderId: string) {
    return this.db
      .selectFrom('payments')
      .select(['id', 'event_type', 'outcome'])
      .where('fastspring_order_id', '=', fastspringOrderId)
      .orderBy('id')
      .execute();
  }

  findByOrder(orderId: number) {
    return this.db
      .selectFrom('payments')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('received_at')
      .execute();
  }
}
