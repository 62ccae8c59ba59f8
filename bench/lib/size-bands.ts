import type { CelebaFace } from './celeba-embeddings.ts';
import type { PairScore } from './scale-metrics.ts';

// How the match rates depend on face size: every pair goes to the band of its smaller face (the side of its
// box in pixels), so that the "small face: less reliable" marking of query faces can be read in numbers.

/** Lower bounds of the bands (px); each band runs to the next bound. */
export const SIZE_BANDS = [40, 64, 96, 128, 200] as const;

export interface SizeBandRates {
  from: number;
  /** Exclusive; Infinity for the last band. */
  to: number;
  samePairs: number;
  /** Per threshold: same-person pairs at or above it. */
  sameAccepted: number[];
  differentPairs: number;
  /** Per threshold: different-person pairs at or above it. */
  differentAccepted: number[];
}

export function matchRatesBySize(
  faces: CelebaFace[],
  score: PairScore,
  thresholds: readonly number[],
): SizeBandRates[] {
  const bands: SizeBandRates[] = SIZE_BANDS.map((from, i) => ({
    from,
    to: SIZE_BANDS[i + 1] ?? Infinity,
    samePairs: 0,
    sameAccepted: thresholds.map(() => 0),
    differentPairs: 0,
    differentAccepted: thresholds.map(() => 0),
  }));
  const bandOf = (size: number) => {
    for (let b = bands.length - 1; b >= 0; b--) if (size >= bands[b]!.from) return bands[b];
    return undefined;
  };
  for (let i = 0; i < faces.length; i++) {
    if (!faces[i]!.descriptor) continue; // a missed face has no size; its pairs count in the main table
    for (let j = i + 1; j < faces.length; j++) {
      if (!faces[j]!.descriptor) continue;
      const band = bandOf(Math.min(faces[i]!.size, faces[j]!.size));
      if (!band) continue;
      const s = score(i, j);
      const same = faces[i]!.label === faces[j]!.label;
      if (same) band.samePairs++;
      else band.differentPairs++;
      const accepted = same ? band.sameAccepted : band.differentAccepted;
      thresholds.forEach((t, k) => {
        if (s >= t) accepted[k]!++;
      });
    }
  }
  return bands;
}
