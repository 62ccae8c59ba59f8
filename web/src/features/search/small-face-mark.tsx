import { type FaceBox, SMALL_FACE_MARK } from '@osint/contract/search';

/**
 * The "small face: less reliable" mark next to a face under the reliable size: an icon and the words
 * (never colour alone), with the face's size in the photo.
 */
export function SmallFaceMark({ id, box }: { id?: string; box: FaceBox }) {
  return (
    <p className="small-face-mark" id={id}>
      <svg className="small-face-mark__icon" viewBox="0 0 16 16" aria-hidden="true">
        <path d="M8 1.5 15 14H1z" fill="currentColor" />
        <path d="M8 6v3.5" stroke="#fff" strokeWidth="1.6" strokeLinecap="round" />
        <circle cx="8" cy="11.6" r="0.9" fill="#fff" />
      </svg>
      <span className="small-face-mark__text">{SMALL_FACE_MARK}</span>
      <span className="small-face-mark__size">
        {' '}
        ({box.width}×{box.height} px)
      </span>
    </p>
  );
}
