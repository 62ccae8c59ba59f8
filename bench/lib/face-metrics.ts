import { similarity } from '../../server/src/face/similarity.ts';

// Verification and identification metrics of the dev-set protocol (faces/dev/MANIFEST.md).

export interface LabelledDescriptor {
  label: string;
  /** null when no face was found in the photo. */
  descriptor: Float32Array | null;
}

export interface ScoredPair {
  score: number;
  same: boolean;
}

/** Every unordered pair; a photo without a face scores −∞ (it can match nothing). */
export function allPairs(items: LabelledDescriptor[]): ScoredPair[] {
  const pairs: ScoredPair[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i]!;
      const b = items[j]!;
      const score = a.descriptor && b.descriptor ? similarity(a.descriptor, b.descriptor) : -Infinity;
      pairs.push({ score, same: a.label === b.label });
    }
  }
  return pairs;
}

/** Area under the ROC curve = probability that a same-person pair outscores a different-person pair. */
export function rocAuc(pairs: ScoredPair[]): number {
  const pos = pairs.filter((p) => p.same).map((p) => p.score);
  const neg = pairs.filter((p) => !p.same).map((p) => p.score);
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

export interface ThresholdStats {
  threshold: number;
  accuracy: number;
  /** Same-person pairs accepted. */
  tpr: number;
  /** Different-person pairs accepted. */
  fpr: number;
}

/** Pairs with score ≥ threshold are predicted "same person". */
export function statsAt(pairs: ScoredPair[], threshold: number): ThresholdStats {
  let tp = 0;
  let fp = 0;
  let pos = 0;
  for (const p of pairs) {
    if (p.same) pos++;
    if (p.score >= threshold) {
      if (p.same) tp++;
      else fp++;
    }
  }
  const neg = pairs.length - pos;
  const tn = neg - fp;
  return { threshold, accuracy: (tp + tn) / pairs.length, tpr: tp / pos, fpr: fp / neg };
}

export interface BestThreshold extends ThresholdStats {
  /** Every threshold in (low, high] reaches the best accuracy; `threshold` is the middle (the most robust). */
  low: number;
  high: number;
}

export function bestThreshold(pairs: ScoredPair[]): BestThreshold {
  const scores = [...new Set(pairs.map((p) => p.score).filter(Number.isFinite))].sort((a, b) => a - b);
  let best: BestThreshold | null = null;
  for (let i = 0; i < scores.length; i++) {
    // Every threshold in (previous score, this score] accepts exactly the pairs scoring ≥ this score.
    const stats = statsAt(pairs, scores[i]!);
    const low = i === 0 ? scores[0]! - 1e-3 : scores[i - 1]!;
    if (!best || stats.accuracy > best.accuracy + 1e-12) {
      best = { ...stats, low, high: scores[i]! };
    } else if (Math.abs(stats.accuracy - best.accuracy) < 1e-12 && best.high === low) {
      best.high = scores[i]!; // contiguous range with the same accuracy
    }
  }
  if (!best) throw new Error('No finite scores');
  const mid = (best.low + best.high) / 2;
  return { ...statsAt(pairs, mid), low: best.low, high: best.high, threshold: mid };
}

/** The hardest pairs: the lowest-scoring same-person pair and the highest-scoring different-person pair. */
export function extremes(pairs: ScoredPair[]): { lowestSame: number; highestDifferent: number } {
  const same = pairs.filter((p) => p.same).map((p) => p.score);
  const different = pairs.filter((p) => !p.same).map((p) => p.score);
  return { lowestSame: Math.min(...same), highestDifferent: Math.max(...different) };
}

export interface IdentificationStats {
  rank1: number;
  recallAt5: number;
}

/** Each photo queries all others (itself excluded); recall@5 counts its other same-person photos in the top 5. */
export function identification(items: LabelledDescriptor[]): IdentificationStats {
  let rank1 = 0;
  let recall = 0;
  for (let q = 0; q < items.length; q++) {
    const query = items[q]!;
    const relevant = items.filter((it, i) => i !== q && it.label === query.label).length;
    if (!query.descriptor || relevant === 0) continue;
    const ranked = items
      .map((it, i) => ({ it, i }))
      .filter(({ it, i }) => i !== q && it.descriptor)
      .map(({ it }) => ({ label: it.label, score: similarity(query.descriptor!, it.descriptor!) }))
      .sort((a, b) => b.score - a.score);
    if (ranked[0]?.label === query.label) rank1++;
    recall += ranked.slice(0, 5).filter((r) => r.label === query.label).length / Math.min(5, relevant);
  }
  return { rank1: rank1 / items.length, recallAt5: recall / items.length };
}
