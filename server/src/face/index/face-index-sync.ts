import { FaceIndexStore } from './face-index-store.ts';
import { UsearchFaceIndex } from './usearch-face-index.ts';
import { SnapshotDownloadError, type FaceIndexPublication } from './face-index-publication.ts';
import type { FaceIndexManifest } from './face-index-store.ts';
import type { FaceIndex, FaceIndexChange, FaceVectorEntry, FaceVectorSource } from './face-index.ts';
import type { UsearchFaceIndexOptions } from './usearch-face-index.ts';

/**
 * Applies a batch of log entries. Only the last entry of each face counts, and every operation is
 * idempotent (add replaces, removing an absent face does nothing), so replaying entries that were
 * already applied — after a crash, or when a scan overlaps the log — leaves the same index.
 */
export async function applyFaceIndexChanges(
  index: FaceIndex,
  changes: readonly FaceIndexChange[],
): Promise<void> {
  const last = new Map<number, FaceIndexChange>();
  for (const change of changes) if (!change.otherModel) last.set(change.faceId, change);
  const adds: FaceVectorEntry[] = [];
  const removes: number[] = [];
  for (const change of last.values()) {
    // An 'add' whose face has been deleted since carries no vector: the face must not be indexed.
    if (change.op === 'add' && change.vector) adds.push({ faceId: change.faceId, vector: change.vector });
    else removes.push(change.faceId);
  }
  await index.remove(removes);
  await index.add(adds);
}

/**
 * Applies every change after `afterSeq`; returns the last seq applied and how many entries changed the
 * index (entries of other models' faces only move the position).
 */
export async function catchUpFaceIndex(
  index: FaceIndex,
  source: FaceVectorSource,
  afterSeq: number,
  batchSize = 1000,
): Promise<{ seq: number; applied: number }> {
  let seq = afterSeq;
  let applied = 0;
  for (;;) {
    const changes = await source.changesSince(seq, batchSize);
    if (changes.length === 0) return { seq, applied };
    await applyFaceIndexChanges(index, changes);
    seq = changes.at(-1)!.seq;
    applied += changes.filter((change) => !change.otherModel).length;
    if (changes.length < batchSize) return { seq, applied };
  }
}

/**
 * Builds an index from every face in the source. The log position is read before the scan and the
 * log replayed from there after it: a face added or removed during the scan is then right whether
 * the scan saw it or not (the replay is idempotent).
 */
export async function buildFaceIndex(
  source: FaceVectorSource,
  options: UsearchFaceIndexOptions,
  batchSize = 10_000,
): Promise<{ index: UsearchFaceIndex; seq: number }> {
  const startSeq = await source.latestSeq();
  const index = UsearchFaceIndex.create(options, source);
  for await (const batch of source.allVectors(batchSize)) await index.add(batch);
  const { seq } = await catchUpFaceIndex(index, source, startSeq);
  return { index, seq };
}

/** What `npm run reindex` runs: a fresh index from the database, saved as the current snapshot.
 * Running processes pick it up on their next poll. */
export async function rebuildFaceIndex(options: {
  source: FaceVectorSource;
  store: FaceIndexStore;
  index: UsearchFaceIndexOptions;
  model: string;
  /** Also published in the database, for processes on other machines. */
  publication?: FaceIndexPublication | undefined;
}): Promise<FaceIndexManifest> {
  const { index, seq } = await buildFaceIndex(options.source, options.index);
  const manifest = await options.store.save(index, seq, options.model);
  await options.publication?.publish(options.store, manifest);
  return manifest;
}

/** How a process's index was opened: its DATA_DIR's snapshot, the one published in the database, or built. */
export type FaceIndexStart = 'snapshot' | 'published snapshot' | 'built';

/** The logger calls FaceIndexSync makes (pino's shape). */
export interface FaceIndexSyncLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface FaceIndexSyncOptions {
  source: FaceVectorSource;
  index: UsearchFaceIndexOptions;
  /** Snapshot folder. Without one the index is built in memory at open and never saved (tests). */
  store?: FaceIndexStore | undefined;
  /**
   * Snapshots published in the database (with a store): the writer publishes each one it saves, and a
   * process whose store has no snapshot, or an older one, downloads the published one instead of building.
   */
  publication?: FaceIndexPublication | undefined;
  /** How often a reader looks for a newer published snapshot (default 10 s; a primary-key lookup). */
  publicationCheckIntervalMs?: number;
  /**
   * 'writer' loads the snapshot into memory, applies changes to it and saves new snapshots; exactly
   * one process per store should be the writer (the worker, or the only process). 'reader' (API
   * processes) memory-maps the latest snapshot and keeps changes since it in a small delta.
   */
  role?: 'writer' | 'reader';
  /** Name of the descriptor model; a snapshot of another model is never reused. */
  model?: string;
  /** Log entries read per query. */
  batchSize?: number;
  /** How often to look for new log entries (and, for readers, a new snapshot). */
  pollIntervalMs?: number;
  /** The writer saves after this many applied entries... */
  saveAfterChanges?: number;
  /** ...or this long after the first unsaved one. */
  saveIntervalMs?: number;
  onError?: (error: unknown) => void;
  log?: FaceIndexSyncLog;
}

