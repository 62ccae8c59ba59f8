import os from 'node:os';
import type { AgeEstimates } from './age/possible-minor.ts';
import { FaceWorkerPool } from './face-worker-pool.ts';
import { MAX_IMAGE_PIXELS, probeImage } from './image-decode.ts';
import { PIPELINE_CATALOG, type PipelineName, SHIPPED_PIPELINE } from './pipeline/pipeline-catalog.ts';
import { MIN_INDEX_FACE_PX } from './similarity.ts';

export interface FaceBox {
  /** Pixels in the decoded, EXIF-rotated image. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AnalyzedFace {
  box: FaceBox;
  /** Detector confidence, 0..1. */
  score: number;
  /** 0..1: detection score × frontality × resolution; see pipeline/face-quality.ts. */
  quality: number;
  /** L2-normalised; compare with similarity() from similarity.ts. */
  descriptor: Float32Array;
  /** Age estimates (years); isPossibleMinor() from age/possible-minor.ts decides. */
  age: AgeEstimates;
}

export interface ImageAnalysis {
  /** Size of the decoded, EXIF-rotated image. */
  width: number;
  height: number;
  /** Largest face first. */
  faces: AnalyzedFace[];
}

export interface AnalyzeOptions {
  /**
   * Smallest face (pixels) the detector must look for. Smaller values make large images slower (the
   * image is searched tile by tile). Default MIN_INDEX_FACE_PX; a query upload can pass
   * MIN_QUERY_FACE_PX since smaller faces cannot be searched anyway.
   */
  minFaceSize?: number;
  /**
   * Indexing work (a crawl's images): queued behind every analysis requested without it, so that an
   * upload waits for at most the images already being analysed, not for a crawl's queue.
   */
  background?: boolean;
  /**
   * Whose request this is (an upload's organization). Requests of different organizations take turns in
   * the queue, so one organization's flood delays another's request by at most one analysis.
   */
  organizationId?: number;
  /** Images declaring more pixels are refused (default MAX_IMAGE_PIXELS; uploads pass MAX_UPLOAD_PIXELS). */
  maxPixels?: number;
}

export interface FaceEngine {
  /** Stored with each vector so that a model change forces a reindex. */
  readonly modelId: string;
  readonly dimensions: number;
  /** Decodes and analyses the image in a worker thread; rejects with ImageDecodeError for bad input. */
  analyze(image: Buffer, options?: AnalyzeOptions): Promise<ImageAnalysis>;
  /** Finishes the queued work, then stops the workers. */
  close(): Promise<void>;
}

export interface FaceEngineOptions {
  /** Worker threads, each with its own copy of the models. Default: cores − 1 (at least 1, at most 4). */
  threads?: number;
  /** Benchmark candidates; the product uses the shipped pipeline. */
  pipeline?: PipelineName;
  /** A job running longer than this is abandoned and its worker replaced. */
  jobTimeoutMs?: number;
}

/** For a process that answers API requests: cores − 1 (1 to 4), so that one core stays free for them. */
export function defaultThreadCount(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/**
 * For a process that only indexes (`npm run crawl`, `npm run worker`): every core (1 to 4). Its own
 * thread's share (fetching, thumbnails, the database: about a tenth of the face work) fits alongside.
 */
export function indexingThreadCount(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

export async function createFaceEngine(options: FaceEngineOptions = {}): Promise<FaceEngine> {
  const pipeline = options.pipeline ?? SHIPPED_PIPELINE;
  const { modelId, dimensions } = PIPELINE_CATALOG[pipeline];
  const pool = new FaceWorkerPool({
    size: options.threads ?? defaultThreadCount(),
    pipeline,
    jobTimeoutMs: options.jobTimeoutMs ?? 60_000,
  });
  await pool.start();
  // Calls made before close() are finished; the ones made after it are refused.
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();
  return {
    modelId,
    dimensions,
    analyze(image, analyzeOptions = {}) {
      if (closed) return Promise.reject(new Error('Face engine is closed'));
      const job = (async () => {
        const maxPixels = analyzeOptions.maxPixels ?? MAX_IMAGE_PIXELS;
        // Refuse non-images and decompression bombs here, from the header alone, without queueing.
        await probeImage(image, maxPixels);
        return pool.run(image, {
          minFaceSize: analyzeOptions.minFaceSize ?? MIN_INDEX_FACE_PX,
          maxPixels,
          background: analyzeOptions.background ?? false,
          organizationId: analyzeOptions.organizationId,
        });
      })();
      inFlight.add(job);
      const forget = () => inFlight.delete(job);
      job.then(forget, forget);
      return job;
    },
    async close() {
      closed = true;
      await Promise.allSettled([...inFlight]);
      await pool.close();
    },
  };
}
