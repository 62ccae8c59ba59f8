import { SMALL_FACE_MARK } from '@osint/contract/search';
import { Button } from '../../components/button.tsx';
import { Modal } from '../../components/modal.tsx';

/** The photo requirements of spec 001 §1, as advice. */
export function PhotoTipsModal({ onClose }: { onClose: () => void }) {
  return (
    <Modal
      title="Tips for better results"
      onClose={onClose}
      size="sm"
      actions={<Button onClick={onClose}>OK</Button>}
    >
      <ul className="tips-list">
        <li>Use a JPG, PNG, BMP or TIFF photo of at most 1.5 MB.</li>
        <li>The face should look straight into the camera and be centred.</li>
        <li>
          The face should be at least 128×128 pixels: crop a large photo rather than shrink it. Smaller faces,
          down to 64×64 pixels, can still be searched and are marked “{SMALL_FACE_MARK}”.
        </li>
        <li>Prefer sharp, well-lit photos without sunglasses, masks or heavy filters.</li>
        <li>
          Have several photos of the person? Choose their face, then “Add another photo of this person”: the
          search combines them and finds more of their pages.
        </li>
      </ul>
      <p className="field__hint">Uploaded photos are analysed in memory and never stored.</p>
    </Modal>
  );
}
