import { PIPELINE_CATALOG, type PipelineName, SHIPPED_PIPELINE } from '../face/pipeline/pipeline-catalog.ts';
import type { FaceModelRepository } from '../repositories/face-model.repository.ts';

/** A descriptor model: what is stored with each vector, its length, and the pipeline that computes it. */
export interface FaceModel {
  modelId: string;
  dimensions: number;
  /** Undefined for a model this version can no longer compute (only a reindex moves away from it). */
  pipeline: PipelineName | undefined;
}

/** The pipeline that computes descriptors of `modelId`, if this version has one. */
export function pipelineOfModel(modelId: string): PipelineName | undefined {
  return (Object.keys(PIPELINE_CATALOG) as PipelineName[]).find(
    (name) => PIPELINE_CATALOG[name].modelId === modelId,
  );
}

export function modelOfPipeline(pipeline: PipelineName): FaceModel {
  const { modelId, dimensions } = PIPELINE_CATALOG[pipeline];
  return { modelId, dimensions, pipeline };
}

/** The model a fresh install starts on, and the default target of `npm run reindex`. */
export const SHIPPED_FACE_MODEL = modelOfPipeline(SHIPPED_PIPELINE);

/** Uploads and crawls while the active model is one this version cannot compute. */
export class UnavailableFaceModelError extends Error {
  constructor(modelId: string) {
    super(
      `The face index holds descriptors of the model ${modelId}, which this version cannot compute: ` +
        'run `npm run reindex` to move the index to the current model.',
    );
    this.name = 'UnavailableFaceModelError';
  }
}

/**
 * Which descriptor model the product searches with: the one row of face_models in state 'active', the
 * single source of truth every process reads (searches, the face index, uploads, crawls, opt-outs,
 * extractions). A fresh install starts on the shipped model; an install whose faces are of an older one
 * keeps it (migration 0011) until `npm run reindex` has built the new one beside it and switches.
 *
 * Read from the database on every call (a primary-key lookup): a process never needs a restart to follow
 * a switch, and never mixes a stale model with the faces of the new one.
 */
export class FaceModelService {
  constructor(
    private readonly models: Pick<FaceModelRepository, 'findActive' | 'insertActiveIfNone'>,
    private readonly initial: FaceModel = SHIPPED_FACE_MODEL,
  ) {}

  async active(): Promise<FaceModel> {
    let row = await this.models.findActive();
    if (!row) {
      await this.models.insertActiveIfNone(this.initial.modelId, this.initial.dimensions);
      row = await this.models.findActive();
      if (!row) throw new Error('no active face model after inserting one');
    }
    return { modelId: row.modelId, dimensions: row.dimensions, pipeline: pipelineOfModel(row.modelId) };
  }

  /** The pipeline of the active model, for the face engine; refuses a model this version cannot compute. */
  async activePipeline(): Promise<PipelineName> {
    const model = await this.active();
    if (!model.pipeline) throw new UnavailableFaceModelError(model.modelId);
    return model.pipeline;
  }
}
