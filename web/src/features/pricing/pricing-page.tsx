import { TRIAL_DAYS } from '@osint/contract/constants';
import { formatDay } from '@osint/contract/dates';
import {
  ADDITIONAL_USER_PRICE_USD,
  ANNUAL_DISCOUNT_PERCENT,
  ANNUAL_MONTHS,
  BASE_PRICE_USD,
  BILLING_MESSAGES,
  utcIsoDate,
} from '@osint/contract/pricing';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { useSession } from '../../lib/session.tsx';
import { PlanChooser } from './plan-chooser.tsx';
import { PlanExtension, type Extension } from './plan-extension.tsx';
import { PlanSummary, summaryOf } from './plan-summary.tsx';
import {
  billingPlanInfo,
  ORDERS_KEY,
  PLANS_KEY,
  useCheckoutConfig,
  useOrders,
  usePlans,
} from './pricing-api.ts';
import './pricing.css';

/** After a card purchase the webhook creates the plan; the page looks again for this long. */
const CARD_POLL_MS = 3_000;
const CARD_POLL_FOR_MS = 120_000;

/** /pricing (owners): the plan chooser, or the order summary once a paid plan or an order exists. */
export function PricingPage() {
  const { session, refresh } = useSession();
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const isOwner = session?.user.isOwner ?? false;
  const plans = usePlans();
  const orders = useOrders(isOwner);
  const config = useCheckoutConfig();
  const [renewing, setRenewing] = useState(false);
  const [extension, setExtension] = useState<Extension>();
  const [awaitingCardSince, setAwaitingCardSince] = useState<number>();

  useEffect(() => {
    // Spec 001 §8: plan and order fetch failures are logged only.
    if (plans.error) console.error('Billing plans could not be loaded', plans.error);
    if (orders.error) console.error('Orders could not be loaded', orders.error);
  }, [plans.error, orders.error]);

  const info = billingPlanInfo(plans.data, orders.data);
  const view = summaryOf(info);
  const paid = info.hasActivePaidPlan || info.futureBillingPlan !== null;

  const polling = awaitingCardSince !== undefined && !paid;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: PLANS_KEY });
      void queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
    }, CARD_POLL_MS);
    const stop = setTimeout(() => setAwaitingCardSince(undefined), CARD_POLL_FOR_MS);
    return () => {
      clearInterval(timer);
      clearTimeout(stop);
    };
  }, [polling, queryClient]);

  const onPurchased = useCallback(
    (how: 'bank' | 'card') => {
      setRenewing(false);
      void refresh();
      void queryClient.invalidateQueries({ queryKey: PLANS_KEY });
      void queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
      if (how === 'card') {
        setAwaitingCardSince(Date.now());
        showBanner({
          message: 'Thank you for your payment.',
          additionalMessage:
            'Your plan activates as soon as our payment provider confirms it, usually within a minute.',
          type: 'success',
        });
      }
    },
    [queryClient, refresh, showBanner],
  );

  if (!session) return null;
  const trial = info.hasActiveTrialPlan ? info.activeBillingPlan : null;
  // Renew and Add users extend a fixed period in force (a subscription renews itself).
  const active = info.activeBillingPlan;
  const fixedInForce =
    active && (active.planType === 'ONE_TIME_PAYMENT' || active.planType === 'VIRTUAL') ? active : null;
  // A renewal starts where the paid plans end: the plan in force, or a renewal already paid for.
  const paidEnds = [active, info.futureBillingPlan]
    .filter((plan) => plan !== null && plan.planType !== 'TRIAL')
    .map((plan) => Date.parse(plan!.endDate));
  const renewFrom = paidEnds.length > 0 ? utcIsoDate(new Date(Math.max(...paidEnds))) : undefined;
  const refreshBilling = () => {
    void refresh();
    void queryClient.invalidateQueries({ queryKey: PLANS_KEY });
    void queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
  };

  return (
    <section className="container page pricing-page" aria-labelledby="pricing-title">
      <header className="pricing-page__header">
        <p className="page__eyebrow" dir="auto">
          {session.organization.name}
        </p>
        <h1 className="page__title" id="pricing-title">
          Select plan
        </h1>
        <p className="page__lead">
          One licence for your organization: {BASE_PRICE_USD} USD per month with the first user included,{' '}
          {ADDITIONAL_USER_PRICE_USD} USD per month for every additional user.{' '}
          {config.data?.configured === false
            ? 'Pay once for a fixed period by bank transfer'
            : 'Pay monthly by card, or once for a fixed period by card or bank transfer'}
          ; annual ({ANNUAL_MONTHS} months) is {ANNUAL_DISCOUNT_PERCENT}% cheaper.
        </p>
      </header>

      {!isOwner ? (
        <div className="card pricing-note">
          <h2 className="pricing-section-title">Plans are managed by your account owner</h2>
          <p>
            Only the owner of your organization’s account can buy or renew a plan. Please contact them for
            access.
          </p>
          <Link className="btn btn-secondary" to="/support">
            Contact Support
          </Link>
        </div>
      ) : plans.isPending || (isOwner && orders.isPending) ? (
        <LoadingPlaceholder />
      ) : (
        <>
          {trial && (
            <p className="pricing-trial" role="status">
              You are on the {TRIAL_DAYS}-day free trial until{' '}
              <strong>{formatDay(trial.endDate.slice(0, 10))}</strong>. During the trial, viewing the original
              sources of results is reserved for subscribers.
            </p>
          )}
          {polling && (
            <p className="pricing-trial pricing-trial--waiting" role="status">
              <span className="spinner" aria-hidden="true" /> Waiting for the payment confirmation…
            </p>
          )}
          {view && !(view.status === 'EXPIRED' && renewing) ? (
            <PlanSummary
              info={info}
              view={view}
              roleLabel={session.user.userRole === 'OWNER' ? 'Owner' : 'User'}
              onRenew={() => setRenewing(true)}
              onExtend={fixedInForce && view.status === 'ACTIVE' ? setExtension : undefined}
              onCancelled={() => {
                refreshBilling();
                showBanner({ message: BILLING_MESSAGES.orderCancelled, type: 'success' });
              }}
            />
          ) : (
            <PlanChooser
              organizationId={session.organization.organizationId}
              organizationName={session.organization.name}
              config={config.data}
              onPurchased={onPurchased}
            />
          )}
          {extension && fixedInForce && renewFrom && !info.pendingOrder && (
            <PlanExtension
              key={extension}
              extension={extension}
              plan={fixedInForce}
              renewFrom={renewFrom}
              organizationName={session.organization.name}
              bank={config.data?.bank}
              onDone={(ordered) => {
                setExtension(undefined);
                if (ordered) refreshBilling();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}
