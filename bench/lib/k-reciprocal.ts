import { atFmr, type Embedded, type OperatingPoint, type PairScore, pairScores } from './scale-metrics.ts';

// k-reciprocal re-ranking (Zhong et al., CVPR 2017) of every pair of a face set, measured like the raw
// cosine: each face's k-reciprocal neighbours (faces that have it among their own k nearest too),
// expanded by the half-size sets of those neighbours, weighted by exp(−distance), averaged over the k2
// nearest faces (local query expansion); a pair's distance becomes (1 − λ)·Jaccard + λ·(1 − cosine).
// The set plays the part of the indexed gallery: every face's neighbours come from the other faces.

export interface RerankSettings {
  k1: number;
  k2: number;
  lambda: number;
}

export interface RerankResult extends RerankSettings {
  points: OperatingPoint[];
}

/** The full cosine matrix (rows of faces without a descriptor stay at −Infinity). */
export function cosineMatrix(items: Embedded[]): Float32Array {
  const n = items.length;
  const matrix = new Float32Array(n * n).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    const a = items[i]!.descriptor;
    if (!a) continue;
    for (let j = i; j < n; j++) {
      const b = items[j]!.descriptor;
      if (!b) continue;
      let dot = 0;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      matrix[i * n + j] = dot;
      matrix[j * n + i] = dot;
    }
  }
  return matrix;
}

/** Each face's faces by decreasing similarity (itself first), the first `depth` of them. */
function nearest(matrix: Float32Array, n: number, depth: number, valid: boolean[]): Int32Array[] {
  const order = Array.from({ length: n }, (_, j) => j).filter((j) => valid[j]);
  return Array.from({ length: n }, (_, i) => {
    if (!valid[i]) return new Int32Array(0);
    const row = matrix.subarray(i * n, (i + 1) * n);
    const ranked = [...order].sort((a, b) => (a === i ? -1 : b === i ? 1 : row[b]! - row[a]!));
    return Int32Array.from(ranked.slice(0, depth));
  });
}

function reciprocal(ranks: Int32Array[], i: number, k: number): number[] {
  const forward = ranks[i]!.subarray(0, k + 1);
  return [...forward].filter((j) => ranks[j]!.subarray(0, k + 1).includes(i));
}

/** Sparse weight vectors: face → (neighbour → weight), each summing to 1. */
function neighbourWeights(
  matrix: Float32Array,
  n: number,
  ranks: Int32Array[],
  k1: number,
  valid: boolean[],
) {
  const half = Math.round(k1 / 2);
  return Array.from({ length: n }, (_, i) => {
    const weights = new Map<number, number>();
    if (!valid[i]) return weights;
    const base = reciprocal(ranks, i, k1);
    const baseSet = new Set(base);
    const expanded = new Set(base);
    for (const j of base) {
      const candidate = reciprocal(ranks, j, half);
      const shared = candidate.filter((c) => baseSet.has(c)).length;
      if (shared > (2 / 3) * candidate.length) for (const c of candidate) expanded.add(c);
    }
    let total = 0;
    for (const j of expanded) {
      const w = Math.exp(-(1 - matrix[i * n + j]!));
      weights.set(j, w);
      total += w;
    }
    for (const [j, w] of weights) weights.set(j, w / total);
    return weights;
  });
}

function queryExpansion(weights: Map<number, number>[], ranks: Int32Array[], k2: number) {
  return weights.map((_, i) => {
    const neighbours = ranks[i]!.subarray(0, k2);
    const mean = new Map<number, number>();
    for (const j of neighbours) {
      for (const [k, w] of weights[j]!) mean.set(k, (mean.get(k) ?? 0) + w / neighbours.length);
    }
    return mean;
  });
}

