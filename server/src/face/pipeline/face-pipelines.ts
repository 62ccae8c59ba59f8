import type * as tfTypes from '@tensorflow/tfjs';
import type { FaceBox } from '../face-engine.ts';
import type { RgbImage } from '../image-decode.ts';
import { l2Normalise } from '../similarity.ts';
import { BlazeFaceDetector, detectionRegions, type Point, type Square } from './blazeface-detector.ts';
import { alignedChip, type ChipAlignment, extractChip, eyeCentres } from './face-chip.ts';
import { faceQuality } from './face-quality.ts';
import { dlibDescriptors, type FaceApiTensor3D, landmarks68, loadFaceApiNets } from './faceapi-nets.ts';
import { detectWithHuman, loadHuman } from './human-faceres.ts';
import type { PipelineName } from './pipeline-catalog.ts';
import {
  ARCFACE_TEMPLATE,
  loadMobileFaceNet,
  MFN_CHIP_SIZE,
  type MobileFaceNetOptions,
} from './mobilefacenet-onnx.ts';
import { initTfjsWasm } from './tfjs-wasm.ts';
import type { DescriptorNormLimits } from './face-plausibility.ts';
import { findFaces, type FoundFaces, type FrontEndOptions } from './upright-faces.ts';

// The implementations of the candidate pipelines listed in pipeline-catalog.ts. A pipeline turns the
// pixels of one image into faces with L2-normalised descriptors; it runs inside a worker thread only.

export interface PipelineFace {
  box: FaceBox;
  score: number;
  quality: number;
  descriptor: Float32Array;
}

export interface FacePipeline {
  analyze(image: RgbImage, minFace: number): Promise<PipelineFace[]>;
  /** Runs every network once, so the first real image does not pay for WASM kernel set-up (≈ 0.5 s). */
  warmUp?(): Promise<void>;
}

/** Detections below this BlazeFace score are dropped (measured on the dev groups, see the README). */
const BLAZEFACE_MIN_SCORE = 0.5;

