import { describe, expect, it } from 'vitest';
import {
  allPairs,
  bestThreshold,
  extremes,
  identification,
  rocAuc,
  statsAt,
} from '../../../bench/lib/face-metrics.ts';

// The benchmark's metrics, on hand-made 2-d "descriptors" whose answers are known.

const unit = (deg: number) =>
  new Float32Array([Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)]);
const items = [
  { label: 'a', descriptor: unit(0) },
  { label: 'a', descriptor: unit(10) },
  { label: 'b', descriptor: unit(90) },
  { label: 'b', descriptor: unit(100) },
  { label: 'c', descriptor: null }, // no face found
];

describe('face metrics', () => {
  it('scores all pairs, a missing face as −∞', () => {
    const pairs = allPairs(items);
    expect(pairs).toHaveLength(10);
    expect(pairs.filter((p) => p.score === -Infinity)).toHaveLength(4);
  });

  it('computes ROC AUC, thresholds and extremes', () => {
    const pairs = allPairs(items.slice(0, 4));
    expect(rocAuc(pairs)).toBe(1);
    const best = bestThreshold(pairs);
    expect(best.accuracy).toBe(1);
    // Same-person pairs score cos 10° ≈ 0.985; the best different-person pair cos 80° ≈ 0.174.
    expect(best.low).toBeCloseTo(Math.cos((80 * Math.PI) / 180), 5);
    expect(best.high).toBeCloseTo(Math.cos((10 * Math.PI) / 180), 5);
    expect(statsAt(pairs, 0.99)).toMatchObject({ accuracy: 4 / 6, tpr: 0, fpr: 0 });
    expect(extremes(pairs).highestDifferent).toBeCloseTo(Math.cos((80 * Math.PI) / 180), 5);
  });

  it('computes rank-1 and recall@5 with the query excluded', () => {
    const stats = identification(items);
    // a, a, b, b find their partner first; c has no face and counts as a miss.
    expect(stats.rank1).toBeCloseTo(4 / 5, 9);
    expect(stats.recallAt5).toBeCloseTo(4 / 5, 9);
  });
});
