import { createRequire } from 'node:module';
import path from 'node:path';
import type * as tfTypes from '@tensorflow/tfjs';
import * as faceapi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import type { RgbImage } from '../image-decode.ts';
import type { Point } from './blazeface-detector.ts';
import { applyTransform, extractSquare, type OrientedSquare, squareTransform } from './face-chip.ts';
import { LANDMARK_INPUT, LANDMARK_OUTPUT, landmarkNetAsOnnx } from './faceapi-landmarks-onnx.ts';
import type { OnnxSession } from './onnx-session.ts';
import { initTfjsWasm } from './tfjs-wasm.ts';

// face-api's networks, used stage by stage so they can be combined with another detector.
// face-api bundles its own copy of the tfjs type declarations; at run time it shares our tfjs-core
// instance, so tensors are passed across with a type cast only.

export type FaceApiTensor3D = faceapi.tf.Tensor3D;

export type FaceApiNet = 'ssd' | 'tiny' | 'landmarks' | 'recognition' | 'ageGender';

let loaded: Promise<void> | undefined;
const loadedNets = new Set<FaceApiNet>();
/** The landmark net runs on onnxruntime (3–4× less CPU than face-api's tfjs kernels), from face-api's weights. */
let landmarkNet: OnnxSession | undefined;

function modelDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'model');
}

export async function loadFaceApiNets(nets: FaceApiNet[]): Promise<typeof faceapi> {
  await initTfjsWasm();
  await loaded;
  loaded = (async () => {
    const dir = modelDir();
    for (const net of nets) {
      if (loadedNets.has(net)) continue;
      if (net === 'ssd') await faceapi.nets.ssdMobilenetv1.loadFromDisk(dir);
      if (net === 'tiny') await faceapi.nets.tinyFaceDetector.loadFromDisk(dir);
      if (net === 'landmarks') {
        await faceapi.nets.faceLandmark68Net.loadFromDisk(dir);
        landmarkNet = await landmarkNetAsOnnx(faceapi.nets.faceLandmark68Net);
      }
      if (net === 'recognition') await faceapi.nets.faceRecognitionNet.loadFromDisk(dir);
      if (net === 'ageGender') await faceapi.nets.ageGenderNet.loadFromDisk(dir);
      loadedNets.add(net);
    }
  })();
  await loaded;
  return faceapi;
}

/** Faces per network call: batching saves per-call overhead (4 faces: −45 % landmarks, −13 % descriptors). */
const BATCH = 8;

async function inBatches<T, R>(items: T[], run: (batch: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await run(items.slice(i, i + BATCH))));
  return out;
}

/** Runs a face-api network on 3-D tensors made from `inputs` and returns its [n, k] output as rows. */
async function rowsOf(
  tf: typeof tfTypes,
  inputs: Float32Array[],
  size: number,
  forward: (batch: FaceApiTensor3D[]) => Promise<faceapi.tf.Tensor2D>,
): Promise<Float32Array[]> {
  const tensors = inputs.map((data) => tf.tensor3d(data, [size, size, 3], 'float32'));
  try {
    const output = await forward(tensors as unknown as FaceApiTensor3D[]);
    const flat = (await output.data()) as Float32Array;
    const [n, k] = output.shape;
    output.dispose();
    return Array.from({ length: n }, (_, i) => flat.slice(i * k, (i + 1) * k));
  } finally {
    tf.dispose(tensors);
  }
}

/**
 * The 68 dlib landmarks of the face inside each square region, in image pixels. Each region is resampled
 * straight to the network's 112×112 input (grey outside the image; turned upright when the region has an
 * angle, since the net only places points well on upright faces), and the points map back through the
 * same transform.
 */
export function landmarks68(image: RgbImage, regions: OrientedSquare[]): Promise<Point[][]> {
  const net = landmarkNet;
  if (!net) throw new Error("load the landmark net first: loadFaceApiNets(['landmarks'])");
  return inBatches(regions, async (batch) => {
    const input = new Float32Array(batch.length * LANDMARK_INPUT * LANDMARK_INPUT * 3);
    batch.forEach((region, i) =>
      input.set(extractSquare(image, region, LANDMARK_INPUT), i * LANDMARK_INPUT * LANDMARK_INPUT * 3),
    );
    const output = await net.run({
      input: { data: input, dims: [batch.length, LANDMARK_INPUT, LANDMARK_INPUT, 3] },
    });
    const flat = output[`${LANDMARK_OUTPUT}:out`]!;
    const rows = batch.map((_, i) => flat.subarray(i * 136, (i + 1) * 136));
    // Each row holds x0, y0, x1, y1, … relative to the (square, unpadded) input.
    return rows.map((row, i) => {
      const t = squareTransform(batch[i]!, LANDMARK_INPUT);
      return Array.from({ length: 68 }, (_, k) =>
        applyTransform(t, [row[2 * k]! * LANDMARK_INPUT, row[2 * k + 1]! * LANDMARK_INPUT]),
      );
    });
  });
}

/** The 128-d dlib ResNet descriptors of 150×150 RGB chips (values 0..255), not normalised. */
export function dlibDescriptors(tf: typeof tfTypes, chips: Float32Array[]): Promise<Float32Array[]> {
  return inBatches(chips, (batch) =>
    rowsOf(tf, batch, 150, (t) => faceapi.nets.faceRecognitionNet.forward(t)),
  );
}
