import type { ImageAnalysis } from './face-engine.ts';
import type { ImageDecodeErrorCode } from './image-decode.ts';
import type { OnnxLayout } from './pipeline/onnx-session.ts';
import type { PipelineName } from './pipeline/pipeline-catalog.ts';

// Messages between the pool (main thread) and a face worker.

export interface FaceWorkerData {
  pipeline: PipelineName;
  /** Kernel layouts already measured in this process, by network (see adoptKernelLayouts). */
  kernelLayouts: Record<string, OnnxLayout>;
}

export interface AnalyzeRequest {
  id: number;
  /** The encoded image; its buffer is transferred to the worker. */
  image: Uint8Array;
  minFaceSize: number;
  /** The pixel budget the image was probed against; the decode enforces it again. */
  maxPixels: number;
}

export type FaceWorkerMessage =
  /** Loaded; with the kernel layouts its networks run in, for later workers. */
  | { type: 'ready'; kernelLayouts: Record<string, OnnxLayout> }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; analysis: ImageAnalysis }
  | { type: 'error'; id: number; message: string; decodeCode?: ImageDecodeErrorCode };
