import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FaceIndexStore, isSnapshotFileName, modelFolderName } from './face-index-store.ts';
import type { FaceIndexManifest } from './face-index-store.ts';
import type { FaceIndexQuantization, UsearchFaceIndexOptions } from './usearch-face-index.ts';

/**
 * A snapshot file published in the database: what a process on another machine (its own DATA_DIR)
 * downloads instead of building its index from every vector. One per descriptor model.
 */
export interface PublishedSnapshot {
  model: string;
  file: string;
  /** The change log position the snapshot reflects: the downloader catches up from here. */
  seq: number;
  count: number;
  sizeBytes: number;
  chunkBytes: number;
  chunkCount: number;
  /** The usearch settings it was made with: a snapshot of other settings is never used. */
  dimensions: number;
  quantization: FaceIndexQuantization;
  connectivity: number;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
  publishedAt: Date;
}

/** What publishing needs from the database (`FaceIndexPublicationRepository`). */
export interface SnapshotPublications {
  findByModel(model: string): Promise<PublishedSnapshot | undefined>;
  /** A chunk's bytes, or null when it is not stored (any more). */
  chunk(key: string): Promise<Buffer | null>;
  /** Runs `work` in one transaction, after any other publisher's has ended (a lock held until commit). */
  publishing<T>(work: (tx: SnapshotPublicationWriter) => Promise<T>): Promise<T>;
}

/** The writes of one publication, all in its transaction. */
export interface SnapshotPublicationWriter {
  findByModel(model: string): Promise<PublishedSnapshot | undefined>;
  findAll(): Promise<PublishedSnapshot[]>;
  remove(model: string): Promise<void>;
  putChunk(key: string, bytes: Buffer): Promise<void>;
  deleteChunks(keys: readonly string[]): Promise<void>;
  save(snapshot: PublishedSnapshot): Promise<void>;
}

/** Chunks of 16 MB: a row PostgreSQL stores and returns comfortably, few round trips per snapshot. */
export const SNAPSHOT_CHUNK_BYTES = 16 * 1024 * 1024;

/** The stored_blobs key of one chunk: face-index/<model folder>/<file>/<part>. */
export function snapshotChunkKey(model: string, file: string, part: number): string {
  return `face-index/${modelFolderName(model)}/${file}/${String(part).padStart(6, '0')}`;
}

function chunkKeysOf(snapshot: PublishedSnapshot): string[] {
  return Array.from({ length: snapshot.chunkCount }, (_, part) =>
    snapshotChunkKey(snapshot.model, snapshot.file, part),
  );
}

/** The published snapshot as a local manifest, to check its settings with `FaceIndexStore.fits`. */
export function manifestOf(snapshot: PublishedSnapshot): FaceIndexManifest {
  return {
    format: 1,
    file: snapshot.file,
    seq: snapshot.seq,
    count: snapshot.count,
    dimensions: snapshot.dimensions,
    quantization: snapshot.quantization,
    connectivity: snapshot.connectivity,
    model: snapshot.model,
    savedAt: snapshot.publishedAt.toISOString(),
  };
}

/** Why a published snapshot could not be used (the caller builds or keeps what it has instead). */
export class SnapshotDownloadError extends Error {
  constructor(
    /** The published file that cannot be used (not worth downloading again). */
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotDownloadError';
  }
}

/**
 * Face-index snapshots through the database, so that PostgreSQL is the only part machines share.
 *
 * - `publish` (the writer, after each save): the file goes to stored_blobs in chunks, then the model's one
 *   publication row, then the previous publication's chunks are deleted — all in one transaction, so a
 *   reader sees the new snapshot whole or the previous one, and a writer that dies mid-upload leaves
 *   nothing behind. A publication never replaces a newer one (two writers at a deploy, or a reindex).
 * - `downloadNewer` (any process whose DATA_DIR has no snapshot, or an older one): streams the chunks to a
 *   temporary file, checks size and SHA-256, renames it into the store and installs its manifest; the
 *   caller then opens it as any local snapshot and catches up from its seq through the change log.
 */
export class FaceIndexPublication {
  constructor(
    private readonly publications: SnapshotPublications,
    private readonly chunkBytes = SNAPSHOT_CHUNK_BYTES,
  ) {}

  latest(model: string): Promise<PublishedSnapshot | undefined> {
    return this.publications.findByModel(model);
  }

