import { formatDay } from '@osint/contract/dates';
import {
  ADDITIONAL_USER_PRICE_USD,
  ANNUAL_DISCOUNT_LABEL,
  ANNUAL_DISCOUNT_PERCENT,
  computeAddUsersPrice,
  computePrice,
  formatUsd,
  MAX_MONTHS,
  MAX_USERS,
  MIN_MONTHS,
  monthsLabel,
  monthsUntil,
  planEndDate,
  typedUserCount,
  utcIsoDate,
  type BankDetails,
  type BillingPlanDto,
} from '@osint/contract/pricing';
import { useId, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { PaymentModal } from './payment-modal.tsx';
import { placeAddUsersOrder, placeRenewalOrder } from './pricing-api.ts';
import { MonthsField } from './months-field.tsx';

export type Extension = 'RENEW' | 'ADD_USERS';

interface PlanExtensionProps {
  extension: Extension;
  /** The fixed period in force. */
  plan: BillingPlanDto;
  /** The last day + 1 of the paid plans (the plan in force, or a renewal already paid): a renewal starts there. */
  renewFrom: string;
  organizationName: string;
  bank: BankDetails | undefined;
  onDone: (ordered: boolean) => void;
}

/**
 * "Renew" (a fixed period from the day after the plan in force ends) and "Add users" (the extra users for
 * the months left of it), priced by the pricing module and paid by bank transfer like any order.
 */
export function PlanExtension({
  extension,
  plan,
  renewFrom,
  organizationName,
  bank,
  onDone,
}: PlanExtensionProps) {
  const ids = useId();
  const renewing = extension === 'RENEW';
  const maxAdded = MAX_USERS - plan.seatLimit;
  const [users, setUsers] = useState(renewing ? plan.seatLimit : 1);
  const [usersText, setUsersText] = useState(String(renewing ? plan.seatLimit : 1));
  const [months, setMonths] = useState(renewing ? MAX_MONTHS : MIN_MONTHS);
  const [paying, setPaying] = useState(false);

  const today = utcIsoDate();
  const planEnd = plan.endDate.slice(0, 10);
  const monthsLeft = monthsUntil(today, planEnd);
  const limit = renewing ? MAX_USERS : maxAdded;
  const price = renewing
    ? computePrice({ kind: 'FIXED', users, months })
    : computeAddUsersPrice({ users: Math.min(users, limit), months: monthsLeft });
  const startDate = renewing ? renewFrom : today;
  const endDate = renewing ? planEndDate('FIXED', renewFrom, months) : planEnd;
  const tooLong = !renewing && monthsLeft > MAX_MONTHS;
  const full = !renewing && maxAdded < 1;

  const onUsersChange = (typed: string) => {
    const next = Math.min(limit, typedUserCount(users, typed));
    setUsers(next);
    setUsersText(typed.replace(/\D/g, '') === '' ? '' : String(next));
  };

  const title = renewing ? 'Renew your plan' : 'Add users';
  return (
    <section className="card pricing-extension" aria-labelledby={`${ids}-title`}>
      <h2 className="pricing-section-title" id={`${ids}-title`}>
        {title}
      </h2>
      <p className="pricing-extension__lead">
        {renewing
          ? `A new fixed period starts on ${formatDay(renewFrom)}, when your current plan ends, so access continues without a break. ${MAX_MONTHS} months cost ${ANNUAL_DISCOUNT_PERCENT}% less.`
          : `More seats on your plan from today until it ends on ${formatDay(planEnd)}: ${formatUsd(ADDITIONAL_USER_PRICE_USD)} per added user for each month left (${monthsLabel(monthsLeft)}, a started month counts whole).`}
      </p>
      {full || tooLong ? (
        <p className="pricing-extension__lead" role="status">
          {full
            ? `Your plan already has the maximum of ${MAX_USERS} users.`
            : 'Users can be added to plans that end within 12 months. Please contact support.'}
        </p>
      ) : (
        <div className="pricing-extension__form">
          {renewing && <MonthsField id={`${ids}-months`} months={months} onChange={setMonths} />}
          <div className="field">
            <label className="field__label" htmlFor={`${ids}-users`}>
              {renewing ? 'Number of users' : 'Users to add'}
            </label>
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
            <p className="field__hint" id={`${ids}-users-hint`}>
              {renewing
                ? `1 to ${MAX_USERS} users; your plan has ${plan.seatLimit} now.`
                : `1 to ${maxAdded}; your plan has ${plan.seatLimit} users, ${plan.seatLimit + Math.min(users, limit)} after this order.`}
            </p>
          </div>
          <dl className="pricing-order__lines">
            <div>
              <dt>Period</dt>
              <dd>
                {formatDay(startDate)} – {formatDay(endDate)} ({monthsLabel(price.months)})
              </dd>
            </div>
            {renewing && (
              <div>
                <dt>Base price</dt>
                <dd>{formatUsd(price.basePrice)}</dd>
              </div>
            )}
            <div>
              <dt>Additional user fee</dt>
              <dd>{formatUsd(price.additionalUserFee)}</dd>
            </div>
            {price.discount > 0 && (
              <div className="pricing-order__discount">
                <dt>{ANNUAL_DISCOUNT_LABEL}</dt>
                <dd>−{formatUsd(price.discount)}</dd>
              </div>
            )}
          </dl>
          <div className="pricing-order__total">
            <span>Total</span>
            <strong data-testid="extension-total">{formatUsd(price.total)} USD</strong>
          </div>
          <div className="pricing-summary__actions">
            <Button onClick={() => setPaying(true)}>{renewing ? 'Renew' : 'Add users'}</Button>
            <Button variant="secondary" onClick={() => onDone(false)}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      {paying && (
        <PaymentModal
          price={price}
          startDate={startDate}
          endDate={endDate}
          organizationName={organizationName}
          bank={bank}
          description={
            renewing
              ? `Renewal: ${monthsLabel(price.months)} for ${price.users} ${price.users === 1 ? 'user' : 'users'}`
              : `${price.users} added ${price.users === 1 ? 'user' : 'users'} for ${monthsLabel(price.months)}`
          }
          cardUnavailable="Renewals and added users are paid by bank transfer."
          onCard={() => undefined}
          placeOrder={(buyer, references) =>
            renewing
              ? placeRenewalOrder({ seatAmount: price.users, period: price.months, buyer, ...references })
              : placeAddUsersOrder({ users: price.users, buyer, ...references })
          }
          onClose={(ordered) => {
            setPaying(false);
            if (ordered) onDone(true);
          }}
        />
      )}
    </section>
  );
}
