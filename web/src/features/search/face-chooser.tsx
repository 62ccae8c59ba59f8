import type { DetectedFace } from '@osint/contract/search';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';

interface FaceChooserProps {
  faces: DetectedFace[];
  initiallySelected: string[];
  smallFaceCount: number;
  minFaceSize: number;
  onProceed: (hashes: string[]) => void;
  onClose: () => void;
}

/** Full-screen "Choose your face": one or more faces of the photo, then on to the search. */
export function FaceChooser({
  faces,
  initiallySelected,
  smallFaceCount,
  minFaceSize,
  onProceed,
  onClose,
}: FaceChooserProps) {
  const [selected, setSelected] = useState<string[]>(initiallySelected);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    root.current?.querySelector<HTMLElement>('.face-option')?.focus();
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
      previous?.focus();
    };
  }, []);

  const toggle = (hash: string) =>
    setSelected((current) =>
      current.includes(hash) ? current.filter((h) => h !== hash) : [...current, hash],
    );

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !root.current) return;
    const focusable = [...root.current.querySelectorAll<HTMLElement>('button:not([disabled])')];
    const first = focusable[0];
    const last = focusable.at(-1);
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };

  return createPortal(
    <div
      className="face-chooser"
      role="dialog"
      aria-modal="true"
      aria-labelledby="face-chooser-title"
      ref={root}
      onKeyDown={onKeyDown}
    >
      <div className="face-chooser__inner container">
        <div className="face-chooser__head">
          <div>
            <h2 id="face-chooser-title" className="face-chooser__title">
              Choose your face
            </h2>
            <p className="face-chooser__text">Select photo(s) of your face to proceed with the search</p>
          </div>
          <button type="button" className="face-chooser__close" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        <ul className="face-chooser__grid">
          {faces.map((face, index) => {
            const isSelected = selected.includes(face.hash);
            return (
              <li key={face.hash}>
                <button
                  type="button"
                  className={`face-option${isSelected ? ' face-option--selected' : ''}`}
                  aria-pressed={isSelected}
                  aria-label={`Face ${index + 1}`}
                  onClick={() => toggle(face.hash)}
                >
                  <img src={`data:image/jpeg;base64,${face.base64}`} alt="" />
                  <span className="face-option__check" aria-hidden="true">
                    ✓
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        {smallFaceCount > 0 && (
          <p className="face-chooser__note">
            {smallFaceCount === 1 ? '1 more face is' : `${smallFaceCount} more faces are`} too small to search
            (under {minFaceSize}×{minFaceSize} pixels).
          </p>
        )}
        <div className="face-chooser__actions">
          <p className="face-chooser__count" aria-live="polite">
            {selected.length === 0
              ? 'No face selected'
              : `${selected.length} ${selected.length === 1 ? 'face' : 'faces'} selected`}
          </p>
          <button
            type="button"
            className="btn btn-primary"
            disabled={selected.length === 0}
            onClick={() => onProceed(selected)}
          >
            Proceed to the face search
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}
