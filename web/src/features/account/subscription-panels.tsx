import { formatDay } from '@osint/contract/dates';
import { PLAN_TYPE_LABELS, formatUsd, monthsLabel } from '@osint/contract/pricing';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { invoiceDownloadMessage } from '../pricing/pricing-api.ts';
import { daysLeft, type PlanFacts, type SubscriptionStatus, type SubscriptionView } from './subscription.ts';

const STATUS_BADGES: Record<SubscriptionStatus, { label: string; tone: string }> = {
  ACTIVE: { label: 'Active', tone: 'success' },
  PAYMENT_CONFIRMED: { label: 'APPROVED', tone: 'info' },
  PAYMENT_PENDING: { label: 'CONFIRMING', tone: 'warning' },
  EXPIRED: { label: 'Expired', tone: 'danger' },
};

function SeatsFact({ used, limit }: { used: number | undefined; limit: number }) {
  return (
    <div className="account-fact">
      <dt>Seats</dt>
      <dd>
        {used === undefined ? '…' : used} / {limit}
      </dd>
    </div>
  );
}

function PlanFactsList({ plan, usedSeats }: { plan: PlanFacts; usedSeats: number | undefined }) {
  return (
    <dl className="account-facts">
      <div className="account-fact">
        <dt>Plan</dt>
        <dd>{PLAN_TYPE_LABELS[plan.planType]}</dd>
      </div>
      <div className="account-fact">
        <dt>Period</dt>
        <dd>
          {formatDay(plan.startDate)} – {formatDay(plan.endDate)}
        </dd>
      </div>
      <div className="account-fact">
        <dt>Length</dt>
        <dd>{monthsLabel(plan.periodMonths)}</dd>
      </div>
      <SeatsFact used={usedSeats} limit={plan.seatLimit} />
    </dl>
  );
}

/** Spec 000 §2: shown to owners while a trial plan is in force. */
export function FreeTrialPanel({ plan, usedSeats }: { plan: PlanFacts; usedSeats: number | undefined }) {
  const left = daysLeft(plan.endDate);
  return (
    <section className="card account-panel account-trial" aria-labelledby="account-trial-title">
      <header className="account-panel__header">
        <div>
          <h2 id="account-trial-title" className="account-panel__title">
            Free Trial
          </h2>
          <p className="account-panel__lead">
            {left === 0 ? 'Your trial ends today' : `${left} ${left === 1 ? 'day' : 'days'} left`} · ends on{' '}
            {formatDay(plan.endDate)}
          </p>
        </div>
        <span className="badge badge--info">{PLAN_TYPE_LABELS.TRIAL}</span>
      </header>
      <dl className="account-facts">
        <div className="account-fact">
          <dt>Started</dt>
          <dd>{formatDay(plan.startDate)}</dd>
        </div>
        <SeatsFact used={usedSeats} limit={plan.seatLimit} />
      </dl>
      <p className="account-note">
        During the trial one user of your organization has access at a time; you can hand the seat to another
        user below. Original image sources are available to subscribers.
      </p>
      <div className="account-actions">
        <Link className="btn btn-primary" to="/pricing">
          Upgrade now
        </Link>
      </div>
    </section>
  );
}

interface SubscriptionPanelProps {
  view: SubscriptionView;
  usedSeats: number | undefined;
  roleLabel: string;
  onDownloadProforma: (orderId: number) => Promise<void>;
}

/** Spec 000 §2 "My Subscription": ACTIVE, APPROVED (future plan), CONFIRMING (pending order), EXPIRED. */
export function SubscriptionPanel({
  view,
  usedSeats,
  roleLabel,
  onDownloadProforma,
}: SubscriptionPanelProps) {
  const badge = STATUS_BADGES[view.status];
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string>();
  const download = async (orderId: number) => {
    setDownloading(true);
    setDownloadError(undefined);
    try {
      await onDownloadProforma(orderId);
    } catch (error) {
      setDownloadError(invoiceDownloadMessage(error));
    } finally {
      setDownloading(false);
    }
  };
  return (
    <section className="card account-panel" aria-labelledby="account-subscription-title">
      <header className="account-panel__header">
        <div>
          <h2 id="account-subscription-title" className="account-panel__title">
            My Subscription
          </h2>
          {view.status === 'PAYMENT_CONFIRMED' && view.plan && (
            <p className="account-panel__lead">Your plan starts on {formatDay(view.plan.startDate)}.</p>
          )}
        </div>
        <div className="account-badges">
          <span className={`badge badge--${badge.tone}`}>{badge.label}</span>
          {view.status === 'ACTIVE' && <span className="badge">{roleLabel}</span>}
        </div>
      </header>

      {view.plan && <PlanFactsList plan={view.plan} usedSeats={usedSeats} />}
      {view.order && (
        <dl className="account-facts">
          <div className="account-fact">
            <dt>Plan</dt>
            <dd>{PLAN_TYPE_LABELS.ONE_TIME_PAYMENT}</dd>
          </div>
          <div className="account-fact">
            <dt>Period</dt>
            <dd>
              {formatDay(view.order.startDate)} – {formatDay(view.order.endDate)}
            </dd>
          </div>
          <div className="account-fact">
            <dt>Length</dt>
            <dd>{monthsLabel(view.order.months)}</dd>
          </div>
          <div className="account-fact">
            <dt>Seats</dt>
            <dd>{view.order.seatLimit}</dd>
          </div>
          <div className="account-fact">
            <dt>Amount</dt>
            <dd>{formatUsd(view.order.amount)}</dd>
          </div>
        </dl>
      )}

      {view.status === 'PAYMENT_PENDING' && (
        <p className="account-note">
          We are waiting for the confirmation of your payment. Your subscription activates automatically once
          the transfer is verified; bank transfers may take 1–5 business days.
        </p>
      )}
      {view.status === 'EXPIRED' && (
        <p className="account-note">
          {view.plan
            ? `Your plan ended on ${formatDay(view.plan.endDate)}. Search is unavailable to your users until you renew.`
            : 'Your organization has no plan in force. Search is unavailable to your users until you renew.'}
        </p>
      )}

      <div className="account-actions">
        {view.status === 'EXPIRED' && (
          <Link className="btn btn-primary" to="/pricing">
            Renew your plan
          </Link>
        )}
        {view.status === 'PAYMENT_PENDING' && view.order && (
          <Button loading={downloading} onClick={() => void download(view.order!.id)}>
            Download proforma invoice
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
    </section>
  );
}
