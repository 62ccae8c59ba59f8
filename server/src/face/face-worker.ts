import { parentPort, workerData } from 'node:worker_threads';
import { type AgeEstimator, loadAgeEstimator } from './age/age-estimator.ts';
import type { AnalyzedFace, ImageAnalysis } from './face-engine.ts';
import type { AnalyzeRequest, FaceWorkerData, FaceWorkerMessage } from './face-worker-protocol.ts';
import { decodeImage, ImageDecodeError } from './image-decode.ts';
import { loadPipeline } from './pipeline/face-pipelines.ts';
import { adoptKernelLayouts, chosenKernelLayouts } from './pipeline/onnx-session.ts';
import { MIN_INDEX_FACE_PX } from './similarity.ts';

// A worker thread holding one copy of the models. It decodes the image too (BMP decoding is plain
// JavaScript and big images take a while), so the main thread only ever reads headers.

/**
 * Images are analysed at most this large, which bounds the work per image (a 2048-px photo searched for
 * 40-px faces takes 17 detector runs). In a larger photo, faces are then looked for from 40 px of the
 * reduced image (e.g. from 117 px in a 6000-px photo): tinier ones would give unreliable descriptors and
 * looking for them would multiply the tiles.
 */
const MAX_ANALYSIS_SIDE = 2048;

const port = parentPort;
if (!port) throw new Error('face-worker.ts must run in a worker thread');
const { pipeline: pipelineName, kernelLayouts } = workerData as FaceWorkerData;
adoptKernelLayouts(kernelLayouts);
const post = (message: FaceWorkerMessage) => port.postMessage(message);

async function analyze(
  pipeline: Awaited<ReturnType<typeof loadPipeline>>,
  ages: AgeEstimator,
  request: AnalyzeRequest,
) {
  const image = await decodeImage(
    Buffer.from(request.image.buffer, request.image.byteOffset, request.image.byteLength),
    // Large JPEGs and WebPs are decoded shrunk on load (libvips picks a reduced scale when resizing).
    { maxSide: MAX_ANALYSIS_SIDE, maxPixels: request.maxPixels },
  );
  const scale = image.sourceWidth / image.width;
  const found = await pipeline.analyze(image, Math.max(request.minFaceSize / scale, MIN_INDEX_FACE_PX));
  // Every face gets an age estimate, at upload and at indexing alike: the minors gate relies on it.
  const estimates = await ages.estimate(
    image,
    found.map((f) => f.box),
  );
  const faces: AnalyzedFace[] = found.map((f, i) => ({
    ...f,
    age: estimates[i]!,
    box: { x: f.box.x * scale, y: f.box.y * scale, width: f.box.width * scale, height: f.box.height * scale },
  }));
  faces.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  const analysis: ImageAnalysis = { width: image.sourceWidth, height: image.sourceHeight, faces };
  return analysis;
}

try {
  const pipeline = await loadPipeline(pipelineName);
  await pipeline.warmUp?.();
  const ages = await loadAgeEstimator();
  // Both age networks once, so that the first real face does not pay for their WASM kernel set-up.
  const blank = { data: new Uint8Array(128 * 128 * 3).fill(128), width: 128, height: 128 };
  await ages.estimate(blank, [{ x: 32, y: 32, width: 64, height: 64 }], { bothNetworks: true });
  // Jobs arrive one at a time (the pool waits for each answer), so no queue is needed here.
  port.on('message', (request: AnalyzeRequest) => {
    analyze(pipeline, ages, request).then(
      (analysis) => post({ type: 'result', id: request.id, analysis }),
      (err: unknown) =>
        post({
          type: 'error',
          id: request.id,
          message: err instanceof Error ? err.message : String(err),
          decodeCode: err instanceof ImageDecodeError ? err.code : undefined,
        }),
    );
  });
  post({ type: 'ready', kernelLayouts: chosenKernelLayouts() });
} catch (err) {
  post({ type: 'init-error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
}