  /**
   * Publishes the store's snapshot `manifest`. Returns the publication, or undefined when a newer snapshot
   * of the model was published meanwhile (nothing is written then).
   */
  async publish(store: FaceIndexStore, manifest: FaceIndexManifest): Promise<PublishedSnapshot | undefined> {
    // An open handle keeps the file readable even if a later save prunes it during the upload.
    const handle = await fs.open(store.pathOf(manifest), 'r');
    try {
      const sizeBytes = (await handle.stat()).size;
      const chunkCount = Math.ceil(sizeBytes / this.chunkBytes);
      return await this.publications.publishing(async (tx) => {
        const previous = await tx.findByModel(manifest.model);
        if (previous && previous.seq > manifest.seq) return undefined;
        if (previous?.file === manifest.file) return previous;
        const hash = createHash('sha256');
        for (let part = 0; part < chunkCount; part++) {
          const offset = part * this.chunkBytes;
          const bytes = Buffer.alloc(Math.min(this.chunkBytes, sizeBytes - offset));
          const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset);
          if (bytesRead !== bytes.length)
            throw new Error(`${manifest.file} ended early at ${offset + bytesRead}`);
          hash.update(bytes);
          await tx.putChunk(snapshotChunkKey(manifest.model, manifest.file, part), bytes);
        }
        const published: PublishedSnapshot = {
          model: manifest.model,
          file: manifest.file,
          seq: manifest.seq,
          count: manifest.count,
          sizeBytes,
          chunkBytes: this.chunkBytes,
          chunkCount,
          dimensions: manifest.dimensions,
          quantization: manifest.quantization,
          connectivity: manifest.connectivity,
          sha256: hash.digest('hex'),
          publishedAt: new Date(),
        };
        await tx.save(published);
        if (previous) await tx.deleteChunks(chunkKeysOf(previous));
        return published;
      });
    } finally {
      await handle.close();
    }
  }

  /**
   * Downloads the model's published snapshot into `store` when it is newer than `afterSeq` and made with
   * `options`; returns its manifest (now the store's current one), or undefined when there is none to take.
   * Throws `SnapshotDownloadError` when it cannot be used (a chunk missing, a size or checksum that does
   * not match); nothing is installed then.
   */
  async downloadNewer(
    store: FaceIndexStore,
    wanted: {
      model: string;
      options: UsearchFaceIndexOptions;
      afterSeq: number;
      /** A published file that failed before: not downloaded again. */
      except?: string | undefined;
    },
  ): Promise<{ manifest: FaceIndexManifest; published: PublishedSnapshot } | undefined> {
    let published = await this.latest(wanted.model);
    for (let attempt = 1; ; attempt++) {
      if (!published || published.seq <= wanted.afterSeq || published.file === wanted.except)
        return undefined;
      if (!FaceIndexStore.fits(manifestOf(published), wanted.options, wanted.model)) return undefined;
      try {
        return { manifest: await this.download(store, published), published };
      } catch (error) {
        // The writer may have published a newer snapshot and deleted this one's chunks meanwhile.
        const now = await this.latest(wanted.model);
        if (attempt > 1 || !now || now.file === published.file) throw error;
        published = now;
      }
    }
  }

  /** Deletes the publications of every model but `model` (the index moved to it: `npm run reindex`). */
  async removeModelsExcept(model: string): Promise<void> {
    await this.publications.publishing(async (tx) => {
      for (const other of await tx.findAll()) {
        if (other.model === model) continue;
        await tx.remove(other.model);
        await tx.deleteChunks(chunkKeysOf(other));
      }
    });
  }

  private async download(store: FaceIndexStore, published: PublishedSnapshot): Promise<FaceIndexManifest> {
    // The name comes from the database: it becomes a path only if it is a name `save` gives.
    if (!isSnapshotFileName(published.file)) {
      throw new SnapshotDownloadError(
        published.file,
        `the published file name ${JSON.stringify(published.file)} is not a snapshot's`,
      );
    }
    await fs.mkdir(store.dir, { recursive: true });
    const target = path.join(store.dir, published.file);
    const temporary = `${target}.${randomBytes(4).toString('hex')}.download`;
    const out = await fs.open(temporary, 'w');
    try {
      const hash = createHash('sha256');
      let size = 0;
      for (let part = 0; part < published.chunkCount; part++) {
        const bytes = await this.publications.chunk(snapshotChunkKey(published.model, published.file, part));
        if (!bytes) {
          throw new SnapshotDownloadError(
            published.file,
            `chunk ${part + 1} of ${published.chunkCount} of ${published.file} is missing`,
          );
        }
        hash.update(bytes);
        size += bytes.length;
        await out.write(bytes);
      }
      await out.sync();
      await out.close();
      if (size !== published.sizeBytes) {
        throw new SnapshotDownloadError(
          published.file,
          `${published.file}: ${size} bytes downloaded, ${published.sizeBytes} published`,
        );
      }
      if (hash.digest('hex') !== published.sha256) {
        throw new SnapshotDownloadError(
          published.file,
          `${published.file}: the checksum does not match the published one`,
        );
      }
      await fs.rename(temporary, target);
    } catch (error) {
      await out.close().catch(() => undefined);
      await fs.rm(temporary, { force: true });
      throw error;
    }
    const manifest = manifestOf(published);
    await store.install(manifest);
    return manifest;
  }
}
