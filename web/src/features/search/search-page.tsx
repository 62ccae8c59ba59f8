import {
  IMAGE_URL_MESSAGES,
  MAX_IMAGE_URL_LENGTH,
  MAX_QUERY_FACES,
  MAX_UPLOAD_BYTES,
  POSSIBLE_MINOR_MESSAGE,
  SEARCH_MESSAGES,
  searchResultsPath,
  tooSmallFacesMessage,
  type DetectedFace,
  type FaceBox,
  type SearchType,
  type UploadImageResponse,
} from '@osint/contract/search';
import type { MinorReviewView } from '@osint/contract/minor-review';
import { useCallback, useEffect, useId, useReducer, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { fileToBase64 } from '../../lib/file-data.ts';
import { useSession } from '../../lib/session.tsx';
import { FaceChooser, isSearchableFace } from './face-chooser.tsx';
import { PhotoTipsModal } from './photo-tips-modal.tsx';
import { runSearch, type SearchQuery, uploadImage, uploadImageUrl } from './search-api.ts';
import { UploadArea } from './upload-area.tsx';
import './search.css';

type Phase = 'idle' | 'detecting' | 'ready' | 'choosing' | 'searching';

interface Preview {
  url: string | undefined;
  name: string;
}

interface State {
  phase: Phase;
  /** The photo shown while its faces are chosen; no url for a photo fetched by the server from an address. */
  preview?: Preview | undefined;
  faces: DetectedFace[];
  selected: string[];
  smallFaceCount: number;
  smallFaceSizes: number[];
  smallFaceBoxes: FaceBox[];
  minFaceSize: number;
  reliableFaceSize: number;
  /** The organization is verified law enforcement: faces that may belong to minors may be searched. */
  minorsSearchable: boolean;
  /** A search asked for before a face was chosen (a click while detecting, or /search/{imageUrl}). */
  requestedType?: SearchType | undefined;
  type?: SearchType | undefined;
  /**
   * Faces of the same person from other photos, searched together with the chosen ones (their descriptors
   * are averaged: more photos of a person find more of their pages, `npm run bench:faces`).
   */
  otherPhotoFaces: DetectedFace[];
  /** Another photo of the person is being sent. */
  addingPhoto: boolean;
  /** Another photo whose faces wait to be chosen (it has several, or one that cannot be searched). */
  addedPhoto?: { preview: Preview; answer: UploadImageResponse } | undefined;
}

type Action =
  | { type: 'reset' }
  | { type: 'file'; preview: Preview; requestedType?: SearchType | undefined }
  | {
      type: 'detected';
      faces: DetectedFace[];
      smallFaceCount: number;
      smallFaceSizes: number[];
      smallFaceBoxes: FaceBox[];
      minFaceSize: number;
      reliableFaceSize: number;
      minorsSearchable: boolean;
    }
  | { type: 'choose' }
  | { type: 'close-chooser' }
  | { type: 'chosen'; hashes: string[] }
  | { type: 'request'; searchType: SearchType }
  | { type: 'searching'; searchType: SearchType }
  | { type: 'search-failed' }
  | { type: 'review-requested'; hash: string; review: MinorReviewView }
  | { type: 'adding-photo' }
  | { type: 'add-photo-failed' }
  | { type: 'photo-added'; preview: Preview; answer: UploadImageResponse }
  | { type: 'added-photo-chosen'; hashes: string[] }
  | { type: 'added-photo-closed' }
  | { type: 'remove-other-photo-face'; hash: string };

const initialState: State = {
  phase: 'idle',
  faces: [],
  selected: [],
  smallFaceCount: 0,
  smallFaceSizes: [],
  smallFaceBoxes: [],
  minFaceSize: 64,
  reliableFaceSize: 128,
  minorsSearchable: false,
  otherPhotoFaces: [],
  addingPhoto: false,
};

/** Faces chosen in another photo join the search (every upload's faces have tokens of their own). */
function withOtherPhotoFaces(state: State, faces: DetectedFace[]): State {
  return {
    ...state,
    addingPhoto: false,
    addedPhoto: undefined,
    otherPhotoFaces: [...state.otherPhotoFaces, ...faces],
  };
}

function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'reset':
      return initialState;
    case 'file':
      return {
        ...initialState,
        phase: 'detecting',
        preview: action.preview,
        requestedType: action.requestedType,
      };
    case 'detected': {
      // One searchable face is chosen for the user; several faces, or one that may belong to a minor
      // (shown in the chooser with the notice why it cannot be searched), open the chooser.
      const one = action.faces.length === 1 && isSearchableFace(action.faces[0]!, action.minorsSearchable);
      return {
        ...state,
        phase: one ? 'ready' : 'choosing',
        faces: action.faces,
        selected: one ? [action.faces[0]!.hash] : [],
        smallFaceCount: action.smallFaceCount,
        smallFaceSizes: action.smallFaceSizes,
        smallFaceBoxes: action.smallFaceBoxes,
        minFaceSize: action.minFaceSize,
        reliableFaceSize: action.reliableFaceSize,
        minorsSearchable: action.minorsSearchable,
      };
    }
    case 'choose':
      return { ...state, phase: 'choosing' };
    case 'close-chooser':
      return { ...state, phase: 'ready', requestedType: undefined };
    case 'chosen':
      return { ...state, phase: 'ready', selected: action.hashes };
    case 'request':
      return { ...state, requestedType: action.searchType };
    case 'searching':
      return { ...state, phase: 'searching', requestedType: undefined, type: action.searchType };
    case 'review-requested': {
      const withReview = (faces: DetectedFace[]) =>
        faces.map((face) => (face.hash === action.hash ? { ...face, review: action.review } : face));
      const added = state.addedPhoto;
      return {
        ...state,
        faces: withReview(state.faces),
        addedPhoto: added && { ...added, answer: { ...added.answer, faces: withReview(added.answer.faces) } },
      };
    }
    case 'adding-photo':
      return { ...state, addingPhoto: true };
    case 'add-photo-failed':
      return { ...state, addingPhoto: false };
    case 'photo-added': {
      const { faces, minorsSearchable } = action.answer;
      // One searchable face joins at once, as a photo's single face is chosen for the user.
      if (faces.length === 1 && isSearchableFace(faces[0]!, minorsSearchable))
        return withOtherPhotoFaces(state, faces);
      return { ...state, addingPhoto: false, addedPhoto: { preview: action.preview, answer: action.answer } };
    }
    case 'added-photo-chosen':
      return withOtherPhotoFaces(
        state,
        state.addedPhoto?.answer.faces.filter((f) => action.hashes.includes(f.hash)) ?? [],
      );
    case 'added-photo-closed':
      return { ...state, addedPhoto: undefined };
    case 'remove-other-photo-face':
      return { ...state, otherPhotoFaces: state.otherPhotoFaces.filter((f) => f.hash !== action.hash) };
    case 'search-failed':
      // The photo and its faces stay: the user can retry, or pick another face.
      return { ...state, phase: 'ready', requestedType: undefined, type: undefined };
  }
}

