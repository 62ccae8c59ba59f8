import { formatDay } from '@osint/contract/dates';
import {
  addDays,
  addMonths,
  daysInMonth,
  localIsoDate,
  MAX_START_MONTHS_AHEAD,
} from '@osint/contract/pricing';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

interface DatePickerProps {
  label: string;
  value: string;
  onChange: (date: string) => void;
}

const pad = (n: number) => String(n).padStart(2, '0');
const monthOf = (date: string) => ({ year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)) });

/**
 * Spec 001 §5: days before today are disabled, weeks start on Monday, Cancel resets to today. Days more
 * than `MAX_START_MONTHS_AHEAD` months ahead are disabled too (the server refuses them). A button opens a
 * calendar; arrows move between days, Enter picks, Escape closes.
 */
export function DatePicker({ label, value, onChange }: DatePickerProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [view, setView] = useState(() => monthOf(value));
  const [focused, setFocused] = useState(value);
  const today = localIsoDate();
  const latest = addMonths(today, MAX_START_MONTHS_AHEAD);
  const selectable = (date: string) => date >= today && date <= latest;
  const popover = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);

  // Opening the calendar and the arrow keys move focus to the day; Previous/Next month keep it on the button.
  const focusDay = useRef(false);
  useEffect(() => {
    if (!open || !focusDay.current) return;
    focusDay.current = false;
    popover.current?.querySelector<HTMLButtonElement>(`[data-date="${focused}"]`)?.focus();
  }, [open, focused, view]);

  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (!popover.current?.contains(event.target as Node) && !toggle.current?.contains(event.target as Node))
        setOpen(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  const show = () => {
    setView(monthOf(value));
    setFocused(value);
    focusDay.current = true;
    setOpen(true);
  };
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const pick = (date: string) => {
    if (!selectable(date)) return;
    onChange(date);
    close();
  };
  const moveFocus = (days: number) => {
    const next = addDays(focused, days);
    if (!selectable(next)) return;
    focusDay.current = true;
    setFocused(next);
    setView(monthOf(next));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    if (event.key in moves) {
      event.preventDefault();
      moveFocus(moves[event.key]!);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  };
  const shiftMonth = (delta: number) => {
    const index = view.year * 12 + view.month - 1 + delta;
    const year = Math.floor(index / 12);
    const month = (index % 12) + 1;
    setView({ year, month });
    // The day Tab reaches (and the arrows start from) moves too: the month's first selectable day.
    const firstDay = `${year}-${pad(month)}-01`;
    setFocused(firstDay < today ? today : firstDay);
  };

  const first = `${view.year}-${pad(view.month)}-01`;
  // Monday-first: getUTCDay() is 0 for Sunday.
  const leading = (new Date(`${first}T00:00:00Z`).getUTCDay() + 6) % 7;
  const count = daysInMonth(view.year, view.month);
  const cells: (string | null)[] = [
    ...Array.from({ length: leading }, () => null),
    ...Array.from({ length: count }, (_, i) => `${view.year}-${pad(view.month)}-${pad(i + 1)}`),
  ];
  const monthIndex = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
  const canGoBack = view.year * 12 + view.month > monthIndex(today);
  const canGoForward = view.year * 12 + view.month < monthIndex(latest);

  return (
    <div className="field pricing-date">
      <span className="field__label" id={`${id}-label`}>
        {label}
      </span>
      <button
        ref={toggle}
        type="button"
        className="input pricing-date__toggle"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-labelledby={`${id}-label ${id}-value`}
        onClick={() => (open ? close() : show())}
      >
        <span id={`${id}-value`}>{formatDay(value)}</span>
        <svg viewBox="0 0 24 24" aria-hidden="true" className="pricing-date__icon">
          <path
            d="M7 3v3M17 3v3M4 9h16M5 5h14a1 1 0 0 1 1 1v13a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1Z"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
          />
        </svg>
      </button>
      {open && (
        <div
          ref={popover}
          className="pricing-date__popover"
          role="dialog"
          aria-modal="false"
          aria-label={`Choose ${label.toLowerCase()}`}
          onKeyDown={onKeyDown}
        >
          <div className="pricing-date__head">
            <button
              type="button"
              className="pricing-date__nav"
              onClick={() => shiftMonth(-1)}
              disabled={!canGoBack}
              aria-label="Previous month"
            >
              ‹
            </button>
            <span className="pricing-date__month" aria-live="polite">
              {MONTH_NAMES[view.month - 1]} {view.year}
            </span>
            <button
              type="button"
              className="pricing-date__nav"
              onClick={() => shiftMonth(1)}
              disabled={!canGoForward}
              aria-label="Next month"
            >
              ›
            </button>
          </div>
          <div
            className="pricing-date__grid"
            role="grid"
            aria-label={`${MONTH_NAMES[view.month - 1]} ${view.year}`}
          >
            <div role="row" className="pricing-date__row">
              {WEEKDAYS.map((day) => (
                <span key={day} role="columnheader" className="pricing-date__weekday">
                  {day}
                </span>
              ))}
            </div>
            {Array.from({ length: Math.ceil(cells.length / 7) }, (_, week) => (
              <div role="row" className="pricing-date__row" key={week}>
                {cells.slice(week * 7, week * 7 + 7).map((date, i) =>
                  date ? (
                    <span role="gridcell" key={date}>
                      <button
                        type="button"
                        data-date={date}
                        className={[
                          'pricing-date__day',
                          date === value ? 'pricing-date__day--selected' : '',
                          date === today ? 'pricing-date__day--today' : '',
                        ].join(' ')}
                        disabled={!selectable(date)}
                        aria-pressed={date === value}
                        aria-label={formatDay(date)}
                        tabIndex={date === focused ? 0 : -1}
                        onClick={() => pick(date)}
                      >
                        {Number(date.slice(8))}
                      </button>
                    </span>
                  ) : (
                    <span role="gridcell" key={`empty-${i}`} />
                  ),
                )}
              </div>
            ))}
          </div>
          <div className="pricing-date__actions">
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              onClick={() => {
                onChange(today);
                close();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
