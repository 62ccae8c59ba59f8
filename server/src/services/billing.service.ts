import { formatDay } from '@osint/contract/dates';
import {
  BILLING_MESSAGES,
  computeAddUsersPrice,
  computePrice,
  formatUsd,
  MAX_MONTHS,
  MAX_USERS,
  monthsUntil,
  planEndDate,
  PLAN_TYPE_LABELS,
  startOfUtcDay,
  utcIsoDate,
  validateBuyer,
  type AddUsersOrderRequest,
  type AllBillingPlans,
  type BankOrderRequest,
  type InvoiceReferences,
  type BillingPlanDto,
  type Buyer,
  type BuyerField,
  type OrderDto,
  type OrderType,
  type PriceBreakdown,
  type RenewOrderRequest,
} from '@osint/contract/pricing';
import {
  finalInvoiceNumber,
  normaliseVatId,
  validateInvoiceReferences,
  type InvoiceReferenceField,
} from '@osint/contract/invoice';
import { toViolations, type FieldErrors } from '@osint/contract/validation';
import type { FastifyBaseLogger } from 'fastify';
import { effectiveStartDate, periodMonths, startDateError } from '../billing/plan-dates.ts';
import { placeAmongPaidPlans } from '../billing/plan-placement.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { BillingPlanRow, OrderRow, OrderStatus } from '../db/schema.ts';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import { badRequest, conflict, forbidden, notFound } from '../lib/http-error.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import { OrderRepository } from '../repositories/order.repository.ts';
import { OrganizationRepository } from '../repositories/organization.repository.ts';
import { PaymentRepository } from '../repositories/payment.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { MailService } from './mail.service.ts';
import type { ReportDrawing, ReportRenderer } from './report-renderer.ts';
import type { AuthUser } from './session.service.ts';

/** The plan sweep runs this often (and once at start); it only sends notices: "active" is a date range. */
export const PLAN_SWEEP_INTERVAL_MS = 10 * 60_000;
/** Plans that started or ended longer ago than this are marked without a message (no mail floods). */
const NOTICE_WINDOW_MS = 3 * 86_400_000;

/** What a bank order buys, as the order endpoints computed it. */
interface BankOrderTerms {
  orderType: OrderType;
  price: PriceBreakdown;
  startDate: string;
  endDate: string;
  seatLimit: number;
  addedUsers?: number;
  /** The buyer's own references, printed on the invoices. */
  vatId?: string | null;
  purchaseOrder?: string | null;
}

export interface InvoiceFile {
  fileName: string;
  pdf: Buffer;
}

export interface AdminOrderDto extends OrderDto {
  invoiceNumber: string;
  organization: { id: number | null; name: string };
  buyer: Buyer | null;
  fastspringOrderId: string | null;
}

export interface AdminPaymentDto {
  id: number;
  source: 'FASTSPRING' | 'BANK_TRANSFER';
  eventId: string | null;
  eventType: string;
  live: boolean;
  outcome: 'PROCESSED' | 'IGNORED' | 'FAILED';
  note: string | null;
  organization: { id: number; name: string } | null;
  orderId: number | null;
  orderNumber: string | null;
  fastspringOrderId: string | null;
  fastspringSubscriptionId: string | null;
  amount: number | null;
  currency: string | null;
  occurredAt: string;
  receivedAt: string;
}