function clipBox(x: number, y: number, width: number, height: number, image: RgbImage): FaceBox {
  const x0 = Math.max(0, x);
  const y0 = Math.max(0, y);
  const x1 = Math.min(image.width, x + width);
  const y1 = Math.min(image.height, y + height);
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

function imageTensor(tf: typeof tfTypes, image: RgbImage): tfTypes.Tensor4D {
  return tf.tensor4d(image.data, [1, image.height, image.width, 3], 'float32');
}

/** The network that turns aligned face chips into descriptors, with the chip it needs. */
interface Descriptor {
  chip(image: RgbImage, landmarks: Point[]): Float32Array;
  describe(chips: Float32Array[]): Promise<Float32Array[]>;
  /** Where the raw descriptor's length tells faces from the rest (see face-plausibility.ts). */
  normLimits?: DescriptorNormLimits;
}

/** How a face is turned into a descriptor once a detector has boxed it. */
interface DescribeOptions {
  /** Run the landmark net a second time on a region framed from its first answer. */
  refineLandmarks: boolean;
}

/** face-api's dlib ResNet (128-d) on 150×150 chips framed as `alignment` says. */
async function dlibDescriptor(tf: typeof tfTypes, alignment: ChipAlignment): Promise<Descriptor> {
  await loadFaceApiNets(['recognition']);
  return {
    chip: (image, landmarks) => extractChip(image, landmarks, alignment),
    describe: (chips) => dlibDescriptors(tf, chips),
  };
}

/**
 * How long MobileFaceNet's raw descriptors are: real faces of the dev set (upright and turned) 2.65–4.34,
 * CelebA dev faces median 3.5 (5th percentile 2.6); the same faces seen sideways or upside down, hands, a
 * mug, a logo 1.2–2.6. Faces the landmarks fit closely (keypoint gap ≤ 0.35, pass gap ≤ 0.1) are kept
 * down to 1.4: dark sunglasses and caps shorten the descriptor of real faces to 1.5–2.0.
 */
const MFN_NORM_LIMITS: DescriptorNormLimits = {
  min: 2.0,
  minWhenConsistent: 1.4,
  consistent: { maxKeypointGap: 0.35, maxPassGap: 0.1 },
  weak: 2.6,
  uprightPreference: 0.5,
};

/** The MobileFaceNet ONNX descriptor (512-d) on 112×112 chips aligned to the ArcFace template. */
async function mobileFaceNetDescriptor(options: MobileFaceNetOptions): Promise<Descriptor> {
  const net = await loadMobileFaceNet(options);
  return {
    chip: (image, landmarks) => alignedChip(image, landmarks, ARCFACE_TEMPLATE, MFN_CHIP_SIZE),
    describe: (chips) => net.describe(chips),
    // The mirror variant adds two descriptors of the same face: about twice the length.
    normLimits: options.withMirror
      ? {
          ...MFN_NORM_LIMITS,
          min: 2 * MFN_NORM_LIMITS.min,
          minWhenConsistent: 2 * MFN_NORM_LIMITS.minWhenConsistent,
          weak: 2 * MFN_NORM_LIMITS.weak,
        }
      : MFN_NORM_LIMITS,
  };
}

/**
 * The region face-api's landmark net expects, from landmarks already found: on face-api's demo photos its
 * SSD boxes are 1.35× the landmarks' extent and centred 15.6 % of it higher (22 faces, sd 0.09 and 0.03).
 * A second pass on this region corrects the first one's framing, whatever detector gave the box.
 */
function landmarkRegion(marks: Point[]): Square {
  const xs = marks.map((p) => p[0]);
  const ys = marks.map((p) => p[1]);
  const extent = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  const side = 1.35 * extent;
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const cy = (Math.max(...ys) + Math.min(...ys)) / 2 - 0.156 * extent;
  return { x: cx - side / 2, y: cy - side / 2, side };
}

interface Located {
  box: FaceBox;
  score: number;
  /** Where to look for the landmarks first. */
  region: Square;
}

/** Landmarks → aligned chip → descriptor, for all faces of an image at once. */
async function describeFaces(
  tf: typeof tfTypes,
  image: RgbImage,
  located: Located[],
  descriptor: Descriptor,
  options: DescribeOptions,
): Promise<PipelineFace[]> {
  if (located.length === 0) return [];
  let marks = await landmarks68(
    image,
    located.map((l) => l.region),
  );
  if (options.refineLandmarks) marks = await landmarks68(image, marks.map(landmarkRegion));
  const chips = marks.map((m) => descriptor.chip(image, m));
  const descriptors = await descriptor.describe(chips);
  return located.map(({ box, score }, i) => {
    const m = marks[i]!;
    const [rightEye, leftEye] = eyeCentres(m);
    return {
      box,
      score,
      quality: faceQuality(score, box, rightEye, leftEye, m[30]!),
      descriptor: l2Normalise(descriptors[i]!),
    };
  });
}

interface BlazeFaceSetup {
  makeDescriptor: (tf: typeof tfTypes) => Promise<Descriptor>;
  refineLandmarks: boolean;
  /**
   * Side of the first landmark region / the BlazeFace box: on photos cropped tight around the face a
   * little more context than face-api's SSD framing (1.3×) helps (dev set: 1.5–1.7 give the same results
   * after the refinement pass; 1.3 loses 2.5 points of rank-1).
   */
  firstRegionScale: number;
}

const BLAZEFACE_SETUPS = {
  'blazeface-mfn512': {
    makeDescriptor: () => mobileFaceNetDescriptor({ withMirror: false }),
    refineLandmarks: true,
    firstRegionScale: 1.5,
  },
  'blazeface-mfn512-flip': {
    makeDescriptor: () => mobileFaceNetDescriptor({ withMirror: true }),
    refineLandmarks: true,
    firstRegionScale: 1.5,
  },
  'blazeface-dlib': {
    makeDescriptor: (tf) => dlibDescriptor(tf, 'five-point'),
    refineLandmarks: true,
    firstRegionScale: 1.5,
  },
  'blazeface-dlib-1pass': {
    makeDescriptor: (tf) => dlibDescriptor(tf, 'five-point'),
    refineLandmarks: false,
    firstRegionScale: 1.3,
  },
  'blazeface-dlib-facebox': {
    makeDescriptor: (tf) => dlibDescriptor(tf, 'faceapi-box'),
    refineLandmarks: true,
    firstRegionScale: 1.5,
  },
} satisfies Partial<Record<PipelineName, BlazeFaceSetup>>;

export type BlazeFacePipelineName = keyof typeof BLAZEFACE_SETUPS;

export interface BlazeFaceFrontEnd {
  /** Every candidate with its checks, and the accepted faces with raw descriptors (see upright-faces.ts). */
  find(image: RgbImage, minFace: number, options?: { turnedPass?: boolean }): Promise<FoundFaces>;
  warmUp(): Promise<void>;
}

/**
 * BlazeFace finds the faces (tiled for small ones; turned by quarter turns when needed); face-api's
 * 68-point landmark net places the landmarks on an upright view of each; implausible detections are
 * dropped (face-plausibility.ts); the descriptor network describes the rest. Exported for the benchmarks,
 * which need the rejected candidates too.
 */
export async function loadBlazeFaceFrontEnd(name: BlazeFacePipelineName): Promise<BlazeFaceFrontEnd> {
  const setup: BlazeFaceSetup = BLAZEFACE_SETUPS[name];
  const tf = await initTfjsWasm();
  await loadFaceApiNets(['landmarks']);
  const detector = await BlazeFaceDetector.load();
  const descriptor = await setup.makeDescriptor(tf);
  const frontEnd: FrontEndOptions = {
    refineLandmarks: setup.refineLandmarks,
    firstRegionScale: setup.firstRegionScale,
    minScore: BLAZEFACE_MIN_SCORE,
    describe: (image, marks) => descriptor.describe(marks.map((m) => descriptor.chip(image, m))),
    normLimits: descriptor.normLimits,
  };
  return {
    find: (image, minFace, options) => findFaces(tf, detector, image, minFace, { ...frontEnd, ...options }),
    async warmUp() {
      const blank = { data: new Uint8Array(256 * 256 * 3).fill(128), width: 256, height: 256 };
      await detector.detect(blank, detectionRegions(256, 256, 256), BLAZEFACE_MIN_SCORE);
      await detector.detectTurned(blank, [1], BLAZEFACE_MIN_SCORE);
      const [marks] = await landmarks68(blank, [{ x: 0, y: 0, side: 256, angle: 0.1 }]);
      await descriptor.describe([descriptor.chip(blank, marks!)]);
    },
  };
}

async function loadBlazeface(name: BlazeFacePipelineName): Promise<FacePipeline> {
  const frontEnd = await loadBlazeFaceFrontEnd(name);
  return {
    async analyze(image, minFace) {
      const { faces } = await frontEnd.find(image, minFace);
      return faces.map(({ box, detection, marks, descriptor }) => {
        const [rightEye, leftEye] = eyeCentres(marks);
        return {
          box,
          score: detection.score,
          quality: faceQuality(detection.score, box, rightEye, leftEye, marks[30]!),
          descriptor: l2Normalise(new Float32Array(descriptor)),
        };
      });
    },
    warmUp: () => frontEnd.warmUp(),
  };
}

/**
 * The image as an int32 tensor for face-api's detectors, on a grey margin when small: SSD misses most faces
 * that fill the whole frame (dev set: 34 of 40 tight portraits without the margin, 12 with a 25 % one).
 */
function faceApiInput(tf: typeof tfTypes, image: RgbImage): { input: tfTypes.Tensor3D; margin: number } {
  const long = Math.max(image.width, image.height);
  const margin = long <= 512 ? Math.round(0.25 * long) : 0;
  const input = tf.tidy(() => {
    const t = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    return margin
      ? tf.pad(
          t,
          [
            [margin, margin],
            [margin, margin],
            [0, 0],
          ],
          127,
        )
      : t;
  });
  return { input, margin };
}

/** face-api's SSD boxes (tiny detector where SSD finds nothing), described like the shipped pipeline. */
async function loadSsdDlibFivePoint(): Promise<FacePipeline> {
  const tf = await initTfjsWasm();
  const faceapi = await loadFaceApiNets(['ssd', 'tiny', 'landmarks', 'recognition']);
  const ssd = new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5, maxResults: 200 });
  const tiny = new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.5 });
  const descriptor = await dlibDescriptor(tf, 'five-point');
  return {
    async analyze(image) {
      const { input, margin } = faceApiInput(tf, image);
      try {
        const faceInput = input as unknown as FaceApiTensor3D;
        let found = await faceapi.detectAllFaces(faceInput, ssd);
        if (found.length === 0) found = await faceapi.detectAllFaces(faceInput, tiny);
        const located = found.map((det): Located => {
          const { width, height } = det.box;
          const x = det.box.x - margin;
          const y = det.box.y - margin;
          const side = Math.max(width, height);
          const region = { x: x + width / 2 - side / 2, y: y + height / 2 - side / 2, side };
          return { box: clipBox(x, y, width, height, image), score: det.score, region };
        });
        return await describeFaces(tf, image, located, descriptor, REFINED);
      } finally {
        input.dispose();
      }
    },
  };
}

