import {
  BILLING_MESSAGES,
  checkoutUnitPrices,
  computePrice,
  FASTSPRING_PRODUCTS,
  isIsoDate,
  MAX_MONTHS,
  MAX_USERS,
  normalizeUserCount,
  planEndDate,
  startOfUtcDay,
  utcIsoDate,
  type CheckoutConfig,
  type CheckoutSessionRequest,
  type CheckoutSessionResponse,
  type PriceBreakdown,
} from '@osint/contract/pricing';
import type { Violation } from '@osint/contract/validation';
import type { FastifyBaseLogger } from 'fastify';
import { encryptSecurePayload, isWebhookSignatureValid } from '../billing/fastspring-crypto.ts';
import {
  chargeOrderOf,
  eventSubscription,
  orderOf,
  parseWebhookBody,
  type FastSpringEvent,
  type FsItem,
  type FsOrder,
  type FsSubscription,
} from '../billing/fastspring-events.ts';
import {
  addMonthsToInstant,
  effectiveStartDate,
  endAfterDeactivation,
  maxDate,
  minDate,
  startDateError,
} from '../billing/plan-dates.ts';
import { placeAmongPaidPlans } from '../billing/plan-placement.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { BillingPlanRow, FastSpringSubscriptionRow } from '../db/schema.ts';
import { badRequest, forbidden, HttpError, notFound, unauthorized } from '../lib/http-error.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import { FastSpringSubscriptionRepository } from '../repositories/fastspring-subscription.repository.ts';
import { OrderRepository } from '../repositories/order.repository.ts';
import { OrganizationRepository } from '../repositories/organization.repository.ts';
import { PaymentRepository } from '../repositories/payment.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { PaymentOutcome } from '../repositories/payment.repository.ts';
import { refuseNewPlanWhileBilled } from './billing.service.ts';
import type { MailService } from './mail.service.ts';
import type { AuthUser } from './session.service.ts';

export interface WebhookResult {
  id: string;
  type: string;
  result: PaymentOutcome | 'DUPLICATE';
  note: string | null;
}

interface Outcome {
  outcome: PaymentOutcome;
  note: string;
  organizationId?: number | null;
  orderId?: number | null;
}

/** Card checkout works with a storefront for the popup and a webhook secret for the payments it reports. */
export function cardCheckoutConfigured(config: Config): boolean {
  return Boolean(config.billing.fastspring.storefront && config.billing.fastspring.webhookSecret);
}

/** The repositories of one event's transaction. */
interface Tx {
  plans: BillingPlanRepository;
  orders: OrderRepository;
  payments: PaymentRepository;
  subscriptions: FastSpringSubscriptionRepository;
  organizations: OrganizationRepository;
  /** Work to do after the commit (mail). */
  after: (() => Promise<void>)[];
}

const LICENCE_PRODUCTS: string[] = [FASTSPRING_PRODUCTS.fixed, FASTSPRING_PRODUCTS.monthly];

/**
 * Card checkout through FastSpring, the merchant of record: Store Builder sessions (secure payload) and
 * the signed webhook that turns completed orders and subscription events into billing plans.
 */
