import { MAX_UPLOAD_MEGAPIXELS, type DetectedFace } from '@osint/contract/search';
import { useId, useRef, useState, type DragEvent, type Ref } from 'react';
import { SmallFaceMark } from './small-face-mark.tsx';

export const ACCEPTED_TYPES = '.jpg,.jpeg,.png,.bmp,.tif,.tiff,image/jpeg,image/png,image/bmp,image/tiff';

interface UploadAreaProps {
  /** No url: a photo the server fetched from the address in `name` (the browser may not load it). */
  preview: { url: string | undefined; name: string } | undefined;
  detecting: boolean;
  disabled: boolean;
  selectedFaces: DetectedFace[];
  onFile: (file: File) => void;
  onRemove: () => void;
  onChangeFaces: (() => void) | undefined;
  /** The chosen faces, where focus goes once they are chosen in the chooser. */
  chosenFacesRef?: Ref<HTMLDivElement> | undefined;
  /** Faces of the same person from other photos, searched with the chosen ones. */
  otherPhotoFaces?: DetectedFace[];
  onRemoveOtherPhotoFace?: (hash: string) => void;
  /** Another photo of the person (absent while it cannot be added). */
  onAddPhoto?: ((file: File) => void) | undefined;
  addingPhoto?: boolean;
}

/** Drag a photo in or choose one; with a photo, its preview with REMOVE and the chosen face(s). */
export function UploadArea({
  preview,
  detecting,
  disabled,
  selectedFaces,
  onFile,
  onRemove,
  onChangeFaces,
  chosenFacesRef,
  otherPhotoFaces = [],
  onRemoveOtherPhotoFace,
  onAddPhoto,
  addingPhoto = false,
}: UploadAreaProps) {
  const facesLabelId = useId();
  const input = useRef<HTMLInputElement>(null);
  const anotherPhoto = useRef<HTMLInputElement>(null);
  const faceCount = selectedFaces.length + otherPhotoFaces.length;
  const [dragging, setDragging] = useState(false);
  const [previewBroken, setPreviewBroken] = useState(false);

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && !disabled) onFile(file);
  };

  if (preview) {
    return (
      <div className="upload-preview">
        <figure className="upload-preview__figure" aria-busy={detecting || undefined}>
          {!preview.url || previewBroken ? (
            <div className="upload-preview__fallback">
              {preview.url ? preview.name : `Photo at ${preview.name}`}
            </div>
          ) : (
            <img
              className="upload-preview__image"
              src={preview.url}
              alt={`Uploaded photo ${preview.name}`}
              onError={() => setPreviewBroken(true)}
            />
          )}
          {detecting && (
            <div className="upload-preview__scan" role="status">
              <span className="spinner spinner--lg" aria-hidden="true" />
              <span>Detecting faces…</span>
            </div>
          )}
          <button type="button" className="upload-preview__remove" onClick={onRemove} disabled={disabled}>
            REMOVE
          </button>
        </figure>
        {selectedFaces.length > 0 && (
          <div
            className="upload-preview__faces"
            ref={chosenFacesRef}
            tabIndex={-1}
            role="group"
            aria-labelledby={facesLabelId}
          >
            <p className="upload-preview__faces-label" id={facesLabelId}>
              {faceCount === 1 ? 'Face to search' : `Faces to search (${faceCount})`}
            </p>
            <ul className="face-chips">
              {selectedFaces.map((face, index) => (
                <FaceChip key={face.hash} face={face} name={`Selected face ${index + 1}`} />
              ))}
              {otherPhotoFaces.map((face, index) => (
                <FaceChip
                  key={face.hash}
                  face={face}
                  name={`Face from another photo ${index + 1}`}
                  onRemove={onRemoveOtherPhotoFace && (() => onRemoveOtherPhotoFace(face.hash))}
                  disabled={disabled}
                />
              ))}
            </ul>
            <div className="upload-preview__faces-actions">
              {onChangeFaces && (
                <button type="button" className="btn btn-ghost btn-sm" onClick={onChangeFaces}>
                  Change face
                </button>
              )}
              {(onAddPhoto || addingPhoto) && (
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  onClick={() => anotherPhoto.current?.click()}
                  disabled={!onAddPhoto || addingPhoto || disabled}
                >
                  {addingPhoto && <span className="spinner" aria-hidden="true" />}
                  Add another photo of this person
                </button>
              )}
            </div>
            {addingPhoto ? (
              <p className="upload-preview__faces-hint" role="status">
                Finding the faces of the other photo…
              </p>
            ) : (
              <p className="upload-preview__faces-hint">
                More photos of the same person find more of the pages that show them.
              </p>
            )}
            <PhotoFileInput
              inputRef={anotherPhoto}
              label="Another photo of this person"
              onFile={(file) => onAddPhoto?.(file)}
            />
          </div>
        )}
      </div>
    );
  }

  return (
    <div
      className={`upload-drop${dragging ? ' upload-drop--over' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid="upload-drop"
    >
      <svg className="upload-drop__icon" viewBox="0 0 48 48" aria-hidden="true">
        <path
          d="M24 32V12m0 0-8 8m8-8 8 8M10 30v6a2 2 0 0 0 2 2h24a2 2 0 0 0 2-2v-6"
          fill="none"
          stroke="currentColor"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <p className="upload-drop__title">Upload photo and find out where images are published</p>
      <p className="upload-drop__hint">Drag and drop a photo here, or</p>
      <button
        type="button"
        className="btn btn-primary"
        onClick={() => input.current?.click()}
        disabled={disabled}
      >
        Choose a photo
      </button>
      <p className="upload-drop__formats">
        JPG, PNG, BMP or TIFF · up to 1.5 MB and {MAX_UPLOAD_MEGAPIXELS} · face at least 64×64&nbsp;px, best
        128×128&nbsp;px or more
      </p>
      <PhotoFileInput inputRef={input} label="Photo to search" onFile={onFile} />
    </div>
  );
}

/** A face to search, as its crop; a face of another photo can be removed. */
function FaceChip({
  face,
  name,
  onRemove,
  disabled = false,
}: {
  face: DetectedFace;
  name: string;
  onRemove?: (() => void) | undefined;
  disabled?: boolean;
}) {
  return (
    <li className="face-chips__item">
      <img className="face-chip" src={`data:image/jpeg;base64,${face.base64}`} alt={name} />
      {face.small && <SmallFaceMark box={face.box} />}
      {onRemove && (
        <button
          type="button"
          className="face-chips__remove"
          onClick={onRemove}
          disabled={disabled}
          aria-label={`Remove ${name[0]!.toLowerCase()}${name.slice(1)}`}
        >
          ×
        </button>
      )}
    </li>
  );
}

/** The hidden file input a button opens (the same file may be chosen twice in a row). */
function PhotoFileInput({
  inputRef,
  label,
  onFile,
}: {
  inputRef: Ref<HTMLInputElement>;
  label: string;
  onFile: (file: File) => void;
}) {
  return (
    <input
      ref={inputRef}
      className="visually-hidden"
      type="file"
      accept={ACCEPTED_TYPES}
      aria-label={label}
      tabIndex={-1}
      onChange={(event) => {
        const file = event.target.files?.[0];
        event.target.value = '';
        if (file) onFile(file);
      }}
    />
  );
}
