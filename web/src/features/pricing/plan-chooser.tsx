import { formatDay } from '@osint/contract/dates';
import {
  ADDITIONAL_USER_PRICE_USD,
  ANNUAL_DISCOUNT_LABEL,
  ANNUAL_DISCOUNT_PERCENT,
  ANNUAL_MONTHS,
  BASE_PRICE_USD,
  CHECKOUT_DEBOUNCE_MS,
  computePrice,
  formatUsd,
  localIsoDate,
  MAX_USERS,
  MIN_MONTHS,
  monthsLabel,
  planEndDate,
  productSelections,
  REFUND_DAYS,
  typedUserCount,
  type CheckoutConfig,
  type PlanKind,
} from '@osint/contract/pricing';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { DatePicker } from './date-picker.tsx';
import { PaymentModal } from './payment-modal.tsx';
import { createCheckoutSession } from './pricing-api.ts';
import { openCheckout, pushSession, useStoreBuilder } from './store-builder.ts';
import { MonthsField } from './months-field.tsx';

const BENEFITS = [
  'Unlimited face search',
  'Detect individual names',
  'Criminal detection',
  'Politician detection',
  'Find connections',
  'Generating a PDF report for any search',
  'Team accounts',
];

interface PlanChooserProps {
  organizationId: number;
  organizationName: string;
  config: CheckoutConfig | undefined;
  /** A bank order was placed, or the card popup closed after a purchase. */
  onPurchased: (how: 'bank' | 'card') => void;
}

