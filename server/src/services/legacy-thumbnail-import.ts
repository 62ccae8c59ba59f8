import fs from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore } from '../lib/blob-store.ts';
import type { WebIndexRepository } from '../repositories/web-index.repository.ts';

const IMPORT_BATCH = 200;

/**
 * One-time move of an old DATA_DIR's thumbnail files (DATA_DIR/thumbnails/<2 hex>/<sha256>.jpg, before
 * migration 0024) into the blob store, run at start-up by every process that owns a DATA_DIR. A file an
 * image still names is stored under the key the image already holds; a file no image names (left behind
 * by an opt-out whose deletion failed) is not brought back. Each file is removed once handled, and the
 * folder at the end, so a second start finds nothing to do; a start killed halfway continues where it
 * stopped. Returns how many thumbnails were imported.
 */
export async function importLegacyThumbnails(
  dataDir: string,
  blobs: BlobStore,
  webIndex: WebIndexRepository,
): Promise<number> {
  if (dataDir === ':memory:') return 0;
  const root = path.join(dataDir, 'thumbnails');
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  const keys = entries
    .filter((e) => e.isFile() && e.name.endsWith('.jpg'))
    .map((e) =>
      path.posix.join(
        'thumbnails',
        path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'),
      ),
    );
  let imported = 0;
  for (let i = 0; i < keys.length; i += IMPORT_BATCH) {
    const batch = keys.slice(i, i + IMPORT_BATCH);
    const named = await webIndex.findNamedThumbnailPaths(batch);
    const stored = await blobs.existingKeys(batch);
    for (const key of batch) {
      const file = path.join(dataDir, key);
      if (named.has(key) && !stored.has(key)) {
        // Processes sharing the old DATA_DIR start together: another one may have moved the file already.
        const bytes = await fs.readFile(file).catch(() => null);
        if (bytes) {
          await blobs.put(key, bytes);
          imported += 1;
        }
      }
      await fs.rm(file, { force: true });
    }
  }
  await fs.rm(root, { recursive: true, force: true });
  return imported;
}
