import type { Point, RawDetection } from './blazeface-detector.ts';
import { eyeCentres, faceRoll, mouthCentre } from './face-chip.ts';

// Whether a detection is plausibly a face, from its score, the geometry of its landmarks and (for a
// descriptor network that shows it) the length of its raw descriptor. BlazeFace alone indexed a mug, hands,
// a dog, a logo and city lights from the CelebA dev photos (11 non-faces at score ≥ 0.5 and ≥ 40 px).
// The numbers behind each limit are in server/src/face/README.md ("Non-faces and turned faces").

/** Measures of a detection; lengths in the face's own frame, whose unit is the eyes-to-mouth distance. */
export interface FaceGeometry {
  /** Distance from between the eyes to the mouth centre (68 landmarks), pixels. */
  eyesToMouth: number;
  /** eyesToMouth / the detector box's longer side. */
  faceToBox: number;
  /** Distance between the eye centres (frontal ≈ 0.9, profile down to ≈ 0.2). */
  eyeDistance: number;
  /** Nose tip: x along the eye line from between the eyes, y towards the mouth (frontal ≈ (0, 0.57)). */
  nose: Point;
  /** Angle between the roll of the detector's keypoints and of the landmarks, radians. */
  rollGap: number;
  /** Largest distance between a detector keypoint (eyes, nose, mouth) and the same landmark. */
  keypointGap: number;
  /** Mean distance between the points of the two landmark passes. */
  passGap: number;
}

const dist = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);

export function faceGeometry(det: RawDetection, marks: Point[], firstMarks: Point[]): FaceGeometry {
  const [rightEye, leftEye] = eyeCentres(marks);
  const mouth = mouthCentre(marks);
  const middle: Point = [(rightEye[0] + leftEye[0]) / 2, (rightEye[1] + leftEye[1]) / 2];
  const unit = dist(middle, mouth) || 1e-6;
  const angle = faceRoll(rightEye, leftEye, mouth);
  const [c, s] = [Math.cos(angle), Math.sin(angle)];
  const local = ([x, y]: Point): Point => [
    (c * (x - middle[0]) + s * (y - middle[1])) / unit,
    (-s * (x - middle[0]) + c * (y - middle[1])) / unit,
  ];
  const kp = det.keypoints;
  const gap = Math.abs(angle - faceRoll(kp[0]!, kp[1]!, kp[3]!)) % (2 * Math.PI);
  return {
    eyesToMouth: unit,
    faceToBox: unit / Math.max(det.width, det.height),
    eyeDistance: dist(rightEye, leftEye) / unit,
    nose: local(marks[30]!),
    rollGap: gap > Math.PI ? 2 * Math.PI - gap : gap,
    keypointGap:
      Math.max(dist(kp[0]!, rightEye), dist(kp[1]!, leftEye), dist(kp[2]!, marks[30]!), dist(kp[3]!, mouth)) /
      unit,
    passGap: marks.reduce((sum, p, i) => sum + dist(p, firstMarks[i]!), 0) / marks.length / unit,
  };
}

/**
 * Limits a real face's measures stay within. Set with a margin beyond the faces of face-api's demo photos,
 * the dev set (upright and turned) and the CelebA dev photos where the landmark net found the face; the
 * faces they reject fail three or more of them at once (the landmark net did not find those faces: blurred,
 * dark, strong profiles or covered).
 */
export const FACE_LIMITS = {
  /** Keypoints of BlazeFace and landmarks of face-api place the eyes, nose and mouth alike. */
  maxKeypointGap: 1.1,
  /** A second landmark pass lands where the first did. */
  maxPassGap: 0.5,
  /** Both nets agree on which way is up (≈ 34°). */
  maxRollGap: 0.6,
  /** The eyes-to-mouth distance fits the detector's box. */
  faceToBox: [0.25, 0.85],
  /** Eye distance for the eyes-to-mouth distance: from a profile to a wide frontal face. */
  eyeDistance: [0.2, 1.35],
  /** The nose tip lies between the eye line and the mouth, not far off the face's middle. */
  noseDown: [0, 1],
  maxNoseAcross: 0.7,
} as const;

/** Why a detection is not a plausible face (empty when it is). */
export function implausibilities(score: number, g: FaceGeometry, minScore: number): string[] {
  const L = FACE_LIMITS;
  const within = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;
  const reasons: string[] = [];
  if (score < minScore) reasons.push('score');
  if (g.keypointGap > L.maxKeypointGap) reasons.push('keypoints');
  if (g.passGap > L.maxPassGap) reasons.push('landmark passes');
  if (g.rollGap > L.maxRollGap) reasons.push('roll');
  if (!within(g.faceToBox, L.faceToBox)) reasons.push('size');
  if (!within(g.eyeDistance, L.eyeDistance)) reasons.push('eyes');
  if (!within(g.nose[1], L.noseDown) || Math.abs(g.nose[0]) > L.maxNoseAcross) reasons.push('nose');
  return reasons;
}

/**
 * For descriptor networks whose raw (unnormalised) output is short on what they do not take for a face.
 * MobileFaceNet's is: sideways or upside-down faces, hands, mugs, logos 1.2–2.6; faces of the dev set
 * 2.65–4.3, CelebA faces median 3.5.
 */
export interface DescriptorNormLimits {
  /** Below this the detection is not taken for a face... */
  min: number;
  /** ...unless its keypoints and landmarks agree this closely, when this lower limit applies. */
  minWhenConsistent: number;
  consistent: { maxKeypointGap: number; maxPassGap: number };
  /**
   * A face accepted with a shorter descriptor may be one seen in the wrong orientation: the image is then
   * also searched turned, and the orientation with the longer descriptor is kept...
   */
  weak: number;
  /**
   * ...if longer by this much than an upright-pass detection's: the same face found both ways is kept as
   * the upright pass found it (whose box can differ by a few pixels, e.g. fall under 40 px in the other).
   */
  uprightPreference: number;
}

export function normTooShort(norm: number, g: FaceGeometry, limits: DescriptorNormLimits): boolean {
  const consistent =
    g.keypointGap <= limits.consistent.maxKeypointGap && g.passGap <= limits.consistent.maxPassGap;
  return norm < (consistent ? limits.minWhenConsistent : limits.min);
}