/** Plans, orders, bank transfers and proforma invoices (spec 001 §2, §3, §7). */
export class BillingService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly plans: BillingPlanRepository,
    private readonly orders: OrderRepository,
    private readonly payments: PaymentRepository,
    private readonly seats: SeatRepository,
    private readonly organizations: OrganizationRepository,
    private readonly audit: AuditRepository,
    private readonly mail: MailService,
    private readonly queue: JobQueue,
    private readonly log: FastifyBaseLogger,
    private readonly reports: ReportRenderer,
  ) {}

  /** GET /user/organization/all-billing-plans: the last ended, the current and the next plan. */
  async allBillingPlans(user: AuthUser, now: Date = new Date()): Promise<AllBillingPlans> {
    const organizationId = user.organizationId;
    const expired = await this.plans.findLastExpired(organizationId, now);
    const active = await this.plans.findActive(organizationId, now);
    const future = await this.plans.findNextFuture(organizationId, now);
    const used = await this.seats.countWithAccess(organizationId);
    return {
      expiredBillingPlan: expired ? planDto(expired, used) : null,
      activeBillingPlan: active ? planDto(active, Math.min(used, active.seat_limit)) : null,
      futureBillingPlan: future ? planDto(future, used) : null,
    };
  }

  /** GET /user/organization/orders: the organization's orders, newest first (owners only). */
  async organizationOrders(user: AuthUser): Promise<OrderDto[]> {
    if (user.role !== 'OWNER') throw forbidden(BILLING_MESSAGES.ownersOnly);
    const rows = await this.orders.findByOrganization(user.organizationId);
    return rows.map(orderDto);
  }

  /** POST /order: a PENDING bank-transfer order for a fixed period, answered with its proforma invoice. */
  async createBankOrder(user: AuthUser, request: BankOrderRequest, ip: string | null): Promise<InvoiceFile> {
    if (user.role !== 'OWNER') throw forbidden(BILLING_MESSAGES.ownersOnly);
    await refuseNewPlanWhileBilled(this.plans, this.orders, user.organizationId);
    const errors: FieldErrors<BuyerField | InvoiceReferenceField | 'startDate'> = {
      ...validateBuyer(request.buyer),
      ...validateInvoiceReferences(request),
    };
    const startDateProblem = startDateError(request.startDate);
    if (startDateProblem) errors.startDate = startDateProblem;
    throwOrderViolations(errors);
    const price = computePrice({ kind: 'FIXED', users: request.seatAmount, months: request.period });
    return this.placeBankOrder(user, request.buyer, ip, {
      orderType: 'PLAN',
      price,
      startDate: request.startDate,
      endDate: planEndDate('FIXED', request.startDate, price.months),
      seatLimit: price.users,
      ...invoiceReferencesOf(request),
    });
  }

  /**
   * POST /order/renew: the same kind of fixed period again, starting the day after the organization's paid
   * plans end (the plan in force, or the renewal already paid for), so access runs on without a gap.
   */
  async createRenewalOrder(
    user: AuthUser,
    request: RenewOrderRequest,
    ip: string | null,
  ): Promise<InvoiceFile> {
    const current = await this.fixedPlanInForce(user);
    throwOrderViolations({ ...validateBuyer(request.buyer), ...validateInvoiceReferences(request) });
    const lastEnd = (await this.plans.findLatestPaidEnd(user.organizationId)) ?? current.end_date;
    const startDate = utcIsoDate(lastEnd);
    const price = computePrice({ kind: 'FIXED', users: request.seatAmount, months: request.period });
    return this.placeBankOrder(user, request.buyer, ip, {
      orderType: 'RENEWAL',
      price,
      startDate,
      endDate: planEndDate('FIXED', startDate, price.months),
      seatLimit: price.users,
      ...invoiceReferencesOf(request),
    });
  }

  /**
   * POST /order/add-users: more seats on the plan in force until it ends. Only the additional user fee is
   * charged, for every month (or part of one) from today to the plan's end; once paid, a plan with the
   * new seat total runs from the payment day to that same end.
   */
  async createAddUsersOrder(
    user: AuthUser,
    request: AddUsersOrderRequest,
    ip: string | null,
  ): Promise<InvoiceFile> {
    const current = await this.fixedPlanInForce(user);
    const errors: FieldErrors<BuyerField | InvoiceReferenceField | 'users'> = {
      ...validateBuyer(request.buyer),
      ...validateInvoiceReferences(request),
    };
    if (current.seat_limit + request.users > MAX_USERS)
      errors.users = `A plan has at most ${MAX_USERS} users; this one has ${current.seat_limit}.`;
    const today = utcIsoDate();
    const endDate = utcIsoDate(current.end_date);
    const months = monthsUntil(today, endDate);
    if (months > MAX_MONTHS)
      errors.users = 'Users can be added to plans that end within 12 months. Please contact support.';
    throwOrderViolations(errors);
    const price = computeAddUsersPrice({ users: request.users, months });
    return this.placeBankOrder(user, request.buyer, ip, {
      orderType: 'ADD_USERS',
      price,
      startDate: today,
      endDate,
      seatLimit: current.seat_limit + price.users,
      addedUsers: price.users,
      ...invoiceReferencesOf(request),
    });
  }

  /**
   * POST /order/{id}/cancel: an owner withdraws the organization's order that waits for payment (an admin
   * any order); then a new one can be placed. Another organization's order is not found; a paid or
   * cancelled one stays as it is.
   */
  async cancelOrder(user: AuthUser, orderId: number, ip: string | null): Promise<OrderDto> {
    const order = await this.orders.findById(orderId);
    const mayCancel =
      order !== undefined &&
      (user.isAdmin || (user.role === 'OWNER' && order.organization_id === user.organizationId));
    if (!order || !mayCancel) throw notFound(BILLING_MESSAGES.noOrderFound);
    if (order.status !== 'PENDING' || !(await this.orders.cancelPending(order.id)))
      throw conflict(BILLING_MESSAGES.orderNotPending);
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: order.organization_id,
      action: 'billing.order_cancelled',
      target: `order:${order.id}`,
      detail: { orderNumber: order.order_number, amount: order.amount },
      ip,
    });
    return orderDto({ ...order, status: 'CANCELED' });
  }

  /** Renew and Add users extend a fixed period in force; a subscription renews itself at FastSpring. */
  private async fixedPlanInForce(user: AuthUser): Promise<BillingPlanRow> {
    if (user.role !== 'OWNER') throw forbidden(BILLING_MESSAGES.ownersOnly);
    const plan = await this.plans.findActive(user.organizationId);
    if (!plan || plan.plan_type === 'TRIAL' || plan.plan_type === 'SUBSCRIPTION')
      throw conflict(BILLING_MESSAGES.noFixedPlanInForce);
    return plan;
  }

  private async placeBankOrder(
    user: AuthUser,
    rawBuyer: Buyer,
    ip: string | null,
    what: BankOrderTerms,
  ): Promise<InvoiceFile> {
    // The invoice is drawn in a report worker, under one of the organization's report places: taken
    // before the order is stored, so that an organization with every place busy is refused (429) with no
    // order left behind.
    return this.reports.admit(user.organizationId, (draw) =>
      this.storeBankOrder(draw, user, rawBuyer, ip, what),
    );
  }

  private async storeBankOrder(
    draw: ReportDrawing,
    user: AuthUser,
    rawBuyer: Buyer,
    ip: string | null,
    what: BankOrderTerms,
  ): Promise<InvoiceFile> {
    const organization = await this.organizations.findById(user.organizationId);
    if (!organization) throw notFound('Organization not found.');
    const { price } = what;
    const order = await this.orders.insert({
      organizationId: organization.id,
      createdBy: user.id,
      paymentMethod: 'BANK_TRANSFER',
      planKind: 'FIXED',
      status: 'PENDING',
      orderType: what.orderType,
      startDate: startOfUtcDay(what.startDate),
      endDate: startOfUtcDay(what.endDate),
      months: price.months,
      seatLimit: what.seatLimit,
      ...(what.addedUsers ? { addedUsers: what.addedUsers } : {}),
      basePrice: price.basePrice,
      additionalUserFee: price.additionalUserFee,
      discount: price.discount,
      amount: price.total,
      organizationName: organization.name,
      buyer: { ...trimBuyer(rawBuyer) },
      vatId: what.vatId ?? null,
      purchaseOrder: what.purchaseOrder ?? null,
    });
    if (!order) throw conflict(BILLING_MESSAGES.orderPending);
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: organization.id,
      action: 'billing.order_created',
      target: `order:${order.id}`,
      detail: { orderNumber: order.order_number, amount: order.amount, seats: order.seat_limit },
      ip,
    });
    await this.mail.send(
      user.email,
      mailTemplates.orderPlaced(order.order_number, `${formatUsd(order.amount)} USD`, this.link('/pricing')),
      organization.id,
    );
    return this.invoiceOf(draw, order);
  }

  /** GET /order/download-invoice/{id}: the proforma invoice of an order of the caller's organization. */
  async downloadInvoice(user: AuthUser, orderId: number): Promise<InvoiceFile> {
    const order = await this.orders.findById(orderId);
    if (
      !order ||
      order.organization_id !== user.organizationId ||
      user.role !== 'OWNER' ||
      order.payment_method !== 'BANK_TRANSFER'
    )
      throw notFound(BILLING_MESSAGES.noOrderFound);
    return this.drawInvoice(user, order);
  }

  async adminInvoice(admin: AuthUser, orderId: number): Promise<InvoiceFile> {
    const order = await this.orders.findById(orderId);
    if (!order || order.payment_method !== 'BANK_TRANSFER') throw notFound(BILLING_MESSAGES.noOrderFound);
    return this.drawInvoice(admin, order);
  }

  /**
   * GET /order/download-final-invoice/{id}: the paid, numbered invoice of a bank order of the caller's
   * organization (owners); "No order found." for any other order, or one not paid yet.
   */
  async downloadFinalInvoice(user: AuthUser, orderId: number): Promise<InvoiceFile> {
    const order = await this.orders.findById(orderId);
    if (!order || order.organization_id !== user.organizationId || user.role !== 'OWNER')
      throw notFound(BILLING_MESSAGES.noOrderFound);
    return this.finalInvoiceOf(user, order);
  }

  async adminFinalInvoice(admin: AuthUser, orderId: number): Promise<InvoiceFile> {
    const order = await this.orders.findById(orderId);
    if (!order) throw notFound(BILLING_MESSAGES.noOrderFound);
    return this.finalInvoiceOf(admin, order);
  }

  private async finalInvoiceOf(requester: AuthUser, order: OrderRow): Promise<InvoiceFile> {
    if (
      order.payment_method !== 'BANK_TRANSFER' ||
      order.status !== 'COMPLETED' ||
      !order.final_invoice_number ||
      !order.paid_at
    )
      throw notFound(BILLING_MESSAGES.noOrderFound);
    const final = { invoiceNumber: order.final_invoice_number, paidAt: order.paid_at };
    return this.drawInvoice(requester, order, final);
  }

  /**
   * An order's invoice, drawn in a report worker under one of the requester's organization's report places
   * (an admin's count for the admin's own organization, as for reports).
   */
  private drawInvoice(
    requester: AuthUser,
    order: OrderRow,
    final?: { invoiceNumber: string; paidAt: Date },
  ): Promise<InvoiceFile> {
    return this.reports.admit(requester.organizationId, (draw) => this.invoiceOf(draw, order, final));
  }

  private async invoiceOf(
    draw: ReportDrawing,
    order: OrderRow,
    final?: { invoiceNumber: string; paidAt: Date },
  ): Promise<InvoiceFile> {
    const buyer = (order.buyer ?? {}) as Partial<Buyer>;
    const { seller, bank } = this.config.billing;
    const pdf = await draw.invoice(
      {
        orderNumber: order.order_number,
        invoiceNumber: order.invoice_number,
        issuedAt: order.created_at,
        startDate: utcIsoDate(order.start_date),
        endDate: utcIsoDate(order.end_date),
        months: order.months,
        seats: order.seat_limit,
        basePrice: order.base_price,
        additionalUserFee: order.additional_user_fee,
        discount: order.discount,
        orderType: order.order_type,
        addedUsers: order.added_users,
        amount: order.amount,
        currency: order.currency,
        buyer: {
          name: buyer.name ?? order.organization_name,
          street: buyer.street ?? '',
          cityPostcode: buyer.cityPostcode ?? '',
          city: buyer.city ?? '',
          country: buyer.country ?? '',
        },
        vatId: order.vat_id,
        purchaseOrder: order.purchase_order,
        final,
      },
      { seller, bank },
    );
    const fileName = final
      ? `invoice-${final.invoiceNumber}.pdf`
      : `proforma-invoice-${order.order_number}.pdf`;
    return { fileName, pdf };
  }

  // ---- Admin ----

  async adminOrders(filter: {
    status?: OrderStatus;
    search?: string;
    page: number;
    pageSize: number;
  }): Promise<AdminOrderDto[]> {
    const rows = await this.orders.findAll(filter);
    return rows.map((row) => adminOrderDto(row, row.current_organization_name));
  }

  async adminOrder(id: number) {
    const order = await this.orders.findById(id);
    if (!order) throw notFound('Order not found.');
    const organization = order.organization_id
      ? await this.organizations.findById(order.organization_id)
      : undefined;
    const plan = await this.plans.findByOrderId(order.id);
    const payments = await this.payments.findByOrder(order.id);
    return {
      ...adminOrderDto(order, organization?.name ?? null),
      plan: plan ? planDto(plan, 0) : null,
      payments: payments.map((p) => ({
        id: p.id,
        source: p.source,
        eventType: p.event_type,
        amount: p.amount_cents === null ? null : p.amount_cents / 100,
        currency: p.currency,
        receivedAt: p.received_at.toISOString(),
      })),
    };
  }

  /**
   * POST /admin/orders/{id}/mark-paid: the bank transfer arrived. The order completes and its
   * ONE_TIME_PAYMENT plan is created, once: a second click (or a second admin) gets 409.
   */
  async markPaid(admin: AuthUser, orderId: number, ip: string | null) {
    const now = new Date();
    const { order, plan } = await this.db.transaction().execute(async (tx) => {
      const orders = new OrderRepository(tx);
      const plans = new BillingPlanRepository(tx);
      const order = await orders.findByIdForUpdate(orderId);
      if (!order) throw notFound('Order not found.');
      if (order.status !== 'PENDING') throw conflict('This order is not waiting for payment.');
      if (order.organization_id === null) throw conflict('The organization of this order no longer exists.');
      await new OrganizationRepository(tx).lockForBilling(order.organization_id);
      // A transfer that arrives after the chosen start date still buys every month it paid for.
      const chosen = effectiveStartDate(utcIsoDate(order.start_date), now);
      // Added users end with the plan they were added to (the two run side by side on purpose); a new plan
      // or a renewal runs its months, after any paid plan that arrived since the order was placed.
      const placement =
        order.order_type === 'ADD_USERS'
          ? { start: chosen, moved: undefined }
          : await placeAmongPaidPlans(plans, order.organization_id, 'FIXED', chosen, order.months, now);
      if ('overlapping' in placement)
        throw conflict(
          `The organization has a subscription in force or to come that this plan would overlap (${placement.overlapping}). End it first, or refund the transfer.`,
        );
      const { start, moved } = placement;
      const end =
        order.order_type === 'ADD_USERS'
          ? utcIsoDate(order.end_date)
          : planEndDate('FIXED', start, order.months);
      if (end <= start) throw conflict('The plan these users were added to has ended.');
      const period = { start: startOfUtcDay(start), end: startOfUtcDay(end) };
      await orders.complete(order.id, { paidAt: now, completedBy: admin.id, period });
      await orders.assignFinalInvoiceNumber(order.id, now.getUTCFullYear(), finalInvoiceNumber);
      const plan = await plans.insertPaid({
        organizationId: order.organization_id,
        planType: 'ONE_TIME_PAYMENT',
        startDate: period.start,
        endDate: period.end,
        seatLimit: order.seat_limit,
        orderId: order.id,
      });
      if (!plan) throw conflict('This order already has a plan.');
      // The payment confirmation below says it all for a plan that starts today.
      if (plan.start_date <= now) await plans.markNotified(plan.id, 'activation', now);
      await new PaymentRepository(tx).insert({
        source: 'BANK_TRANSFER',
        eventType: 'bank_transfer.received',
        organizationId: order.organization_id,
        orderId: order.id,
        amountCents: order.amount * 100,
        currency: order.currency,
        outcome: 'PROCESSED',
        note: [`Marked as paid by ${admin.email}.`, moved].filter(Boolean).join(' '),
        payload: { orderNumber: order.order_number, invoiceNumber: order.invoice_number },
        occurredAt: now,
        recordedBy: admin.id,
      });
      return { order, plan };
    });
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: order.organization_id,
      action: 'billing.order_paid',
      target: `order:${order.id}`,
      detail: { orderNumber: order.order_number, planId: plan.id, amount: order.amount },
      ip,
    });
    const period = `${formatDay(utcIsoDate(plan.start_date))} – ${formatDay(utcIsoDate(plan.end_date))}`;
    const recipients = await this.seats.findOwnerEmails(order.organization_id!);
    for (const to of recipients)
      await this.mail.send(
        to,
        mailTemplates.paymentConfirmed(order.order_number, period, plan.seat_limit, this.link('/account')),
        order.organization_id,
      );
    return this.adminOrder(order.id);
  }

  async adminPayments(filter: {
    source?: 'FASTSPRING' | 'BANK_TRANSFER';
    page: number;
    pageSize: number;
  }): Promise<AdminPaymentDto[]> {
    const rows = await this.payments.findAll(filter);
    return rows.map(adminPaymentDto);
  }

  async adminPayment(id: number) {
    const row = await this.payments.findById(id);
    if (!row) throw notFound('Payment not found.');
    return { ...adminPaymentDto(row), payload: row.payload as unknown };
  }

  // ---- Scheduled plan sweep ----

  /**
   * Plans are date ranges: access follows the dates by itself. The sweep only tells owners that a plan
   * started (future plans) or ended (when nothing else took over). Each notice is claimed in the database
   * first, so several workers never send one twice.
   */
  async sweepPlans(now: Date = new Date()): Promise<{ activated: number; expired: number }> {
    let activated = 0;
    let expired = 0;
    for (const plan of await this.plans.findStartedUnnotified(now, 500)) {
      if (!(await this.plans.markNotified(plan.id, 'activation', now))) continue;
      if (now.getTime() - plan.start_date.getTime() > NOTICE_WINDOW_MS) continue;
      const period = `${formatDay(utcIsoDate(plan.start_date))} – ${formatDay(utcIsoDate(plan.end_date))}`;
      for (const to of await this.seats.findOwnerEmails(plan.organization_id))
        await this.mail.send(
          to,
          mailTemplates.planActivated(PLAN_TYPE_LABELS[plan.plan_type], period, this.link('/search')),
          plan.organization_id,
        );
      activated++;
    }
    for (const plan of await this.plans.findEndedUnnotified(now, 500)) {
      if (!(await this.plans.markNotified(plan.id, 'expiry', now))) continue;
      // A trial a paid plan took over did not run out: the paid plan's own end is what the owner is told.
      if (plan.taken_over) continue;
      if (now.getTime() - plan.end_date.getTime() > NOTICE_WINDOW_MS) continue;
      const successor =
        (await this.plans.findActive(plan.organization_id, now)) ??
        (await this.plans.findNextFuture(plan.organization_id, now));
      if (successor) continue;
      for (const to of await this.seats.findOwnerEmails(plan.organization_id))
        await this.mail.send(
          to,
          mailTemplates.planExpired(PLAN_TYPE_LABELS[plan.plan_type], this.link('/pricing')),
          plan.organization_id,
        );
      expired++;
    }
    if (activated || expired) this.log.info({ activated, expired }, 'billing plan sweep');
    return { activated, expired };
  }

  /** Runs a sweep now and keeps the chain going (one queued run per interval, whatever the worker count). */
  async startPlanSweep(): Promise<void> {
    await this.queue.enqueue(QUEUES.billingPlanSweep, {});
  }

  async runPlanSweepJob(): Promise<void> {
    await this.sweepPlans();
    const bucket = Math.floor(Date.now() / PLAN_SWEEP_INTERVAL_MS) + 1;
    await this.queue.enqueue(
      QUEUES.billingPlanSweep,
      {},
      { uniqueKey: `billing.plan-sweep:${bucket}`, runAt: new Date(bucket * PLAN_SWEEP_INTERVAL_MS) },
    );
  }

  private link(path: string): string {
    return `${this.config.publicUrl}${path}`;
  }
}

