import { createFaceEngine, type FaceEngine, type FaceEngineOptions } from './face-engine.ts';
import type { PipelineName } from './pipeline/pipeline-catalog.ts';

export interface LazyFaceEngineOptions extends Omit<FaceEngineOptions, 'pipeline'> {
  /**
   * The pipeline to run, or a function asked on every `get()`: the product passes the active descriptor
   * model's pipeline (face_models), so that after a reindex switches models, uploads and crawls produce
   * descriptors of the new model without a restart. Default: the shipped pipeline.
   */
  pipeline?: PipelineName | (() => Promise<PipelineName>);
}

/**
 * One face engine per process, started on first use: its worker threads load the models, which takes
 * seconds and memory that a process that never sees an image should not pay. When the pipeline asked
 * for changes, the next `get()` starts an engine for it and the previous one closes once its queued
 * work is done.
 */
export class LazyFaceEngine {
  private engine: Promise<FaceEngine> | undefined;
  private pipeline: PipelineName | undefined;
  /** Engines of a previous pipeline, closed a little later (see get()). */
  private readonly retiring = new Set<Promise<FaceEngine>>();

  constructor(private readonly options: LazyFaceEngineOptions = {}) {}

  async get(): Promise<FaceEngine> {
    const wanted = typeof this.options.pipeline === 'function' ? await this.options.pipeline() : undefined;
    if (wanted !== undefined && this.engine && wanted !== this.pipeline) {
      const previous = this.engine;
      this.engine = undefined;
      // A caller handed this engine a moment ago may not have called analyze() yet: close it later
      // (close() then waits for the calls in flight).
      this.retiring.add(previous);
      setTimeout(() => {
        if (this.retiring.delete(previous)) void closeQuietly(previous);
      }, RETIRE_AFTER_MS).unref();
    }
    if (!this.engine) {
      const pipeline =
        wanted ?? (typeof this.options.pipeline === 'string' ? this.options.pipeline : undefined);
      this.pipeline = pipeline;
      const { pipeline: _resolver, ...engineOptions } = this.options;
      const started = createFaceEngine({ ...engineOptions, ...(pipeline ? { pipeline } : {}) }).catch(
        (error: unknown) => {
          if (this.engine === started) this.engine = undefined;
          throw error;
        },
      );
      this.engine = started;
    }
    return this.engine;
  }

  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    const retiring = [...this.retiring];
    this.retiring.clear();
    await Promise.all(retiring.map(closeQuietly));
    if (engine) await (await engine).close();
  }
}

/** How long an engine of a previous pipeline stays open after the switch. */
const RETIRE_AFTER_MS = 5_000;

async function closeQuietly(engine: Promise<FaceEngine>): Promise<void> {
  await engine.then((e) => e.close()).catch(() => undefined);
}
