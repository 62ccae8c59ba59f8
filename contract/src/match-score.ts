// What a similarity score means, the same on screen and in PDF reports. A score is the cosine similarity
// of two face descriptors of one face model, and each model has its own scale: the bands are tied to
// false-match rates that `npm run bench:faces` measured for that model on celeba-dev (2,368,712
// different-person pairs; see server/src/face/README.md). Every stored score keeps the id of the model that
// computed it (`scoreModel`), because a switch of model moves stored results to the new model's faces but
// cannot re-score them.

export type MatchBand = 'very-likely' | 'possible' | 'other-model';

/** Where a model's results start and where they become "very likely", with what each means. */
export interface MatchScale {
  matchThreshold: number;
  strongThreshold: number;
  possibleMeaning: string;
  strongMeaning: string;
}

/** The face model the product ships (server/src/face/pipeline/pipeline-catalog.ts). */
export const SHIPPED_SCORE_MODEL = 'blazeface+mfn512-arcface5pt@2';
/** The previous model (dlib's 128-d descriptor), still selectable as a fall-back. */
export const DLIB_SCORE_MODEL = 'blazeface+dlib128-5pt@1';

/**
 * Results start here: 1 of 2,368,712 different-person pairs scores this high (4.2e-7 per comparison, about
 * one stranger in two queries of a 1M-face index), while 62.7 % of same-person pairs in the wild do.
 */
export const MATCH_THRESHOLD = 0.58;

/** No different-person pair of the 2.4 million scored this high (the highest was 0.643). */
export const STRONG_MATCH_THRESHOLD = 0.68;

const NONE_THIS_HIGH = 'No two different people out of 2.4 million tested pairs scored this high.';

/**
 * The previous model's scale, measured like the shipped model's on celeba-dev (run of 29 Nov): its results
 * start at the threshold it shipped with, which 2,278 of the 2,368,712 different-person pairs reach (9.6e-4
 * per comparison; TPR 85.3 %); none reached 0.97 (the highest scored 0.967; TPR 12.3 %).
 */
export const DLIB_SCALE: MatchScale = {
  matchThreshold: 0.93,
  strongThreshold: 0.97,
  possibleMeaning:
    'About one in a thousand comparisons of different people scores this high; verify before relying on it.',
  strongMeaning: NONE_THIS_HIGH,
};

/** The scales of the models an installation can search with; a model not listed has no bands. */
export const MATCH_SCALES: Readonly<Record<string, MatchScale>> = {
  [SHIPPED_SCORE_MODEL]: {
    matchThreshold: MATCH_THRESHOLD,
    strongThreshold: STRONG_MATCH_THRESHOLD,
    possibleMeaning:
      'About one in a million comparisons of different people scores this high; verify before relying on it.',
    strongMeaning: NONE_THIS_HIGH,
  },
  [DLIB_SCORE_MODEL]: DLIB_SCALE,
};

export const MATCH_BAND_LABELS: Record<MatchBand, string> = {
  'very-likely': 'Very likely same person',
  possible: 'Possible match',
  'other-model': 'Match by another face model',
};

const OTHER_MODEL_MEANING =
  'Scored by a face model without measured bands here (usually one this installation used before), on a ' +
  'scale of its own; searching again scores the face with the current model.';

/** The scale of `scoreModel`'s scores; undefined when it has none here or is not known (null). */
export function matchScaleOf(scoreModel: string | null): MatchScale | undefined {
  return scoreModel !== null && Object.hasOwn(MATCH_SCALES, scoreModel)
    ? MATCH_SCALES[scoreModel]
    : undefined;
}

/**
 * The band of a score of `scoreModel` (null: a score stored before models were recorded with scores, whose
 * model is not known).
 */
export function matchBand(similarity: number, scoreModel: string | null): MatchBand {
  const scale = matchScaleOf(scoreModel);
  if (!scale) return 'other-model';
  return similarity >= scale.strongThreshold ? 'very-likely' : 'possible';
}

export function matchBandLabel(similarity: number, scoreModel: string | null): string {
  return MATCH_BAND_LABELS[matchBand(similarity, scoreModel)];
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

/** One line for a tooltip: the band's meaning and the raw score against the model's thresholds. */
export function matchScoreDetail(similarity: number, scoreModel: string | null): string {
  const figure = `Cosine similarity ${similarityFigure(similarity)}`;
  const scale = matchScaleOf(scoreModel);
  if (!scale) return `${OTHER_MODEL_MEANING} ${figure}.`;
  const meaning =
    matchBand(similarity, scoreModel) === 'very-likely' ? scale.strongMeaning : scale.possibleMeaning;
  return (
    `${meaning} ${figure} (results start at ${scale.matchThreshold.toFixed(2)}; very likely from ` +
    `${scale.strongThreshold.toFixed(2)}).`
  );
}

/** The legend of the bands, for report covers and help texts (the shipped model's scale). */
export const MATCH_SCORE_EXPLANATION =
  `"${MATCH_BAND_LABELS['very-likely']}": similarity ${STRONG_MATCH_THRESHOLD.toFixed(2)} or more; no two ` +
  `different people out of 2.4 million tested pairs scored this high. "${MATCH_BAND_LABELS.possible}": ` +
  `${MATCH_THRESHOLD.toFixed(2)} to ${STRONG_MATCH_THRESHOLD.toFixed(2)}; about one comparison of different ` +
  'people in a million scores this high. The similarity is the cosine of the two faces\u2019 descriptors ' +
  '(1.00 is an identical face).';

/**
 * The legend of a report whose results were scored by `scoreModels`: the shipped model's bands, then a
 * sentence for each other scale among them (a fall-back model's, or scores of a model no longer known).
 */
export function matchScoreLegend(scoreModels: ReadonlyArray<string | null>): string {
  const others = scoreModels.filter((model) => model !== SHIPPED_SCORE_MODEL);
  const sentences = others.map((model) => {
    const scale = matchScaleOf(model);
    if (!scale) return `"${MATCH_BAND_LABELS['other-model']}": ${OTHER_MODEL_MEANING}`;
    return (
      `Results of the face model ${model} are on its own scale: "${MATCH_BAND_LABELS.possible}" from ` +
      `${scale.matchThreshold.toFixed(2)}, "${MATCH_BAND_LABELS['very-likely']}" from ` +
      `${scale.strongThreshold.toFixed(2)}.`
    );
  });
  return [MATCH_SCORE_EXPLANATION, ...[...new Set(sentences)].sort()].join(' ');
}