/**
 * A new plan (POST /order, or a card checkout session) is for an organization without a paid plan in force
 * or to come and without an order waiting for payment: otherwise the pricing page shows the plan summary
 * instead of the chooser (spec 001 §2), and the server refuses the purchase the same way, with a 409.
 * Renewing a fixed period and adding users to it have their own calls; a subscription renews itself.
 */
export async function refuseNewPlanWhileBilled(
  plans: BillingPlanRepository,
  orders: OrderRepository,
  organizationId: number,
  at: Date = new Date(),
): Promise<void> {
  if (await plans.findPaidNotEnded(organizationId, at)) throw conflict(BILLING_MESSAGES.paidPlanExists);
  if (await orders.findPendingByOrganization(organizationId)) throw conflict(BILLING_MESSAGES.orderPending);
}

function throwOrderViolations(errors: FieldErrors<string>): void {
  const violations = toViolations(errors).map((v) =>
    ['startDate', 'users', 'vatId', 'purchaseOrder'].includes(v.field)
      ? v
      : { ...v, field: `buyer.${v.field}` },
  );
  if (violations.length > 0) throw badRequest('Please check the order details.', violations);
}

/** The buyer's invoice references as stored: a VAT ID in its canonical form, blanks as none. */
function invoiceReferencesOf(request: InvoiceReferences) {
  return {
    vatId: request.vatId?.trim() ? normaliseVatId(request.vatId) : null,
    purchaseOrder: request.purchaseOrder?.trim() || null,
  };
}

