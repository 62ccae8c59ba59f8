import type { ButtonHTMLAttributes } from 'react';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  loading?: boolean;
  variant?: 'primary' | 'secondary' | 'light' | 'danger' | 'ghost';
  /** Looks disabled but stays focusable and clickable, so a click can reveal what is missing. */
  looksDisabled?: boolean;
}

/** Spec 000 §2 shared widgets: while loading the button is disabled and shows a loader. */
export function Button({
  loading = false,
  variant = 'primary',
  looksDisabled,
  className,
  children,
  disabled,
  ...rest
}: ButtonProps) {
  const classes = [
    'btn',
    `btn-${variant}`,
    loading ? 'btn--loading' : '',
    looksDisabled ? 'btn--looks-disabled' : '',
    className ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <button
      type="button"
      className={classes}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading && <span className="spinner" aria-hidden="true" />}
      <span className="btn__label">{children}</span>
    </button>
  );
}
