import { useNavigate } from 'react-router';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';

/** Spec 000 §2: shown instead of an original source to users without subscription access. */
export function AccessRestrictedModal({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  return (
    <Modal
      title="Access Restricted"
      onClose={onClose}
      size="sm"
      actions={
        <>
          <Button variant="secondary" onClick={onClose}>
            BACK TO SEARCH
          </Button>
          <Button onClick={() => navigate('/pricing')}>UPGRADE NOW</Button>
        </>
      }
    >
      <p className="modal__lead">
        Viewing the original source of this image is available only to subscribers.
      </p>
      <p>Upgrade your plan to unlock full access to image sources and additional features.</p>
    </Modal>
  );
}
