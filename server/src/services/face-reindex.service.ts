import { isPossibleMinor } from '../face/age/possible-minor.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.ts';
import { pairFaces } from '../face/face-box-overlap.ts';
import type { AnalyzedFace, FaceEngine } from '../face/face-engine.ts';
import { dropPgvectorTablesExcept } from '../face/index/pgvector-face-index-sync.ts';
import type { FaceIndexPublication } from '../face/index/face-index-publication.ts';
import { FaceIndexStore, type FaceIndexManifest } from '../face/index/face-index-store.ts';
import { rebuildFaceIndex } from '../face/index/face-index-sync.ts';
import { ImageDecodeError } from '../face/image-decode.ts';
import { isIndexableFace, matchThresholdOf, similarity } from '../face/similarity.ts';
import type {
  FaceModelRepository,
  FaceModelRow,
  ImageToReindex,
  StoredFace,
} from '../repositories/face-model.repository.ts';
import { FaceVectorRepository } from '../repositories/face-vector.repository.ts';
import type { OptOutRecord, WebIndexRepository } from '../repositories/web-index.repository.ts';
import { kyselySqlClient } from '../repositories/sql-client.ts';
import { faceIndexRoot, faceIndexStoreFor } from './face-index.service.ts';
import type { FaceModel, FaceModelService } from './face-model.service.ts';
import { ImageUnreachableError, type ImageBytesSource } from './indexed-image-fetcher.ts';

/** Images read from the database at a time. */
const IMAGE_BATCH = 50;
/** Faces compared per query in the final opt-out sweep. */
const SWEEP_BATCH = 5_000;

export interface ReindexProgress {
  phase: 'analysing' | 'opt-outs' | 'snapshot' | 'switch' | 'retiring';
  /** Images analysed with the new model so far, this run and earlier (interrupted) runs. */
  done: number;
  /** Images to analyse in all (grows when crawls add images meanwhile). */
  total: number;
  /** Images done before this run started (a resumed reindex). */
  doneBefore: number;
  /** Images whose bytes could not be had again (their faces are gone after the switch). */
  unavailable: number;
  /**
   * Images whose site did not answer for now, or whose analysis failed: tried again before the switch,
   * which waits for them.
   */
  unreachable: number;
  facesAdded: number;
  /** Faces not indexed under the new model because the person opted out. */
  facesRefused: number;
  elapsedMs: number;
}

export type ReindexOutcome =
  | {
      status: 'rebuilt';
      model: string;
      manifest: FaceIndexManifest;
      /** Faces of other models removed (left by an abandoned or interrupted reindex). */
      retiredFaces: number;
    }
  | { status: 'stopped'; from: string; to: string; progress: ReindexProgress }
  /**
   * Every image is done but some sites did not answer (`progress.unreachable`): searches stay on the old
   * model; a later run fetches those images again, or switches without them when told to.
   */
  | { status: 'waiting'; from: string; to: string; progress: ReindexProgress }
  | {
      status: 'switched';
      from: string;
      to: string;
      progress: ReindexProgress;
      manifest: FaceIndexManifest;
      retiredFaces: number;
      /** Search results moved from the old model's faces to the ones that replace them. */
      movedSearchResults: number;
      /** Opt-outs of the old model that no face of the new model could inherit (see README). */
      optOutsNotCarried: number[];
    };

/** Another reindex replaced the one this process runs (two `npm run reindex` with different models). */
export class ReindexReplacedError extends Error {
  constructor(model: string) {
    super(`The reindex to ${model} was replaced by another one; run npm run reindex again.`);
    this.name = 'ReindexReplacedError';
  }
}

export interface FaceReindexDeps {
  db: Db;
  dataDir: string;
  models: FaceModelRepository;
  faceModels: Pick<FaceModelService, 'active'>;
  webIndex: WebIndexRepository;
  images: ImageBytesSource;
  /** Starts a face engine for a model (the caller decides threads); the service closes it. */
  createEngine: (model: FaceModel) => Promise<FaceEngine>;
  /** Images analysed at once: the engine's worker threads (default 1). */
  concurrency?: number;
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  /** Where snapshots are published in the database for processes on other machines (FACE_INDEX_PUBLISH). */
  publication?: FaceIndexPublication | undefined;
}

