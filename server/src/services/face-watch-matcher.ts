import type { FastifyBaseLogger } from 'fastify';
import { isNearDuplicate } from '../crawler/perceptual-hash.ts';
import type { Db } from '../db/database.ts';
import { vectorFromBytes } from '../face/index/face-index.ts';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { matchThresholdOf } from '../face/similarity.ts';
import { QUEUES } from '../jobs/job-queue.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import { JobRepository } from '../repositories/job.repository.ts';
import type {
  ActiveFaceWatch,
  FaceWatchRepository,
  NewlyIndexedFace,
} from '../repositories/face-watch.repository.ts';
import type { MailService } from './mail.service.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { FaceModelService } from './face-model.service.ts';
import { watchBinding } from './face-watch.service.ts';
import { readKeptFaces, watchedDescriptorOf } from './kept-faces.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';

/** At most one e-mail per watch per hour after the first. */
export const ALERT_DIGEST_INTERVAL_MS = 3_600_000;
const EXPIRY_CHECK_MS = 60_000;

/** The watches of one descriptor model as one row-major matrix: a face is scored against all in one pass. */
interface WatchMatrix {
  dimensions: number;
  vectors: Float32Array;
  watches: ActiveFaceWatch[];
}

/**
 * Rows of a row-major matrix of L2-normalised vectors whose cosine with `vector` is at or above
 * `threshold`, with their similarity (a dot product per row).
 */
export function rowsAtOrAbove(
  matrix: Float32Array,
  dimensions: number,
  vector: Float32Array,
  threshold: number,
): { row: number; similarity: number }[] {
  const found: { row: number; similarity: number }[] = [];
  const rows = matrix.length / dimensions;
  for (let row = 0, offset = 0; row < rows; row++, offset += dimensions) {
    let dot = 0;
    for (let i = 0; i < dimensions; i++) dot += matrix[offset + i]! * vector[i]!;
    if (dot >= threshold) found.push({ row, similarity: dot });
  }
  return found;
}

export interface FaceWatchMatcherOptions {
  /** Log entries per transaction. */
  batchSize?: number;
  pollIntervalMs?: number;
  publicUrl: string;
  isSocialMedia: (url: string) => boolean;
  /**
   * After a reindex switches the active descriptor model, watches of the old model are computed again
   * from their kept faces with the engine (which follows the active model). Without it (the benchmark),
   * watches keep the model they were made with.
   */
  rederive?: {
    engine: LazyFaceEngine;
    models: Pick<FaceModelService, 'active'>;
    indexedFaces: Pick<SearchRepository, 'findIndexedFaces'>;
  };
}

/**
 * Follows face_index_log and raises an alert when a newly indexed face matches an active watch (issue 17).
 *
 * Exactly once: the cursor (face_watch_cursor, one row) is locked, the entries after it read, their alerts
 * written and the cursor moved past them in one transaction. A matcher killed mid-batch leaves nothing of
 * that batch; the next run (in this or another worker: the row lock makes them take turns, the others skip)
 * does it again from the same place. Alerts are unique per (watch, image) besides, so even a replayed
 * range adds nothing.
 *
 * Scale: every new face is scored against every active watch of its model, a dot product per watch (10,000
 * watches × 512 dimensions ≈ 5M multiply-adds: 9.4 ms of one core measured, ≈ 100 new faces per second;
 * ten times that at 100k watches). Up to ~100k watches this stays a brute-force scan, sharded by
 * organization over several matchers when one cannot keep up (README, "Scaling the in-memory matrix");
 * beyond, the watches would go into their own HNSW index searched with each new face at the threshold.
 */
