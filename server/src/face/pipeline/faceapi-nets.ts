import { createRequire } from 'node:module';
import path from 'node:path';
import type * as tfTypes from '@tensorflow/tfjs';
import * as faceapi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import type { RgbImage } from '../image-decode.ts';
import type { Point } from './blazeface-detector.ts';
import { applyTransform, extractSquare, type OrientedSquare, squareTransform } from './face-chip.ts';
import {
  AGE_OUTPUT,
  ageNetAsOnnx,
  FACEAPI_INPUT,
  LANDMARK_OUTPUT,
  landmarkNetAsOnnx,
} from './faceapi-nets-onnx.ts';
import type { OnnxSession } from './onnx-session.ts';
import { initTfjsWasm } from './tfjs-wasm.ts';

// face-api's networks, used stage by stage so they can be combined with another detector.
// face-api bundles its own copy of the tfjs type declarations; at run time it shares our tfjs-core
// instance, so tensors are passed across with a type cast only.

export type FaceApiTensor3D = faceapi.tf.Tensor3D;

export type FaceApiNet = 'ssd' | 'tiny' | 'landmarks' | 'recognition' | 'ageGender';

let loaded: Promise<void> | undefined;
const loadedNets = new Set<FaceApiNet>();
/** The landmark and age nets run on onnxruntime (3–4× less CPU than face-api's tfjs kernels), with face-api's weights. */
let landmarkNet: OnnxSession | undefined;
let ageNet: OnnxSession | undefined;

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
      if (net === 'ageGender') {
        await faceapi.nets.ageGenderNet.loadFromDisk(dir);
        ageNet = await ageNetAsOnnx(faceapi.nets.ageGenderNet);
      }
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
  return inBatches(regions, async (batch) => {
    const crops = batch.map((region) => extractSquare(image, region, FACEAPI_INPUT));
    const rows = await runOnCrops(landmarkNet, 'landmarks', crops, LANDMARK_OUTPUT, 136);
    // Each row holds x0, y0, x1, y1, … relative to the (square, unpadded) input.
    return rows.map((row, i) => {
      const t = squareTransform(batch[i]!, FACEAPI_INPUT);
      return Array.from({ length: 68 }, (_, k) =>
        applyTransform(t, [row[2 * k]! * FACEAPI_INPUT, row[2 * k + 1]! * FACEAPI_INPUT]),
      );
    });
  });
}

/** AgeGenderNet's age, in years, of each 112×112 RGB crop (values 0..255, HWC). */
export async function ageGenderNetAges(crops: Float32Array[]): Promise<number[]> {
  const rows = await inBatches(crops, (batch) => runOnCrops(ageNet, 'ageGender', batch, AGE_OUTPUT, 1));
  return rows.map((row) => row[0]!);
}

/** Runs one of the converted nets on 112×112 crops; one row of `width` values per crop. */
async function runOnCrops(
  net: OnnxSession | undefined,
  name: FaceApiNet,
  crops: Float32Array[],
  output: string,
  width: number,
): Promise<Float32Array[]> {
  if (!net) throw new Error(`load the net first: loadFaceApiNets(['${name}'])`);
  const size = FACEAPI_INPUT * FACEAPI_INPUT * 3;
  const input = new Float32Array(crops.length * size);
  crops.forEach((crop, i) => input.set(crop, i * size));
  const result = await net.run({
    input: { data: input, dims: [crops.length, FACEAPI_INPUT, FACEAPI_INPUT, 3] },
  });
  const flat = result[`${output}:out`]!;
  return crops.map((_, i) => flat.subarray(i * width, (i + 1) * width));
}

/** The 128-d dlib ResNet descriptors of 150×150 RGB chips (values 0..255), not normalised. */
export function dlibDescriptors(tf: typeof tfTypes, chips: Float32Array[]): Promise<Float32Array[]> {
  return inBatches(chips, (batch) =>
    rowsOf(tf, batch, 150, (t) => faceapi.nets.faceRecognitionNet.forward(t)),
  );
}
