import type * as tfTypes from '@tensorflow/tfjs';
import type { FaceBox } from '../face-engine.ts';
import type { RgbImage } from '../image-decode.ts';
import {
  type BlazeFaceDetector,
  detectionRegions,
  type Point,
  type RawDetection,
} from './blazeface-detector.ts';
import { eyeCentres, faceRoll, mouthCentre, type OrientedSquare } from './face-chip.ts';
import {
  type DescriptorNormLimits,
  type FaceGeometry,
  faceGeometry,
  implausibilities,
  normTooShort,
} from './face-plausibility.ts';
import { landmarks68 } from './faceapi-nets.ts';

// The front end of the BlazeFace pipelines: find faces in any orientation, place the 68 landmarks on an
// upright view of each, and keep only what is plausibly a face (face-plausibility.ts).

export interface FaceCandidate {
  detection: RawDetection;
  /** The detector's box clipped to the image. */
  box: FaceBox;
  /** The 68 landmarks in image pixels (the refinement pass's when there is one). */
  marks: Point[];
  geometry: FaceGeometry;
  /** Why it is not taken for a face; empty when it is. */
  rejected: string[];
  /** The descriptor network's raw output, for candidates that passed the geometry checks. */
  descriptor?: Float32Array;
  norm?: number;
}

export interface FrontEndOptions {
  /** Run the landmark net a second time on a region framed from its first answer. */
  refineLandmarks: boolean;
  /** Side of the first landmark region / the detector box's longer side. */
  firstRegionScale: number;
  minScore: number;
  /** Raw descriptors of faces (landmarks given), in order. */
  describe(image: RgbImage, marks: Point[][]): Promise<Float32Array[]>;
  /** Checks on the descriptor's length, for networks where it tells faces from the rest. */
  normLimits?: DescriptorNormLimits;
  /** Search the image turned when needed (default); off only to measure what that costs. */
  turnedPass?: boolean;
}

export interface FoundFaces {
  /** Accepted faces, each once, with their descriptors. */
  faces: Array<FaceCandidate & { descriptor: Float32Array }>;
  /** Every detection examined, accepted or not (for measurements). */
  candidates: FaceCandidate[];
  /** Whether the image was also searched turned by 90°, 180° and 270°. */
  turnedPass: boolean;
}

/** (x, y) turned by `angle` about the origin. */
function turn([x, y]: Point, angle: number): Point {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [c * x - s * y, s * x + c * y];
}

/** A square of `side` centred on `centre`, turned by `angle`. */
function squareAt(centre: Point, side: number, angle: number): OrientedSquare {
  return { x: centre[0] - side / 2, y: centre[1] - side / 2, side, angle };
}

/**
 * The first region for the landmark net: the detector box enlarged `scale`× and moved up (along the face's
 * own vertical) by 14 % of its height, turned by the roll of the detector's eye and mouth keypoints so that
 * the net sees the face upright (see faceRoll). face-api's SSD boxes, which the landmark net was trained
 * on, measured 1.3× taller and 14 % higher than BlazeFace's on face-api's demo photos.
 */
export function firstLandmarkRegion(det: RawDetection, scale: number): OrientedSquare {
  const [rightEye, leftEye, , mouth] = det.keypoints;
  const angle = faceRoll(rightEye!, leftEye!, mouth!);
  const side = scale * Math.max(det.width, det.height);
  const up = turn([0, -0.14 * det.height], angle);
  const centre: Point = [det.x + det.width / 2 + up[0], det.y + det.height / 2 + up[1]];
  return squareAt(centre, side, angle);
}

/**
 * The second pass turns its region by at most this much from the first one's. Where the first pass fails
 * (small, blurred or dark faces), its landmarks can imply any roll, up to upside down, and a region turned
 * that way makes the second pass fail for sure (without this cap, the final landmarks of 28 CelebA dev
 * detections pointed more than 90° from BlazeFace's roll).
 */