interface ReindexContext {
  active: FaceModel;
  target: FaceModel;
  engine: FaceEngine;
  engineOf: (model: FaceModel) => Promise<FaceEngine | undefined>;
  signal: AbortSignal | undefined;
  /** Images in a row the engine failed on: past MAX_ANALYSIS_FAILURES_IN_A_ROW the engine is broken. */
  analysisFailuresInARow: number;
}

/**
 * An engine that fails on this many images one after another is broken, not the images: the run stops
 * with its error instead of fetching every indexed image from its site for nothing.
 */
const MAX_ANALYSIS_FAILURES_IN_A_ROW = 5;

/** An image fetched again and analysed, ready to be stored. */
interface PreparedImage {
  image: ImageToReindex;
  /** Undefined when the image could not be had again. */
  bytes: Buffer | undefined;
  /** Its site did not answer for now (bytes undefined). */
  unreachable: boolean;
  faces: NewFace[];
}

export interface ReindexRunOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ReindexProgress) => void;
  /** Switch even if some images' sites still do not answer: their faces leave the index. */
  switchWithoutUnreachable?: boolean;
}

/** One face the new model found, with the old model's descriptor of the same face when known. */
interface NewFace {
  face: AnalyzedFace;
  /** The stored face of the active model it replaces (same image, overlapping box). */
  previous: StoredFace | undefined;
  /** That face's descriptor, or the old model's analysis of the same bytes (for opted-out faces). */
  oldDescriptor: Float32Array | undefined;
}

/**
 * Moves the index from the active descriptor model to another (`npm run reindex`): every indexed image
 * is analysed again with the new model and its faces stored beside the old ones, which keep serving
 * searches; then, in one transaction, the new model becomes the active one. Resumable: each image's
 * faces and the cursor commit together, so an interrupted run continues after the last image it stored
 * and analyses nothing twice.
 *
 * Opt-outs follow the person, not the vectors: a face whose old-model descriptor matches an opt-out of
 * the old model (the stored face's, or — for faces an opt-out removed from the index — the old model
 * run again on the same bytes) is not stored, and its new descriptor becomes an opt-out of the new
 * model derived from that one; new faces matching a new-model opt-out are refused as crawls refuse them.
 */
export class FaceReindexService {
  constructor(private readonly deps: FaceReindexDeps) {}

  async run(target: FaceModel, options: ReindexRunOptions = {}): Promise<ReindexOutcome> {
    const { models } = this.deps;
    const active = await this.deps.faceModels.active();
    if (active.modelId === target.modelId) return this.rebuild(active);

    let building = await models.findBuilding();
    if (building && (building.modelId !== target.modelId || building.dimensions !== target.dimensions)) {
      this.deps.log.warn(`An unfinished reindex to ${building.modelId} is abandoned for ${target.modelId}.`);
      await models.abandonBuilding();
      building = undefined;
    }
    if (!building) {
      // Faces of the target left by an abandoned attempt: start from nothing.
      await this.retireOtherModels([active.modelId]);
      await models.startBuilding(target.modelId, target.dimensions);
      building = (await models.findBuilding())!;
    }

    const engines = new Map<string, Promise<FaceEngine | undefined>>();
    const engineOf = (model: FaceModel) => {
      let engine = engines.get(model.modelId);
      if (!engine) {
        engine =
          model.pipeline || model === target ? this.deps.createEngine(model) : Promise.resolve(undefined);
        engines.set(model.modelId, engine);
      }
      return engine;
    };
    try {
      return await this.build(active, target, building, engineOf, options);
    } finally {
      for (const engine of engines.values()) await (await engine.catch(() => undefined))?.close();
    }
  }

