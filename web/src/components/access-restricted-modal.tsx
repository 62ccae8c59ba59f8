import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { PREFERENCE_KEYS, readFlag, writeFlag } from '../lib/preferences.ts';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

/**
 * Spec 000 §2: shown instead of an original source to users without subscription access. "Don't show this
 * again" is kept in this browser (spec 001 §3, "show access-restricted modal").
 */
export const ACCESS_RESTRICTED_TITLE =
  'Viewing the original source of this image is available only to subscribers.';

export function AccessRestrictedModal({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const [dontShowAgain, setDontShowAgain] = useState(false);
  // Every way out keeps the choice: a button, the close cross, Escape or the backdrop.
  const close = () => {
    if (dontShowAgain) writeFlag(PREFERENCE_KEYS.hideAccessRestrictedModal, true);
    onClose();
  };
  return (
    <Modal
      // The "Access Restricted" modal's title is this sentence (spec 000 §2).
      title={ACCESS_RESTRICTED_TITLE}
      onClose={close}
      size="sm"
      actions={
        <>
          <Button variant="secondary" onClick={close}>
            BACK TO SEARCH
          </Button>
          <Button
            onClick={() => {
              close();
              void navigate('/pricing');
            }}
          >
            UPGRADE NOW
          </Button>
        </>
      }
    >
      <p className="modal__lead">
        Upgrade your plan to unlock full access to image sources and additional features.
      </p>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={dontShowAgain}
          onChange={(event) => setDontShowAgain(event.target.checked)}
        />
        <span>Don't show this again</span>
      </label>
    </Modal>
  );
}

/**
 * What a locked source link does for a restricted user: open the Access Restricted modal, unless this browser
 * chose not to show it again. Then the link simply stays disabled (spec 001 §2: links are disabled for
 * restricted users), as the lock on it says.
 */
export function useAccessRestrictedModal(): { openRestricted: () => void; restrictedModal: ReactNode } {
  const [open, setOpen] = useState(false);
  return {
    openRestricted: () => {
      if (!readFlag(PREFERENCE_KEYS.hideAccessRestrictedModal)) setOpen(true);
    },
    restrictedModal: open ? <AccessRestrictedModal onClose={() => setOpen(false)} /> : null,
  };
}