const MAX_REFINEMENT_TURN = Math.PI / 6;

/**
 * The region face-api's landmark net expects, from landmarks already found, in the face's upright frame:
 * on face-api's demo photos its SSD boxes are 1.35× the landmarks' extent and centred 15.6 % of it higher
 * (22 faces, sd 0.09 and 0.03). A second pass on this region corrects the first one's framing, whatever
 * detector gave the box. It is turned by the roll of the landmarks' own eyes and mouth, within
 * MAX_REFINEMENT_TURN of `previousAngle` (the first region's).
 */
export function refinedLandmarkRegion(marks: Point[], previousAngle = 0): OrientedSquare {
  const [rightEye, leftEye] = eyeCentres(marks);
  const change = angleDifference(faceRoll(rightEye, leftEye, mouthCentre(marks)), previousAngle);
  const angle = previousAngle + Math.max(-MAX_REFINEMENT_TURN, Math.min(MAX_REFINEMENT_TURN, change));
  const upright = marks.map((p) => turn(p, -angle));
  const xs = upright.map((p) => p[0]);
  const ys = upright.map((p) => p[1]);
  const extent = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const cy = (Math.max(...ys) + Math.min(...ys)) / 2 - 0.156 * extent;
  return squareAt(turn([cx, cy], angle), 1.35 * extent, angle);
}

/** a − b as an angle in (−π, π]. */
export function angleDifference(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}

function clipBox(d: RawDetection, image: RgbImage): FaceBox {
  const x0 = Math.max(0, d.x);
  const y0 = Math.max(0, d.y);
  const x1 = Math.min(image.width, d.x + d.width);
  const y1 = Math.min(image.height, d.y + d.height);
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/** The 68 landmarks of each region: a first pass and, if asked, a second on a region framed from it. */
async function fitLandmarks(
  tf: typeof tfTypes,
  image: RgbImage,
  regions: OrientedSquare[],
  refine: boolean,
): Promise<{ first: Point[][]; marks: Point[][] }> {
  const first = await landmarks68(image, regions);
  if (!refine) return { first, marks: first };
  const marks = await landmarks68(
    image,
    first.map((m, i) => refinedLandmarkRegion(m, regions[i]!.angle)),
  );
  return { first, marks };
}

/**
 * Landmarks placed this far from BlazeFace's keypoints (in eyes-to-mouth distances) on a region turned by
 * the keypoints' roll are fitted again on an unturned region, and the closer fit is kept: on small tilted
 * faces (≈ 40 px) the turned region can make the landmark net collapse the mouth onto the nose, which
 * leaves a plausible-looking face with a descriptor of nobody (cosine 0.14 to the same face at 70 px).
 */
const REFIT_KEYPOINT_GAP = 0.35;

/** Landmarks, geometry checks, and descriptors (with their checks) for what passed the geometry. */
async function examine(
  tf: typeof tfTypes,
  image: RgbImage,
  detections: RawDetection[],
  options: FrontEndOptions,
): Promise<FaceCandidate[]> {
  if (detections.length === 0) return [];
  const firstRegions = detections.map((d) => firstLandmarkRegion(d, options.firstRegionScale));
  const fit = await fitLandmarks(tf, image, firstRegions, options.refineLandmarks);
  const geometries = detections.map((d, i) => faceGeometry(d, fit.marks[i]!, fit.first[i]!));
  const refit = detections
    .map((_, i) => i)
    .filter((i) => geometries[i]!.keypointGap > REFIT_KEYPOINT_GAP && firstRegions[i]!.angle !== 0);
  if (refit.length) {
    const unturned = refit.map((i) => ({ ...firstRegions[i]!, angle: 0 }));
    const again = await fitLandmarks(tf, image, unturned, options.refineLandmarks);
    refit.forEach((i, k) => {
      const geometry = faceGeometry(detections[i]!, again.marks[k]!, again.first[k]!);
      if (geometry.keypointGap >= geometries[i]!.keypointGap) return;
      fit.first[i] = again.first[k]!;
      fit.marks[i] = again.marks[k]!;
      geometries[i] = geometry;
    });
  }
  const candidates = detections.map((detection, i): FaceCandidate => ({
    detection,
    box: clipBox(detection, image),
    marks: fit.marks[i]!,
    geometry: geometries[i]!,
    rejected: implausibilities(detection.score, geometries[i]!, options.minScore),
  }));
  const plausible = candidates.filter((c) => c.rejected.length === 0);
  const descriptors = plausible.length
    ? await options.describe(
        image,
        plausible.map((c) => c.marks),
      )
    : [];
  plausible.forEach((c, i) => {
    c.descriptor = descriptors[i]!;
    c.norm = Math.hypot(...c.descriptor);
    if (options.normLimits && normTooShort(c.norm, c.geometry, options.normLimits)) {
      c.rejected.push('descriptor');
    }
  });
  return candidates;
}

const isFace = (c: FaceCandidate): c is FaceCandidate & { descriptor: Float32Array } =>
  c.rejected.length === 0 && c.descriptor !== undefined;

function overlaps(a: FaceBox, b: FaceBox): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return false;
  const inter = w * h;
  const [areaA, areaB] = [a.width * a.height, b.width * b.height];
  return inter / (areaA + areaB - inter) > 0.3 || inter / Math.min(areaA, areaB) > 0.4;
}