/** Spec 001 §2 chooser: plan tabs, start date with its end date, months, users, order summary, main button. */
export function PlanChooser({ organizationId, organizationName, config, onPurchased }: PlanChooserProps) {
  const [chosenKind, setKind] = useState<PlanKind>('MONTHLY');
  // Card checkout not configured on the server: fixed periods by bank transfer only, no monthly tab.
  const bankOnly = config?.configured === false;
  const kind: PlanKind = bankOnly ? 'FIXED' : chosenKind;
  const [months, setMonths] = useState(MIN_MONTHS);
  const [users, setUsers] = useState(1);
  const [usersText, setUsersText] = useState('1');
  const [startDate, setStartDate] = useState(() => localIsoDate());
  const [paying, setPaying] = useState(false);
  const [opening, setOpening] = useState(false);
  const ids = useId();

  const price = computePrice({ kind, users, months });
  const endDate = planEndDate(kind, startDate, months);
  const store = useStoreBuilder(config, true);
  // Spec 001 §8: a card script load failure is logged only (useStoreBuilder does), with no message; card
  // checkout is simply not offered. Until the script is there, the card buttons wait.
  const cardFailed = store === 'failed';
  const cardLoading = store === 'loading' || store === 'idle';

  // The selection last handed to the Store Builder, so "Subscribe Now!" pushes again only when it changed.
  const pushed = useRef<{ key: string; done: Promise<void> }>(undefined);
  const push = useCallback(
    (
      selectionKind: PlanKind,
      selectionUsers: number,
      selectionMonths: number,
      start: string,
    ): Promise<void> => {
      const key = JSON.stringify([selectionKind, selectionUsers, selectionMonths, start]);
      if (pushed.current?.key === key) return pushed.current.done;
      const done = createCheckoutSession({
        organizationId,
        startDate: start,
        productSelections: productSelections(selectionKind, selectionUsers, selectionMonths),
      }).then(({ payload, key: secureKey }) => pushSession(payload, secureKey));
      pushed.current = { key, done };
      done.catch((error: unknown) => {
        // Spec 001 §8: a session creation error is logged; the next change or click tries again.
        console.error('Card checkout session failed', error);
        if (pushed.current?.key === key) pushed.current = undefined;
      });
      return done;
    },
    [organizationId],
  );

  // Spec 001 §7: the monthly checkout is pushed 500 ms after the last change.
  useEffect(() => {
    if (kind !== 'MONTHLY' || store !== 'ready') return;
    const timer = setTimeout(
      () => void push('MONTHLY', users, 1, startDate).catch(() => undefined),
      CHECKOUT_DEBOUNCE_MS,
    );
    return () => clearTimeout(timer);
  }, [kind, users, startDate, store, push]);

  useEffect(() => {
    window.osintFastSpringPopupClosed = (order) => {
      if (order && (order.id || order.reference)) onPurchased('card');
    };
    return () => {
      window.osintFastSpringPopupClosed = undefined;
    };
  }, [onPurchased]);

  const checkout = async (selectionKind: PlanKind) => {
    if (store !== 'ready') return;
    setOpening(true);
    try {
      await push(selectionKind, users, selectionKind === 'FIXED' ? months : 1, startDate);
      openCheckout();
    } catch {
      // Spec 001 §8: a session creation error is logged only (push does); the button can be tried again.
    } finally {
      setOpening(false);
    }
  };

  const chooseKind = (next: PlanKind) => {
    setKind(next);
    // Spec 001 §5: switching to monthly resets the period to 1.
    if (next === 'MONTHLY') setMonths(MIN_MONTHS);
  };

  const onUsersChange = (text: string) => {
    // Spec 001 §5: typing above 100 is blocked (the field keeps its value), anything non-numeric becomes 1.
    // A cleared field counts as 1 and stays empty while the user types a new number.
    const next = typedUserCount(users, text);
    setUsers(next);
    setUsersText(text === '' ? '' : String(next));
  };

  return (
    <div className="pricing-chooser">
      <div className="pricing-chooser__main">
        <section className="card pricing-benefits" aria-labelledby={`${ids}-benefits`}>
          <h2 className="pricing-section-title" id={`${ids}-benefits`}>
            Everything in every plan
          </h2>
          <ul className="pricing-benefits__list">
            {BENEFITS.map((benefit) => (
              <li key={benefit}>
                <svg viewBox="0 0 24 24" aria-hidden="true">
                  <path
                    d="m5 12.5 4.2 4.2L19 7"
                    fill="none"
                    stroke="currentColor"
                    strokeWidth="2.4"
                    strokeLinecap="round"
                  />
                </svg>
                {benefit}
              </li>
            ))}
          </ul>
        </section>

        <section className="card pricing-options" aria-label="Plan options">
          <div className="pricing-tabs" role="tablist" aria-label="Plan">
            {(bankOnly ? (['FIXED'] as PlanKind[]) : (['MONTHLY', 'FIXED'] as PlanKind[])).map((tab) => (
              <button
                key={tab}
                type="button"
                role="tab"
                id={`${ids}-tab-${tab}`}
                aria-selected={kind === tab}
                aria-controls={`${ids}-panel`}
                tabIndex={kind === tab ? 0 : -1}
                className={`pricing-tabs__tab${kind === tab ? ' pricing-tabs__tab--active' : ''}`}
                onClick={() => chooseKind(tab)}
                onKeyDown={(event) => {
                  if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
                    const other = tab === 'MONTHLY' ? 'FIXED' : 'MONTHLY';
                    chooseKind(other);
                    document.getElementById(`${ids}-tab-${other}`)?.focus();
                  }
                }}
              >
                {tab === 'MONTHLY' ? 'Monthly subscription' : 'Fixed period'}
              </button>
            ))}
          </div>

          <div
            className="pricing-options__panel"
            role="tabpanel"
            id={`${ids}-panel`}
            aria-labelledby={`${ids}-tab-${kind}`}
          >
            <p className="pricing-options__intro">
              {kind === 'MONTHLY'
                ? 'Billed every month by card; cancel any time before the next billing date.'
                : `Pay once, ${bankOnly ? 'by bank transfer' : 'by card or bank transfer'}, for 1 to 12 months. ${ANNUAL_MONTHS} months cost ${ANNUAL_DISCOUNT_PERCENT}% less.`}
            </p>
            <div className="pricing-options__dates">
              <DatePicker label="Start date" value={startDate} onChange={setStartDate} />
              <div className="field">
                <span className="field__label">{kind === 'MONTHLY' ? 'First period ends' : 'End date'}</span>
                <output className="pricing-end-date" aria-label="End date">
                  {formatDay(endDate)}
                </output>
              </div>
            </div>

            {kind === 'FIXED' && <MonthsField id={`${ids}-months`} months={months} onChange={setMonths} />}

            <div className="field pricing-users">
              <label className="field__label" htmlFor={`${ids}-users`}>
                Number of users
              </label>
              <div className="pricing-users__control">
                <button
                  type="button"
                  className="pricing-users__step"
                  aria-label="One user less"
                  disabled={users <= 1}
                  onClick={() => onUsersChange(String(users - 1))}
                >
                  −
                </button>
                <input
                  id={`${ids}-users`}
                  className="input pricing-users__input"
                  inputMode="numeric"
                  pattern="[0-9]*"
                  value={usersText}
                  aria-describedby={`${ids}-users-hint`}
                  onChange={(event) => onUsersChange(event.target.value)}
                  onBlur={() => setUsersText(String(users))}
                />
                <button
                  type="button"
                  className="pricing-users__step"
                  aria-label="One user more"
                  disabled={users >= MAX_USERS}
                  onClick={() => onUsersChange(String(users + 1))}
                >
                  +
                </button>
              </div>
              <p className="field__hint" id={`${ids}-users-hint`}>
                1 to {MAX_USERS} users. The first user is included; each additional user costs{' '}
                {formatUsd(ADDITIONAL_USER_PRICE_USD)} per month.
              </p>
            </div>
          </div>
        </section>
      </div>

      <aside className="card pricing-order" aria-labelledby={`${ids}-order`}>
        <h2 className="pricing-section-title" id={`${ids}-order`}>
          Order summary
        </h2>
        <dl className="pricing-order__lines">
          <div>
            <dt>Subscription type</dt>
            <dd>{kind === 'MONTHLY' ? 'Monthly subscription' : `Fixed period, ${monthsLabel(months)}`}</dd>
          </div>
          <div>
            <dt>Base price</dt>
            <dd>
              {formatUsd(price.basePrice)}
              <span className="pricing-order__detail">
                {kind === 'MONTHLY'
                  ? ' per month, first user included'
                  : ` (${formatUsd(BASE_PRICE_USD)} × ${monthsLabel(months)}, first user included)`}
              </span>
            </dd>
          </div>
          <div>
            <dt>Number of users</dt>
            <dd>{price.users}</dd>
          </div>
          <div>
            <dt>Additional user fee</dt>
            <dd>
              {formatUsd(price.additionalUserFee)}
              {price.additionalUsers > 0 && (
                <span className="pricing-order__detail">
                  {' '}
                  ({price.additionalUsers} × {formatUsd(ADDITIONAL_USER_PRICE_USD)}
                  {kind === 'FIXED' ? ` × ${monthsLabel(months)}` : ' per month'})
                </span>
              )}
            </dd>
          </div>
          {price.discount > 0 && (
            <div className="pricing-order__discount">
              <dt>{ANNUAL_DISCOUNT_LABEL}</dt>
              <dd data-testid="order-discount">−{formatUsd(price.discount)}</dd>
            </div>
          )}
        </dl>
        <div className="pricing-order__total">
          <span>Total</span>
          <strong data-testid="order-total">{formatUsd(price.total)} USD</strong>
        </div>
        <p className="pricing-order__billing">{price.billing}</p>

        {kind === 'MONTHLY' ? (
          <Button
            className="pricing-order__cta"
            loading={opening || cardLoading}
            disabled={cardFailed}
            onClick={() => void checkout('MONTHLY')}
          >
            Subscribe Now!
          </Button>
        ) : (
          <Button className="pricing-order__cta" onClick={() => setPaying(true)} loading={opening}>
            Buy Now!
          </Button>
        )}
        <p className="pricing-order__fine">
          Prices in USD. Refunds are possible within {REFUND_DAYS} days after the subscription is activated
          (the free trial excluded).
        </p>
      </aside>

      {paying && (
        <PaymentModal
          price={price}
          startDate={startDate}
          endDate={endDate}
          organizationName={organizationName}
          bank={config?.bank}
          bankOnly={bankOnly}
          cardUnavailable={cardFailed ? '' : cardLoading ? 'The card checkout is still loading.' : undefined}
          onCard={() => {
            setPaying(false);
            void checkout('FIXED');
          }}
          onClose={(ordered) => {
            setPaying(false);
            if (ordered) onPurchased('bank');
          }}
        />
      )}
    </div>
  );
}
