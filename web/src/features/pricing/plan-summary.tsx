import { formatDay } from '@osint/contract/dates';
import {
  ANNUAL_DISCOUNT_LABEL,
  BILLING_MESSAGES,
  formatUsd,
  monthsLabel,
  PLAN_TYPE_LABELS,
  type BillingPlanDto,
  type OrderDto,
} from '@osint/contract/pricing';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import type { BillingPlanInfo } from './pricing-api.ts';
import { cancelOrder, downloadInvoice, invoiceDownloadMessage } from './pricing-api.ts';
import type { Extension } from './plan-extension.tsx';
import { saveFile } from '../../lib/save-file.ts';

export type SubscriptionStatus = 'ACTIVE' | 'PAYMENT_CONFIRMED' | 'PAYMENT_PENDING' | 'EXPIRED';

interface SummaryView {
  status: SubscriptionStatus;
  planType: string;
  startDate: string;
  endDate: string;
  months: number;
  seats: string;
  amount?: number;
  discount?: number;
}

const STATUS_BADGES: Record<SubscriptionStatus, { label: string; tone: string }> = {
  ACTIVE: { label: 'Active', tone: 'success' },
  PAYMENT_CONFIRMED: { label: 'APPROVED', tone: 'info' },
  PAYMENT_PENDING: { label: 'CONFIRMING', tone: 'warning' },
  EXPIRED: { label: 'Expired', tone: 'danger' },
};

const day = (iso: string) => formatDay(iso.slice(0, 10));

function fromPlan(plan: BillingPlanDto, status: SubscriptionStatus): SummaryView {
  return {
    status,
    planType: PLAN_TYPE_LABELS[plan.planType],
    startDate: day(plan.startDate),
    endDate: day(plan.endDate),
    months: plan.periodMonths,
    seats: `${plan.usedSeats} / ${plan.seatLimit}`,
  };
}

function fromOrder(order: OrderDto): SummaryView {
  return {
    status: 'PAYMENT_PENDING',
    // Spec 001 §2: a pending order is shown as ONE_TIME_PAYMENT.
    planType: PLAN_TYPE_LABELS.ONE_TIME_PAYMENT,
    startDate: formatDay(order.startDate),
    endDate: formatDay(order.endDate),
    months: order.months,
    seats: String(order.seatLimit),
    amount: order.amount,
    discount: order.discount,
  };
}

/**
 * What the order summary shows (spec 001 §2): the active non-trial plan first, else the future plan, else
 * the pending order, else an expired paid plan; undefined when the chooser is shown instead.
 */
export function summaryOf(info: BillingPlanInfo): SummaryView | undefined {
  if (info.hasActivePaidPlan) return fromPlan(info.activeBillingPlan!, 'ACTIVE');
  if (info.futureBillingPlan) return fromPlan(info.futureBillingPlan, 'PAYMENT_CONFIRMED');
  if (info.pendingOrder) return fromOrder(info.pendingOrder);
  if (!info.hasActivePlan && info.expiredBillingPlan && info.expiredBillingPlan.planType !== 'TRIAL')
    return fromPlan(info.expiredBillingPlan, 'EXPIRED');
  return undefined;
}

interface PlanSummaryProps {
  info: BillingPlanInfo;
  view: SummaryView;
  roleLabel: string;
  onRenew: () => void;
  /** Renew or add users to the fixed period in force; undefined when that is not offered. */
  onExtend: ((extension: Extension) => void) | undefined;
  /** The pending order was cancelled. */
  onCancelled: () => void;
}

