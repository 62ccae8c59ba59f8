import type { ReactNode } from 'react';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

/** A yes/no question before something is deleted for good. */
export function ConfirmDeleteModal({
  title,
  text,
  confirmLabel = 'Delete',
  keepLabel = 'Cancel',
  error,
  busy,
  onConfirm,
  onClose,
}: {
  title: string;
  /** The question; names in it go in <bdi>, so that a Hebrew or Arabic name keeps the sentence's order. */
  text: ReactNode;
  confirmLabel?: string;
  /** The answer that changes nothing ("Keep order" where "Cancel" would be ambiguous). */
  keepLabel?: string;
  error?: string | undefined;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      size="sm"
      actions={
        <>
          <Button variant="secondary" onClick={onClose}>
            {keepLabel}
          </Button>
          <Button variant="danger" onClick={onConfirm} loading={busy ?? false}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <p>{text}</p>
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
