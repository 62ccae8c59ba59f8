import {
  atFmr,
  cosineScore,
  type Embedded,
  type OperatingPoint,
  type PairScore,
  pairScores,
} from './scale-metrics.ts';

// Adaptive score normalisation (S-norm) against a cohort of faces: each face keeps the mean and spread of
// its K highest similarities to the cohort, and a pair's score becomes the mean of its z-scores on both
// sides. Measured with a 2-fold split by identity: one half of the people is the cohort for the other.

export interface CohortNormResult {
  k: number;
  /** Per fold: TPR at each FMR target, raw cosine and S-normalised. */
  folds: { raw: OperatingPoint[]; normalised: OperatingPoint[] }[];
}

function topKStats(face: Float32Array, cohort: Float32Array[], k: number): { mean: number; sd: number } {
  const scores = cohort.map((c) => {
    let dot = 0;
    for (let i = 0; i < c.length; i++) dot += c[i]! * face[i]!;
    return dot;
  });
  scores.sort((a, b) => b - a);
  const top = scores.slice(0, k);
  const mean = top.reduce((a, b) => a + b, 0) / top.length;
  const sd = Math.sqrt(top.reduce((a, b) => a + (b - mean) ** 2, 0) / top.length);
  return { mean, sd: Math.max(sd, 1e-6) };
}

export function cohortNormalisation(items: Embedded[], k: number, fmrs: readonly number[]): CohortNormResult {
  const labels = [...new Set(items.map((i) => i.label))].sort();
  const folds = [0, 1].map((fold) => {
    const inFold = (label: string) => labels.indexOf(label) % 2 === fold;
    const evaluated = items.filter((i) => inFold(i.label));
    const cohort = items.flatMap((i) => (!inFold(i.label) && i.descriptor ? [i.descriptor] : []));
    const stats = evaluated.map((i) => (i.descriptor ? topKStats(i.descriptor, cohort, k) : null));
    const cosine = cosineScore(evaluated);
    const normalised: PairScore = (i, j) => {
      const s = cosine(i, j);
      const a = stats[i];
      const b = stats[j];
      if (!a || !b || !Number.isFinite(s)) return -Infinity;
      return 0.5 * ((s - a.mean) / a.sd + (s - b.mean) / b.sd);
    };
    const raw = pairScores(evaluated, cosine);
    const norm = pairScores(evaluated, normalised);
    return { raw: fmrs.map((f) => atFmr(raw, f)), normalised: fmrs.map((f) => atFmr(norm, f)) };
  });
  return { k, folds };
}