export class FaceWatchMatcher {
  private matrices = new Map<string, WatchMatrix>();
  private version: string | undefined;
  private lastExpiryCheck = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repository: FaceWatchRepository,
    private readonly tokens: QueryFaceTokens,
    private readonly mail: MailService,
    private readonly log: FastifyBaseLogger,
    private readonly options: FaceWatchMatcherOptions,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Matches everything the log holds now (tests, and the poll loop). */
  async drain(): Promise<{ entries: number; alerts: number }> {
    const total = { entries: 0, alerts: 0 };
    for (;;) {
      const batch = await this.runOnce();
      if (!batch || batch.entries === 0) return total;
      total.entries += batch.entries;
      total.alerts += batch.alerts;
    }
  }

  /**
   * One batch: undefined when another matcher holds the cursor, else how many log entries were passed
   * and how many alerts (not copies) were raised.
   */
  async runOnce(): Promise<{ entries: number; alerts: number } | undefined> {
    await this.endExpiredWatches();
    await this.reloadWatchesIfChanged();
    const batchSize = this.options.batchSize ?? 500;
    return this.repository.transaction(async (tx, db) => {
      const cursor = await tx.lockCursor();
      if (!cursor) return undefined;
      const batch = await tx.logSince(cursor.seq, batchSize);
      if (!batch) return { entries: 0, alerts: 0 };
      const raised = new Set<number>();
      let alerts = 0;
      const found = batch.faces.flatMap((face) => this.matches(face).map((match) => ({ face, ...match })));
      const now = new Date();
      const standing = await tx.alertStanding([...new Set(found.map((m) => m.watch.organizationId))], now);
      for (const { face, watch, similarity } of found) {
        const organization = standing.get(watch.organizationId);
        // Watches keep running through a lapse of the plan, but raise nothing while no plan is in force.
        if (!organization?.inService) continue;
        // The minors gate: possible minors, found or watched, only for verified law enforcement (a watch of
        // one made while verified runs on after a withdrawal, raising nothing).
        if ((face.possibleMinor === true || watch.possibleMinor) && !organization.lawEnforcement) continue;
        if (await this.record(tx, watch, face, similarity)) {
          raised.add(watch.id);
          alerts++;
        }
      }
      await tx.advanceCursor(batch.lastSeq, batch.lastAt);
      for (const watchId of raised) await this.notify(tx, db, watchId, now);
      return { entries: batch.lastSeq - cursor.seq, alerts };
    });
  }

  /** The e-mail digest job: sends what gathered since the last message, if anything. */
  async runDigestJob(payload: unknown): Promise<void> {
    const { watchId } = payload as { watchId: number };
    await this.repository.transaction(async (tx, db) => {
      const watch = await tx.watchForDigest(watchId);
      if (!watch?.email || watch.endedAt || watch.muted || !watch.notifiedAt) return;
      // An organization suspended since (its owner blocked, its plan ended) is not written to.
      const organization = (await tx.alertStanding([watch.organizationId], new Date())).get(
        watch.organizationId,
      );
      if (!organization?.inService) return;
      // Alerts it may no longer see (possible minors, after a withdrawn verification) are not news to it.
      if ((await tx.countNewAlertsSince(watchId, watch.notifiedAt, organization.lawEnforcement)) === 0)
        return;
      await this.mail.queueWith(new JobRepository(db), watch.email, this.message(), watch.organizationId);
      await tx.markNotified(watchId, new Date());
    });
  }

  /** Seconds the oldest face not yet matched has waited (0 when caught up), for /api/metrics. */
  async lagSeconds(now = new Date()): Promise<number> {
    const cursor = await this.repository.cursor();
    if (!cursor) return 0;
    const oldest = await this.repository.oldestUnprocessedEntry(cursor.seq);
    return oldest ? Math.max(0, (now.getTime() - oldest.at.getTime()) / 1000) : 0;
  }

