import { FaceIndexStore } from './face-index-store.ts';
import { UsearchFaceIndex } from './usearch-face-index.ts';
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
}): Promise<FaceIndexManifest> {
  const { index, seq } = await buildFaceIndex(options.source, options.index);
  return options.store.save(index, seq, options.model);
}

export interface FaceIndexSyncOptions {
  source: FaceVectorSource;
  index: UsearchFaceIndexOptions;
  /** Snapshot folder. Without one the index is built in memory at open and never saved (tests). */
  store?: FaceIndexStore | undefined;
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

  constructor(options: FaceIndexSyncOptions) {
    this.options = options;
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
      const manifest = await store?.readManifest();
      if (store && manifest && FaceIndexStore.fits(manifest, this.options.index, this.model)) {
        this.current = store.open(manifest, this.options.index, source, this.isWriter ? 'load' : 'view');
        this.applied = this.snapshotSeq = manifest.seq;
      } else {
        const built = await buildFaceIndex(source, this.options.index);
        this.current = built.index;
        this.applied = built.seq;
        if (store && this.isWriter) {
          this.snapshotSeq = (await store.save(built.index, built.seq, this.model)).seq;
        }
      }
      await this.applyNewChanges();
    });
  }

  /** One poll: newer snapshot (readers), new log entries, snapshot due (writer). */
  refresh(): Promise<number> {
    return this.exclusive(async () => {
      if (!this.isWriter) await this.reloadIfNewerSnapshot();
      const applied = await this.applyNewChanges();
      if (this.isWriter && this.saveIsDue()) await this.saveNow();
      return applied;
    });
  }

  /** Saves a snapshot now (writer only); returns its manifest. */
  save(): Promise<FaceIndexManifest | undefined> {
    return this.exclusive(() => this.saveNow());
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
    clearTimeout(this.timer);
    await this.queue;
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
    return manifest;
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