/**
 * Keeps one process's index in step with the database: it opens the latest snapshot (or builds
 * one), then polls the change log and applies what is new. `poke()` polls at once, for a
 * LISTEN/NOTIFY hook or for the process that just wrote. Searches use `index`, which a reader
 * replaces atomically when the writer publishes a newer snapshot.
 */
export class FaceIndexSync {
  private readonly options: FaceIndexSyncOptions;
  private current: UsearchFaceIndex | undefined;
  private applied = 0;
  /** Seq of the snapshot the current index was opened from (-1: built in memory). */
  private snapshotSeq = -1;
  private unsaved = 0;
  private firstUnsavedAt = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private openedFrom: FaceIndexStart | undefined;
  private closed = false;
  /** The writer's next snapshot to publish, and the upload in progress (one at a time, off the queue). */
  private toPublish: FaceIndexManifest | undefined;
  private publishing: Promise<void> | undefined;
  /** A reader's download of a newer published snapshot in progress, and when it last looked. */
  private fetching: Promise<void> | undefined;
  private publicationCheckedAt = 0;
  /** A published file that could not be used: not downloaded again (the next publication is). */
  private unusablePublication: string | undefined;

  constructor(options: FaceIndexSyncOptions) {
    this.options = options;
  }

  /** How `open` got the index (undefined before it has). */
  get startedFrom(): FaceIndexStart | undefined {
    return this.openedFrom;
  }

  get index(): UsearchFaceIndex {
    if (!this.current) throw new Error('face index not opened yet');
    return this.current;
  }

  /** Last log seq reflected in `index`. */
  get appliedSeq(): number {
    return this.applied;
  }

  private get model(): string {
    return this.options.model ?? 'default';
  }

  private get isWriter(): boolean {
    return (this.options.role ?? 'writer') === 'writer';
  }

  /** Runs one operation at a time: polls, saves and reloads never interleave. */
  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  open(): Promise<void> {
    return this.exclusive(async () => {
      const { store, source } = this.options;
      const started = performance.now();
      const local = await store?.readManifest();
      let manifest = local && FaceIndexStore.fits(local, this.options.index, this.model) ? local : undefined;
      let start: FaceIndexStart = 'snapshot';
      this.publicationCheckedAt = Date.now();
      const downloaded = await this.downloadNewerPublication(
        manifest?.seq ?? -1,
        manifest ? 'opening the local snapshot' : 'building from the database',
      );
      if (downloaded) {
        manifest = downloaded;
        start = 'published snapshot';
      }
      if (store && manifest) {
        this.current = store.open(manifest, this.options.index, source, this.isWriter ? 'load' : 'view');
        this.applied = this.snapshotSeq = manifest.seq;
      } else {
        start = 'built';
        const built = await buildFaceIndex(source, this.options.index);
        this.current = built.index;
        this.applied = built.seq;
        if (store && this.isWriter) {
          const saved = await store.save(built.index, built.seq, this.model);
          this.snapshotSeq = saved.seq;
          this.publishInBackground(saved);
        }
      }
      await this.applyNewChanges();
      this.openedFrom = start;
      this.options.log?.info(
        {
          model: this.model,
          from: start,
          seq: this.applied,
          faces: this.index.size,
          ms: Math.round(performance.now() - started),
        },
        `face index opened from the ${start === 'built' ? 'database (built)' : start}`,
      );
    });
  }

  /** One poll: newer snapshot (readers), new log entries, snapshot due (writer). */
  refresh(): Promise<number> {
    return this.exclusive(async () => {
      if (!this.isWriter) {
        this.fetchNewerPublicationInBackground();
        await this.reloadIfNewerSnapshot();
      }
      const applied = await this.applyNewChanges();
      if (this.isWriter && this.saveIsDue()) await this.saveNow();
      return applied;
    });
  }

  /** Saves a snapshot now (writer only) and publishes it (with a publication); returns its manifest. */
  async save(): Promise<FaceIndexManifest | undefined> {
    const manifest = await this.exclusive(() => this.saveNow());
    await this.publishing;
    return manifest;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  poke(): void {
    this.refresh().catch((error: unknown) => this.options.onError?.(error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closed = true;
    clearTimeout(this.timer);
    await this.queue;
    await this.publishing;
    await this.fetching;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.refresh()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.schedule());
    }, this.options.pollIntervalMs ?? 1000);
    // Polling alone must not keep a process alive.
    this.timer.unref();
  }

  private async applyNewChanges(): Promise<number> {
    const { seq, applied } = await catchUpFaceIndex(
      this.index,
      this.options.source,
      this.applied,
      this.options.batchSize,
    );
    this.applied = seq;
    if (applied > 0 && this.unsaved === 0) this.firstUnsavedAt = Date.now();
    this.unsaved += applied;
    return applied;
  }

