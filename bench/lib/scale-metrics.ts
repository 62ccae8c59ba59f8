// Verification and identification metrics for sets large enough to read false-match rates per comparison
// down to 1e-6 (celeba-dev: ≈ 2.4 million pairs). Scores live in typed arrays and are sorted once.

export interface Embedded {
  label: string;
  /** null when no face was found: every pair with it is a miss (never a match). */
  descriptor: Float32Array | null;
}

/** A pairwise score between two items (i < j); −Infinity when one has no face. */
export type PairScore = (i: number, j: number) => number;

export function cosineScore(items: Embedded[]): PairScore {
  return (i, j) => {
    const a = items[i]!.descriptor;
    const b = items[j]!.descriptor;
    if (!a || !b) return -Infinity;
    let dot = 0;
    for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
    return dot;
  };
}

export interface PairScores {
  /** Same-person pair scores, ascending. */
  same: Float64Array;
  /** Different-person pair scores, ascending. */
  different: Float64Array;
}

export function pairScores(items: Embedded[], score: PairScore = cosineScore(items)): PairScores {
  const same: number[] = [];
  const different = new Float64Array((items.length * (items.length - 1)) / 2);
  let d = 0;
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const s = score(i, j);
      if (items[i]!.label === items[j]!.label) same.push(s);
      else different[d++] = s;
    }
  }
  return { same: Float64Array.from(same).sort(), different: different.slice(0, d).sort() };
}

/** How many values of an ascending array are ≥ t. */
function countAtLeast(sorted: Float64Array, t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length - lo;
}

/** Probability that a same-person pair outscores a different-person pair (ties count half). */
export function aucOf({ same, different }: PairScores): number {
  let wins = 0;
  let j = 0;
  let k = 0;
  for (const s of same) {
    while (j < different.length && different[j]! < s) j++;
    k = Math.max(k, j);
    while (k < different.length && different[k]! === s) k++;
    wins += j + (k - j) / 2;
  }
  return wins / (same.length * different.length);
}

export interface OperatingPoint {
  /** Target false-match rate per comparison. */
  fmr: number;
  /** Lowest threshold (score ≥ threshold = match) whose measured FMR is at most the target. */
  threshold: number;
  measuredFmr: number;
  tpr: number;
  /** Different-person pairs at or above the threshold. */
  falseMatches: number;
}

/** The threshold that keeps the false-match rate at or below `fmr`, and the true-match rate there. */
export function atFmr(scores: PairScores, fmr: number): OperatingPoint {
  const { same, different } = scores;
  const allowed = Math.floor(fmr * different.length);
  // Just above the (allowed + 1)-th highest different-person score.
  const boundary = different[different.length - 1 - allowed] ?? -Infinity;
  const threshold = nextUp(boundary);
  const falseMatches = countAtLeast(different, threshold);
  return {
    fmr,
    threshold,
    measuredFmr: falseMatches / different.length,
    tpr: countAtLeast(same, threshold) / same.length,
    falseMatches,
  };
}

export function atThreshold(scores: PairScores, threshold: number): OperatingPoint {
  const falseMatches = countAtLeast(scores.different, threshold);
  return {
    fmr: NaN,
    threshold,
    measuredFmr: falseMatches / scores.different.length,
    tpr: countAtLeast(scores.same, threshold) / scores.same.length,
    falseMatches,
  };
}

/** The smallest double above x (a threshold that excludes a score equal to x). */
function nextUp(x: number): number {
  if (!Number.isFinite(x)) return x;
  const buffer = new Float64Array([x]);
  const bits = new BigInt64Array(buffer.buffer);
  bits[0] = x >= 0 ? bits[0]! + 1n : bits[0]! - 1n;
  if (x === 0) return Number.MIN_VALUE;
  return buffer[0]!;
}

export interface IdentificationAtScale {
  queries: number;
  /** The best-scoring other face is the same person (queries with at least one other photo). */
  rank1: number;
  /** Share of a query's other photos scoring ≥ threshold, averaged over queries. */
  recall: number;
  /** Of all faces returned above the threshold (over all queries), the share that are the person. */
  precision: number;
  returned: number;
  wrongReturned: number;
  /** Queries that got at least one stranger above the threshold. */
  queriesWithStranger: number;
}

/**
 * Each item queries all others (itself excluded) and `distractors` (strangers to every query, rows of
 * `dimensions`); hits are the faces scoring ≥ threshold.
 */
export function identificationAtScale(
  items: Embedded[],
  threshold: number,
  distractors?: { vectors: Float32Array; dimensions: number },
  score: PairScore = cosineScore(items),
): IdentificationAtScale {
  let queries = 0;
  let rank1 = 0;
  let recall = 0;
  let returned = 0;
  let wrong = 0;
  let withStranger = 0;
  const distractorCount = distractors ? distractors.vectors.length / distractors.dimensions : 0;
  for (let q = 0; q < items.length; q++) {
    const query = items[q]!;
    const relevant = items.filter((it, i) => i !== q && it.label === query.label).length;
    if (relevant === 0) continue;
    queries++;
    if (!query.descriptor) continue;
    let best = -Infinity;
    let bestSame = false;
    let hitsSame = 0;
    let hitsWrong = 0;
    for (let i = 0; i < items.length; i++) {
      if (i === q) continue;
      const s = q < i ? score(q, i) : score(i, q);
      const same = items[i]!.label === query.label;
      if (s > best) {
        best = s;
        bestSame = same;
      }
      if (s >= threshold) {
        if (same) hitsSame++;
        else hitsWrong++;
      }
    }
    if (distractors) {
      const { vectors, dimensions } = distractors;
      const v = query.descriptor;
      for (let d = 0; d < distractorCount; d++) {
        let dot = 0;
        const o = d * dimensions;
        for (let k = 0; k < dimensions; k++) dot += v[k]! * vectors[o + k]!;
        if (dot > best) {
          best = dot;
          bestSame = false;
        }
        if (dot >= threshold) hitsWrong++;
      }
    }
    if (bestSame) rank1++;
    recall += hitsSame / relevant;
    returned += hitsSame + hitsWrong;
    wrong += hitsWrong;
    if (hitsWrong > 0) withStranger++;
  }
  return {
    queries,
    rank1: rank1 / queries,
    recall: recall / queries,
    precision: returned > 0 ? (returned - wrong) / returned : 1,
    returned,
    wrongReturned: wrong,
    queriesWithStranger: withStranger,
  };
}