function landmarkBox(marks: Point[]): FaceBox {
  const xs = marks.map((p) => p[0]);
  const ys = marks.map((p) => p[1]);
  const [x, y] = [Math.min(...xs), Math.min(...ys)];
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/**
 * Detection (tiled for small faces) → landmarks on upright regions → plausibility → descriptors.
 * The whole image is searched again turned by 90°, 180° and 270° when the upright pass accepted no face,
 * rejected one (a face lying sideways is often found with its keypoints misplaced, then rejected), or
 * accepted one with a weak descriptor (which may be a face seen in the wrong orientation). Detections of
 * one face from several passes, or a second detection on part of a face, overlap by their boxes or by
 * their landmarks: the one with the longer descriptor is kept (with no norm limits: the upright pass's,
 * then the higher score).
 */
export async function findFaces(
  tf: typeof tfTypes,
  detector: BlazeFaceDetector,
  image: RgbImage,
  minFace: number,
  options: FrontEndOptions,
): Promise<FoundFaces> {
  const regions = detectionRegions(image.width, image.height, minFace);
  const upright = await examine(tf, image, await detector.detect(image, regions, options.minScore), options);
  const accepted = upright.filter(isFace);
  const weak = options.normLimits?.weak ?? 0;
  const turnedPass =
    options.turnedPass !== false &&
    (accepted.length === 0 || accepted.length < upright.length || accepted.some((c) => c.norm! < weak));
  const turned = turnedPass
    ? await examine(tf, image, await detector.detectTurned(image, [1, 2, 3], options.minScore), options)
    : [];
  const limits = options.normLimits;
  const isUpright = (c: FaceCandidate) => (c.detection.quarterTurns ? 0 : 1);
  const rank = (c: FaceCandidate) =>
    limits ? c.norm! + limits.uprightPreference * isUpright(c) : 2 * isUpright(c) + c.detection.score;
  const faces: FoundFaces['faces'] = [];
  for (const c of [...accepted, ...turned.filter(isFace)].sort((a, b) => rank(b) - rank(a))) {
    const same = faces.some(
      (f) => overlaps(f.detection, c.detection) || overlaps(landmarkBox(f.marks), landmarkBox(c.marks)),
    );
    if (same) c.rejected.push('duplicate');
    else faces.push(c);
  }
  return { faces, candidates: [...upright, ...turned], turnedPass };
}