  private async build(
    active: FaceModel,
    target: FaceModel,
    building: FaceModelRow,
    engineOf: (model: FaceModel) => Promise<FaceEngine | undefined>,
    options: ReindexRunOptions,
  ): Promise<ReindexOutcome> {
    const { models } = this.deps;
    const started = Date.now();
    const progress: ReindexProgress = {
      phase: 'analysing',
      done: building.imagesDone,
      total: building.imagesDone + (await models.countImages(building.cursorImageId)),
      doneBefore: building.imagesDone,
      unavailable: building.imagesUnavailable,
      unreachable: await models.countUnreachableImages(target.modelId),
      facesAdded: building.facesAdded,
      facesRefused: building.facesRefused,
      elapsedMs: 0,
    };
    const report = (phase: ReindexProgress['phase']) => {
      progress.phase = phase;
      progress.elapsedMs = Date.now() - started;
      options.onProgress?.({ ...progress });
    };
    const stopped = (): ReindexOutcome => ({
      status: 'stopped',
      from: active.modelId,
      to: target.modelId,
      progress,
    });
    report('analysing');
    const engine = (await engineOf(target))!;
    const context: ReindexContext = {
      active,
      target,
      engine,
      engineOf,
      signal: options.signal,
      analysisFailuresInARow: 0,
    };
    let cursor = building.cursorImageId;
    for (;;) {
      // Analyse every image not done yet; crawls may add images meanwhile (with old-model faces).
      for (;;) {
        if (options.signal?.aborted) return stopped();
        const batch = await models.findImagesAfter(cursor, IMAGE_BATCH);
        if (batch.length === 0) break;
        progress.total = progress.done + batch.length + (await models.countImages(batch.at(-1)!.id));
        const oldFaces = await models.findFacesOfImages(
          batch.map((image) => image.id),
          active.modelId,
        );
        // Up to `concurrency` images are fetched and analysed at once (and one more fetched ahead); they
        // are stored one by one in id order, so the cursor only ever moves past stored images.
        const ahead = Math.max(1, this.deps.concurrency ?? 1) + 1;
        const prepared: Promise<PreparedImage>[] = [];
        const prepare = (i: number) => {
          const image = batch[i]!;
          const work = this.prepare(
            image,
            oldFaces.filter((face) => face.imageId === image.id),
            context,
          );
          work.catch(() => undefined); // awaited in order below; a failure must not go unhandled meanwhile
          prepared[i] = work;
        };
        for (let i = 0; i < Math.min(ahead, batch.length); i++) prepare(i);
        for (const [i, image] of batch.entries()) {
          let ready: PreparedImage;
          try {
            ready = await prepared[i]!;
          } catch (error) {
            if (options.signal?.aborted) return stopped(); // its fetch was cut short by the stop
            throw error;
          }
          // Analysed: stored even when a stop was asked for meanwhile.
          const step = await this.store(ready, context);
          cursor = image.id;
          progress.done++;
          if (ready.unreachable) progress.unreachable++;
          else if (!ready.bytes) progress.unavailable++;
          progress.facesAdded += step.added;
          progress.facesRefused += step.refused;
          report('analysing');
          if (options.signal?.aborted) return stopped();
          if (i + ahead < batch.length) prepare(i + ahead);
        }
      }
      if (!(await this.retryUnreachable(context, progress, report))) return stopped();
      if (progress.unreachable > 0 && !options.switchWithoutUnreachable) {
        return { status: 'waiting', from: active.modelId, to: target.modelId, progress };
      }
      report('opt-outs');
      await this.sweepOptedOutFaces(target.modelId);
      report('snapshot');
      const manifest = await this.publishSnapshot(target);
      report('switch');
      const switched = await this.switchTo(target.modelId, options.switchWithoutUnreachable ?? false);
      if (switched === 'waiting') {
        return { status: 'waiting', from: active.modelId, to: target.modelId, progress };
      }
      if (!switched) continue; // images crawled since the last pass: analyse them, then try again
      progress.unavailable += switched.givenUp;
      progress.unreachable = 0;
      this.deps.log.info(`Face model switched from ${active.modelId} to ${target.modelId}.`);
      report('retiring');
      const retiredFaces = await this.retireOtherModels([target.modelId]);
      await this.removeIndexesExcept(target.modelId);
      return {
        status: 'switched',
        from: active.modelId,
        to: target.modelId,
        progress,
        manifest,
        retiredFaces,
        movedSearchResults: switched.movedSearchResults,
        optOutsNotCarried: await this.optOutsNotCarried(active.modelId, target.modelId),
      };
    }
  }

