import type { MinorReviewView } from './minor-review.ts';

/** What the search and saved-search pages and the API agree on (spec 001 §3, §7, §9). */

export type SearchType = 'OSINT' | 'SOCIAL_MEDIA_SEARCH';

/** A face's box in the uploaded photo, in whole pixels of the photo as displayed (EXIF-rotated). */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DetectedFace {
  hash: string;
  /** JPEG of the face, base64 without a data: prefix. */
  base64: string;
  box: FaceBox;
  /** Under `reliableFaceSize` pixels wide or high: searchable, but its matches are less reliable. */
  small: boolean;
  /**
   * The age estimate says this face may belong to a person under 18: only verified law-enforcement
   * organizations may search it (the flag is sealed in `hash` too, so the server does not rely on this).
   */
  possibleMinor: boolean;
  /**
   * The platform's review of this face, when the organization asked for one (latest first); null when
   * none was asked. Sent for possible minors of organizations that are not verified law enforcement.
   */
  review: MinorReviewView | null;
}

/** The answer (403) to a search for a possible minor's face, and the notice shown on such faces. */
export const POSSIBLE_MINOR_MESSAGE =
  'This face may belong to a person under 18. Searching for minors is available only to verified law-enforcement organizations.';

/** POST /api/upload-image */
export interface UploadImageResponse {
  /** Faces of at least `minFaceSize` × `minFaceSize` pixels, largest first. */
  faces: DetectedFace[];
  /** Faces found but smaller than `minFaceSize` pixels, not offered for search. */
  smallFaceCount: number;
  /** Sizes (shorter box side, pixels) of those faces, largest first. */
  smallFaceSizes: number[];
  /** Boxes of those faces in the photo's pixels, in the order of `smallFaceSizes`. */
  smallFaceBoxes: FaceBox[];
  minFaceSize: number;
  /** Faces under this size (width or height, pixels) are offered with `small: true`. */
  reliableFaceSize: number;
  /** The organization is verified law enforcement: faces marked `possibleMinor` may be searched. */
  minorsSearchable: boolean;
}

/** Shown next to an offered face under `reliableFaceSize` pixels. */
export const SMALL_FACE_MARK = 'small face: less reliable';

/**
 * What to tell about the faces too small to search, e.g. "2 faces were found but are too small to
 * search (under 64 px); the largest is 51 px." With `more`, the photo also had faces that are offered.
 */
export function tooSmallFacesMessage(
  answer: Pick<UploadImageResponse, 'smallFaceCount' | 'smallFaceSizes' | 'minFaceSize'>,
  { more = false }: { more?: boolean } = {},
): string {
  const count = answer.smallFaceCount;
  const one = count === 1;
  const subject = `${count} ${more ? 'more ' : ''}${one ? 'face was' : 'faces were'}`;
  const floor = `too small to search (under ${answer.minFaceSize} px)`;
  const largest = answer.smallFaceSizes[0];
  const size = largest === undefined ? '' : one ? `: it is ${largest} px` : `; the largest is ${largest} px`;
  return `${subject} found but ${one ? 'is' : 'are'} ${floor}${size}.`;
}

/** One sighting of a face: an image on a source page. URLs are null for restricted (trial) users. */
export interface SearchResult {
  id: number;
  hash: string;
  /** Copies of one photo (across sites) share a group. */
  group: string;
  thumbnailUrl: string;
  imageUrl: string | null;
  sourceUrl: string | null;
  sourceTitle: string;
  /** When the image was first indexed on that page (ISO). */
  crawledAt: string;
  similarity: number;
  /**
   * The face model that computed `similarity` (its scale gives the band: contract/src/match-score.ts);
   * null for a score stored before models were kept with scores.
   */
  scoreModel: string | null;
  /**
   * The matched face's box in the result image, in that image's pixels (`imageSize`); the thumbnail is
   * the same image scaled down. Null when not known (results stored before boxes were kept).
   */
  faceBox: FaceBox | null;
  imageSize: { width: number; height: number } | null;
}

/** POST /api/search */
export interface SearchResponse {
  results: SearchResult[];
  /** Milliseconds. */
  time: number;
  numberOfResults: number;
  searchHash: string;
}