const REFINED: DescribeOptions = { refineLandmarks: true };

/** face-api's own chain (detector → 68 landmarks → aligned crop → dlib ResNet), small images on a margin. */
async function loadFaceApiChain(detector: 'ssd' | 'tiny'): Promise<FacePipeline> {
  const tf = await initTfjsWasm();
  const faceapi = await loadFaceApiNets([detector, 'tiny', 'landmarks', 'recognition']);
  const ssd = new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5, maxResults: 200 });
  const tiny = new faceapi.TinyFaceDetectorOptions({ inputSize: 416, scoreThreshold: 0.5 });
  return {
    async analyze(image) {
      const { input, margin } = faceApiInput(tf, image);
      try {
        const run = (options: typeof ssd | typeof tiny) =>
          faceapi
            .detectAllFaces(input as unknown as FaceApiTensor3D, options)
            .withFaceLandmarks()
            .withFaceDescriptors();
        let results = await run(detector === 'ssd' ? ssd : tiny);
        // The tiny detector as a fallback where SSD finds nothing (architecture notes: ~4 % misses → ~0).
        if (results.length === 0 && detector === 'ssd') results = await run(tiny);
        return results.map((r) => {
          const b = r.detection.box;
          const box = clipBox(b.x - margin, b.y - margin, b.width, b.height, image);
          const pts = r.landmarks.positions.map((p): Point => [p.x, p.y]);
          const [rightEye, leftEye] = eyeCentres(pts);
          const score = r.detection.score;
          return {
            box,
            score,
            quality: faceQuality(score, box, rightEye, leftEye, pts[30]!),
            descriptor: l2Normalise(new Float32Array(r.descriptor)),
          };
        });
      } finally {
        input.dispose();
      }
    },
  };
}