export class FastSpringService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly seats: SeatRepository,
    private readonly mail: MailService,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** What the pricing page needs to load the Store Builder script and to show bank details. */
  checkoutConfig(): CheckoutConfig {
    const { fastspring, bank } = this.config.billing;
    return {
      configured: cardCheckoutConfigured(this.config),
      storefront: fastspring.storefront,
      accessKey: fastspring.accessKey,
      scriptUrl: fastspring.scriptUrl,
      bank: { ...bank },
    };
  }

  /**
   * POST /fastspring/create-session: the Store Builder session for a pricing-page selection. Prices come
   * from the pricing module (100 USD per month for the licence, 50 USD per additional seat per month), so a
   * session cannot be priced differently from the page. With a private key configured the session is
   * FastSpring's secure payload; without one it is plain JSON (accepted by test storefronts only).
   */
  async createSession(user: AuthUser, request: CheckoutSessionRequest): Promise<CheckoutSessionResponse> {
    if (user.role !== 'OWNER') throw forbidden(BILLING_MESSAGES.ownersOnly);
    if (request.organizationId !== user.organizationId) throw notFound('Organization not found.');
    await refuseNewPlanWhileBilled(
      new BillingPlanRepository(this.db),
      new OrderRepository(this.db),
      user.organizationId,
    );
    const violations: Violation[] = [];
    const startDateProblem = startDateError(request.startDate);
    if (startDateProblem) violations.push({ field: 'startDate', message: startDateProblem });

    const licences = request.productSelections.filter((s) => LICENCE_PRODUCTS.includes(s.productId));
    const seatSelections = request.productSelections.filter(
      (s) => s.productId === FASTSPRING_PRODUCTS.additionalSeat,
    );
    const unknown = request.productSelections.filter(
      (s) => !LICENCE_PRODUCTS.includes(s.productId) && s.productId !== FASTSPRING_PRODUCTS.additionalSeat,
    );
    const licence = licences[0];
    if (licences.length !== 1 || !licence)
      violations.push({ field: 'productSelections', message: 'Choose exactly one plan.' });
    if (unknown.length > 0)
      violations.push({ field: 'productSelections', message: `Unknown product: ${unknown[0]!.productId}` });
    if (seatSelections.length > 1)
      violations.push({ field: 'productSelections', message: 'Send the additional seats once.' });
    const kind = licence?.productId === FASTSPRING_PRODUCTS.fixed ? 'FIXED' : 'MONTHLY';
    if (licence && kind === 'FIXED' && (licence.quantity < 1 || licence.quantity > MAX_MONTHS))
      violations.push({
        field: 'productSelections',
        message: `A fixed period lasts 1 to ${MAX_MONTHS} months.`,
      });
    if (licence && kind === 'MONTHLY' && licence.quantity !== 1)
      violations.push({ field: 'productSelections', message: 'A monthly subscription has quantity 1.' });
    const extraSeats = seatSelections[0]?.quantity ?? 0;
    if (seatSelections.length === 1 && (extraSeats < 1 || extraSeats > MAX_USERS - 1))
      violations.push({
        field: 'productSelections',
        message: `Additional seats are sent only when above 0, at most ${MAX_USERS - 1}.`,
      });
    if (violations.length > 0) throw badRequest('Please check the checkout selection.', violations);

    const price = computePrice({ kind, users: extraSeats + 1, months: licence!.quantity });
    // The pricing module's unit prices (the annual discount included) add up to exactly `price.total`,
    // which the order webhook checks the payment against.
    const unit = checkoutUnitPrices(price);
    const session = {
      items: [
        {
          product: licence!.productId,
          quantity: kind === 'FIXED' ? price.months : 1,
          pricing: { price: { USD: unit.licence } },
        },
        ...(price.additionalUsers > 0
          ? [
              {
                product: FASTSPRING_PRODUCTS.additionalSeat,
                quantity: price.additionalUsers,
                // A seat of a fixed period is paid for every month of it.
                pricing: { price: { USD: unit.additionalSeat } },
              },
            ]
          : []),
      ],
      tags: { organizationId: String(user.organizationId), startDate: request.startDate },
    };
    const privateKey = this.config.billing.fastspring.privateKey;
    if (!privateKey) return { payload: JSON.stringify(session), key: '' };
    return encryptSecurePayload(session, privateKey);
  }

  /**
   * POST /fastspring/webhook. The signature is checked on the raw bytes before anything is parsed. Each
   * event runs in its own transaction that first records the event id, so a replayed or concurrently
   * duplicated event does nothing the second time; an event that fails rolls back and makes the answer a
   * 500, so FastSpring delivers it again.
   */
  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookResult[]> {
    if (!isWebhookSignatureValid(rawBody, signature, this.config.billing.fastspring.webhookSecret))
      throw unauthorized('Invalid webhook signature.');
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw badRequest('The webhook body is not JSON.');
    }
    const events = parseWebhookBody(body);
    const results: WebhookResult[] = [];
    let failed: unknown;
    for (const event of events) {
      try {
        results.push(await this.processEvent(event));
      } catch (error) {
        this.log.error({ err: error, eventId: event.id, type: event.type }, 'FastSpring event failed');
        failed ??= error;
      }
    }
    if (failed) throw new HttpError(500, 'An event could not be processed; it will be retried.');
    return results;
  }

  private async processEvent(event: FastSpringEvent): Promise<WebhookResult> {
    const after: (() => Promise<void>)[] = [];
    const result = await this.db.transaction().execute(async (db) => {
      const tx: Tx = {
        plans: new BillingPlanRepository(db),
        orders: new OrderRepository(db),
        payments: new PaymentRepository(db),
        subscriptions: new FastSpringSubscriptionRepository(db),
        organizations: new OrganizationRepository(db),
        after,
      };
      const subscription = event.type.startsWith('subscription.') ? eventSubscription(event) : undefined;
      const order = event.type === 'order.completed' ? orderOf(event.data) : chargeOrderOf(event);
      const total = typeof event.data.total === 'number' ? event.data.total : order?.total;
      const payment = await tx.payments.insert({
        source: 'FASTSPRING',
        eventId: event.id,
        eventType: event.type,
        live: event.live,
        fastspringOrderId: order?.id ?? null,
        fastspringSubscriptionId: subscription?.id ?? null,
        amountCents: total === undefined ? null : Math.round(total * 100),
        currency: typeof event.data.currency === 'string' ? event.data.currency : (order?.currency ?? null),
        outcome: 'IGNORED',
        payload: event,
        occurredAt: new Date(event.created),
      });
      if (!payment) return { result: 'DUPLICATE' as const, note: 'This event was processed before.' };
      const outcome =
        event.live || this.config.billing.fastspring.acceptTestEvents
          ? await this.apply(event, tx)
          : ({
              outcome: 'IGNORED',
              note: 'Test event ("live": false): recorded, not applied (FASTSPRING_ACCEPT_TEST_EVENTS is off).',
            } satisfies Outcome);
      await tx.payments.update(payment.id, {
        outcome: outcome.outcome,
        note: outcome.note,
        organizationId: outcome.organizationId ?? null,
        orderId: outcome.orderId ?? null,
      });
      return { result: outcome.outcome, note: outcome.note };
    });
    for (const task of after) await task().catch((err: unknown) => this.log.error({ err }, 'billing notice'));
    return { id: event.id, type: event.type, ...result };
  }

  private apply(event: FastSpringEvent, tx: Tx): Promise<Outcome> {
    switch (event.type) {
      case 'order.completed':
        return this.orderCompleted(event, tx);
      case 'subscription.activated':
        return this.subscriptionActivated(event, tx);
      case 'subscription.charge.completed':
        return this.subscriptionCharged(event, tx);
      case 'subscription.canceled':
      case 'subscription.deactivated':
      case 'subscription.payment.overdue':
        return this.subscriptionStateChanged(event, tx);
      default:
        return Promise.resolve({ outcome: 'IGNORED', note: `Event type ${event.type} is not used.` });
    }
  }

  /** order.completed: a fixed period becomes a ONE_TIME_PAYMENT plan; a subscription order starts its plan. */
  private async orderCompleted(event: FastSpringEvent, tx: Tx): Promise<Outcome> {
    const order = orderOf(event.data);
    if (!order) return { outcome: 'IGNORED', note: 'The order has no id.' };
    const licence = order.items.find((item) => LICENCE_PRODUCTS.includes(item.product));
    if (!licence) return { outcome: 'IGNORED', note: 'The order holds no OSINT licence.' };
    const organization = await this.organizationOf(tx, order.tags.organizationId);
    if (!organization) return { outcome: 'IGNORED', note: 'The order names no known organization.' };
    const seats = seatsOf(order.items);
    const eventAt = new Date(event.created);
    const kind = licence.product === FASTSPRING_PRODUCTS.fixed ? 'FIXED' : 'MONTHLY';
    const price = computePrice({ kind, users: seats, months: licence.quantity });
    const mismatch = paymentMismatch(order, price, `${price.months} month(s), ${price.users} user(s)`);
    if (mismatch) return { organizationId: organization.id, outcome: 'FAILED', note: mismatch };
    // Orders of one organization are placed one at a time: each sees the plans the one before it added.
    await tx.organizations.lockForBilling(organization.id);
    const chosen = effectiveStartDate(order.tags.startDate, eventAt);
    // An order applied before (the same order in a new event) keeps what it got the first time.
    const placement = (await tx.orders.findByFastSpringOrderId(order.id))
      ? { start: chosen, moved: undefined }
      : await this.placeCardOrder(
          tx,
          organization.id,
          kind,
          chosen,
          price.months,
          licence.subscription,
          eventAt,
        );
    if ('refused' in placement)
      return { organizationId: organization.id, outcome: 'FAILED', note: placement.refused };
    const { start, moved } = placement;

    const inserted = await tx.orders.insert({
      organizationId: organization.id,
      createdBy: null,
      paymentMethod: 'CARD',
      planKind: kind,
      status: 'COMPLETED',
      startDate: startOfUtcDay(start),
      endDate: startOfUtcDay(planEndDate(kind, start, price.months)),
      months: price.months,
      seatLimit: price.users,
      basePrice: price.basePrice,
      additionalUserFee: price.additionalUserFee,
      discount: price.discount,
      amount: price.total,
      ...(order.currency ? { currency: order.currency } : {}),
      organizationName: organization.name,
      fastspringOrderId: order.id,
      ...(order.reference ? { fastspringReference: order.reference } : {}),
      paidAt: eventAt,
    });
    const row = inserted ?? (await tx.orders.findByFastSpringOrderId(order.id));
    const base = { organizationId: organization.id, orderId: row?.id ?? null };

    if (kind === 'FIXED') {
      const plan = await tx.plans.insertPaid({
        organizationId: organization.id,
        planType: 'ONE_TIME_PAYMENT',
        startDate: startOfUtcDay(start),
        endDate: startOfUtcDay(planEndDate('FIXED', start, price.months)),
        seatLimit: price.users,
        orderId: row!.id,
      });
      if (!plan) return { ...base, outcome: 'IGNORED', note: `Order ${order.id} already has its plan.` };
      return {
        ...base,
        outcome: 'PROCESSED',
        note: `Fixed period ${start} → ${utcIsoDate(plan.end_date)}, ${plan.seat_limit} seats.${moved ? ` ${moved}` : ''}`,
      };
    }
    if (!licence.subscription)
      return {
        ...base,
        outcome: 'PROCESSED',
        note: 'Subscription order recorded; the plan follows its activation.',
      };
    // This correctly priced order is the subscription's initial order: the plan starts here, whether the
    // activation came first (it found no paid order and left the plan to this event) or comes next.
    const { plan, created } = await this.ensureSubscriptionPlan(tx, {
      subscriptionId: licence.subscription,
      organizationId: organization.id,
      initialOrderId: order.id,
      startDate: order.tags.startDate,
      begin: eventAt,
      next: undefined,
      eventAt,
    });
    return {
      ...base,
      outcome: 'PROCESSED',
      note: plan
        ? `Subscription ${licence.subscription} ${created ? 'started' : 'already running'} until ${plan.end_date.toISOString()}.`
        : `Subscription ${licence.subscription} was deactivated before it started.`,
    };
  }

  /**
   * Where the plan of a new card order goes among the organization's paid plans (`placeAmongPaidPlans`).
   * Where it cannot go, the money is taken all the same: no plan is made and the payment is FAILED for an
   * admin to review (refund, or grant a plan by hand), as a payment that does not match its price is, and
   * it stays in Admin → Payments with its amount. No order is made either, so a subscription's activation
   * and renewals find no paid initial order and add no plan later (its renewals are left FAILED for review
   * as well). `moved` says what was moved and why; `refused` is the payment's note.
   */
  private async placeCardOrder(
    tx: Tx,
    organizationId: number,
    kind: 'FIXED' | 'MONTHLY',
    chosen: string,
    months: number,
    subscriptionId: string | undefined,
    eventAt: Date,
  ): Promise<{ start: string; moved: string | undefined } | { refused: string }> {
    const placement = await placeAmongPaidPlans(tx.plans, organizationId, kind, chosen, months, eventAt);
    if (!('overlapping' in placement)) return placement;
    const what = kind === 'FIXED' ? 'this fixed period' : 'this subscription';
    return {
      refused: `The organization already has a paid plan in force or to come (${placement.overlapping}) that ${what} would overlap. No plan was created: review this payment (refund it${subscriptionId ? `, and cancel subscription ${subscriptionId} in FastSpring` : ''}, or create the plan by hand).`,
    };
  }

  private async subscriptionActivated(event: FastSpringEvent, tx: Tx): Promise<Outcome> {
    const subscription = eventSubscription(event);
    if (!subscription) return { outcome: 'IGNORED', note: 'The subscription has no id.' };
    const context = await this.subscriptionContext(tx, subscription);
    if ('ignored' in context) return { outcome: 'IGNORED', note: context.ignored };
    const eventAt = new Date(event.created);
    const { plan, created, unpaid } = await this.ensureSubscriptionPlan(tx, {
      subscriptionId: subscription.id,
      organizationId: context.organizationId,
      initialOrderId: subscription.initialOrderId,
      startDate: context.startDate,
      begin: subscription.begin ? new Date(subscription.begin) : eventAt,
      next: subscription.next ? new Date(subscription.next) : undefined,
      eventAt,
    });
    if (unpaid) return { organizationId: context.organizationId, outcome: 'IGNORED', note: unpaid };
    if (plan?.ended_at)
      return {
        organizationId: context.organizationId,
        outcome: 'IGNORED',
        note: `${endedByAdmin(plan)} The activation extends nothing.`,
      };
    return {
      organizationId: context.organizationId,
      outcome: 'PROCESSED',
      note: plan
        ? `Subscription ${subscription.id} ${created ? 'activated' : 'confirmed'}: plan until ${plan.end_date.toISOString()}.`
        : `Subscription ${subscription.id} was deactivated before it started.`,
    };
  }

  /**
   * A renewal: one more month, once per charge order (the initial order is not a renewal), for the seats
   * the charge paid for. The amount is checked against those seats before anything changes.
   */
  private async subscriptionCharged(event: FastSpringEvent, tx: Tx): Promise<Outcome> {
    const status = event.data.status;
    if (typeof status === 'string' && status !== 'successful')
      return { outcome: 'IGNORED', note: `Charge status ${status}.` };
    const subscription = eventSubscription(event);
    if (!subscription) return { outcome: 'IGNORED', note: 'The charge names no subscription.' };
    const charge = chargeOrderOf(event);
    const context = await this.subscriptionContext(tx, subscription, charge?.tags);
    if ('ignored' in context) return { outcome: 'IGNORED', note: context.ignored };
    const eventAt = new Date(event.created);
    const next = subscription.next ? new Date(subscription.next) : undefined;
    const { plan, row, unpaid } = await this.ensureSubscriptionPlan(tx, {
      subscriptionId: subscription.id,
      organizationId: context.organizationId,
      initialOrderId: subscription.initialOrderId,
      startDate: context.startDate,
      begin: subscription.begin ? new Date(subscription.begin) : eventAt,
      next: undefined,
      eventAt,
    });
    const base = { organizationId: context.organizationId };
    // FastSpring does not order its deliveries, and retries a failed one later: a renewal charged before
    // the deactivation may arrive after it, and still paid for its month (within what the deactivation
    // left of it).
    const deactivatedAt =
      row.state === 'DEACTIVATED' ? (row.deactivated_at ?? row.state_changed_at) : undefined;
    const initial = !charge || charge.id === subscription.initialOrderId;
    if (!plan) {
      if (initial || !unpaid) return { ...base, outcome: 'IGNORED', note: unpaid ?? 'No plan to renew.' };
      // A renewal before its initial order.completed (events arrive in any order): rolled back and
      // answered 500, so FastSpring delivers it again once that order has started the plan.
      if (
        subscription.initialOrderId &&
        (await tx.payments.findByFastSpringOrderId(subscription.initialOrderId)).length === 0
      )
        throw new Error(
          `Renewal ${charge.id} of subscription ${subscription.id} came before its initial order ${subscription.initialOrderId}; it will be delivered again.`,
        );
      // The initial order was refused (a wrong amount, a test event): the money of this renewal buys
      // nothing, so it is left for an admin to review, like a payment that does not match its price.
      return {
        ...base,
        outcome: 'FAILED',
        note: `${unpaid} This renewal extends nothing: review this payment (refund it, and cancel subscription ${subscription.id} in FastSpring).`,
      };
    }
    if (initial)
      return { ...base, outcome: 'PROCESSED', note: 'Initial charge: the first period is the plan itself.' };
    // FastSpring does not know that an admin ended the plan and keeps charging: the money paid for a month
    // that is not granted, so, like a payment that does not match its price, it is left FAILED for an
    // admin to review (refund it, cancel the subscription in FastSpring), and no order is made.
    if (plan.ended_at)
      return {
        ...base,
        outcome: 'FAILED',
        note: `${endedByAdmin(plan)} This renewal extends nothing: review this payment (refund it, and cancel subscription ${subscription.id} in FastSpring).`,
      };
    // A deactivated subscription is not charged again; money taken after it buys nothing and, like a
    // payment that does not match its price, is left for an admin to review.
    if (deactivatedAt && eventAt >= deactivatedAt)
      return {
        ...base,
        outcome: 'FAILED',
        note: `Charged after subscription ${subscription.id} was deactivated on ${deactivatedAt.toISOString()}: this renewal extends nothing; review this payment (refund it).`,
      };

    // The seats this charge pays for: the add-on quantity it carries (seats changed in FastSpring since
    // the last period), else the plan's.
    const seats = context.addonSeats ?? plan.seat_limit;
    const periodStart = plan.end_date;
    // FastSpring's paid-through date after this charge: its next charge date, else one month more.
    const chargedThrough =
      next ?? (row.charged_through ? addMonthsToInstant(row.charged_through, 1) : undefined);
    // Each renewal pays for one month of the plan, whatever order the renewals arrive in; the plan's end is
    // not set to FastSpring's next charge date, which an older renewal arriving late would add a month to.
    const renewedEnd = addMonthsToInstant(plan.end_date, 1);
    const newEnd = deactivatedAt
      ? maxDate(
          plan.end_date,
          endAfterDeactivation(
            { start: plan.start_date, end: renewedEnd },
            deactivatedAt,
            chargedThrough && row.charged_through
              ? maxDate(chargedThrough, row.charged_through)
              : chargedThrough,
          ),
        )
      : renewedEnd;
    const price = computePrice({ kind: 'MONTHLY', users: seats });
    const paid = {
      ...charge,
      total: typeof event.data.total === 'number' ? event.data.total : charge.total,
      currency: typeof event.data.currency === 'string' ? event.data.currency : charge.currency,
      tax: typeof event.data.tax === 'number' ? event.data.tax : charge.tax,
    };
    const mismatch = paymentMismatch(paid, price, `1 month, ${price.users} user(s)`);
    if (mismatch) return { ...base, outcome: 'FAILED', note: mismatch };
    const organization = await tx.organizations.findById(context.organizationId);
    const inserted = await tx.orders.insert({
      organizationId: context.organizationId,
      createdBy: null,
      paymentMethod: 'CARD',
      planKind: 'MONTHLY',
      status: 'COMPLETED',
      startDate: periodStart,
      endDate: newEnd,
      months: 1,
      seatLimit: price.users,
      basePrice: price.basePrice,
      additionalUserFee: price.additionalUserFee,
      discount: price.discount,
      amount: price.total,
      organizationName: organization?.name ?? '',
      fastspringOrderId: charge.id,
      ...(charge.reference ? { fastspringReference: charge.reference } : {}),
      paidAt: eventAt,
    });
    if (!inserted)
      return { ...base, outcome: 'IGNORED', note: `Charge order ${charge.id} was applied before.` };
    // A charge older than the subscription's last state change, or than a renewal already applied (its
    // next charge date is not the latest), does not set its seats: it is a late delivery.
    const latest = !next || !row.charged_through || next >= row.charged_through;
    const resize = price.users !== plan.seat_limit && latest && eventAt >= row.state_changed_at;
    const changes = { endDate: newEnd, ...(resize ? { seatLimit: price.users } : {}) };
    // An admin who ended the plan after it was read above wins; rolling back makes FastSpring deliver the
    // charge again, and the redelivery records it for review.
    if (!(await tx.plans.updatePeriod(plan.id, changes)))
      throw new Error(`Plan ${plan.id} was ended while charge order ${charge.id} was applied.`);
    await tx.subscriptions.update(subscription.id, {
      paidThrough: newEnd,
      ...(chargedThrough ? { chargedThrough } : {}),
      ...changes,
    });
    return {
      ...base,
      orderId: inserted.id,
      outcome: 'PROCESSED',
      note: `Renewed until ${newEnd.toISOString()}${resize ? `, ${price.users} seats` : ''}.`,
    };
  }

  /**
   * canceled (no renewal; the paid period continues), payment.overdue (FastSpring retries; the owner is
   * told), deactivated (the plan ends, keeping what was paid for up to the deactivation). Events older
   * than the last state change do not change the state, and a deactivated subscription stays deactivated.
   */
  private async subscriptionStateChanged(event: FastSpringEvent, tx: Tx): Promise<Outcome> {
    const subscription = eventSubscription(event);
    if (!subscription) return { outcome: 'IGNORED', note: 'The event names no subscription.' };
    const context = await this.subscriptionContext(tx, subscription);
    if ('ignored' in context) return { outcome: 'IGNORED', note: context.ignored };
    const eventAt = new Date(event.created);
    const row = await tx.subscriptions.lockOrCreate({
      id: subscription.id,
      organizationId: context.organizationId,
      product: FASTSPRING_PRODUCTS.monthly,
      seatLimit: context.seats ?? 1,
      stateChangedAt: new Date(0),
    });
    const base = { organizationId: context.organizationId };
    if (row.state === 'DEACTIVATED')
      return { ...base, outcome: 'IGNORED', note: 'The subscription is already deactivated.' };

    if (event.type === 'subscription.deactivated') {
      const deactivatedAt = subscription.deactivationDate
        ? minDate(new Date(subscription.deactivationDate), eventAt)
        : eventAt;
      await tx.subscriptions.update(subscription.id, {
        state: 'DEACTIVATED',
        stateChangedAt: maxDate(eventAt, row.state_changed_at),
        deactivatedAt,
      });
      const plan = await tx.plans.findBySubscriptionId(subscription.id);
      // A plan an admin ended keeps the admin's end (updatePeriod would not move it); its card subscription
      // is now known to be cancelled, whether the platform's job or someone in FastSpring's app did it.
      if (plan?.ended_at) await tx.plans.recordSubscriptionCancel(plan.id, { cancelledAt: deactivatedAt });
      if (plan && !plan.ended_at) {
        // Only what the deactivation cut off FastSpring's paid period comes off the plan: a plan starting
        // after the payment keeps every month paid for when the subscription ends with its period.
        const end = endAfterDeactivation(
          { start: plan.start_date, end: plan.end_date },
          deactivatedAt,
          row.charged_through,
        );
        if (end < plan.end_date && (await tx.plans.updatePeriod(plan.id, { endDate: end })))
          return { ...base, outcome: 'PROCESSED', note: `Deactivated: plan ends ${end.toISOString()}.` };
      }
      return { ...base, outcome: 'PROCESSED', note: 'Deactivated.' };
    }

    if (eventAt < row.state_changed_at)
      return { ...base, outcome: 'IGNORED', note: `Older than the last state change (${row.state}).` };
    const state = event.type === 'subscription.canceled' ? 'CANCELED' : 'OVERDUE';
    await tx.subscriptions.update(subscription.id, { state, stateChangedAt: eventAt });
    if (state === 'OVERDUE') {
      const organizationId = context.organizationId;
      tx.after.push(async () => {
        for (const to of await this.seats.findOwnerEmails(organizationId))
          await this.mail.send(
            to,
            mailTemplates.paymentOverdue(`${this.config.publicUrl}/pricing`),
            organizationId,
          );
      });
    }
    return {
      ...base,
      outcome: 'PROCESSED',
      note:
        state === 'CANCELED'
          ? 'Canceled: no renewal; access continues until the end of the paid period.'
          : 'Payment overdue: the owner was told; access continues until the end of the paid period.',
    };
  }

  /**
   * Where a subscription event belongs: the subscription already known, else its initial order, else its
   * own tags or those of its charge. Tags come from the checkout session the browser hands to FastSpring
   * (plain JSON when no private key is configured), so once the subscription is tied to an organization a
   * later event's tags never move it, or its charges, to another. `addonSeats` are the seats of the
   * additional-seat add-on when the event carries it; `seats` fall back to the initial order's.
   */
  private async subscriptionContext(
    tx: Tx,
    subscription: FsSubscription,
    extraTags: Record<string, string> = {},
  ): Promise<
    | {
        organizationId: number;
        seats: number | undefined;
        addonSeats: number | undefined;
        startDate: string | undefined;
      }
    | { ignored: string }
  > {
    if (subscription.product && subscription.product !== FASTSPRING_PRODUCTS.monthly)
      return { ignored: `Product ${subscription.product} is not the OSINT subscription.` };
    const tags = { ...extraTags, ...subscription.tags };
    const known = await tx.subscriptions.findById(subscription.id);
    const initialOrder = subscription.initialOrderId
      ? await tx.orders.findByFastSpringOrderId(subscription.initialOrderId)
      : undefined;
    const organization =
      (known?.organization_id ? await tx.organizations.findById(known.organization_id) : undefined) ??
      (initialOrder?.organization_id
        ? await tx.organizations.findById(initialOrder.organization_id)
        : undefined) ??
      (await this.organizationOf(tx, tags.organizationId));
    if (!organization) return { ignored: 'The subscription names no known organization.' };
    const extraSeats = subscription.addons
      .filter((addon) => addon.product === FASTSPRING_PRODUCTS.additionalSeat)
      .reduce((sum, addon) => sum + addon.quantity, 0);
    const addonSeats = subscription.addons.length > 0 ? normalizeUserCount(1 + extraSeats) : undefined;
    const seats = addonSeats ?? initialOrder?.seat_limit;
    const startDate = tags.startDate ?? (initialOrder ? utcIsoDate(initialOrder.start_date) : undefined);
    return { organizationId: organization.id, seats, addonSeats, startDate };
  }

  /**
   * The SUBSCRIPTION plan of a FastSpring subscription, created once (the subscription row is locked for
   * the transaction, and the plan has a unique index on the subscription id), and only for a subscription
   * that was paid for: its initial order must be stored as a COMPLETED card order of the organization,
   * which order.completed does only when the amount matched the price. The plan has the seats that order
   * paid for (a later seat change comes with the renewal charge that pays for it). Without that order
   * there is no plan, and `unpaid` says why; FastSpring's next charge date is kept for the plan that the
   * order's own event then starts. The first period runs from the chosen start date (or the payment) for
   * one month, or to FastSpring's next charge date if later.
   */
  private async ensureSubscriptionPlan(
    tx: Tx,
    args: {
      subscriptionId: string;
      organizationId: number;
      initialOrderId: string | undefined;
      startDate: string | undefined;
      begin: Date;
      next: Date | undefined;
      eventAt: Date;
    },
  ): Promise<{
    plan: BillingPlanRow | undefined;
    created: boolean;
    row: FastSpringSubscriptionRow;
    unpaid?: string;
  }> {
    const row = await tx.subscriptions.lockOrCreate({
      id: args.subscriptionId,
      organizationId: args.organizationId,
      product: FASTSPRING_PRODUCTS.monthly,
      seatLimit: 1,
      stateChangedAt: new Date(0),
    });
    // FastSpring's own paid-through date, which a later deactivation is measured against.
    const chargedThrough = args.next
      ? maxDate(row.charged_through ?? args.next, args.next)
      : row.charged_through;
    if (args.next) await tx.subscriptions.update(args.subscriptionId, { chargedThrough: args.next });
    const existing = await tx.plans.findBySubscriptionId(args.subscriptionId);
    if (existing) {
      // Neither a deactivated subscription nor a plan an admin ended is extended: FastSpring's dates are
      // not told about the admin's end, and would otherwise restore access.
      if (row.state !== 'DEACTIVATED' && !existing.ended_at && args.next && args.next > existing.end_date) {
        // Ended by an admin since it was read: roll back, and the redelivered event finds it ended.
        if (!(await tx.plans.updatePeriod(existing.id, { endDate: args.next })))
          throw new Error(
            `Plan ${existing.id} was ended while subscription ${args.subscriptionId} was applied.`,
          );
        await tx.subscriptions.update(args.subscriptionId, { paidThrough: args.next });
        return { plan: { ...existing, end_date: args.next }, created: false, row };
      }
      return { plan: existing, created: false, row };
    }
    // Read under the subscription's lock: an order.completed committed meanwhile is seen here, and one
    // still running waits for the lock and then starts the plan itself.
    const paid = args.initialOrderId
      ? await tx.orders.findByFastSpringOrderId(args.initialOrderId)
      : undefined;
    const paidFor =
      paid?.status === 'COMPLETED' &&
      paid.payment_method === 'CARD' &&
      paid.plan_kind === 'MONTHLY' &&
      paid.organization_id === args.organizationId;
    if (!paid || !paidFor) {
      if (args.next) await tx.subscriptions.update(args.subscriptionId, { paidThrough: args.next });
      return {
        plan: undefined,
        created: false,
        row,
        unpaid: args.initialOrderId
          ? `No plan: the initial order ${args.initialOrderId} of subscription ${args.subscriptionId} is not a completed payment at its price (yet). Its order.completed starts the plan when the amount matches.`
          : `No plan: subscription ${args.subscriptionId} names no initial order, so its payment cannot be checked.`,
      };
    }
    const chosenStart =
      args.startDate && isIsoDate(args.startDate) ? startOfUtcDay(args.startDate) : undefined;
    const start = chosenStart && chosenStart > args.begin ? chosenStart : args.begin;
    // The next charge date of this event, or the one an activation reported before its order arrived.
    const next = args.next ?? row.paid_through ?? undefined;
    let end = addMonthsToInstant(start, 1);
    if (next && next > end) end = next;
    if (row.state === 'DEACTIVATED' && row.deactivated_at)
      end = endAfterDeactivation({ start, end }, row.deactivated_at, chargedThrough);
    if (end <= start) return { plan: undefined, created: false, row };
    const seats = normalizeUserCount(paid.seat_limit);
    const plan =
      (await tx.plans.insertPaid({
        organizationId: args.organizationId,
        planType: 'SUBSCRIPTION',
        startDate: start,
        endDate: end,
        seatLimit: seats,
        subscriptionId: args.subscriptionId,
      })) ?? (await tx.plans.findBySubscriptionId(args.subscriptionId));
    if (plan) {
      if (plan.start_date <= args.eventAt) await tx.plans.markNotified(plan.id, 'activation', args.eventAt);
      await tx.subscriptions.update(args.subscriptionId, {
        billingPlanId: plan.id,
        paidThrough: plan.end_date,
        seatLimit: seats,
      });
    }
    return { plan, created: true, row };
  }

  private async organizationOf(tx: Tx, tag: string | undefined) {
    if (!tag || !/^\d{1,9}$/.test(tag)) return undefined;
    return tx.organizations.findById(Number(tag));
  }
}

