/** Spec 000 §2 loading placeholder with the word LOADING. */
export function LoadingPlaceholder({ label = 'LOADING' }: { label?: string }) {
  return (
    <div className="loading-placeholder" role="status" aria-live="polite">
      <span className="spinner spinner--lg" aria-hidden="true" />
      <span className="loading-placeholder__label">{label}</span>
    </div>
  );
}

/** The animated arrow of spec 000 §2 (scroll hints and call-to-action links). */
export function AnimatedArrow({ direction = 'right' }: { direction?: 'right' | 'down' }) {
  return (
    <svg className={`animated-arrow animated-arrow--${direction}`} viewBox="0 0 24 24" aria-hidden="true">
      <path
        d="M5 12h13m-5-6 6 6-6 6"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}
