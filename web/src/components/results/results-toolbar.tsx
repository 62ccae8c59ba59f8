import { useId } from 'react';
import { Dropdown } from '../dropdown.tsx';
import type { ResultSort } from './result-grouping.ts';

const SORT_OPTIONS = [
  { value: 'default', label: 'Default' },
  { value: 'date', label: 'Date' },
];

/** Sort (Default / Date) and the Grouping switch, above a results grid. */
export function ResultsToolbar({
  sort,
  onSort,
  grouping,
  onGrouping,
  children,
}: {
  sort: ResultSort;
  onSort: (sort: ResultSort) => void;
  grouping: boolean;
  onGrouping: (grouping: boolean) => void;
  children?: React.ReactNode;
}) {
  return (
    <div className="results-toolbar">
      <div className="results-toolbar__sort">
        <Dropdown
          label="Sort"
          options={SORT_OPTIONS}
          value={sort}
          onChange={(value) => onSort(value as ResultSort)}
        />
      </div>
      <GroupingSwitch checked={grouping} onChange={onGrouping} />
      {children}
    </div>
  );
}

export function GroupingSwitch({
  checked,
  onChange,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="switch-field">
      <button
        id={id}
        type="button"
        role="switch"
        aria-checked={checked}
        className={`switch${checked ? ' switch--on' : ''}`}
        onClick={() => onChange(!checked)}
      >
        <span className="switch__knob" aria-hidden="true" />
      </button>
      <label htmlFor={id} className="switch-field__label">
        Grouping
      </label>
    </div>
  );
}