  private saveIsDue(): boolean {
    if (this.unsaved === 0) return false;
    return (
      this.unsaved >= (this.options.saveAfterChanges ?? 10_000) ||
      Date.now() - this.firstUnsavedAt >= (this.options.saveIntervalMs ?? 10 * 60_000)
    );
  }

  private async saveNow(): Promise<FaceIndexManifest | undefined> {
    const { store } = this.options;
    if (!store || !this.isWriter) return undefined;
    const manifest = await store.save(this.index, this.applied, this.model);
    this.snapshotSeq = manifest.seq;
    this.unsaved = 0;
    this.publishInBackground(manifest);
    return manifest;
  }

  /**
   * Publishes a saved snapshot in the database. The upload (3.8 s at 100,000 faces) runs beside the queue,
   * so polls and searches go on meanwhile; saves made during it are published after it, the latest only.
   * A failed publication is logged: readers elsewhere then start from the previous one (or build).
   */
  private publishInBackground(manifest: FaceIndexManifest): void {
    const { store, publication } = this.options;
    if (!store || !publication) return;
    this.toPublish = manifest;
    this.publishing ??= (async () => {
      try {
        await this.publishPending(store, publication);
      } finally {
        this.publishing = undefined;
      }
    })();
  }

  private async publishPending(store: FaceIndexStore, publication: FaceIndexPublication): Promise<void> {
    while (this.toPublish) {
      const next = this.toPublish;
      this.toPublish = undefined;
      const started = performance.now();
      try {
        const published = await publication.publish(store, next);
        this.options.log?.info(
          {
            model: this.model,
            file: next.file,
            seq: next.seq,
            bytes: published?.sizeBytes,
            ms: Math.round(performance.now() - started),
          },
          published ? 'face index snapshot published' : 'face index snapshot not published: a newer one is',
        );
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  /**
   * The published snapshot, downloaded into the store, when it is newer than `afterSeq` (and fits); when it
   * cannot be used, logs why and returns undefined: the caller keeps its own snapshot or builds.
   */
  private async downloadNewerPublication(
    afterSeq: number,
    fallback: string,
  ): Promise<FaceIndexManifest | undefined> {
    const { store, publication } = this.options;
    if (!store || !publication) return undefined;
    const started = performance.now();
    try {
      const downloaded = await publication.downloadNewer(store, {
        model: this.model,
        options: this.options.index,
        afterSeq,
        except: this.unusablePublication,
      });
      if (downloaded) {
        this.options.log?.info(
          {
            model: this.model,
            file: downloaded.published.file,
            seq: downloaded.published.seq,
            bytes: downloaded.published.sizeBytes,
            ms: Math.round(performance.now() - started),
          },
          'published face index snapshot downloaded',
        );
      }
      return downloaded?.manifest;
    } catch (error) {
      if (error instanceof SnapshotDownloadError) this.unusablePublication = error.file;
      this.options.log?.warn(
        { err: error, model: this.model },
        `published face index snapshot not used (${error instanceof Error ? error.message : String(error)}): ${fallback}`,
      );
      return undefined;
    }
  }

  /**
   * A reader takes newer published snapshots as it takes newer local ones: downloaded beside the queue
   * (searches go on), installed in its store, then swapped in by `reloadIfNewerSnapshot` on the next poll.
   */
  private fetchNewerPublicationInBackground(): void {
    const { publication, store } = this.options;
    if (!publication || !store || this.fetching || this.closed) return;
    const now = Date.now();
    if (now - this.publicationCheckedAt < (this.options.publicationCheckIntervalMs ?? 10_000)) return;
    this.publicationCheckedAt = now;
    this.fetching = (async () => {
      // A newer snapshot already in the store (a writer on this machine) is taken from there, not fetched.
      const local = await store.readManifest();
      const fits = local && FaceIndexStore.fits(local, this.options.index, this.model);
      const afterSeq = Math.max(this.snapshotSeq, fits ? local.seq : -1);
      const manifest = await this.downloadNewerPublication(afterSeq, 'keeping the current index');
      if (manifest && !this.closed) this.poke();
    })()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.fetching = undefined;
      });
  }

  private async reloadIfNewerSnapshot(): Promise<void> {
    const { store, source } = this.options;
    const manifest = await store?.readManifest();
    if (!store || !manifest || manifest.seq <= this.snapshotSeq) return;
    if (!FaceIndexStore.fits(manifest, this.options.index, this.model)) return;
    // The vectors cached so far stay valid: the catch-up below applies the changes since to them too.
    const next = store.open(manifest, this.options.index, source, 'view', this.current?.vectorCache);
    // Bring the new snapshot at least as far as the current index before anyone searches it.
    const { seq } = await catchUpFaceIndex(next, source, manifest.seq, this.options.batchSize);
    this.current = next;
    this.applied = seq;
    this.snapshotSeq = manifest.seq;
  }
}
