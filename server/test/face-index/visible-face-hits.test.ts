import { describe, expect, it } from 'vitest';
import type { FaceIndexHit } from '../../src/face/index/face-index.ts';
import { visibleFaceHits } from '../../src/services/visible-face-hits.ts';

/** An index of `count` faces above the threshold, best first (face ids 1…count), as the real one answers. */
function indexOf(count: number, asked: number[]) {
  return {
    async search(_query: Float32Array, options: { limit: number }): Promise<FaceIndexHit[]> {
      asked.push(options.limit);
      return Array.from({ length: Math.min(count, options.limit) }, (_, i) => ({
        faceId: i + 1,
        similarity: 0.9 - i * 1e-5,
      })) as FaceIndexHit[];
    },
  };
}
const noMinors = { possibleMinorFaceIds: async () => new Set<number>() };
const query = new Float32Array(4);
const options = { model: 'm', limit: 10, minSimilarity: 0.5, minorsAllowed: true };

describe('visibleFaceHits', () => {
  it('widens the lookup until enough wanted faces are found: others cannot fill the limit', async () => {
    const asked: number[] = [];
    // Only faces 35 and 36 were seen on pages of the kind searched for (say, social media).
    const hits = await visibleFaceHits(indexOf(100, asked), noMinors, query, {
      ...options,
      wanted: async (ids) => new Set(ids.filter((id) => id === 35 || id === 36)),
    });
    expect(hits.map((hit) => hit.faceId)).toEqual([35, 36]);
    expect(asked).toEqual([10, 40, 160]);
  });

  it('without a filter, asks once', async () => {
    const asked: number[] = [];
    const hits = await visibleFaceHits(indexOf(100, asked), noMinors, query, options);
    expect(hits).toHaveLength(10);
    expect(asked).toEqual([10]);
  });
});
