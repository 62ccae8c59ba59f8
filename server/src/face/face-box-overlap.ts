import type { FaceBox } from './face-engine.ts';

/**
 * Two boxes of one image are taken for the same face at this intersection over union or more. Detectors
 * frame a face differently (BlazeFace against face-api's SSD: boxes up to ~1.4× apart in side, IoU ≈ 0.5),
 * while two faces of one photo hardly overlap at all.
 */
export const SAME_FACE_MIN_OVERLAP = 0.4;

/** Intersection over union of two boxes, 0..1. */
export function boxOverlap(a: FaceBox, b: FaceBox): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / (a.width * a.height + b.width * b.height - intersection);
}

/**
 * Pairs the faces of one image found by two analyses (two descriptor models, or a stored face and a new
 * analysis): each face of `a` with at most one of `b`, best overlaps first, none below `minOverlap`.
 * Returns, for each index of `a`, the index of its partner in `b` (or undefined).
 */
export function pairFaces(
  a: readonly { box: FaceBox }[],
  b: readonly { box: FaceBox }[],
  minOverlap = SAME_FACE_MIN_OVERLAP,
): (number | undefined)[] {
  const candidates: { i: number; j: number; overlap: number }[] = [];
  a.forEach((left, i) =>
    b.forEach((right, j) => {
      const overlap = boxOverlap(left.box, right.box);
      if (overlap >= minOverlap) candidates.push({ i, j, overlap });
    }),
  );
  candidates.sort((x, y) => y.overlap - x.overlap);
  const pairs: (number | undefined)[] = a.map(() => undefined);
  const taken = new Set<number>();
  for (const { i, j } of candidates) {
    if (pairs[i] !== undefined || taken.has(j)) continue;
    pairs[i] = j;
    taken.add(j);
  }
  return pairs;
}