  /** Watches the face matches, at or above its model's threshold, that may hear of it. */
  private matches(face: NewlyIndexedFace): { watch: ActiveFaceWatch; similarity: number }[] {
    // A reindex re-derives faces already indexed: not a new sighting. A face with no page is not news yet.
    if (face.rederived || !face.sourceUrl) return [];
    const matrix = this.matrices.get(face.modelId);
    if (!matrix) return [];
    const vector = vectorFromBytes(face.descriptor);
    if (vector.length !== matrix.dimensions) return [];
    const threshold = matchThresholdOf(face.modelId);
    const { vectors, dimensions, watches } = matrix;
    const found: { watch: ActiveFaceWatch; similarity: number }[] = [];
    for (const { row, similarity } of rowsAtOrAbove(vectors, dimensions, vector, threshold)) {
      const watch = watches[row]!;
      // Faces indexed before the watch began are in the search it came from, not news.
      if (face.at < watch.createdAt) continue;
      if (this.options.isSocialMedia(face.sourceUrl) !== (watch.type === 'SOCIAL_MEDIA_SEARCH')) continue;
      found.push({ watch, similarity });
    }
    return found;
  }

  /** Writes the alert, or adds the image to the alert of the same photo; true for a new alert. */
  private async record(
    tx: FaceWatchRepository,
    watch: ActiveFaceWatch,
    face: NewlyIndexedFace,
    similarity: number,
  ): Promise<boolean> {
    // Another face of the same image, or an entry seen before: the image is already there.
    if (await tx.watchHasImage(watch.id, face.imageId)) return false;
    const phash = face.phash;
    const samePhoto = phash
      ? (await tx.alertPhashes(watch.id)).find((alert) => isNearDuplicate(alert.phash, phash))
      : undefined;
    if (samePhoto) {
      await tx.insertCopy(samePhoto.id, face);
      return false;
    }
    const id = await tx.insertAlert({
      watchId: watch.id,
      organizationId: watch.organizationId,
      face,
      similarity,
    });
    return id !== undefined;
  }

  /**
   * The first alert of a watch is told at once; later ones at most hourly (a digest job due an hour after
   * the last message). Queued in the matcher's transaction: sent only if the alerts commit.
   */
  private async notify(tx: FaceWatchRepository, db: Db, watchId: number, now: Date): Promise<void> {
    const watch = await tx.watchForDigest(watchId);
    if (!watch?.email || watch.muted) return;
    const jobs = new JobRepository(db);
    if (!watch.notifiedAt || now.getTime() - watch.notifiedAt.getTime() >= ALERT_DIGEST_INTERVAL_MS) {
      await this.mail.queueWith(jobs, watch.email, this.message(), watch.organizationId);
      await tx.markNotified(watchId, now);
      return;
    }
    const due = watch.notifiedAt.getTime() + ALERT_DIGEST_INTERVAL_MS;
    await jobs.insert({
      queue: QUEUES.faceAlertDigest,
      payload: { watchId },
      runAt: new Date(due),
      uniqueKey: `${QUEUES.faceAlertDigest}:${watchId}:${watch.notifiedAt.getTime()}`,
      organizationId: watch.organizationId,
    });
  }

  /** No names, no photos: a link to the alerts page, where the analyst signs in. */
  private message() {
    return mailTemplates.faceAlerts(`${this.options.publicUrl}/alerts`);
  }

  private async endExpiredWatches(): Promise<void> {
    if (Date.now() - this.lastExpiryCheck < EXPIRY_CHECK_MS) return;
    this.lastExpiryCheck = Date.now();
    const ended = await this.repository.endExpired(new Date());
    if (ended > 0) this.log.info({ ended }, 'face watches past their end date ended');
  }