/**
 * Why a paid order does not match its price, or undefined when it does. FastSpring adds sales tax on top
 * of our prices (it is the merchant of record), so the amount compared is the total without the tax; a
 * discount, another currency or a tampered checkout all show up here. A mismatch creates no plan: the
 * payment is recorded as FAILED for an admin to review in Admin → Payments.
 */
function paymentMismatch(order: FsOrder, price: PriceBreakdown, what: string): string | undefined {
  if (order.total === undefined)
    return `The payment carries no total; ${what} cost ${price.total} ${price.currency}.`;
  const paid = Math.round((order.total - (order.tax ?? 0)) * 100);
  const currency = order.currency?.toUpperCase();
  if (currency === price.currency && paid === price.total * 100) return undefined;
  return `Amount mismatch: paid ${(paid / 100).toFixed(2)} ${currency ?? '(no currency)'} before tax, but ${what} cost ${price.total.toFixed(2)} ${price.currency}. No plan was created: review this payment.`;
}

/** What a payment's note says of a plan an admin ended early (its end and the admin's reason). */
function endedByAdmin(plan: BillingPlanRow): string {
  return `Plan ${plan.id} was ended by an admin on ${plan.ended_at!.toISOString()} (${plan.end_reason ?? 'no reason given'}).`;
}

/** 1 + the additional seats of an order, within 1–100. */
function seatsOf(items: FsItem[]): number {
  const extra = items
    .filter((item) => item.product === FASTSPRING_PRODUCTS.additionalSeat)
    .reduce((sum, item) => sum + item.quantity, 0);
  return normalizeUserCount(1 + extra);
}
