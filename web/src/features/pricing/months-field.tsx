import { ANNUAL_DISCOUNT_PERCENT, MAX_MONTHS, MIN_MONTHS, monthsLabel } from '@osint/contract/pricing';

/** The period of a fixed-period order: a slider of whole months, with the annual discount at its end. */
export function MonthsField({
  id,
  months,
  onChange,
}: {
  id: string;
  months: number;
  onChange: (months: number) => void;
}) {
  return (
    <div className="field pricing-months">
      <label className="field__label" htmlFor={id}>
        Period: <strong>{monthsLabel(months)}</strong>
      </label>
      <input
        id={id}
        type="range"
        min={MIN_MONTHS}
        max={MAX_MONTHS}
        step={1}
        value={months}
        aria-valuetext={monthsLabel(months)}
        onChange={(event) => onChange(Number(event.target.value))}
      />
      <div className="pricing-months__scale" aria-hidden="true">
        <span>1 month</span>
        <span>12 months, −{ANNUAL_DISCOUNT_PERCENT}%</span>
      </div>
    </div>
  );
}
