import type { Db } from '../db/database.ts';
import { BlobRepository } from '../repositories/blob.repository.ts';
import { S3BlobStore, type ObjectStoreConfig } from './s3-blob-store.ts';

/**
 * Where stored files (the thumbnails of indexed images) live: every process of a deployment, on any
 * machine, reads what any other wrote. The database by default (`BlobRepository`), an S3-compatible object
 * store when OBJECT_STORE_URL is set (`S3BlobStore`); DATA_DIR holds none of them.
 */
export interface BlobStore {
  /** Stores `bytes` under `key`; a key written again keeps its first bytes (keys name their content). */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes under `key`, or null when nothing is stored under it. */
  get(key: string): Promise<Buffer | null>;
  /** Deletes the keys; absent keys are ignored. */
  delete(keys: readonly string[]): Promise<void>;
  /** Which of the keys are stored already (the one-time import of an old DATA_DIR skips those). */
  existingKeys(keys: readonly string[]): Promise<Set<string>>;
}

/** The key of an indexed image's thumbnail: thumbnails/<first 2 hex>/<sha256>.jpg (images.thumbnail_path). */
export function thumbnailKey(sha256: string): string {
  return `thumbnails/${sha256.slice(0, 2)}/${sha256}.jpg`;
}

/** The deployment's blob store: the object store when OBJECT_STORE_URL is set, else the database. */
export function createBlobStore(objectStore: ObjectStoreConfig | undefined, db: Db): BlobStore {
  return objectStore ? new S3BlobStore(objectStore) : new BlobRepository(db);
}