  /** Today's `npm run reindex` when the model is current: leftovers removed, snapshot rebuilt. */
  private async rebuild(active: FaceModel): Promise<ReindexOutcome> {
    if (await this.deps.models.findBuilding()) {
      this.deps.log.warn(`An unfinished reindex is abandoned: ${active.modelId} stays the face model.`);
      await this.deps.models.abandonBuilding();
    }
    const retiredFaces = await this.retireOtherModels([active.modelId]);
    const manifest = await this.publishSnapshot(active);
    await this.removeIndexesExcept(active.modelId);
    return { status: 'rebuilt', model: active.modelId, manifest, retiredFaces };
  }

  /**
   * Fetches the images whose site did not answer once more and stores those that answer now (their bytes,
   * or that they are gone). False when a stop was asked for.
   */
  private async retryUnreachable(
    context: ReindexContext,
    progress: ReindexProgress,
    report: (phase: ReindexProgress['phase']) => void,
  ): Promise<boolean> {
    const { models } = this.deps;
    for (const image of await models.findUnreachableImages(context.target.modelId)) {
      if (context.signal?.aborted) return false;
      const oldFaces = await models.findFacesOfImages([image.id], context.active.modelId);
      const ready = await this.prepare(image, oldFaces, context);
      if (ready.unreachable) continue;
      const step = await this.store(ready, context, { retried: true });
      progress.unreachable--;
      if (!ready.bytes) progress.unavailable++;
      progress.facesAdded += step.added;
      progress.facesRefused += step.refused;
      report('analysing');
    }
    progress.unreachable = await models.countUnreachableImages(context.target.modelId);
    return !context.signal?.aborted;
  }

  /** Gets an image's bytes again and analyses them; pairs the faces with the old model's. */
  private async prepare(
    image: ImageToReindex,
    oldFaces: StoredFace[],
    context: ReindexContext,
  ): Promise<PreparedImage> {
    const { active, engine } = context;
    let bytes: Buffer | undefined;
    try {
      bytes = await this.deps.images.bytesOf(image, context.signal);
    } catch (error) {
      if (error instanceof ImageUnreachableError) return { image, bytes, unreachable: true, faces: [] };
      throw error;
    }
    if (!bytes) return { image, bytes, unreachable: false, faces: [] };
    let found: AnalyzedFace[];
    try {
      found = await this.analyse(engine, bytes, image);
      context.analysisFailuresInARow = 0;
    } catch (error) {
      if (context.signal?.aborted) throw error;
      if (++context.analysisFailuresInARow >= MAX_ANALYSIS_FAILURES_IN_A_ROW) throw error;
      // The face worker crashed or timed out on it: tried again before the switch with the images whose
      // site did not answer (the switch waits for them all), instead of failing the run on it each time.
      this.deps.log.warn(
        { url: image.urls[0], err: error },
        'image not analysed; tried again before the switch',
      );
      return { image, bytes: undefined, unreachable: true, faces: [] };
    }
    const pairs = pairFaces(found, oldFaces);
    const faces: NewFace[] = found.map((face, i) => {
      const previous = pairs[i] === undefined ? undefined : oldFaces[pairs[i]];
      return { face, previous, oldDescriptor: previous?.descriptor };
    });
    // A face without a stored twin may be one an opt-out removed: its old-model descriptor tells.
    if (faces.some((f) => !f.oldDescriptor) && (await this.hasOptOuts(active.modelId))) {
      const oldEngine = await context.engineOf(active);
      if (oldEngine) {
        const again = await this.analyse(oldEngine, bytes, image);
        const oldPairs = pairFaces(found, again);
        faces.forEach((f, i) => {
          if (!f.oldDescriptor && oldPairs[i] !== undefined) f.oldDescriptor = again[oldPairs[i]]!.descriptor;
        });
      }
    }
    return { image, bytes, unreachable: false, faces };
  }

