import {
  type DetectedFace,
  type FaceBox,
  POSSIBLE_MINOR_MESSAGE,
  tooSmallFacesMessage,
} from '@osint/contract/search';
import { useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { MinorReviewView } from '@osint/contract/minor-review';
import { MinorReviewRequest } from './minor-review-request.tsx';
import { SmallFaceMark } from './small-face-mark.tsx';
import { dialogKeyDown } from '../../components/modal.tsx';

interface FaceChooserProps {
  faces: DetectedFace[];
  initiallySelected: string[];
  smallFaceCount: number;
  smallFaceSizes: number[];
  /** Boxes of the faces too small to search, in the order of smallFaceSizes. */
  smallFaceBoxes: FaceBox[];
  /** The uploaded photo (an object URL), shown with a numbered box on every face. */
  photoUrl?: string | undefined;
  minFaceSize: number;
  reliableFaceSize: number;
  /** The organization is verified law enforcement: faces that may belong to minors may be chosen. */
  minorsSearchable: boolean;
  onProceed: (hashes: string[]) => void;
  onClose: () => void;
  /** The organization asked the platform to review a refused face. */
  onReviewRequested: (hash: string, review: MinorReviewView) => void;
}

/** Where focus goes in the chooser: its first face that can be chosen, or else the dialog itself. */
function focusStart(dialog: HTMLElement) {
  (dialog.querySelector<HTMLElement>('.face-option:not([disabled])') ?? dialog).focus();
}

/**
 * A face that may belong to a minor can be searched by verified law enforcement only, or once after the
 * platform's review approved it.
 */
export function isSearchableFace(face: DetectedFace, minorsSearchable: boolean): boolean {
  return !face.possibleMinor || minorsSearchable || face.review?.status === 'APPROVED';
}

/**
 * Full-screen "Choose your face": one or more faces of the photo, then on to the search. Faces under
 * `reliableFaceSize` pixels carry the small-face mark, tied to their button as its description. Faces that
 * may belong to a minor carry the notice why they cannot be searched, and cannot be chosen (unless the
 * organization is verified law enforcement).
 */
export function FaceChooser({
  faces,
  initiallySelected,
  smallFaceCount,
  smallFaceSizes,
  smallFaceBoxes,
  photoUrl,
  minFaceSize,
  reliableFaceSize,
  minorsSearchable,
  onProceed,
  onClose,
  onReviewRequested,
}: FaceChooserProps) {
  const idPrefix = useId();
  const [selected, setSelected] = useState<string[]>(() =>
    initiallySelected.filter((hash) =>
      faces.some((face) => face.hash === hash && isSearchableFace(face, minorsSearchable)),
    ),
  );
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // No face that can be chosen (one possible minor): the dialog itself, so that Escape and Tab reach it.
    if (root.current) focusStart(root.current);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
      previous?.focus();
    };
  }, []);

  // A step that removes the focused element (a review request sent) would drop focus to the page behind.
  useEffect(() => {
    if (root.current && (document.activeElement === document.body || document.activeElement === null))
      focusStart(root.current);
  });

  const toggle = (hash: string) =>
    setSelected((current) =>
      current.includes(hash) ? current.filter((h) => h !== hash) : [...current, hash],
    );

  const onKeyDown = (event: React.KeyboardEvent) => dialogKeyDown(event, root.current, onClose);

  return createPortal(
    <div
      className="face-chooser"
      role="dialog"
      aria-modal="true"
      aria-labelledby="face-chooser-title"
      ref={root}
      tabIndex={-1}
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
        {photoUrl && (
          <ChooserPhoto
            url={photoUrl}
            faces={faces}
            selected={selected}
            smallFaceBoxes={smallFaceBoxes}
            smallFaceSizes={smallFaceSizes}
          />
        )}
        <ul className="face-chooser__grid">
          {faces.map((face, index) => {
            const isSelected = selected.includes(face.hash);
            const blocked = !isSearchableFace(face, minorsSearchable);
            // A possible minor of an organization that is not law enforcement: the review's state or request.
            const reviewable = face.possibleMinor && !minorsSearchable;
            const markId = `${idPrefix}-small-${index}`;
            const minorId = `${idPrefix}-minor-${index}`;
            const describedBy = [face.small ? markId : '', blocked ? minorId : ''].filter(Boolean).join(' ');
            return (
              <li key={face.hash} className="face-chooser__item">
                <button
                  type="button"
                  className={`face-option${isSelected ? ' face-option--selected' : ''}${face.small ? ' face-option--small' : ''}${blocked ? ' face-option--minor' : ''}`}
                  aria-pressed={isSelected}
                  aria-label={`Face ${index + 1}`}
                  aria-describedby={describedBy || undefined}
                  // Not `disabled`: a blocked face stays reachable by keyboard, so its notice is read out.
                  aria-disabled={blocked || undefined}
                  onClick={() => {
                    if (!blocked) toggle(face.hash);
                  }}
                >
                  <img src={`data:image/jpeg;base64,${face.base64}`} alt="" />
                  <span className="face-option__number" aria-hidden="true">
                    {index + 1}
                  </span>
                  <span className="face-option__check" aria-hidden="true">
                    ✓
                  </span>
                </button>
                {face.small && <SmallFaceMark id={markId} box={face.box} />}
                {blocked && (
                  <p className="minor-face-notice" id={minorId} role="note">
                    {POSSIBLE_MINOR_MESSAGE}
                  </p>
                )}
                {reviewable && (
                  <MinorReviewRequest
                    face={face}
                    index={index}
                    onRequested={(review) => onReviewRequested(face.hash, review)}
                  />
                )}
              </li>
            );
          })}
        </ul>
        {faces.some((face) => face.small) && (
          <p className="face-chooser__legend">
            Faces under {reliableFaceSize}×{reliableFaceSize} pixels carry less detail: their matches are less
            certain and more of them may be missed. Add a larger photo of the person if you have one.
          </p>
        )}
        {smallFaceCount > 0 && (
          <p className="face-chooser__note">
            {tooSmallFacesMessage({ smallFaceCount, smallFaceSizes, minFaceSize }, { more: true })}
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

/**
 * The uploaded photo with a numbered box on each face offered (the numbers of the crops below) and a grey
 * box with its size on each face too small to search. The SVG maps the photo's pixels onto the shown
 * photo (the browser shows it turned upright as its EXIF says, like the boxes the server measured).
 */
function ChooserPhoto({
  url,
  faces,
  selected,
  smallFaceBoxes,
  smallFaceSizes,
}: {
  url: string;
  faces: DetectedFace[];
  selected: string[];
  smallFaceBoxes: FaceBox[];
  smallFaceSizes: number[];
}) {
  const [size, setSize] = useState<{ width: number; height: number }>();
  const [broken, setBroken] = useState(false);
  // A format the browser cannot show (TIFF): the crops alone have to do.
  if (broken) return null;
  // Labels stay readable whatever the photo's size: about 1/28 of its longer side.
  const unit = size ? Math.max(size.width, size.height) / 28 : 0;
  return (
    <figure className="chooser-photo">
      <div className="chooser-photo__frame">
        <img
          className="chooser-photo__image"
          src={url}
          alt="Your photo, with the faces found in it numbered"
          onLoad={(event) =>
            setSize({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })
          }
          onError={() => setBroken(true)}
        />
        {size && (
          <svg
            className="chooser-photo__boxes"
            viewBox={`0 0 ${size.width} ${size.height}`}
            preserveAspectRatio="xMidYMid meet"
            aria-hidden="true"
          >
            {smallFaceBoxes.map((box, i) => (
              <g key={`small-${i}`} className="chooser-photo__small" data-size={smallFaceSizes[i]}>
                <rect
                  x={box.x}
                  y={box.y}
                  width={box.width}
                  height={box.height}
                  vectorEffect="non-scaling-stroke"
                />
                <text x={box.x + box.width / 2} y={box.y + box.height + unit * 0.8} fontSize={unit * 0.6}>
                  {smallFaceSizes[i]} px
                </text>
              </g>
            ))}
            {faces.map((face, i) => {
              const { x, y, width, height } = face.box;
              const isSelected = selected.includes(face.hash);
              return (
                <g
                  key={face.hash}
                  className={`chooser-photo__face${isSelected ? ' chooser-photo__face--selected' : ''}`}
                  data-face={i + 1}
                >
                  <rect x={x} y={y} width={width} height={height} vectorEffect="non-scaling-stroke" />
                  <circle cx={x} cy={y} r={unit * 0.6} />
                  <text x={x} y={y} fontSize={unit * 0.75} dy="0.35em">
                    {i + 1}
                  </text>
                </g>
              );
            })}
          </svg>
        )}
      </div>
      <figcaption className="chooser-photo__caption">
        {faces.length} {faces.length === 1 ? 'face' : 'faces'} to choose from, numbered as below
        {smallFaceBoxes.length > 0 ? `; grey: too small to search` : ''}.
      </figcaption>
    </figure>
  );
}
