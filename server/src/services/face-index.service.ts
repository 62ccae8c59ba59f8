import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.ts';
import type { FaceIndexEngine } from '../config.ts';
import type { FaceIndexHit } from '../face/index/face-index.ts';
import { FaceIndexStore } from '../face/index/face-index-store.ts';
import { FaceIndexPublication } from '../face/index/face-index-publication.ts';
import { FaceIndexSync, type FaceIndexStart } from '../face/index/face-index-sync.ts';
import { PgvectorFaceIndexSync } from '../face/index/pgvector-face-index-sync.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../face/pipeline/pipeline-catalog.ts';
import { FaceIndexPublicationRepository } from '../repositories/face-index-publication.repository.ts';
import { FaceVectorRepository } from '../repositories/face-vector.repository.ts';
import { kyselySqlClient } from '../repositories/sql-client.ts';
import type { FaceModel, FaceModelService } from './face-model.service.ts';

/** The shipped pipeline's model id and dimensions (what a fresh install indexes with). */
export const SHIPPED_MODEL = PIPELINE_CATALOG[SHIPPED_PIPELINE];

/** Where face index snapshots live under DATA_DIR. */
export function faceIndexRoot(dataDir: string): string {
  return path.join(dataDir, 'face-index');
}

/** The snapshots of `model` under DATA_DIR: `face-index/<model folder>/`. */
export function faceIndexStoreFor(dataDir: string, model: string): FaceIndexStore {
  return FaceIndexStore.forModel(faceIndexRoot(dataDir), model);
}

/**
 * A query descriptor of another model than the index's. Vectors of two models are never compared: the
 * caller answers as for a face that is no longer available (the upload must be analysed again).
 */
export class FaceModelMismatchError extends Error {
  constructor(
    readonly queryModel: string,
    readonly indexModel: string,
  ) {
    super(`query descriptor of ${queryModel}, index of ${indexModel}`);
    this.name = 'FaceModelMismatchError';
  }
}

interface ModelIndex {
  model: FaceModel;
  sync: FaceIndexSync | PgvectorFaceIndexSync;
  opened: Promise<void>;
}

/**
 * This process's view of the face index of the active descriptor model: a usearch snapshot under
 * DATA_DIR/face-index/<model> plus the change log applied since. The process that runs workers writes
 * snapshots; API-only processes read them. With FACE_INDEX=pgvector the index is a table in PostgreSQL
 * instead, shared by every process and caught up from the same change log (PgvectorFaceIndexSync).
 *
 * The active model is read from the database before every search and on every poll: when a reindex
 * switches models, the process opens the new model's snapshot (published by the reindex before the
 * switch), catches it up from the change log and drops the old index, without a restart. A query of
 * another model than the active one is refused (FaceModelMismatchError), never searched.
 */
export class FaceIndexService {
  private current: ModelIndex | undefined;
  /** Serialises model switches, so two searches at the switch open the new index once. */
  private switching: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly dataDir: string,
    private readonly role: 'writer' | 'reader',
    private readonly log: FastifyBaseLogger,
    private readonly models: Pick<FaceModelService, 'active'>,
    private readonly pollIntervalMs = 1000,
    private readonly engine: FaceIndexEngine = 'usearch',
    /**
     * Snapshots through the database (FACE_INDEX_PUBLISH): the writer publishes each one it saves, and a
     * process whose DATA_DIR has none (another machine) downloads it instead of building.
     */
    private readonly publishSnapshots = false,
  ) {}

  /** Opens (or builds) the active model's index and follows the change log and the active model. */
  start(): Promise<void> {
    this.started ??= this.indexOfActiveModel().then(
      () => this.scheduleModelPoll(),
      (error: unknown) => {
        this.started = undefined; // a database that is down now may answer on the next search
        throw error;
      },
    );
    return this.started;
  }

  /** The active model's id, as searches use it now. */
  async activeModelId(): Promise<string> {
    return (await this.models.active()).modelId;
  }

  /**
   * Searches with every change committed so far applied, so a face indexed a moment ago is found.
   * `model` is the model of the query descriptor; it must be the active one.
   */
  async search(
    query: Float32Array,
    options: { model: string; limit: number; minSimilarity: number },
  ): Promise<FaceIndexHit[]> {
    const { model, ...searchOptions } = options;
    await this.start();
    const index = await this.indexOfActiveModel();
    if (model !== index.model.modelId) throw new FaceModelMismatchError(model, index.model.modelId);
    await index.sync.refresh();
    return index.sync.index.search(query, searchOptions);
  }

  /** Faces in this process's index, with every change committed so far applied (as a search sees it). */
  async size(): Promise<number> {
    await this.start();
    const index = await this.indexOfActiveModel();
    await index.sync.refresh();
    return index.sync.index.count();
  }

  /**
   * How this process opened the active model's usearch index: its DATA_DIR's snapshot, the snapshot
   * published in the database, or built from every vector (undefined before it opened, and for pgvector).
   */
  async startedFrom(): Promise<FaceIndexStart | undefined> {
    await this.start();
    const { sync } = await this.indexOfActiveModel();
    return sync instanceof FaceIndexSync ? sync.startedFrom : undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.started?.catch(() => undefined);
    await this.switching.catch(() => undefined);
    const current = this.current;
    this.current = undefined;
    if (current) {
      await current.opened.catch(() => undefined);
      await current.sync.stop();
    }
  }

  /** The open index of the active model; opens it (and drops the previous model's) after a switch. */
  private async indexOfActiveModel(): Promise<ModelIndex> {
    const model = await this.models.active();
    const current = this.current;
    if (current && current.model.modelId === model.modelId) {
      await current.opened;
      return current;
    }
    const next = this.switching.then(() => this.switchTo(model));
    this.switching = next.catch(() => undefined);
    return next;
  }

  private async switchTo(model: FaceModel): Promise<ModelIndex> {
    const previous = this.current;
    if (previous && previous.model.modelId === model.modelId) {
      await previous.opened;
      return previous;
    }
    const source = new FaceVectorRepository(this.db, model.modelId);
    const sync =
      this.engine === 'pgvector'
        ? new PgvectorFaceIndexSync({
            db: kyselySqlClient(this.db),
            source,
            model: model.modelId,
            dimensions: model.dimensions,
          })
        : this.usearchSync(model, source);
    const opened = sync.open().then(() => {
      if (!this.stopped) sync.start();
    });
    const next: ModelIndex = { model, sync, opened };
    await opened;
    this.current = next;
    if (previous) {
      this.log.info({ from: previous.model.modelId, to: model.modelId }, 'face index switched model');
      await previous.sync.stop();
    }
    return next;
  }

  private usearchSync(model: FaceModel, source: FaceVectorRepository): FaceIndexSync {
    return new FaceIndexSync({
      source,
      index: { dimensions: model.dimensions },
      store: this.dataDir === ':memory:' ? undefined : faceIndexStoreFor(this.dataDir, model.modelId),
      publication: this.publishSnapshots
        ? new FaceIndexPublication(new FaceIndexPublicationRepository(this.db))
        : undefined,
      role: this.role,
      model: model.modelId,
      pollIntervalMs: this.pollIntervalMs,
      onError: (error) => this.log.error({ err: error }, 'face index sync failed'),
      log: this.log,
    });
  }

  /** Follows the active model between searches too, so that the writer moves to a new model on its own. */
  private scheduleModelPoll(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.indexOfActiveModel()
        .catch((error: unknown) => this.log.error({ err: error }, 'face index model check failed'))
        .finally(() => this.scheduleModelPoll());
    }, this.pollIntervalMs);
    this.timer.unref();
  }
}