/** Why a file cannot be sent as a photo (before any upload), or undefined when it can. */
function fileRefusal(file: File): string | undefined {
  const accepted =
    /\.(jpe?g|png|bmp|tiff?)$/i.test(file.name) || /^image\/(jpeg|png|bmp|x-ms-bmp|tiff)$/.test(file.type);
  if (!accepted) return SEARCH_MESSAGES.unsupportedFile;
  if (file.size > MAX_UPLOAD_BYTES) return SEARCH_MESSAGES.tooBig;
  return undefined;
}

/**
 * The image search page (spec 001 §2): upload, choose a face, search. The results live at the search's
 * own address (/search/results/{searchHash}), so reload, Back and a shared link reopen them.
 */
export function SearchPage() {
  const { session, refresh } = useSession();
  const { showBanner, hideBanner } = useBanner();
  const navigate = useNavigate();
  const { imageUrl } = useParams();
  const [state, dispatch] = useReducer(reducer, initialState);
  // Answers of a search that was reset meanwhile (New search, REMOVE) are dropped.
  const generation = useRef(0);
  const previewUrl = useRef<string | undefined>(undefined);
  const [tipsOpen, setTipsOpen] = useState(false);
  // The address typed in "or paste an image URL": kept here, not in the form (which is hidden while the
  // photo is detected), so that after a failure the user can correct it.
  const [imageAddress, setImageAddress] = useState('');
  // After "Proceed" the chooser closes: focus goes to the faces just chosen, not back to the top of
  // the page (WCAG 2.4.3). Counted so that each Proceed moves it, after the chooser has given it back.
  const chosenFaces = useRef<HTMLDivElement>(null);
  const [proceeded, setProceeded] = useState(0);
  useEffect(() => {
    if (proceeded > 0) chosenFaces.current?.focus();
  }, [proceeded]);

  const reset = useCallback(() => {
    generation.current += 1;
    if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
    previewUrl.current = undefined;
    dispatch({ type: 'reset' });
  }, []);

  const fail = useCallback(
    (message: string, additionalMessage?: string) => {
      showBanner({ message, type: 'danger', ...(additionalMessage ? { additionalMessage } : {}) });
      reset();
    },
    [showBanner, reset],
  );

  const search = useCallback(
    async (query: SearchQuery, searchType: SearchType) => {
      const run = generation.current;
      hideBanner();
      dispatch({ type: 'searching', searchType });
      try {
        const response = await runSearch(query, searchType);
        if (run === generation.current) navigate(searchResultsPath(response.searchHash));
      } catch (error) {
        if (run !== generation.current) return;
        console.error('Search failed', error);
        if (error instanceof ApiError && error.message === POSSIBLE_MINOR_MESSAGE) {
          // The photo stays, so that another face of it can be chosen.
          showBanner({ message: POSSIBLE_MINOR_MESSAGE, type: 'danger' });
          dispatch({ type: 'search-failed' });
          return;
        }
        if (error instanceof ApiError && error.status === 403) void refresh();
        showBanner({
          message: SEARCH_MESSAGES.searchFailure,
          type: 'danger',
          ...(error instanceof ApiError && error.status === 400 ? { additionalMessage: error.message } : {}),
        });
        dispatch({ type: 'search-failed' });
      }
    },
    [showBanner, hideBanner, refresh, navigate],
  );

  /** Sends the photo (uploaded, or fetched by the server from its address) and shows its faces. */
  const findFaces = useCallback(
    async (preview: Preview, send: () => Promise<UploadImageResponse>, requestedType?: SearchType) => {
      generation.current += 1;
      const run = generation.current;
      if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
      previewUrl.current = preview.url;
      dispatch({ type: 'file', preview, requestedType });
      try {
        const answer = await send();
        if (run !== generation.current) return;
        if (answer.faces.length === 0) {
          fail(SEARCH_MESSAGES.noFaces, noFacesDetail(answer));
          return;
        }
        dispatch({ type: 'detected', ...answer });
      } catch (error) {
        if (run !== generation.current) return;
        console.error('Face detection failed', error);
        if (error instanceof ApiError && error.status === 403) void refresh();
        fail(detectionFailureMessage(error));
      }
    },
    [fail, refresh],
  );

  /**
   * Another photo of the same person: its face joins the chosen ones (or its faces are offered in the
   * chooser). A photo that fails says why and changes nothing else.
   */
  const addPhoto = useCallback(
    async (file: File) => {
      hideBanner();
      const refuse = (message: string, additionalMessage?: string) => {
        showBanner({ message, type: 'danger', ...(additionalMessage ? { additionalMessage } : {}) });
        dispatch({ type: 'add-photo-failed' });
      };
      const refusal = fileRefusal(file);
      if (refusal) return refuse(refusal);
      const run = generation.current;
      dispatch({ type: 'adding-photo' });
      try {
        const answer = await uploadImage(await fileToBase64(file));
        if (run !== generation.current) return;
        if (answer.faces.length === 0) return refuse(SEARCH_MESSAGES.noFaces, noFacesDetail(answer));
        dispatch({
          type: 'photo-added',
          preview: { url: URL.createObjectURL(file), name: file.name },
          answer,
        });
      } catch (error) {
        if (run !== generation.current) return;
        console.error('Face detection failed', error);
        if (error instanceof ApiError && error.status === 403) void refresh();
        refuse(detectionFailureMessage(error));
      }
    },
    [hideBanner, showBanner, refresh],
  );

  const detect = useCallback(
    async (file: File, requestedType?: SearchType) => {
      hideBanner();
      const refusal = fileRefusal(file);
      if (refusal) {
        fail(refusal);
        return;
      }
      const preview = { url: URL.createObjectURL(file), name: file.name };
      await findFaces(preview, async () => uploadImage(await fileToBase64(file)), requestedType);
    },
    [fail, hideBanner, findFaces],
  );

  const detectUrl = useCallback(
    async (address: string, requestedType?: SearchType) => {
      hideBanner();
      const url = address.trim();
      if (!/^https?:\/\/\S+$/i.test(url)) {
        fail(IMAGE_URL_MESSAGES.invalidUrl);
        return;
      }
      await findFaces({ url: undefined, name: url }, () => uploadImageUrl(url), requestedType);
    },
    [fail, hideBanner, findFaces],
  );

  // A face chosen while a search waits for one (auto-search, or a click during detection) runs it.
  useEffect(() => {
    if (state.phase === 'ready' && state.requestedType && state.selected.length > 0) {
      void search(searchQuery(state), state.requestedType);
    }
  }, [state, search]);

  // The added photo is shown only while its faces are chosen.
  const addedPhotoUrl = state.addedPhoto?.preview.url;
  useEffect(
    () => () => {
      if (addedPhotoUrl) URL.revokeObjectURL(addedPhotoUrl);
    },
    [addedPhotoUrl],
  );

  // /search/{imageUrl}: the server fetches the photo and it is searched at once. The address is then
  // replaced by /search (a reload must not search again), which changes imageUrl: the detection carries on.
  const handledUrl = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!imageUrl || handledUrl.current === imageUrl) return;
    handledUrl.current = imageUrl;
    navigate('/search', { replace: true });
    void detectUrl(imageUrl, 'OSINT');
  }, [imageUrl, navigate, detectUrl]);

  useEffect(
    () => () => {
      if (previewUrl.current) URL.revokeObjectURL(previewUrl.current);
    },
    [],
  );

  if (!session) return null;
  const { user } = session;
  if (!user.access) return <WorkAccessNotice />;

  const selectedFaces = state.faces.filter((f) => state.selected.includes(f.hash));
  const requestSearch = (searchType: SearchType) => {
    if (state.phase === 'ready' && state.selected.length > 0) void search(searchQuery(state), searchType);
    else if (state.phase === 'ready' && state.faces.length > 1) {
      dispatch({ type: 'request', searchType });
      dispatch({ type: 'choose' });
    } else dispatch({ type: 'request', searchType });
  };

  const busy = state.phase === 'detecting' || state.phase === 'searching' || state.addingPhoto;
  return (
    <section className="container page search-page" aria-busy={busy || undefined}>
      <header className="search-page__header">
        <h1 className="page__title">Face search</h1>
        <p className="page__lead">
          Upload a photo with a face. We find the faces in it, you choose yours, and we search the public
          pages we have indexed for the same person.
        </p>
        <p className="search-page__history">
          <Link to="/search/history">Search history</Link>: reopen your organization’s earlier searches.
        </p>
      </header>
      <div className="card search-upload">
        <UploadArea
          preview={state.preview}
          detecting={state.phase === 'detecting'}
          disabled={state.phase === 'searching'}
          selectedFaces={selectedFaces}
          onFile={(file) => void detect(file)}
          onRemove={reset}
          onChangeFaces={state.faces.length > 1 ? () => dispatch({ type: 'choose' }) : undefined}
          chosenFacesRef={chosenFaces}
          otherPhotoFaces={state.otherPhotoFaces}
          onRemoveOtherPhotoFace={(hash) => dispatch({ type: 'remove-other-photo-face', hash })}
          onAddPhoto={
            state.phase === 'ready' && searchQuery(state).hashes.length < MAX_QUERY_FACES
              ? (file) => void addPhoto(file)
              : undefined
          }
          addingPhoto={state.addingPhoto}
        />
        {!state.preview && (
          <ImageUrlForm
            url={imageAddress}
            onChange={setImageAddress}
            onSubmit={(url) => void detectUrl(url)}
          />
        )}
        {state.preview && (
          <div className="search-upload__actions">
            {state.smallFaceCount > 0 && state.phase !== 'detecting' && (
              <p className="search-upload__note" role="status">
                {tooSmallFacesMessage(state, { more: true })}
              </p>
            )}
            {state.phase === 'searching' && (
              <p className="search-upload__status" role="status">
                <span className="spinner" aria-hidden="true" /> Searching the index…
              </p>
            )}
            <div className="search-upload__buttons">
              <Button
                variant="secondary"
                onClick={() => requestSearch('SOCIAL_MEDIA_SEARCH')}
                disabled={busy || Boolean(state.requestedType)}
                loading={state.type === 'SOCIAL_MEDIA_SEARCH' && state.phase === 'searching'}
              >
                Social Media Search
              </Button>
              <Button
                onClick={() => requestSearch('OSINT')}
                disabled={busy || Boolean(state.requestedType)}
                loading={
                  (state.type === 'OSINT' && state.phase === 'searching') ||
                  (state.requestedType !== undefined && state.phase === 'detecting')
                }
              >
                Search
              </Button>
            </div>
          </div>
        )}
        <p className="search-upload__hint">
          No good results? Try a better-quality image: sharp, well lit, the face straight and centred.{' '}
          <button type="button" className="link-button" onClick={() => setTipsOpen(true)}>
            Tips for better results
          </button>
        </p>
        {tipsOpen && <PhotoTipsModal onClose={() => setTipsOpen(false)} />}
      </div>
      {state.phase === 'choosing' && (
        <FaceChooser
          faces={state.faces}
          initiallySelected={state.selected}
          smallFaceCount={state.smallFaceCount}
          smallFaceSizes={state.smallFaceSizes}
          smallFaceBoxes={state.smallFaceBoxes}
          photoUrl={state.preview?.url}
          minFaceSize={state.minFaceSize}
          reliableFaceSize={state.reliableFaceSize}
          minorsSearchable={state.minorsSearchable}
          onProceed={(hashes) => {
            dispatch({ type: 'chosen', hashes });
            setProceeded((count) => count + 1);
          }}
          onClose={() => dispatch({ type: 'close-chooser' })}
          onReviewRequested={(hash, review) => dispatch({ type: 'review-requested', hash, review })}
        />
      )}
      {state.addedPhoto && (
        <FaceChooser
          faces={state.addedPhoto.answer.faces}
          initiallySelected={[]}
          smallFaceCount={state.addedPhoto.answer.smallFaceCount}
          smallFaceSizes={state.addedPhoto.answer.smallFaceSizes}
          smallFaceBoxes={state.addedPhoto.answer.smallFaceBoxes}
          photoUrl={state.addedPhoto.preview.url}
          minFaceSize={state.addedPhoto.answer.minFaceSize}
          reliableFaceSize={state.addedPhoto.answer.reliableFaceSize}
          minorsSearchable={state.addedPhoto.answer.minorsSearchable}
          onProceed={(hashes) => {
            dispatch({ type: 'added-photo-chosen', hashes });
            setProceeded((count) => count + 1);
          }}
          onClose={() => dispatch({ type: 'added-photo-closed' })}
          onReviewRequested={(hash, review) => dispatch({ type: 'review-requested', hash, review })}
        />
      )}
    </section>
  );
}

