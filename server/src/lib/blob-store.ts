/**
 * Where stored files (the thumbnails of indexed images) live: every process of a deployment, on any
 * machine, reads what any other wrote. The database is the implementation (`BlobRepository`); DATA_DIR
 * holds none of them.
 */
export interface BlobStore {
  /** Stores `bytes` under `key`; a key written again keeps its first bytes (keys name their content). */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes under `key`, or null when nothing is stored under it. */
  get(key: string): Promise<Buffer | null>;
  /** Deletes the keys; absent keys are ignored. */
  delete(keys: readonly string[]): Promise<void>;
}

/** The key of an indexed image's thumbnail: thumbnails/<first 2 hex>/<sha256>.jpg (images.thumbnail_path). */
export function thumbnailKey(sha256: string): string {
  return `thumbnails/${sha256.slice(0, 2)}/${sha256}.jpg`;
}
