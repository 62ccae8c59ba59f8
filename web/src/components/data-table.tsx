import { Fragment, useSyncExternalStore, type ReactNode } from 'react';
import { Button } from './button.tsx';
import { Dropdown, type DropdownOption } from './dropdown.tsx';
import { LoadingPlaceholder } from './loading-placeholder.tsx';
import { TextInput } from './text-field.tsx';
import './data-table.css';

/**
 * At this width and below every row becomes a card of label: value pairs. A table of eight or nine
 * columns cannot fit a phone: scrolled sideways, its row actions ("Mark as paid") end up off-screen.
 */
export const CARD_LAYOUT_MAX_WIDTH = 720;
const NARROW_QUERY = `(max-width: ${CARD_LAYOUT_MAX_WIDTH}px)`;

function subscribeToWidth(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {};
  const query = window.matchMedia(NARROW_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
const isNarrow = () => typeof window.matchMedia === 'function' && window.matchMedia(NARROW_QUERY).matches;

/** Whether the screen is narrow enough for the card layout; follows resizes and rotations. */
export function useCardLayout(): boolean {
  return useSyncExternalStore(subscribeToWidth, isNarrow, () => false);
}

export interface DataTableColumn<T> {
  /** The column's header, and the label of its value in the card layout. */
  header: string;
  cell: (row: T) => ReactNode;
  /** Figures (amounts, counts) aligned right in the table. */
  numeric?: boolean;
  className?: string;
}

export interface DataTablePaging {
  /** The page shown, from 1. */
  page: number;
  /** Known when the server counts the rows; without it `hasNext` tells whether "Next" leads anywhere. */
  pageCount?: number;
  hasNext?: boolean;
  onPageChange: (page: number) => void;
  /** Said after the page ("3 organizations"); with it the pager shows even on a single page. */
  summary?: string;
}

export interface DataTableState {
  title: string;
  text?: ReactNode;
}

export interface DataTableProps<T> {
  /** Names the table for screen readers (and the list of cards). */
  caption: string;
  columns: DataTableColumn<T>[];
  /** Undefined while the first page loads. */
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string | number;
  rowClassName?: (row: T) => string | undefined;
  /** The row's buttons: the last column of the table, the foot of the card. */
  actions?: (row: T) => ReactNode;
  /** The hidden header of the actions column. */
  actionsLabel?: string;
  /** More about a row, across the whole table under it (a crawl's details); null when closed. */
  detail?: (row: T) => ReactNode;
  /** Search boxes and drop-downs above the rows. */
  filters?: ReactNode;
  /** Said between the filters and the rows (a count). */
  heading?: ReactNode;
  loading?: boolean;
  /** The rows shown are the previous answer while the next one loads. */
  stale?: boolean;
  /** Set when the rows could not be loaded; "Try again" calls `onRetry`. */
  error?: (DataTableState & { onRetry: () => void }) | false;
  empty: DataTableState;
  paging?: DataTablePaging;
  /** An extra class of the table element (a hook for styles or tests of one list). */
  tableClassName?: string;
}

/**
 * One list of records for the admin area and the account: filters, a captioned table with row actions,
 * paging, and its loading, empty and error states. On narrow screens the rows are cards, so nothing is
 * wider than the screen and every action stays in reach.
 */
export function DataTable<T>(props: DataTableProps<T>) {
  const { filters, heading, paging } = props;
  return (
    <div className="data-table">
      {filters && <div className="data-table__filters">{filters}</div>}
      {heading}
      <DataTableBody {...props} />
      {paging && <DataTablePager {...paging} />}
    </div>
  );
}

/** A list's (or a record's) empty, failed or missing state: a title, a line, and what can be done. */
export function StateMessage({
  state,
  role,
  className,
  children,
}: {
  state: DataTableState;
  role: 'alert' | 'status';
  className?: string;
  children?: ReactNode;
}) {
  return (
    <div className={joinClasses('data-table__state', className)} role={role}>
      <p className="data-table__state-title">{state.title}</p>
      {state.text && <p>{state.text}</p>}
      {children}
    </div>
  );
}

function DataTableBody<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowClassName,
  actions,
  actionsLabel = 'Actions',
  detail,
  loading,
  stale,
  error,
  empty,
  tableClassName,
}: DataTableProps<T>) {
  const cards = useCardLayout();
  if (error)
    return (
      <StateMessage state={error} role="alert">
        <Button variant="secondary" onClick={error.onRetry}>
          Try again
        </Button>
      </StateMessage>
    );
  if (loading || rows === undefined) return <LoadingPlaceholder />;
  if (rows.length === 0) return <StateMessage state={empty} role="status" />;

  const staleClass = stale ? ' data-table--stale' : '';
  if (cards)
    return (
      <ul className={`data-table__cards${staleClass}`} aria-label={caption}>
        {rows.map((row) => {
          const extra = detail?.(row);
          return (
            <li key={rowKey(row)} className={joinClasses('data-table__card', rowClassName?.(row))}>
              <dl className="data-table__fields">
                {columns.map((column) => (
                  <div key={column.header} className="data-table__field">
                    <dt>{column.header}</dt>
                    <dd className={column.className}>{column.cell(row)}</dd>
                  </div>
                ))}
              </dl>
              {actions && <div className="data-table__card-actions">{actions(row)}</div>}
              {extra && <div className="data-table__card-detail">{extra}</div>}
            </li>
          );
        })}
      </ul>
    );

  const columnCount = columns.length + (actions ? 1 : 0);
  return (
    <div className={`data-table__scroll${staleClass}`}>
      <table className={joinClasses('data-table__table', tableClassName)}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? 'data-table__num' : undefined}>
                {column.header}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">{actionsLabel}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const extra = detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr className={rowClassName?.(row)}>
                  {columns.map((column) => (
                    <td
                      key={column.header}
                      className={joinClasses(
                        column.numeric ? 'data-table__num' : undefined,
                        column.className,
                      )}
                    >
                      {column.cell(row)}
                    </td>
                  ))}
                  {actions && <td className="data-table__actions">{actions(row)}</td>}
                </tr>
                {extra && (
                  <tr className="data-table__detail">
                    <td colSpan={columnCount}>{extra}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Previous and Next around the page shown; the page count when the server gives one. */
export function DataTablePager({ page, pageCount, hasNext, onPageChange, summary }: DataTablePaging) {
  const nextExists = pageCount !== undefined ? page < pageCount : Boolean(hasNext);
  if (page <= 1 && !nextExists && !summary) return null;
  const where = pageCount !== undefined ? `Page ${page} of ${pageCount}` : `Page ${page}`;
  return (
    <nav className="data-table__pager" aria-label="Pages">
      <Button
        variant="secondary"
        className="btn-sm"
        disabled={page <= 1}
        onClick={() => onPageChange(page - 1)}
      >
        Previous
      </Button>
      <span className="data-table__pager-label" aria-live="polite">
        {summary ? `${where} · ${summary}` : where}
      </span>
      <Button
        variant="secondary"
        className="btn-sm"
        disabled={!nextExists}
        onClick={() => onPageChange(page + 1)}
      >
        Next
      </Button>
    </nav>
  );
}

/** The search box of a list's filters ("Search"). */
export function SearchFilter({
  placeholder,
  value,
  onChange,
}: {
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="data-table__filter--search">
      <TextInput
        label="Search"
        type="search"
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

/** A drop-down of a list's filters (status, source). */
export function SelectFilter<V extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: (DropdownOption & { value: V })[];
  value: V;
  onChange: (value: V) => void;
}) {
  return (
    <div className="data-table__filter--select">
      <Dropdown label={label} options={options} value={value} onChange={(next) => onChange(next as V)} />
    </div>
  );
}

function joinClasses(...classes: (string | undefined)[]): string | undefined {
  const joined = classes.filter(Boolean).join(' ');
  return joined || undefined;
}
