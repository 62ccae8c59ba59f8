// What a similarity score means, the same on screen and in PDF reports. The score is the cosine similarity
// of two face descriptors of the shipped face model (blazeface+mfn512-arcface5pt@2); the bands are tied to
// false-match rates measured by `npm run bench:faces` on celeba-dev (2,368,712 different-person pairs):
// see server/src/face/README.md.

/**
 * Results start here: 1 of 2,368,712 different-person pairs scores this high (4.2e-7 per comparison, about
 * one stranger in two queries of a 1M-face index), while 62.7 % of same-person pairs in the wild do.
 */
export const MATCH_THRESHOLD = 0.58;

/** No different-person pair of the 2.4 million scored this high (the highest was 0.643). */
export const STRONG_MATCH_THRESHOLD = 0.68;

export type MatchBand = 'very-likely' | 'possible';

export const MATCH_BAND_LABELS: Record<MatchBand, string> = {
  'very-likely': 'Very likely same person',
  possible: 'Possible match',
};

/** What each band means, for tooltips and report legends. */
export const MATCH_BAND_MEANINGS: Record<MatchBand, string> = {
  'very-likely': 'No two different people out of 2.4 million tested pairs scored this high.',
  possible:
    'About one in a million comparisons of different people scores this high; verify before relying on it.',
};

export function matchBand(similarity: number): MatchBand {
  return similarity >= STRONG_MATCH_THRESHOLD ? 'very-likely' : 'possible';
}

export function matchBandLabel(similarity: number): string {
  return MATCH_BAND_LABELS[matchBand(similarity)];
}

/**
 * The score as printed everywhere (result cards, extractor cards, tooltips, PDF reports): two decimals,
 * cut rather than rounded, so that a printed figure reaches a band's threshold only when the score does
 * (0.679 prints "0.67", a possible match) and 0.965 prints "0.96" on screen and on paper alike.
 */
export function similarityFigure(similarity: number): string {
  // toPrecision drops the binary noise of the product first (0.57 × 100 is 56.99999999999999).
  return (Math.floor(Number((similarity * 100).toPrecision(12))) / 100).toFixed(2);
}

/**
 * The score as the API answers it: three decimals, cut like the figure, so that a page deriving the band
 * and the figure from it shows what a PDF derives from the full score (0.6796 rounded to 0.680 read "Very
 * likely same person (0.68)" on the page and "Possible match (similarity 0.67)" in the PDF).
 */
export function answeredSimilarity(similarity: number): number {
  return Math.floor(Number((similarity * 1000).toPrecision(12))) / 1000;
}

/** The score with its name, e.g. "similarity 0.73". */
export function similarityText(similarity: number): string {
  return `similarity ${similarityFigure(similarity)}`;
}

/** One line for a tooltip: the band's meaning and the raw score against the threshold. */
export function matchScoreDetail(similarity: number): string {
  return (
    `${MATCH_BAND_MEANINGS[matchBand(similarity)]} Cosine similarity ${similarityFigure(similarity)} ` +
    `(results start at ${MATCH_THRESHOLD.toFixed(2)}; very likely from ${STRONG_MATCH_THRESHOLD.toFixed(2)}).`
  );
}

/** The legend of the bands, for report covers and help texts. */
export const MATCH_SCORE_EXPLANATION =
  `"${MATCH_BAND_LABELS['very-likely']}": similarity ${STRONG_MATCH_THRESHOLD.toFixed(2)} or more; no two ` +
  `different people out of 2.4 million tested pairs scored this high. "${MATCH_BAND_LABELS.possible}": ` +
  `${MATCH_THRESHOLD.toFixed(2)} to ${STRONG_MATCH_THRESHOLD.toFixed(2)}; about one comparison of different ` +
  'people in a million scores this high. The similarity is the cosine of the two faces\u2019 descriptors ' +
  '(1.00 is an identical face).';
