import type { MinorReviewView } from '@osint/contract/minor-review';
import type {
  SearchHistoryResponse,
  SearchResponse,
  SearchType,
  StoredSearchResponse,
  UploadImageResponse,
} from '@osint/contract/search';
import { api, apiFile } from '../../lib/api-client.ts';

export function uploadImage(base64: string): Promise<UploadImageResponse> {
  return api<UploadImageResponse>('/upload-image', { method: 'POST', body: { img: base64 } });
}

/**
 * The faces of the photo at a web address (spec 001 §2 /search/{imageUrl}). The server fetches it: the
 * page's Content-Security-Policy lets the browser load nothing from other sites.
 */
export function uploadImageUrl(url: string): Promise<UploadImageResponse> {
  return api<UploadImageResponse>('/upload-image-url', { method: 'POST', body: { url } });
}

/** The faces of one search (their hashes) and the crops kept with it: the face it shows, then the others. */
export interface SearchQuery {
  hashes: string[];
  faceImage: string | undefined;
  otherFaceImages: string[];
}

export function runSearch(query: SearchQuery, type: SearchType): Promise<SearchResponse> {
  return api<SearchResponse>('/search', {
    method: 'POST',
    body: {
      faces: query.hashes,
      type,
      image: query.faceImage,
      ...(query.faceImage && query.otherFaceImages.length > 0 ? { otherImages: query.otherFaceImages } : {}),
    },
  });
}

/**
 * A new search of the stored search's face together with the faces of the chosen results (record hashes),
 * which the analyst is sure show the same person.
 */
export function searchWithResults(searchHash: string, recordHashes: string[]): Promise<SearchResponse> {
  return api<SearchResponse>(`/search/${encodeURIComponent(searchHash)}/with-results`, {
    method: 'POST',
    body: { recordHashes },
  });
}

export function fetchSearch(searchHash: string): Promise<StoredSearchResponse> {
  return api<StoredSearchResponse>(`/search/${encodeURIComponent(searchHash)}`);
}

export function fetchSearchHistory(pageNumber: number, pageSize: number): Promise<SearchHistoryResponse> {
  return api<SearchHistoryResponse>('/search/history', { query: { pageNumber, pageSize } });
}

export function deleteSearch(searchHash: string): Promise<unknown> {
  return api(`/search/${encodeURIComponent(searchHash)}`, { method: 'DELETE' });
}

/** The same PDF as a saved search's report, of every result still shown. */
export function generateSearchReport(searchHash: string) {
  return apiFile('/search/generate-report', 'search-report.pdf', { method: 'POST', body: { searchHash } });
}

/** A stored image (the searched face) as base64 without a data: prefix, as saving and extracting send it. */
export async function imageAsBase64(url: string): Promise<string> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`Image download failed with ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function removeRecords(searchHash: string, recordHashes: string[]): Promise<unknown> {
  return api('/search/remove-records', { method: 'POST', body: { hash: searchHash, recordHashes } });
}

export function saveSearch(body: {
  name: string;
  description: string;
  hash: string;
  image: string;
}): Promise<{ id: number; hash: string; status: string }> {
  return api('/search/save', { method: 'POST', body });
}

/** Asks the platform to review a face refused as a possible minor (its crop as the upload answered it). */
export function requestMinorReview(face: string, image: string, reason: string): Promise<MinorReviewView> {
  return api<MinorReviewView>('/minor-reviews', { method: 'POST', body: { face, image, reason } });
}
