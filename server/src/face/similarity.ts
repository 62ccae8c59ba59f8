import { MATCH_THRESHOLD } from '@osint/contract/match-score';
import { PIPELINE_CATALOG } from './pipeline/pipeline-catalog.ts';

// The one similarity score the product shows, and the thresholds that decide what is searched and found.

/**
 * A face in a query photo is offered for search only from this size (box width and height, pixels).
 * Faces in the photos analysts actually have (group photos, stills, crowds) are often this small; the
 * detector finds them (on tiles in large photos), and the descriptor's 150-px aligned chip is enlarged
 * from them, so they carry less detail: see RELIABLE_QUERY_FACE_PX.
 */
export const MIN_QUERY_FACE_PX = 64;
/**
 * From this size (box width and height, pixels) a query face carries the detail the descriptor was
 * calibrated on; smaller searchable faces are offered but marked as less reliable, and it is the size at
 * which the face-quality resolution term reaches 1.
 */
export const RELIABLE_QUERY_FACE_PX = 128;
/** Faces smaller than this are not indexed: descriptors of tinier faces are too unreliable. */
export const MIN_INDEX_FACE_PX = 40;

/**
 * Two faces are the same person when similarity() ≥ this (contract/src/match-score.ts, where the bands
 * shown to users live too). Set from the false-match rate per comparison, measured by `npm run bench:faces`
 * for the shipped pipeline (blazeface+mfn512-arcface5pt@2) on celeba-dev, every pair of 2,189 in-the-wild
 * photos of 100 people:
 * - 1 of 2,368,712 different-person pairs reaches 0.58 (FMR 4.2e-7 ≤ 1e-6: about one stranger in two
 *   queries of a 1M-face index); 62.7 % of the 26,054 same-person pairs do. The lowest threshold at
 *   FMR ≤ 1e-6 is 0.563 (2 pairs, TPR 66.3 %): 0.58 leaves a margin for photos the set has not seen.
 * - identification (each photo against the other 2,188): rank-1 98.2 %, precision of returned hits 99.99 %.
 * The dev set's 700 different-person pairs and the 31 look-alike pairs of face-api's demo photos stay far
 * below it (see server/src/face/README.md).
 */
export const SIMILARITY_THRESHOLD = MATCH_THRESHOLD;

/**
 * The match threshold of the model whose vectors are compared (see PipelineInfo.matchThreshold). Every
 * model this product has shipped is in the catalog; one it does not list (a model of a test) is compared
 * at the shipped model's threshold.
 */
export function matchThresholdOf(modelId: string): number {
  const info = Object.values(PIPELINE_CATALOG).find((entry) => entry.modelId === modelId);
  return info?.matchThreshold ?? SIMILARITY_THRESHOLD;
}

/**
 * Cosine similarity of two L2-normalised descriptors, i.e. their dot product: 1 for identical vectors,
 * lower as faces differ. It is what the vector index ranks by (inner product on unit vectors) and what the
 * product shows as the match score.
 */
export function similarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`Descriptor sizes differ: ${a.length} and ${b.length}`);
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return Math.max(-1, Math.min(1, dot));
}

/** Scales a vector to unit length (in place) so that similarity() is a cosine. */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/**
 * One query from several faces chosen as the same person: the L2-normalised mean of their descriptors
 * (`npm run bench:faces` measures it against the threshold set for single faces).
 */
export function meanDescriptor(descriptors: Float32Array[]): Float32Array {
  const sum = new Float32Array(descriptors[0]!.length);
  for (const d of descriptors) for (let i = 0; i < sum.length; i++) sum[i]! += d[i]!;
  return l2Normalise(sum);
}

/** Whether a face (its detected box) is large enough to be offered as a search query. */
export function isSearchableFace(box: { width: number; height: number }): boolean {
  return box.width >= MIN_QUERY_FACE_PX && box.height >= MIN_QUERY_FACE_PX;
}

/** Whether a searchable query face is under RELIABLE_QUERY_FACE_PX, so that its matches are less reliable. */
export function isSmallQueryFace(box: { width: number; height: number }): boolean {
  return box.width < RELIABLE_QUERY_FACE_PX || box.height < RELIABLE_QUERY_FACE_PX;
}

/** The size of a face as people read it: the shorter side of its box, in whole pixels (rounded down). */
export function faceSizePx(box: { width: number; height: number }): number {
  return Math.floor(Math.min(box.width, box.height));
}

/** Whether a face is large enough to be put in the index. */
export function isIndexableFace(box: { width: number; height: number }): boolean {
  return box.width >= MIN_INDEX_FACE_PX && box.height >= MIN_INDEX_FACE_PX;
}