  /**
   * Rebuilds the matrices when a watch was added, changed or ended (in any process), or the active model
   * changed: a watch of an older model is re-derived from its crop first, else it would never match again
   * (new faces are of the active model). A watch without a crop (made from an upload without it) cannot be
   * re-derived: it keeps its model and stops matching until it is made again.
   */
  private async reloadWatchesIfChanged(): Promise<void> {
    const activeModel = this.options.rederive
      ? (await this.options.rederive.models.active()).modelId
      : undefined;
    const version = `${await this.repository.watchesVersion()}|${activeModel ?? ''}`;
    if (version === this.version) return;
    const byModel = new Map<string, { watches: ActiveFaceWatch[]; vectors: Float32Array[] }>();
    let rederived = 0;
    for (let watch of await this.repository.activeWatches()) {
      let vector = await this.tokens.openStored(watch.descriptorSealed, watchBinding(watch.organizationId));
      if (!vector) {
        this.log.warn({ watchId: watch.id }, 'face watch descriptor does not open; skipped');
        continue;
      }
      if (activeModel !== undefined && watch.modelId !== activeModel) {
        const moved = await this.rederive(watch, activeModel);
        if (moved) {
          vector = moved;
          watch = { ...watch, modelId: activeModel };
          rederived++;
        }
      }
      const entry = byModel.get(watch.modelId) ?? { watches: [], vectors: [] };
      entry.watches.push(watch);
      entry.vectors.push(vector);
      byModel.set(watch.modelId, entry);
    }
    const matrices = new Map<string, WatchMatrix>();
    for (const [model, entry] of byModel) {
      const dimensions = entry.vectors[0]!.length;
      const kept = entry.vectors
        .map((vector, i) => ({ vector, watch: entry.watches[i]! }))
        .filter(({ vector }) => vector.length === dimensions);
      const vectors = new Float32Array(kept.length * dimensions);
      kept.forEach(({ vector }, i) => vectors.set(vector, i * dimensions));
      matrices.set(model, { dimensions, vectors, watches: kept.map(({ watch }) => watch) });
    }
    this.matrices = matrices;
    // The re-derived watches changed their rows: the version after them is the one now loaded.
    this.version = rederived > 0 ? `${await this.repository.watchesVersion()}|${activeModel}` : version;
  }

  /**
   * The watch's descriptor under `modelId` from its kept faces, stored sealed; undefined when it cannot be.
   * A watch of several faces is read again from all of them, as it was made: the mean of its pictures'
   * faces and of the added indexed faces (now described by `modelId`). An added face flagged as a possible
   * minor since is left out unless the watch already watches one (only law enforcement may); a picture's
   * new estimate can only add the flag.
   */
  private async rederive(watch: ActiveFaceWatch, modelId: string): Promise<Float32Array | undefined> {
    const context = { watchId: watch.id, from: watch.modelId, to: modelId };
    const kept = await this.repository.findKeptFaces(watch.id, watch.organizationId);
    if (!kept.faceImage) {
      this.log.warn(context, 'face watch of an older model has no crop to re-derive it; it stops matching');
      return undefined;
    }
    try {
      const { engine, indexedFaces } = this.options.rederive!;
      const faces = await readKeptFaces(await engine.get(), indexedFaces, kept, {
        organizationId: watch.organizationId,
        flaggedAtUpload: watch.possibleMinor,
      });
      // The engine follows the active model; a switch in between is picked up by the next reload.
      if (!faces.shown || faces.shown.modelId !== modelId) {
        this.log.warn(context, 'face watch could not be re-derived under the active model');
        return undefined;
      }
      const watched = watchedDescriptorOf(faces.shown, faces, watch.possibleMinor);
      const lost = kept.otherFaceImages.length - faces.others.length;
      await this.repository.rederiveWatch(watch.id, {
        descriptorSealed: await this.tokens.sealStored(
          watched.descriptor,
          watchBinding(watch.organizationId),
        ),
        modelId,
        possibleMinor: watched.possibleMinor,
      });
      this.log.info(
        { ...context, faces: 1 + faces.others.length + watched.kept.addedFaceIds.length, lost },
        'face watch re-derived under the active model',
      );
      return watched.descriptor;
    } catch (error) {
      this.log.warn({ ...context, err: error }, 'face watch could not be re-derived under the active model');
      return undefined;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const run = this.drain().catch((error: unknown) =>
        this.log.error({ err: error }, 'face alerts failed'),
      );
      this.running = run;
      void run.finally(() => this.schedule());
    }, this.options.pollIntervalMs ?? 1000);
    this.timer.unref();
  }
}
