import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';

export interface DropdownOption {
  value: string;
  label: string;
}

interface DropdownProps {
  label: string;
  options: DropdownOption[];
  value: string | undefined;
  onChange: (value: string, label: string) => void;
  placeholder?: string;
  error?: string | undefined;
  hideLabel?: boolean;
}

/**
 * Spec 000 §4 dropdown: opens and closes, closes on an outside click, a selection sets value and label,
 * and without a placeholder or a value it takes the first option. Keyboard: arrows, Home/End, Enter,
 * Escape, as a WAI-ARIA listbox.
 */
export function Dropdown({ label, options, value, onChange, placeholder, error, hideLabel }: DropdownProps) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const selected = options.find((o) => o.value === value);

  useEffect(() => {
    const first = options[0];
    if (value === undefined && placeholder === undefined && first) onChange(first.value, first.label);
  }, [value, placeholder, options, onChange]);

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const openList = () => {
    setActive(
      Math.max(
        0,
        options.findIndex((o) => o.value === value),
      ),
    );
    setOpen(true);
  };
  const choose = (index: number) => {
    const option = options[index];
    if (option) onChange(option.value, option.label);
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ArrowDown: () => (open ? setActive((i) => Math.min(options.length - 1, i + 1)) : openList()),
      ArrowUp: () => (open ? setActive((i) => Math.max(0, i - 1)) : openList()),
      Home: () => setActive(0),
      End: () => setActive(options.length - 1),
      Enter: () => (open ? choose(active) : openList()),
      ' ': () => (open ? choose(active) : openList()),
      Escape: () => setOpen(false),
      Tab: () => setOpen(false),
    };
    const handler = keys[event.key];
    if (!handler) return;
    if (event.key !== 'Tab') event.preventDefault();
    handler();
  };

  return (
    <div className={`field dropdown${error ? ' field--invalid' : ''}`} ref={root}>
      <span className={hideLabel ? 'visually-hidden' : 'field__label'} id={`${id}-label`}>
        {label}
      </span>
      <button
        type="button"
        className={`input dropdown__toggle${open ? ' dropdown__toggle--open' : ''}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-labelledby={`${id}-label ${id}-value`}
        aria-controls={`${id}-list`}
        aria-activedescendant={open ? `${id}-option-${active}` : undefined}
        aria-invalid={error ? true : undefined}
        onClick={() => (open ? setOpen(false) : openList())}
        onKeyDown={onKeyDown}
      >
        {/* Options may be names in any script (a right-to-left name keeps its order). */}
        <span id={`${id}-value`} className={selected ? '' : 'dropdown__placeholder'} dir="auto">
          {selected?.label ?? placeholder ?? ''}
        </span>
        <svg className="dropdown__chevron" viewBox="0 0 20 20" aria-hidden="true">
          <path d="M5 7.5l5 5 5-5" fill="none" stroke="currentColor" strokeWidth="2" />
        </svg>
      </button>
      {open && (
        <ul className="dropdown__list" role="listbox" id={`${id}-list`} aria-labelledby={`${id}-label`}>
          {options.map((option, index) => (
            <li
              key={option.value}
              id={`${id}-option-${index}`}
              role="option"
              aria-selected={option.value === value}
              className={`dropdown__option${index === active ? ' dropdown__option--active' : ''}`}
              onPointerDown={(event) => event.preventDefault()}
              onClick={() => choose(index)}
              onMouseEnter={() => setActive(index)}
              dir="auto"
            >
              {option.label}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
