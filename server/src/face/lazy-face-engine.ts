import { createFaceEngine, type FaceEngine, type FaceEngineOptions } from './face-engine.ts';

/**
 * One face engine per process, started on first use: its worker threads load the models, which takes
 * seconds and memory that a process that never sees an image should not pay.
 */
export class LazyFaceEngine {
  private engine: Promise<FaceEngine> | undefined;

  constructor(private readonly options: FaceEngineOptions = {}) {}

  get(): Promise<FaceEngine> {
    this.engine ??= createFaceEngine(this.options).catch((error: unknown) => {
      this.engine = undefined;
      throw error;
    });
    return this.engine;
  }

  async close(): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await (await engine).close();
  }
}
