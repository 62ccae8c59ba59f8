import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.ts';
import type { FaceIndexHit } from '../face/index/face-index.ts';
import { FaceIndexStore } from '../face/index/face-index-store.ts';
import { FaceIndexSync } from '../face/index/face-index-sync.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../face/pipeline/pipeline-catalog.ts';
import { FaceVectorRepository } from '../repositories/face-vector.repository.ts';

export const SHIPPED_MODEL = PIPELINE_CATALOG[SHIPPED_PIPELINE];

/**
 * This process's view of the face index: a usearch snapshot under DATA_DIR/face-index plus the change
 * log applied since. The process that runs workers writes snapshots; API-only processes read them.
 */
export class FaceIndexService {
  private readonly sync: FaceIndexSync;
  private opened: Promise<void> | undefined;

  constructor(
    db: Db,
    dataDir: string,
    role: 'writer' | 'reader',
    log: FastifyBaseLogger,
    pollIntervalMs = 1000,
  ) {
    this.sync = new FaceIndexSync({
      source: new FaceVectorRepository(db, SHIPPED_MODEL.modelId),
      index: { dimensions: SHIPPED_MODEL.dimensions },
      store: dataDir === ':memory:' ? undefined : new FaceIndexStore(path.join(dataDir, 'face-index')),
      role,
      model: SHIPPED_MODEL.modelId,
      pollIntervalMs,
      onError: (error) => log.error({ err: error }, 'face index sync failed'),
    });
  }

  /** Length of the vectors this index holds (a query of another length is from another model). */
  get dimensions(): number {
    return SHIPPED_MODEL.dimensions;
  }

  /** Opens (or builds) the index and follows the change log from then on. */
  start(): Promise<void> {
    this.opened ??= this.sync.open().then(() => this.sync.start());
    return this.opened;
  }

  /** Searches with every change committed so far applied, so a face indexed a moment ago is found. */
  async search(
    query: Float32Array,
    options: { limit: number; minSimilarity: number },
  ): Promise<FaceIndexHit[]> {
    await this.start();
    await this.sync.refresh();
    return this.sync.index.search(query, options);
  }

  /** Faces in this process's index, with every change committed so far applied (as a search sees it). */
  async size(): Promise<number> {
    await this.start();
    await this.sync.refresh();
    return this.sync.index.count();
  }

  async stop(): Promise<void> {
    if (this.opened) await this.opened.catch(() => undefined);
    await this.sync.stop();
  }
}
