import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderStatus, OrderType } from '../db/schema.ts';

export interface NewOrder {
  organizationId: number;
  createdBy: number | null;
  paymentMethod: 'BANK_TRANSFER' | 'CARD';
  planKind: 'MONTHLY' | 'FIXED';
  status: OrderStatus;
  startDate: Date;
  endDate: Date;
  months: number;
  seatLimit: number;
  basePrice: number;
  additionalUserFee: number;
  /** The annual discount; 0 when omitted. */
  discount?: number;
  orderType?: OrderType;
  addedUsers?: number;
  amount: number;
  currency?: string;
  organizationName: string;
  buyer?: Record<string, string>;
  vatId?: string | null;
  purchaseOrder?: string | null;
  fastspringOrderId?: string;
  fastspringReference?: string;
  paidAt?: Date;
}

/** Orders: bank transfers waiting for payment and completed card or bank orders. */
export class OrderRepository {
  constructor(private readonly db: Db) {}

  /**
   * Inserts an order with the next order number (YYYY-NNNNNN). A second pending bank transfer of the same
   * organization, or a FastSpring order seen before, hits a unique index: undefined is returned.
   */
  insert(order: NewOrder) {
    return this.db
      .insertInto('orders')
      .values({
        order_number: sql<string>`to_char(now() at time zone 'UTC', 'YYYY') || '-' || lpad(nextval('order_number_seq')::text, 6, '0')`,
        organization_id: order.organizationId,
        created_by: order.createdBy,
        status: order.status,
        payment_method: order.paymentMethod,
        plan_kind: order.planKind,
        start_date: order.startDate,
        end_date: order.endDate,
        months: order.months,
        seat_limit: order.seatLimit,
        base_price: order.basePrice,
        additional_user_fee: order.additionalUserFee,
        discount: order.discount ?? 0,
        order_type: order.orderType ?? 'PLAN',
        added_users: order.addedUsers ?? null,
        amount: order.amount,
        ...(order.currency ? { currency: order.currency } : {}),
        organization_name: order.organizationName,
        buyer: order.buyer ? JSON.stringify(order.buyer) : null,
        vat_id: order.vatId ?? null,
        purchase_order: order.purchaseOrder ?? null,
        fastspring_order_id: order.fastspringOrderId ?? null,
        fastspring_reference: order.fastspringReference ?? null,
        paid_at: order.paidAt ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  findById(id: number) {
    return this.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** For update inside a transaction: two admins marking the same order paid are serialised here. */
  findByIdForUpdate(id: number) {
    return this.db.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  findByFastSpringOrderId(fastspringOrderId: string) {
    return this.db
      .selectFrom('orders')
      .selectAll()
      .where('fastspring_order_id', '=', fastspringOrderId)
      .executeTakeFirst();
  }

  findByOrganization(organizationId: number) {
    return this.db
      .selectFrom('orders')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  findPendingByOrganization(organizationId: number) {
    return this.db
      .selectFrom('orders')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'PENDING')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }

  /**
   * Completes a paid order with the period its plan really runs (a transfer that arrived after the chosen
   * start moves it): the final invoice and the order lists then say what was delivered.
   */
  async complete(
    id: number,
    changes: { paidAt: Date; completedBy: number | null; period: { start: Date; end: Date } },
  ): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({
        status: 'COMPLETED',
        paid_at: changes.paidAt,
        completed_by: changes.completedBy,
        start_date: changes.period.start,
        end_date: changes.period.end,
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Gives a paid order its final invoice number, the next of `year` with no gaps: the counter row stays
   * locked until the paying transaction ends, so concurrent payments are numbered one after another and a
   * rolled-back payment gives its number back. Call inside that transaction.
   */
  async assignFinalInvoiceNumber(
    orderId: number,
    year: number,
    format: (year: number, sequence: number) => string,
  ): Promise<string> {
    const counter = await this.db
      .insertInto('invoice_counters')
      .values({ year, last_number: 1 })
      .onConflict((oc) =>
        oc.column('year').doUpdateSet({ last_number: sql<number>`invoice_counters.last_number + 1` }),
      )
      .returning('last_number')
      .executeTakeFirstOrThrow();
    const number = format(year, counter.last_number);
    await this.db
      .updateTable('orders')
      .set({ final_invoice_number: number })
      .where('id', '=', orderId)
      .execute();
    return number;
  }

  /** PENDING → CANCELED, once: false when the order was no longer pending (paid or cancelled meanwhile). */
  async cancelPending(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('orders')
      .set({ status: 'CANCELED' })
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The admin list: newest first, optionally one status, with the organization's current name. */
  findAll(filter: { status?: OrderStatus; search?: string; page: number; pageSize: number }) {
    let query = this.db
      .selectFrom('orders')
      .leftJoin('organizations', 'organizations.id', 'orders.organization_id')
      .selectAll('orders')
      .select('organizations.name as current_organization_name');
    if (filter.status) query = query.where('orders.status', '=', filter.status);
    if (filter.search) {
      const like = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([eb('orders.order_number', 'ilike', like), eb('orders.organization_name', 'ilike', like)]),
      );
    }
    return query
      .orderBy('orders.created_at', 'desc')
      .orderBy('orders.id', 'desc')
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize)
      .execute();
  }
}