function trimBuyer(buyer: Buyer): Buyer {
  return {
    name: buyer.name.trim(),
    street: buyer.street.trim(),
    cityPostcode: buyer.cityPostcode.trim(),
    city: buyer.city.trim(),
    country: buyer.country.trim(),
  };
}

export function planDto(plan: BillingPlanRow, usedSeats: number): BillingPlanDto {
  return {
    id: plan.id,
    planType: plan.plan_type,
    seatLimit: plan.seat_limit,
    startDate: plan.start_date.toISOString(),
    endDate: plan.end_date.toISOString(),
    periodMonths: periodMonths(plan.start_date, plan.end_date),
    usedSeats,
  };
}

export function orderDto(order: OrderRow): OrderDto {
  return {
    id: order.id,
    orderNumber: order.order_number,
    orderStatus: order.status,
    paymentMethod: order.payment_method,
    planKind: order.plan_kind,
    startDate: utcIsoDate(order.start_date),
    endDate: utcIsoDate(order.end_date),
    months: order.months,
    seatLimit: order.seat_limit,
    basePrice: order.base_price,
    additionalUserFee: order.additional_user_fee,
    discount: order.discount,
    amount: order.amount,
    currency: order.currency,
    orderType: order.order_type,
    addedUsers: order.added_users,
    createdAt: order.created_at.toISOString(),
    paidAt: order.paid_at ? order.paid_at.toISOString() : null,
    finalInvoiceNumber: order.final_invoice_number,
  };
}

function adminOrderDto(order: OrderRow, currentName: string | null): AdminOrderDto {
  return {
    ...orderDto(order),
    invoiceNumber: order.invoice_number,
    organization: { id: order.organization_id, name: currentName ?? order.organization_name },
    buyer: (order.buyer as Buyer | null) ?? null,
    fastspringOrderId: order.fastspring_order_id,
  };
}

function adminPaymentDto(row: Awaited<ReturnType<PaymentRepository['findAll']>>[number]): AdminPaymentDto {
  return {
    id: row.id,
    source: row.source,
    eventId: row.event_id,
    eventType: row.event_type,
    live: row.live,
    outcome: row.outcome,
    note: row.note,
    organization:
      row.organization_id !== null
        ? { id: row.organization_id, name: row.organization_name ?? `#${row.organization_id}` }
        : null,
    orderId: row.order_id,
    orderNumber: row.order_number,
    fastspringOrderId: row.fastspring_order_id,
    fastspringSubscriptionId: row.fastspring_subscription_id,
    amount: row.amount_cents === null ? null : row.amount_cents / 100,
    currency: row.currency,
    occurredAt: row.occurred_at.toISOString(),
    receivedAt: row.received_at.toISOString(),
  };
}