/** GET /api/search/{searchHash}: the search as POST /api/search answered it (removed results left out). */
export interface StoredSearchResponse extends SearchResponse {
  type: SearchType;
  createdAt: string;
  /** URL of the searched face; null when the search was run without it. */
  image: string | null;
  /** Results of earlier searches chosen to search again with, searched together with that face. */
  addedFaceCount: number;
  /** Other uploaded faces of the person (other photos) searched together with that face. */
  otherFaceCount: number;
}

/** An item of GET /api/search/history. */
export interface SearchHistoryItem {
  searchHash: string;
  type: SearchType;
  createdAt: string;
  /** Null once the user who searched is deleted. */
  userEmail: string | null;
  numberOfResults: number;
  image: string | null;
}

export interface SearchHistoryResponse {
  results: SearchHistoryItem[];
  totalResultCount: number;
}

/** The search's own address: reload, Back and a colleague's link reopen it. */
export const searchResultsPath = (searchHash: string) => `/search/results/${encodeURIComponent(searchHash)}`;
/** The search page's address that has the server fetch the photo at `imageUrl` and search it (spec 001 §2). */
export const searchImagePath = (imageUrl: string) => `/search/${encodeURIComponent(imageUrl)}`;
export const SEARCH_HISTORY_PAGE_SIZE = 10;

export type SavedSearchStatus = 'PENDING' | 'COMPLETED';

/** An item of GET /api/saved-search. */
export interface SavedSearch {
  id: number;
  /** Public id of the saved search: /saved-searches/{hash}. */
  hash: string;
  name: string;
  description: string;
  createdAt: string;
  /** URL of the searched face. */
  image: string;
  status: SavedSearchStatus;
  type: SearchType;
  resultCount: number;
  /** Admin answers only (GET /api/admin/saved-search…): whose saved search it is. */
  organizationName?: string;
}

export interface SavedSearchListResponse {
  results: SavedSearch[];
  totalResultCount: number;
}

export interface SavedSearchResult extends SearchResult {
  /** Quality of the matched face in its image (0–1), when known. */
  quality: number | null;
}

/** GET /api/saved-search/results/{hash}: the saved search and its results. */
export interface SavedSearchResultsResponse extends SavedSearch {
  results: SavedSearchResult[];
  /** Duration of the original search, in milliseconds. */
  time: number;
  numberOfResults: number;
}

export const SEARCH_TYPE_LABELS: Record<SearchType, string> = {
  OSINT: 'Standard search',
  SOCIAL_MEDIA_SEARCH: 'Social media search',
};

/** Spec 001 §5 and §9. */
export const SAVE_NAME_MAX_LENGTH = 32;
export const SAVE_NAME_TOO_LONG = 'Save name cannot be longer than 32 characters.';
export const SAVED_SEARCH_PENDING_PAGE_SIZE = 3;
export const SAVED_SEARCH_DONE_PAGE_SIZE = 5;
export const SAVED_SEARCH_REFRESH_MS = 90_000;
/** A pending saved search is expected to finish this long after it started (ARCHITECTURE §5). */
export const SAVED_SEARCH_ESTIMATE_MS = 3 * 60_000;
export const RESULT_GRID_STEP = 20;
export const REPORT_ESTIMATE_MS = 50_000;
export const MAX_UPLOAD_BYTES = 1.5 * 1024 * 1024;
/** Most pixels a query photo may declare (an area: 4096 × 4096, or as many in another shape). */
export const MAX_UPLOAD_PIXELS = 4096 * 4096;
/** The pixel limit as users read it: "16.8 megapixels". */
export const MAX_UPLOAD_MEGAPIXELS = `${(MAX_UPLOAD_PIXELS / 1e6).toFixed(1)} megapixels`;

/** Faces one search may take (POST /api/search `faces`): the chosen faces of one person, from one or more photos. */
export const MAX_QUERY_FACES = 20;

