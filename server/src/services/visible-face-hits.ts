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
 * (flag unknown) are estimated by `npm run reindex`. A `wanted` filter (the kind of page a search is for)
 * widens the same way, so that faces of the other kind cannot fill the limit.
 */
export async function visibleFaceHits(
  index: FaceHitSearch,
  minors: PossibleMinorFaces,
  query: Float32Array,
  options: {
    model: string;
    limit: number;
    minSimilarity: number;
    minorsAllowed: boolean;
    /** Which of these faces the lookup wants (a social-media search: faces seen on social media). */
    wanted?: (faceIds: number[]) => Promise<Set<number>>;
  },
): Promise<FaceIndexHit[]> {
  const { model, minSimilarity, minorsAllowed, wanted } = options;
  for (let limit = options.limit; ; limit *= 4) {
    const hits = await index.search(query, { model, limit, minSimilarity });
    let kept = hits;
    if (!minorsAllowed) {
      const flagged = await minors.possibleMinorFaceIds(kept.map((hit) => hit.faceId));
      kept = kept.filter((hit) => !flagged.has(hit.faceId));
    }
    if (wanted) {
      const chosen = await wanted(kept.map((hit) => hit.faceId));
      kept = kept.filter((hit) => chosen.has(hit.faceId));
    }
    if (kept.length >= options.limit || hits.length < limit) return kept.slice(0, options.limit);
  }
}