/** "Or paste an image URL": the server fetches the photo at the address, with the limits of an upload. */
function ImageUrlForm({
  url,
  onChange,
  onSubmit,
}: {
  url: string;
  onChange: (url: string) => void;
  onSubmit: (url: string) => void;
}) {
  const inputId = useId();
  return (
    <form
      className="search-url"
      onSubmit={(event) => {
        event.preventDefault();
        if (url.trim()) onSubmit(url);
      }}
    >
      <label className="search-url__label" htmlFor={inputId}>
        or paste an image URL
      </label>
      <div className="search-url__row">
        <input
          id={inputId}
          className="input search-url__input"
          type="url"
          inputMode="url"
          placeholder="https://example.org/photo.jpg"
          maxLength={MAX_IMAGE_URL_LENGTH}
          value={url}
          onChange={(event) => onChange(event.target.value)}
        />
        <Button type="submit" variant="secondary" disabled={!url.trim()}>
          Find faces
        </Button>
      </div>
    </form>
  );
}

/**
 * Every face of the search — those chosen in the photo, then those of other photos of the person — with
 * their crops, kept with the search: the first is the face its page shows, the others let searching it
 * again and watching it use every face.
 */
function searchQuery(state: State): SearchQuery {
  const chosen = state.selected
    .map((hash) => state.faces.find((face) => face.hash === hash))
    .filter((face) => face !== undefined);
  const faces = [...chosen, ...state.otherPhotoFaces];
  return {
    hashes: [...state.selected, ...state.otherPhotoFaces.map((face) => face.hash)],
    faceImage: faces[0]?.base64,
    otherFaceImages: faces.slice(1).map((face) => face.base64),
  };
}

function noFacesDetail(answer: UploadImageResponse): string | undefined {
  return answer.smallFaceCount > 0
    ? `${tooSmallFacesMessage(answer)} Try the original, larger photo or a closer shot.`
    : undefined;
}

function detectionFailureMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 413) return SEARCH_MESSAGES.tooBig;
  // The server says what is wrong with the file or the address (not an image, too many pixels, damaged,
  // not reachable).
  if (error instanceof ApiError && error.status === 400) return error.message;
  return SEARCH_MESSAGES.detectFailure;
}
