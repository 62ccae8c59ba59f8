// How wide an HNSW search walks, for both face-index engines (usearch-face-index.ts, pgvector-face-index.ts).

/**
 * Share of the indexed faces a search walks at least, by the graph's connectivity M; a graph keeps the M
 * it was built with.
 */
const WALKED_SHARE = new Map([
  [16, 1 / 200],
  [32, 1 / 500],
]);

/** The widest search: beyond it a query is better served by more threads than by a wider walk. */
export const MAX_WALKED_CANDIDATES = 20_000;

/**
 * Candidates a search asks of a graph of connectivity M at least: `floor`, and a share of the index beyond.
 * With the 512-d model different people score ≈ 0 with each other, so a person photographed once or
 * twice is an isolated point the greedy walk reaches only when it explores widely, and more so the larger
 * and the sparser the graph. `npm run bench:index-recall` (celeba-dev's 2,186 faces among fitted
 * strangers; faces not returned for their own vector):
 * - usearch, M = 16: 200,000 strangers — 200 candidates 14, 1,000 3, 4,000 0; 1,000,000 — 200: 61,
 *   1,000: 22, 4,000: 4, 10,000: 1, 20,000: 0, at ≈ 10 µs per candidate. M = 32, 200,000 — 200: 0
 *   (p50 3.6 ms), 1,000: 0 (12.5 ms); 1,000,000 — 200: 3, 1,000: 0 (24 ms), 2,000: 0 (45 ms).
 * - pgvector, m = 16: 200,000 — 100: 28, 400: 5, 1,000: 1, 4,000: 1; m = 32: 100: 4, 200: 1.
 * The shares leave about twice the width measured. Candidates far below the threshold cost only the walk:
 * their vectors are not read (exact-rerank.ts).
 */
export function walkedCandidates(size: number, connectivity: number, floor: number): number {
  const share = WALKED_SHARE.get(connectivity) ?? WALKED_SHARE.get(16)!;
  return Math.max(floor, Math.min(Math.ceil(size * share), MAX_WALKED_CANDIDATES));
}