  /**
   * Stores an analysed image's faces (and derived opt-outs) and moves the cursor, in one transaction. An
   * image `retried` after its site did not answer leaves the cursor where it is and its list instead.
   */
  private store(
    { image, bytes, unreachable, faces }: PreparedImage,
    { active, target }: ReindexContext,
    { retried }: { retried: boolean } = { retried: false },
  ): Promise<{ added: number; refused: number }> {
    return this.deps.models.transaction(async (models, webIndex) => {
      // The lock every writer of faces and opt-outs takes: an opt-out made meanwhile is seen here, or
      // sees (and removes) the faces stored here.
      await webIndex.lockFaceIndexLog();
      const building = await models.findBuilding();
      if (building?.modelId !== target.modelId) throw new ReindexReplacedError(target.modelId);
      // A second `npm run reindex` running at the same time stored this image already: never twice.
      const stored = retried
        ? !(await models.claimUnreachableImage(target.modelId, image.id))
        : building.cursorImageId >= image.id;
      if (stored) return { added: 0, refused: 0 };
      const oldOptOuts = await webIndex.findOptOutsOfModel(active.modelId);
      const newOptOuts = await webIndex.findOptOutsOfModel(target.modelId);
      const kept: NewFace[] = [];
      let refused = 0;
      for (const f of faces) {
        const inherited = f.oldDescriptor && matchingOptOut(oldOptOuts, f.oldDescriptor, active.modelId);
        if (inherited) {
          const derived = {
            descriptor: f.face.descriptor,
            modelId: target.modelId,
            reason: inherited.reason,
            createdBy: inherited.createdBy,
            derivedFrom: inherited.derivedFrom ?? inherited.id,
          };
          const id = await webIndex.insertOptOut(derived);
          newOptOuts.push({ ...derived, id });
          refused++;
        } else if (matchingOptOut(newOptOuts, f.face.descriptor, target.modelId)) {
          refused++;
        } else {
          kept.push(f);
        }
      }
      await webIndex.insertFaces(
        kept.map((f) => ({
          imageId: image.id,
          box: f.face.box,
          score: f.face.score,
          quality: f.face.quality,
          descriptor: f.face.descriptor,
          modelId: target.modelId,
          previousFaceId: f.previous?.id ?? null,
          possibleMinor: isPossibleMinor(f.face.age),
        })),
      );
      await models.advance(target.modelId, {
        ...(retried ? {} : { cursorImageId: image.id }),
        unavailable: !bytes && !unreachable,
        unreachable,
        facesAdded: kept.length,
        facesRefused: refused,
      });
      return { added: kept.length, refused };
    });
  }

  private async analyse(engine: FaceEngine, bytes: Buffer, image: ImageToReindex): Promise<AnalyzedFace[]> {
    try {
      return (await engine.analyze(bytes)).faces.filter((face) => isIndexableFace(face.box));
    } catch (error) {
      // As the indexer: an image the face engine refuses is kept without faces.
      if (error instanceof ImageDecodeError) {
        this.deps.log.warn({ url: image.urls[0], err: error }, 'image not analysed for faces');
        return [];
      }
      throw error;
    }
  }

  /** Whether the model has any opt-out (asked again each time: an admin may add one meanwhile). */
  private async hasOptOuts(modelId: string): Promise<boolean> {
    return (await this.deps.webIndex.findOptOutsOfModel(modelId)).length > 0;
  }

  /**
   * Faces of the new model stored before an opt-out of that model was derived (from a later image, or by
   * an admin's opt-out meanwhile) are removed before the switch, as an opt-out removes indexed faces.
   */
  private async sweepOptedOutFaces(modelId: string): Promise<void> {
    const optOuts = await this.deps.webIndex.findOptOutsOfModel(modelId);
    if (optOuts.length === 0) return;
    const matches: number[] = [];
    let afterId = 0;
    for (;;) {
      const batch = await this.deps.webIndex.findDescriptorsAfter(modelId, afterId, SWEEP_BATCH);
      for (const face of batch) if (matchingOptOut(optOuts, face.descriptor, modelId)) matches.push(face.id);
      if (batch.length < SWEEP_BATCH) break;
      afterId = batch.at(-1)!.id;
    }
    if (matches.length === 0) return;
    await this.deps.webIndex.transaction(async (tx) => {
      await tx.lockFaceIndexLog();
      await tx.deleteOptedOutFaces(matches);
    });
  }