async function loadHumanFaceres(): Promise<FacePipeline> {
  const tf = await initTfjsWasm();
  const human = await loadHuman();
  return {
    async analyze(image) {
      const tensor = imageTensor(tf, image);
      try {
        const faces = await detectWithHuman(human, tensor);
        return faces
          .filter((f) => f.embedding && f.embedding.length > 0)
          .map((f) => {
            const [x, y, width, height] = f.box;
            const box = clipBox(x, y, width, height, image);
            const mid = (a: number, b: number): Point => {
              const pa = f.mesh[a] ?? [0, 0];
              const pb = f.mesh[b] ?? [0, 0];
              return [(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2];
            };
            const nose = f.mesh[1] ?? [0, 0];
            // FaceMesh indices: eye corners 33/133 (subject's right) and 263/362 (left), nose tip 1.
            const quality = faceQuality(f.score, box, mid(33, 133), mid(263, 362), [nose[0], nose[1]]);
            return { box, score: f.score, quality, descriptor: l2Normalise(new Float32Array(f.embedding!)) };
          });
      } finally {
        tensor.dispose();
      }
    },
  };
}

const LOADERS: Record<PipelineName, () => Promise<FacePipeline>> = {
  'blazeface-mfn512': () => loadBlazeface('blazeface-mfn512'),
  'blazeface-mfn512-flip': () => loadBlazeface('blazeface-mfn512-flip'),
  'blazeface-dlib': () => loadBlazeface('blazeface-dlib'),
  'blazeface-dlib-1pass': () => loadBlazeface('blazeface-dlib-1pass'),
  'blazeface-dlib-facebox': () => loadBlazeface('blazeface-dlib-facebox'),
  'ssd-dlib': loadSsdDlibFivePoint,
  'faceapi-ssd-dlib': () => loadFaceApiChain('ssd'),
  'faceapi-tiny-dlib': () => loadFaceApiChain('tiny'),
  'human-faceres': loadHumanFaceres,
};

/** Loads the models of a pipeline into this thread (call once per worker). */
export function loadPipeline(name: PipelineName): Promise<FacePipeline> {
  return LOADERS[name]();
}
