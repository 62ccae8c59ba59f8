import type { FaceIndexHit, FaceSearchOptions, FaceVectorEntry } from './face-index.ts';

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Cosine similarity. Stored vectors are normalised already, but dividing costs little and keeps
 * the score right for a caller that forgot to normalise. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`vector lengths differ: ${a.length} and ${b.length}`);
  const norms = Math.sqrt(dot(a, a) * dot(b, b));
  return norms > 0 ? dot(a, b) / norms : 0;
}

function byBestFirst(a: FaceIndexHit, b: FaceIndexHit): number {
  return b.similarity - a.similarity || a.faceId - b.faceId;
}

/** Exact search by scanning every entry: the reference the approximate indexes are tested against. */
export function bruteForceSearch(
  entries: Iterable<FaceVectorEntry>,
  query: Float32Array,
  options: FaceSearchOptions,
): FaceIndexHit[] {
  const hits: FaceIndexHit[] = [];
  for (const { faceId, vector } of entries) {
    if (options.filter && !options.filter(faceId)) continue;
    const similarity = cosineSimilarity(query, vector);
    if (similarity >= options.minSimilarity) hits.push({ faceId, similarity });
  }
  return hits.sort(byBestFirst).slice(0, options.limit);
}

export interface OverfetchOptions {
  /** Candidates asked of the approximate index at least (it explores at least this widely). */
  minCandidates: number;
  /** ...and at least limit × overfetch. */
  overfetch: number;
  /**
   * With a filter: candidates that must pass it before answering, at least (and at least
   * limit × overfetch). Fewer than `minCandidates`, since matching an unfiltered search's depth would
   * cost 1/share times the search; more than `limit`, since the filtered best then come from too
   * shallow a neighbourhood (1M faces, 10 % filter, 20 → recall@10 0.93).
   */
  minFilteredCandidates: number;
  /** Stop widening here: a filter that rejects nearly everything must not scan the whole index. */
  maxCandidates: number;
  /**
   * How far an approximate similarity may lie below the exact one (quantisation error). Widening
   * stops once the worst candidate is below the threshold by more than this.
   */
  approximationMargin: number;
}

export interface Candidate {
  faceId: number;
  /** Approximate similarity from the index. */
  similarity: number;
}

export interface CandidateBatch {
  /** Best first. */
  candidates: Candidate[];
  /** True when the index holds no further candidates (it returned fewer than asked). */
  exhausted: boolean;
}

/**
 * The search every index shares: ask the approximate index for candidates, drop those the filter
 * rejects, score the rest exactly, keep those above the threshold. When the filter left too few
 * candidates and the index may still hold better-than-threshold faces, ask again wider
 * (an HNSW search cannot be resumed, so it starts over; exact scores are reused).
 */
export async function searchWithOverfetch(
  fetchCandidates: (count: number) => Promise<CandidateBatch>,
  exactSimilarities: (faceIds: number[]) => Promise<Map<number, number>>,
  options: FaceSearchOptions & OverfetchOptions,
): Promise<FaceIndexHit[]> {
  if (options.limit <= 0) return [];
  const exact = new Map<number, number>();
  // Without a filter, first only `minCandidates`: most searches find a handful of faces, and when the
  // worst candidate is already below the threshold (by more than the margin) with room to spare (at
  // least `overfetch` candidates per hit), the faces that can pass are among them. An HNSW search's
  // cost grows with the candidates asked; a search with many hits widens to limit × overfetch.
  let count = Math.min(
    options.filter
      ? Math.max(options.minCandidates, Math.ceil(options.limit * options.overfetch))
      : options.minCandidates,
    options.maxCandidates,
  );
  const enough = Math.max(
    Math.ceil(options.limit * options.overfetch),
    options.filter ? Math.min(options.minFilteredCandidates, count) : 0,
  );
  for (;;) {
    const { candidates, exhausted } = await fetchCandidates(count);
    const unscored: number[] = [];
    for (const { faceId, similarity } of candidates) {
      if (exact.has(faceId) || (options.filter && !options.filter(faceId))) continue;
      // So far below the threshold that its exact score cannot reach it: its vector is not needed, which
      // lets a search walk the graph widely (most candidates are strangers) for the cost of the walk.
      if (similarity < options.minSimilarity - options.approximationMargin) {
        exact.set(faceId, Number.NEGATIVE_INFINITY);
      } else {
        unscored.push(faceId);
      }
    }
    if (unscored.length > 0) {
      const scores = await exactSimilarities(unscored);
      // A face missing from the source was deleted and its removal not yet applied: drop it.
      for (const faceId of unscored) exact.set(faceId, scores.get(faceId) ?? Number.NEGATIVE_INFINITY);
    }
    const hits: FaceIndexHit[] = [];
    for (const [faceId, similarity] of exact) {
      if (similarity >= options.minSimilarity) hits.push({ faceId, similarity });
    }
    const widest = exhausted || count >= options.maxCandidates;
    const worst = candidates.at(-1)?.similarity ?? Number.NEGATIVE_INFINITY;
    const belowThreshold =
      worst < options.minSimilarity - options.approximationMargin &&
      hits.length * options.overfetch <= candidates.length;
    if (exact.size >= enough || widest || belowThreshold) {
      return hits.sort(byBestFirst).slice(0, options.limit);
    }
    // Widen by the share of candidates the filter let through so far (with some room), at least
    // doubling; with nothing through yet, the share is unknown: widen eightfold.
    const passed = exact.size;
    const factor = passed === 0 ? 8 : Math.min(16, Math.max(2, (1.2 * enough) / passed));
    count = Math.min(Math.ceil(count * factor), options.maxCandidates);
  }
}