/** Spec 001 §2 "Order summary": status badge, plan, period, seats, and what to do next. */
export function PlanSummary({ info, view, roleLabel, onRenew, onExtend, onCancelled }: PlanSummaryProps) {
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string>();
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<string>();
  const pending = info.pendingOrder;
  const download = async () => {
    if (!pending) return;
    setDownloading(true);
    setDownloadError(undefined);
    try {
      const file = await downloadInvoice(pending.id);
      saveFile(file.blob, file.fileName);
    } catch (error) {
      setDownloadError(invoiceDownloadMessage(error));
    } finally {
      setDownloading(false);
    }
  };
  const cancel = async () => {
    if (!pending) return;
    setCancelling(true);
    setCancelError(undefined);
    try {
      await cancelOrder(pending.id);
      setConfirmingCancel(false);
      onCancelled();
    } catch (error) {
      setCancelError(error instanceof Error ? error.message : 'The order could not be cancelled.');
    } finally {
      setCancelling(false);
    }
  };
  const badge = STATUS_BADGES[view.status];
  return (
    <section className="card pricing-summary" aria-labelledby="pricing-summary-title">
      <header className="pricing-summary__header">
        <div>
          <p className="page__eyebrow">Order summary</p>
          <h2 className="pricing-summary__title" id="pricing-summary-title">
            {view.planType}
          </h2>
        </div>
        <div className="pricing-summary__badges">
          <span className={`badge badge--${badge.tone}`} data-testid="subscription-status">
            {badge.label}
          </span>
          {view.status === 'ACTIVE' && <span className="badge">{roleLabel}</span>}
        </div>
      </header>

      <dl className="pricing-summary__facts">
        <div>
          <dt>Plan type</dt>
          <dd>{view.planType}</dd>
        </div>
        <div>
          <dt>Period</dt>
          <dd>{monthsLabel(view.months)}</dd>
        </div>
        <div>
          <dt>Dates</dt>
          <dd>
            {view.startDate} – {view.endDate}
          </dd>
        </div>
        <div>
          <dt>Seats</dt>
          <dd data-testid="seat-usage">{view.seats}</dd>
        </div>
        {view.discount ? (
          <div>
            <dt>{ANNUAL_DISCOUNT_LABEL}</dt>
            <dd>−{formatUsd(view.discount)}</dd>
          </div>
        ) : null}
        {view.amount !== undefined && (
          <div>
            <dt>Total</dt>
            <dd>{formatUsd(view.amount)} USD</dd>
          </div>
        )}
      </dl>

      {pending && (
        <div className="pricing-summary__notice" role="status">
          <p>
            {view.status === 'PAYMENT_PENDING'
              ? BILLING_MESSAGES.awaitingPayment
              : `Order ${pending.orderNumber} (${formatUsd(pending.amount)} USD) is waiting for payment. ${BILLING_MESSAGES.awaitingPayment}`}
          </p>
        </div>
      )}
      {view.status === 'PAYMENT_CONFIRMED' && (
        <p className="pricing-summary__text">
          Your payment is confirmed. The plan starts on {view.startDate}.
        </p>
      )}
      {view.status === 'EXPIRED' && (
        <p className="pricing-summary__text">
          Your plan ended on {view.endDate}. Searches are paused until you renew.
        </p>
      )}

      <div className="pricing-summary__actions">
        {view.status === 'EXPIRED' && <Button onClick={onRenew}>Renew your plan</Button>}
        {onExtend && !pending && (
          <>
            <Button onClick={() => onExtend('RENEW')}>Renew</Button>
            <Button variant="secondary" onClick={() => onExtend('ADD_USERS')}>
              Add users
            </Button>
          </>
        )}
        {pending && (
          <Button variant="secondary" loading={downloading} onClick={() => void download()}>
            Download proforma invoice
          </Button>
        )}
        {pending && (
          <Button variant="secondary" onClick={() => setConfirmingCancel(true)}>
            Cancel order
          </Button>
        )}
        <Link className="btn btn-secondary" to="/support">
          Contact Support
        </Link>
      </div>
      {downloadError && (
        <p className="field__error" role="alert">
          {downloadError}
        </p>
      )}
      {confirmingCancel && pending && (
        <ConfirmDeleteModal
          title="Cancel order"
          text={`Cancel order ${pending.orderNumber} (${formatUsd(pending.amount)} USD)? Do not pay its proforma invoice after cancelling. You can place a new order afterwards.`}
          confirmLabel="Cancel order"
          keepLabel="Keep order"
          busy={cancelling}
          error={cancelError}
          onConfirm={() => void cancel()}
          onClose={() => setConfirmingCancel(false)}
        />
      )}
    </section>
  );
}
