import type { FaceIndexHit } from '../face/index/face-index.ts';

/** The face index, as far as looking a face up goes. */
export interface FaceHitSearch {
  search(
    query: Float32Array,
    options: { model: string; limit: number; minSimilarity: number },
  ): Promise<FaceIndexHit[]>;
}

/** Which of these indexed faces were flagged as possible minors when they were indexed. */
export interface PossibleMinorFaces {
  possibleMinorFaceIds(faceIds: readonly number[]): Promise<Set<number>>;
}

/**
 * The index's hits of a query face that an organization may see, best first, at most `limit`: every lookup
 * of the index made for an organization (its searches, the data extractor's "seen with" lookups) goes
 * through here. Unless `minorsAllowed` (verified law enforcement, or an approved review of the searched
 * face), faces flagged as possible minors when they were indexed are left out (issue 13), with the same
 * recall as an unfiltered lookup: while flagged faces fill the limit, the lookup widens until `limit`
 * others are found or no face above `minSimilarity` is left. Faces indexed before the age estimate existed
 * (flag unknown) are estimated by `npm run reindex`.
 */
export async function visibleFaceHits(
  index: FaceHitSearch,
  minors: PossibleMinorFaces,
  query: Float32Array,
  options: { model: string; limit: number; minSimilarity: number; minorsAllowed: boolean },
): Promise<FaceIndexHit[]> {
  const { model, minSimilarity, minorsAllowed } = options;
  for (let limit = options.limit; ; limit *= 4) {
    const hits = await index.search(query, { model, limit, minSimilarity });
    if (minorsAllowed) return hits;
    const flagged = await minors.possibleMinorFaceIds(hits.map((hit) => hit.faceId));
    const kept = hits.filter((hit) => !flagged.has(hit.faceId));
    if (kept.length >= options.limit || hits.length < limit) return kept.slice(0, options.limit);
  }
}
