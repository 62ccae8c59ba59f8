import { RELIABLE_QUERY_FACE_PX } from '../similarity.ts';
import type { Point } from './blazeface-detector.ts';

/**
 * How much a face's descriptor can be trusted, 0..1: detection score × frontality × resolution.
 * - frontality: where the nose tip sits between the eyes, measured along the eye line; 1 when centred
 *   (frontal), falling linearly to 0 when it is over one eye (≈ 45° of yaw or more).
 * - resolution: shorter box side / RELIABLE_QUERY_FACE_PX, capped at 1; smaller faces carry less detail.
 * Callers can rank or filter on it; the search itself does not depend on it.
 */
export function faceQuality(
  score: number,
  box: { width: number; height: number },
  rightEye: Point,
  leftEye: Point,
  noseTip: Point,
): number {
  const ex = leftEye[0] - rightEye[0];
  const ey = leftEye[1] - rightEye[1];
  const eyeDistance2 = ex * ex + ey * ey;
  const along =
    eyeDistance2 > 0
      ? ((noseTip[0] - rightEye[0]) * ex + (noseTip[1] - rightEye[1]) * ey) / eyeDistance2
      : 0.5;
  const frontality = Math.max(0, 1 - 2 * Math.abs(along - 0.5));
  const resolution = Math.min(1, Math.min(box.width, box.height) / RELIABLE_QUERY_FACE_PX);
  const q = score * frontality * resolution;
  return Math.round(Math.max(0, Math.min(1, q)) * 1000) / 1000;
}