export const SEARCH_MESSAGES = {
  noFaces: 'No faces detected on the image. Try to upload different one.',
  /** DELETE /api/search/{searchHash} of a search a saved search or an extraction still has to read. */
  stillNeeded:
    'This search cannot be deleted yet: a saved search or AI data extraction of it is still pending. Please try again when it is done.',
  tooBig: 'File is too big. Please upload smaller image.',
  /**
   * A file that is not a photo of the accepted formats. The spec gives no text for it, only the
   * requirement it states to users (JPG, PNG, BMP or TIFF); this says that instead of "Something went wrong".
   */
  unsupportedFile: 'This file is not a supported image. Please upload a JPG, PNG, BMP or TIFF photo.',
  detectFailure: 'Something went wrong while detecting face. Try again later.',
  searchFailure: 'Something went wrong while making search. Try again later.',
  saveFailure: 'Something went wrong while saving search result.',
  reportFailure: 'Something went wrong while generating the report.',
  reportFailureHint: 'Please try again later or reach out to our support.',
  deleteSavedResultFailure: 'Something went wrong while deleting saved result. Please try again later.',
  updateFailure: 'Something went wrong while updating search result.',
  restricted: 'Viewing the original source of this image is available only to subscribers.',
  /** The face image sent with a search, a watch or a review is not the crop the upload answered. */
  faceImageMismatch: 'The face image does not match the chosen face. Please upload the photo again.',
  /** A query face (an upload's token, a kept picture) can no longer be searched: expired, or another model's. */
  faceGone: 'The selected face is no longer available. Please upload the photo again.',
  /** POST /api/search/{searchHash}/with-results of a search that kept no picture of its face. */
  searchedFaceNotKept:
    'This search kept no picture of its face, so it cannot be searched again. Please upload the photo again.',
  /** POST /api/search/{searchHash}/with-results naming a result that is removed, gone or not the search's. */
  resultFaceGone: 'A selected result is no longer available. Please reload the results and select again.',
  /**
   * POST /api/search/{searchHash}/with-results when the search's own faces, the results it added and the
   * chosen ones are more than one search takes.
   */
  tooManyAddedResults: `A search takes at most ${MAX_QUERY_FACES} faces, its own and the selected results together. Please select fewer results.`,
} as const;

/**
 * What a search looked for beyond the face it shows — "the face shown, 2 other uploaded faces of this person
 * and 3 results the analyst confirmed as this person" — or null for a search of that face alone. The same
 * counts on the results page and in reports; `face` and `results` word each place's own view.
 */
export function searchedWithSummary(
  counts: { otherFaceCount: number; addedFaceCount: number },
  words: { face: string; results: string },
): string | null {
  const { otherFaceCount: other, addedFaceCount: added } = counts;
  const parts = [
    words.face,
    ...(other > 0 ? [`${other} other uploaded ${other === 1 ? 'face' : 'faces'} of this person`] : []),
    ...(added > 0 ? [`${added} ${added === 1 ? 'result' : 'results'} ${words.results}`] : []),
  ];
  return parts.length === 1 ? null : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** Most results that can be added to a search's face to search again (with it, MAX_QUERY_FACES faces). */
export const MAX_ADDED_RESULT_FACES = MAX_QUERY_FACES - 1;

/** Search by image URL (POST /api/upload-image-url): why an address gave no photo to search. */
export const IMAGE_URL_MESSAGES = {
  invalidUrl: 'Please enter a valid image address starting with http:// or https://.',
  refused: 'Images are fetched only from public web servers; this address is not allowed.',
  unreachable: 'The image could not be downloaded from this address. Check the address and try again.',
  notFound: 'The address did not return an image: its server answered with an error.',
} as const;

/** The longest image address accepted (browsers and servers rarely go beyond it). */
export const MAX_IMAGE_URL_LENGTH = 2048;

const pad = (n: number) => String(n).padStart(2, '0');

/** "DD.MM.YYYY, HH:MM" in local time: the stamp of default names (spec 001 §5). */
export function nameStamp(date: Date): string {
  return `${pad(date.getDate())}.${pad(date.getMonth() + 1)}.${date.getFullYear()}, ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** "SEARCH DD.MM.YYYY, HH:MM" in local time (spec 001 §5). */
export function defaultSaveName(date: Date): string {
  return `SEARCH ${nameStamp(date)}`;
}
