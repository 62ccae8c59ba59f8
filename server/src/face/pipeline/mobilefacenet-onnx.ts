import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Point } from './blazeface-detector.ts';
import { createOnnxSession } from './onnx-session.ts';

// A MobileFaceNet-class face descriptor (512-d) run with onnxruntime (onnx-session.ts). The weights are
// `model/fr_feature.onnx` of the npm package faceplugin-face-recognition-js (exact version pinned in
// server/package.json; MIT per the package). Only the weights are used: the package's own 3-point affine
// alignment and its matchFeature() do not work (see server/src/face/README.md).

/** Side of the aligned input chip the network expects. */
export const MFN_CHIP_SIZE = 112;

/**
 * Where the five points sit in the 112×112 chip (subject's right eye, left eye, nose tip, right and left
 * mouth corner): the standard ArcFace template, given in pixel indices; our resampler puts pixel centres at
 * half-integer positions, hence the +0.5.
 */
export const ARCFACE_TEMPLATE: readonly Point[] = (
  [
    [38.2946, 51.6963],
    [73.5318, 51.5014],
    [56.0252, 71.7366],
    [41.5493, 92.3655],
    [70.7299, 92.2041],
  ] as const
).map(([x, y]): Point => [x + 0.5, y + 0.5]);

function modelPath(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('faceplugin-face-recognition-js/package.json');
  return path.join(path.dirname(pkg), 'model', 'fr_feature.onnx');
}

export interface MobileFaceNet {
  /** Descriptors (512-d, not normalised) of aligned RGB chips (values 0..255, HWC, 112×112). */
  describe(chips: Float32Array[]): Promise<Float32Array[]>;
}

export interface MobileFaceNetOptions {
  /** Describe each chip and its mirror image and add the two (test-time augmentation; 2× the work). */
  withMirror: boolean;
}

/**
 * Loads the network into this thread. The model is exported for batch 1 only, so faces run one after
 * another.
 */
export async function loadMobileFaceNet(options: MobileFaceNetOptions): Promise<MobileFaceNet> {
  // Batch 1, 112×112: the input the layout probe times (see createOnnxSession).
  const session = await createOnnxSession(await readFile(modelPath()), {
    layoutProbe: { network: 'mobilefacenet-512', inputs: { input: [1, 3, MFN_CHIP_SIZE, MFN_CHIP_SIZE] } },
  });
  const [inputName] = session.inputNames;
  const [outputName] = session.outputNames;
  const side = MFN_CHIP_SIZE;
  const plane = side * side;
  const run = async (chip: Float32Array, mirror: boolean): Promise<Float32Array> => {
    // HWC RGB 0..255 → NCHW BGR, (x − 127) / 128: the preprocessing the weights were trained with.
    const input = new Float32Array(3 * plane);
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const o = y * side + x;
        const i = 3 * (y * side + (mirror ? side - 1 - x : x));
        input[o] = (chip[i + 2]! - 127) / 128;
        input[plane + o] = (chip[i + 1]! - 127) / 128;
        input[2 * plane + o] = (chip[i]! - 127) / 128;
      }
    }
    const result = await session.run({ [inputName!]: { data: input, dims: [1, 3, side, side] } });
    return result[outputName!]!;
  };
  return {
    async describe(chips) {
      const out: Float32Array[] = [];
      for (const chip of chips) {
        const descriptor = await run(chip, false);
        if (options.withMirror) {
          const mirrored = await run(chip, true);
          for (let k = 0; k < descriptor.length; k++) descriptor[k] = descriptor[k]! + mirrored[k]!;
        }
        out.push(descriptor);
      }
      return out;
    },
  };
}
