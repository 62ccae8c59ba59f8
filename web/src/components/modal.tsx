import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  actions?: ReactNode;
  size?: 'sm' | 'md' | 'lg';
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Where focus goes in a dialog: its first form field, or else the dialog itself (its title is read). */
function focusStart(dialog: HTMLElement) {
  const field = dialog.querySelector<HTMLElement>(
    '.modal__body :is(input, textarea, select):not([disabled]):not([type="hidden"])',
  );
  (field ?? dialog).focus();
}

/**
 * The keys of a dialog: Escape closes it, Tab and Shift+Tab go round its controls and never leave it (to
 * the page behind). Shared by every dialog (this Modal, the face chooser).
 */
export function dialogKeyDown(event: React.KeyboardEvent, dialog: HTMLElement | null, onClose: () => void) {
  if (event.key === 'Escape') {
    event.stopPropagation();
    onClose();
    return;
  }
  if (event.key !== 'Tab' || !dialog) return;
  const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) {
    event.preventDefault();
    return;
  }
  // From the dialog itself (where a dialog without fields opens), Shift+Tab wraps to its last control.
  const atStart = document.activeElement === first || document.activeElement === dialog;
  if (event.shiftKey && atStart) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}

/** A dialog: Escape and the backdrop close it, focus stays inside and returns where it came from. */
export function Modal({ title, onClose, children, actions, size = 'md' }: ModalProps) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    if (dialog.current) focusStart(dialog.current);
    return () => previous?.focus();
  }, []);

  // A step that replaces the dialog's content (a form sent, a report ready) removes the focused element:
  // focus would fall to the page behind, where Escape and Tab no longer reach the dialog.
  useEffect(() => {
    if (dialog.current && (document.activeElement === document.body || document.activeElement === null)) {
      focusStart(dialog.current);
    }
  });

  const onKeyDown = (event: React.KeyboardEvent) => dialogKeyDown(event, dialog.current, onClose);

  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(event) => event.target === event.currentTarget && onClose()}
    >
      <div
        className={`modal modal--${size}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        ref={dialog}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="modal__header">
          <h2 className="modal__title" id={`${id}-title`}>
            {title}
          </h2>
          <button type="button" className="modal__close" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        <div className="modal__body">{children}</div>
        {actions && <div className="modal__actions">{actions}</div>}
      </div>
    </div>,
    document.body,
  );
}