/** Σₖ min(Vᵢₖ, Vⱼₖ) for every pair, through an inverted list per neighbour. */
function sharedWeight(vectors: Map<number, number>[], n: number): Float32Array {
  const postings = new Map<number, { face: number; weight: number }[]>();
  vectors.forEach((vector, face) => {
    for (const [k, weight] of vector) {
      const list = postings.get(k) ?? [];
      list.push({ face, weight });
      postings.set(k, list);
    }
  });
  const shared = new Float32Array(n * n);
  for (const list of postings.values()) {
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) {
        const first = list[a]!;
        const second = list[b]!;
        const m = Math.min(first.weight, second.weight);
        shared[first.face * n + second.face] = shared[first.face * n + second.face]! + m;
        shared[second.face * n + first.face] = shared[second.face * n + first.face]! + m;
      }
    }
  }
  return shared;
}

/** TPR at each FMR of the re-ranked scores, for each setting (the cosine matrix is computed once). */
export function kReciprocalRerank(
  items: Embedded[],
  settings: RerankSettings[],
  fmrs: readonly number[],
): RerankResult[] {
  const n = items.length;
  const valid = items.map((item) => item.descriptor !== null);
  const matrix = cosineMatrix(items);
  const depth = Math.max(...settings.map((s) => Math.max(s.k1, s.k2))) + 1;
  const ranks = nearest(matrix, n, depth, valid);
  return settings.map((setting) => {
    const vectors = queryExpansion(neighbourWeights(matrix, n, ranks, setting.k1, valid), ranks, setting.k2);
    const shared = sharedWeight(vectors, n);
    const score: PairScore = (i, j) => {
      if (!valid[i] || !valid[j]) return -Infinity;
      const overlap = shared[i * n + j]!;
      // Each vector sums to 1, so Σ max = 2 − Σ min.
      const jaccard = 1 - overlap / (2 - overlap);
      return -((1 - setting.lambda) * jaccard + setting.lambda * (1 - matrix[i * n + j]!));
    };
    const scores = pairScores(items, score);
    return { ...setting, points: fmrs.map((fmr) => atFmr(scores, fmr)) };
  });
}

export interface RerankByDensity {
  /** Photos kept per person (null: all of them). */
  perPerson: number | null;
  photos: number;
  differentPairs: number;
  raw: OperatingPoint[];
  reranked: RerankResult[];
}

/** The settings measured: the paper's k1 = 20, k2 = 6 with two weights of the original distance. */
export const RERANK_SETTINGS: RerankSettings[] = [
  { k1: 20, k2: 6, lambda: 0.3 },
  { k1: 20, k2: 6, lambda: 0.6 },
];

/**
 * Re-ranking feeds on the gallery holding several photos of the person, so it is measured on the whole set
 * (≈ 22 photos per person) and on galleries thinned to a few photos per person (one seeded draw each), as
 * a web index mostly holds people.
 */
export function rerankByGalleryDensity(items: Embedded[], fmrs: readonly number[]): RerankByDensity[] {
  return thinGallery(items).map(({ perPerson, gallery }) => {
    const scores = pairScores(gallery);
    return {
      perPerson,
      photos: gallery.length,
      differentPairs: scores.different.length,
      raw: fmrs.map((fmr) => atFmr(scores, fmr)),
      reranked: kReciprocalRerank(gallery, RERANK_SETTINGS, fmrs),
    };
  });
}

/** The whole set, then galleries of at most 10, 5, 3 and 2 photos per person (one seeded draw each). */
export function thinGallery(items: Embedded[]): { perPerson: number | null; gallery: Embedded[] }[] {
  let seed = 20_171_117;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const byPerson = new Map<string, Embedded[]>();
  for (const item of items) {
    const photos = byPerson.get(item.label) ?? [];
    photos.push(item);
    byPerson.set(item.label, photos);
  }
  return [null, 10, 5, 3, 2].map((perPerson) => ({
    perPerson,
    gallery:
      perPerson === null
        ? items
        : [...byPerson.values()].flatMap((photos) =>
            photos
              .map((photo) => ({ photo, key: random() }))
              .sort((a, b) => a.key - b.key)
              .slice(0, perPerson)
              .map(({ photo }) => photo),
          ),
  }));
}
