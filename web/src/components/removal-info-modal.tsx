import { useState, type ReactNode } from 'react';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

/**
 * One-time information before a result is removed, until "Don't show again" is ticked (spec 001 §4).
 * The search page and the AI data extractor show it, each with its own explanation.
 */
export function RemovalInfoModal({
  onConfirm,
  onCancel,
  lead = 'The result will be removed from this search.',
  children = (
    <p>
      Removed results no longer count in this search, and they are left out when you save it or send it to the
      AI data extractor. The page itself stays in our index.
    </p>
  ),
}: {
  onConfirm: (dontShowAgain: boolean) => void;
  onCancel: () => void;
  lead?: string;
  children?: ReactNode;
}) {
  const [dontShowAgain, setDontShowAgain] = useState(false);
  return (
    <Modal
      title="Remove result"
      onClose={onCancel}
      size="sm"
      actions={
        <>
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="danger" onClick={() => onConfirm(dontShowAgain)}>
            Remove
          </Button>
        </>
      }
    >
      <p className="modal__lead">{lead}</p>
      {children}
      <label className="checkbox">
        <input
          type="checkbox"
          checked={dontShowAgain}
          onChange={(event) => setDontShowAgain(event.target.checked)}
        />
        <span>Don't show again</span>
      </label>
    </Modal>
  );
}
