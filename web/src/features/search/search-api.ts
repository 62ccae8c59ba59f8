import type { SearchResponse, SearchType, UploadImageResponse } from '@osint/contract/search';
import { api } from '../../lib/api-client.ts';

export function uploadImage(base64: string): Promise<UploadImageResponse> {
  return api<UploadImageResponse>('/upload-image', { method: 'POST', body: { img: base64 } });
}

export function runSearch(faces: string[], type: SearchType): Promise<SearchResponse> {
  return api<SearchResponse>('/search', { method: 'POST', body: { faces, type } });
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

/** Spec 001 §2: /search/{imageUrl} downloads the image as a file before searching it. */
export async function downloadImage(url: string): Promise<File> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`Image download failed with ${response.status}`);
  const blob = await response.blob();
  const name = decodeURIComponent(new URL(url, window.location.href).pathname.split('/').pop() || 'image');
  return new File([blob], name, { type: blob.type });
}
