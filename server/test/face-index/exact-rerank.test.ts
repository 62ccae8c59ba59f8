import { l2Normalise } from '../../src/face/similarity.ts';
import { describe, expect, it } from 'vitest';
import {
  bruteForceSearch,
  cosineSimilarity,
  searchWithOverfetch,
} from '../../src/face/index/exact-rerank.ts';
import type { Candidate } from '../../src/face/index/exact-rerank.ts';

const overfetch = {
  minCandidates: 4,
  minFilteredCandidates: 2,
  overfetch: 2,
  maxCandidates: 1000,
  approximationMargin: 0.01,
};

/** A fake approximate index over fixed similarities; records how many candidates each call asked. */
function fakeIndex(similarities: Map<number, number>) {
  const asked: number[] = [];
  const ranked: Candidate[] = [...similarities]
    .map(([faceId, similarity]) => ({ faceId, similarity }))
    .sort((a, b) => b.similarity - a.similarity);
  return {
    asked,
    fetch: async (count: number) => {
      asked.push(count);
      return { candidates: ranked.slice(0, count), exhausted: count >= ranked.length };
    },
    exact: async (faceIds: number[]) =>
      new Map(faceIds.filter((id) => similarities.has(id)).map((id) => [id, similarities.get(id)!])),
  };
}

describe('exact scoring', () => {
  it('computes cosine similarity independent of length', () => {
    const a = new Float32Array([3, 4]);
    expect(cosineSimilarity(a, new Float32Array([6, 8]))).toBeCloseTo(1, 6);
    expect(cosineSimilarity(a, new Float32Array([-4, 3]))).toBeCloseTo(0, 6);
    expect(Array.from(l2Normalise(a))).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
  });

  it('brute force ranks, filters and thresholds', () => {
    const entries = [
      { faceId: 1, vector: new Float32Array([1, 0]) },
      { faceId: 2, vector: new Float32Array([0.8, 0.6]) },
      { faceId: 3, vector: new Float32Array([0, 1]) },
    ];
    const query = new Float32Array([1, 0]);
    expect(bruteForceSearch(entries, query, { limit: 5, minSimilarity: 0.5 }).map((h) => h.faceId)).toEqual([
      1, 2,
    ]);
    const odd = bruteForceSearch(entries, query, { limit: 5, minSimilarity: -1, filter: (id) => id !== 1 });
    expect(odd.map((h) => h.faceId)).toEqual([2, 3]);
  });
});

describe('searchWithOverfetch', () => {
  const similarities = new Map(Array.from({ length: 500 }, (_, i) => [i + 1, 0.99 - i * 0.001] as const));

  it('widens to limit × overfetch when every candidate passes the threshold', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(index.fetch, index.exact, {
      ...overfetch,
      limit: 3,
      minSimilarity: 0,
    });
    expect(hits.map((h) => h.faceId)).toEqual([1, 2, 3]);
    expect(index.asked).toEqual([4, 8]);
  });

  it('asks only minCandidates when few of them pass and the worst is below the threshold', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(index.fetch, index.exact, {
      ...overfetch,
      minCandidates: 20,
      limit: 100,
      minSimilarity: 0.9855,
    });
    // 0.99 … 0.986: five hits; the 20th candidate (0.971) is below 0.9855 − 0.01.
    expect(hits.map((h) => h.faceId)).toEqual([1, 2, 3, 4, 5]);
    expect(index.asked).toEqual([20]);
  });

  it('widens when the hits crowd the candidates, even with the worst below the threshold', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(index.fetch, index.exact, {
      ...overfetch,
      minCandidates: 20,
      limit: 100,
      minSimilarity: 0.9755,
    });
    // 15 hits among 20 candidates: fewer than overfetch (2) candidates per hit, so it asks again wider.
    expect(hits).toHaveLength(15);
    expect(index.asked).toEqual([20, 240]);
  });

  it('widens until a selective filter lets enough hits through', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(index.fetch, index.exact, {
      ...overfetch,
      limit: 5,
      minSimilarity: 0,
      filter: (id) => id % 50 === 0,
    });
    expect(hits.map((h) => h.faceId)).toEqual([50, 100, 150, 200, 250]);
    expect(index.asked).toEqual([10, 80, 960]);
  });

  it('stops widening once candidates fall below the threshold', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(index.fetch, index.exact, {
      ...overfetch,
      limit: 10,
      minSimilarity: 0.9855,
      filter: (id) => id % 2 === 0,
    });
    expect(hits.map((h) => h.faceId)).toEqual([2, 4]);
    expect(index.asked).toEqual([20]);
  });

  it('drops candidates the source no longer has (deleted, removal not yet applied)', async () => {
    const index = fakeIndex(similarities);
    const hits = await searchWithOverfetch(
      index.fetch,
      async (ids) => {
        const scores = await index.exact(ids);
        scores.delete(1);
        return scores;
      },
      { ...overfetch, limit: 2, minSimilarity: 0 },
    );
    expect(hits.map((h) => h.faceId)).toEqual([2, 3]);
  });

  it('ranks by the exact score, not the approximate one', async () => {
    const hits = await searchWithOverfetch(
      async () => ({
        candidates: [
          { faceId: 1, similarity: 0.9 },
          { faceId: 2, similarity: 0.89 },
        ],
        exhausted: true,
      }),
      async () =>
        new Map([
          [1, 0.85],
          [2, 0.95],
        ]),
      { ...overfetch, limit: 1, minSimilarity: 0 },
    );
    expect(hits).toEqual([{ faceId: 2, similarity: 0.95 }]);
  });

  it('looks up only candidates whose approximate score is within the margin of the threshold', async () => {
    const looked: number[][] = [];
    const approximate = [0.95, 0.8, 0.791, 0.789, 0.3, 0.1];
    const exactScores = [0.96, 0.81, 0.8, 0.805, 0.31, 0.11];
    const hits = await searchWithOverfetch(
      async () => ({
        candidates: approximate.map((similarity, i) => ({ faceId: i + 1, similarity })),
        exhausted: true,
      }),
      async (faceIds) => {
        looked.push(faceIds);
        return new Map(faceIds.map((id) => [id, exactScores[id - 1]!]));
      },
      { ...overfetch, limit: 10, minSimilarity: 0.8 },
    );
    // 0.789 is below 0.8 − 0.01: its exact 0.805 is never seen (the margin is the index's measured error).
    expect(looked).toEqual([[1, 2, 3]]);
    expect(hits.map((h) => h.faceId)).toEqual([1, 2, 3]);
  });
});