  /** Builds the model's index from the database and publishes it in the model's snapshot folder. */
  private publishSnapshot(model: FaceModel): Promise<FaceIndexManifest> {
    return rebuildFaceIndex({
      source: new FaceVectorRepository(this.deps.db, model.modelId),
      store: faceIndexStoreFor(this.deps.dataDir, model.modelId),
      index: { dimensions: model.dimensions },
      model: model.modelId,
      publication: this.deps.publication,
    });
  }

  /**
   * The switch, in one transaction under the change-log lock (no face or opt-out is written meanwhile):
   * unless a crawl stored images since the last pass, search results, alerts, copies and added faces move
   * to the faces that replace theirs (moveFaceReferencesTo), image face counts become the new model's, and the new model becomes the active one. Every
   * process reads the active model before its next search and moves to the new index.
   */
  private switchTo(
    modelId: string,
    withoutUnreachable: boolean,
  ): Promise<{ movedSearchResults: number; givenUp: number } | 'waiting' | undefined> {
    return this.deps.models.transaction(async (models, webIndex) => {
      await webIndex.lockFaceIndexLog();
      const building = await models.findBuilding();
      if (building?.modelId !== modelId) throw new ReindexReplacedError(modelId);
      if ((await models.countImages(building.cursorImageId)) > 0) return undefined;
      // Another run may have listed an image since this one's retry: the switch still waits for it.
      if (!withoutUnreachable && (await models.countUnreachableImages(modelId)) > 0) return 'waiting';
      const givenUp = await models.giveUpUnreachableImages(modelId);
      const movedSearchResults = await models.moveFaceReferencesTo(modelId);
      await models.recountFaces(modelId);
      await models.activateBuilding(modelId);
      return { movedSearchResults, givenUp };
    });
  }

  /** The indexes of retired models: snapshots on disk, published ones, and pgvector tables. */
  private async removeIndexesExcept(keep: string): Promise<void> {
    await FaceIndexStore.removeModelsExcept(this.faceIndexRoot(), keep);
    await this.deps.publication?.removeModelsExcept(keep);
    await dropPgvectorTablesExcept(kyselySqlClient(this.deps.db), keep);
  }

  /** Deletes the faces of every model but `keep`, in batches; returns how many. */
  private async retireOtherModels(keep: string[]): Promise<number> {
    let total = 0;
    for (let afterId = 0; ;) {
      const { deleted, lastId } = await this.deps.models.deleteFacesOfOtherModels(keep, afterId);
      total += deleted;
      if (lastId === undefined) return total;
      afterId = lastId;
    }
  }

  /** Original opt-outs of the old model none of whose people a face of the new model was found for. */
  private async optOutsNotCarried(from: string, to: string): Promise<number[]> {
    const carried = new Set(
      (await this.deps.webIndex.findOptOutsOfModel(to)).map((optOut) => optOut.derivedFrom ?? optOut.id),
    );
    const roots = (await this.deps.webIndex.findOptOutsOfModel(from)).map((o) => o.derivedFrom ?? o.id);
    return [...new Set(roots)].filter((id) => !carried.has(id));
  }

  private faceIndexRoot(): string {
    return faceIndexRoot(this.deps.dataDir);
  }
}

/** The opt-out of `modelId` (the model of both the opt-outs and the descriptor) that matches it. */
function matchingOptOut(
  optOuts: readonly OptOutRecord[],
  descriptor: Float32Array,
  modelId: string,
): OptOutRecord | undefined {
  const threshold = matchThresholdOf(modelId);
  return optOuts.find(
    (optOut) =>
      optOut.descriptor.length === descriptor.length &&
      similarity(optOut.descriptor, descriptor) >= threshold,
  );
}
