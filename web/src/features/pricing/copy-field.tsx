import { BILLING_MESSAGES, COPY_HINT_MS } from '@osint/contract/pricing';
import { useEffect, useId, useState } from 'react';

/** A read-only value with a copy button that says "Copied to clipboard" for 500 ms (spec 001 §2, §9). */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPY_HINT_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch (error) {
      // Spec 001 §8: a clipboard failure is logged only.
      console.error('Copy to clipboard failed', error);
    }
  };
  return (
    <div className="pricing-copy">
      <span className="pricing-copy__label" id={`${id}-label`}>
        {label}
      </span>
      <div className="pricing-copy__row">
        <output className="pricing-copy__value" aria-labelledby={`${id}-label`}>
          {value}
        </output>
        <button
          type="button"
          className="btn btn-secondary btn-sm pricing-copy__button"
          onClick={() => void copy()}
          aria-label={`Copy ${label.toLowerCase()}`}
        >
          Copy
        </button>
      </div>
      <span className="pricing-copy__hint" role="status">
        {copied ? BILLING_MESSAGES.copied : ''}
      </span>
    </div>
  );
}
