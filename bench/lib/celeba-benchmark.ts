import { existsSync } from 'node:fs';
import path from 'node:path';
import { matchScaleOf } from '@osint/contract/match-score';
import { PIPELINE_CATALOG, type PipelineName } from '../../server/src/face/pipeline/pipeline-catalog.ts';
import { type CelebaFace, celebaEmbeddings } from './celeba-embeddings.ts';
import { type CohortNormResult, cohortNormalisation } from './cohort-norm.ts';
import { fittedDistractors } from './fitted-distractors.ts';
import {
  cosineMatrix,
  RERANK_SETTINGS,
  type RerankByDensity,
  rerankByGalleryDensity,
} from './k-reciprocal.ts';
import { type MultiFaceQueryResult, multiFaceQueries } from './multi-face-queries.ts';
import {
  type ExpansionByDensity,
  type ExpansionSettings,
  queryExpansionByGalleryDensity,
  type StrangerChain,
  strangerChains,
} from './query-expansion.ts';
import { matchRatesBySize, type SizeBandRates } from './size-bands.ts';
import {
  atFmr,
  atThreshold,
  aucOf,
  cosineScore,
  type Embedded,
  identificationAtScale,
  type OperatingPoint,
  type PairScore,
  type PairScores,
  pairScores,
} from './scale-metrics.ts';

// The in-the-wild part of `npm run bench:faces`: faces/celeba-dev (100 people, 2,189 photos, ≈ 2.4 million
// different-person pairs), the protocol of its MANIFEST.md. Missed detections count as misses.

export const FMR_TARGETS = [1e-3, 1e-4, 1e-5, 1e-6] as const;

/** A candidate: one pipeline, or a weighted mean of the cosines of several (score-level fusion). */
export interface CelebaCandidate {
  name: string;
  parts: { pipeline: PipelineName; weight: number }[];
}

export interface CelebaResult {
  candidate: CelebaCandidate;
  photos: number;
  missed: number;
  samePairs: number;
  differentPairs: number;
  auc: number;
  points: OperatingPoint[];
  /** At the shipped threshold, when the candidate is the shipped pipeline. */
  shipped?: OperatingPoint;
  /**
   * For a model whose scores users see in bands (contract MATCH_SCALES): the rates at its two band
   * thresholds and the highest different-person score, which the "very likely" band must stay above.
   */
  bands?: { possible: OperatingPoint; strong: OperatingPoint; highestDifferent: number };
  identification: ReturnType<typeof identificationAtScale>;
  /** With synthetic distractors added to the gallery (shipped pipeline only). */
  withDistractors?: ReturnType<typeof identificationAtScale> & {
    distractors: number;
    /** Share of (query, distractor) comparisons at or above the threshold: compare with the real FMR. */
    distractorFmr: number;
  };
  /** S-norm against a cohort, for the shipped pipeline (K nearest cohort faces). */
  cohort?: CohortNormResult[];
  /** k-reciprocal re-ranking, for the shipped pipeline, on the whole set and on thinned galleries. */
  rerank?: RerankByDensity[];
  /** For the shipped pipeline: rates per band of the smaller face's size, at the FMR-1e-4 and shipped thresholds. */
  bySize?: { thresholds: number[]; bands: SizeBandRates[] };
  /** For the shipped pipeline: queries made of 1, 2, 3 or 5 photos of the person (their mean descriptor). */
  multiFace?: MultiFaceQueryResult[];
  /** For the shipped pipeline: query expansion from the first search's hits, and what a stranger among them does. */
  expansion?: {
    byDensity: ExpansionByDensity[];
    chains: (StrangerChain & ExpansionSettings & { level: number })[];
  };
}

/** Expansion from the first search's hits (the shipped threshold), at most 10, without and with a raw floor. */
const expansionSettings = (threshold: number): ExpansionSettings[] =>
  [-Infinity, 0.45].map((floor) => ({ confident: threshold, maxHits: 10, floor }));

function fuse(sets: CelebaFace[][], weights: number[]): { items: Embedded[]; score: PairScore } {
  const items = sets[0]!.map((face, i) => ({
    label: face.label,
    descriptor: sets.every((s) => s[i]!.descriptor) ? face.descriptor : null,
  }));
  const scorers = sets.map((s) => cosineScore(s));
  const score: PairScore = (i, j) => {
    let total = 0;
    for (let k = 0; k < sets.length; k++) total += weights[k]! * scorers[k]!(i, j);
    return total;
  };
  return { items, score };
}

export async function runCelebaBenchmark(options: {
  dir: string;
  cacheDir: string;
  candidates: CelebaCandidate[];
  shipped: { pipeline: PipelineName; threshold: number };
  distractors: number;
}): Promise<CelebaResult[] | null> {
  if (!existsSync(options.dir)) return null;
  const embeddings = new Map<PipelineName, CelebaFace[]>();
  const results: CelebaResult[] = [];
  for (const candidate of options.candidates) {
    for (const { pipeline } of candidate.parts) {
      if (embeddings.has(pipeline)) continue;
      const started = performance.now();
      const faces = await celebaEmbeddings(options.dir, pipeline, options.cacheDir, (done, total) => {
        if (done % 200 === 0 || done === total)
          process.stdout.write(`\r  celeba-dev ${pipeline}: ${done}/${total}`);
      });
      const seconds = (performance.now() - started) / 1000;
      if (seconds > 5) console.log(` (${seconds.toFixed(0)} s)`);
      embeddings.set(pipeline, faces);
    }
    const sets = candidate.parts.map((p) => embeddings.get(p.pipeline)!);
    const { items, score } = fuse(
      sets,
      candidate.parts.map((p) => p.weight),
    );
    const scores = pairScores(items, score);
    const points = FMR_TARGETS.map((fmr) => atFmr(scores, fmr));
    const isShipped =
      candidate.parts.length === 1 && candidate.parts[0]!.pipeline === options.shipped.pipeline;
    const threshold = isShipped ? options.shipped.threshold : points[points.length - 1]!.threshold;
    const result: CelebaResult = {
      candidate,
      photos: items.length,
      missed: items.filter((i) => !i.descriptor).length,
      samePairs: scores.same.length,
      differentPairs: scores.different.length,
      auc: aucOf(scores),
      points,
      shipped: isShipped ? atThreshold(scores, threshold) : undefined,
      bands: bandsOf(candidate, scores),
      identification: identificationAtScale(items, threshold, undefined, score),
    };
    if (isShipped && options.distractors > 0) {
      const { dimensions } = PIPELINE_CATALOG[options.shipped.pipeline];
      const vectors = fittedDistractors(items, dimensions, options.distractors);
      const id = identificationAtScale(items, threshold, { vectors, dimensions }, score);
      const queries = items.filter((i) => i.descriptor).length;
      const distractorHits = id.wrongReturned - result.identification.wrongReturned;
      result.withDistractors = {
        ...id,
        distractors: options.distractors,
        distractorFmr: distractorHits / (queries * options.distractors),
      };
    }
    if (isShipped) {
      result.cohort = [30, 100, 300].map((k) => cohortNormalisation(items, k, FMR_TARGETS));
      result.rerank = rerankByGalleryDensity(items, FMR_TARGETS);
      const thresholds = [points[FMR_TARGETS.indexOf(1e-4)]!.threshold, threshold];
      result.bySize = { thresholds, bands: matchRatesBySize(sets[0]!, score, thresholds) };
      result.multiFace = multiFaceQueries(items, [1, 2, 3, 5], threshold, FMR_TARGETS);
      const settings = expansionSettings(threshold);
      const matrix = cosineMatrix(items);
      result.expansion = {
        byDensity: queryExpansionByGalleryDensity(items, settings, FMR_TARGETS, threshold),
        chains: settings.flatMap((setting) =>
          [0.45, 0.5].map((level) => ({
            ...setting,
            level,
            ...strangerChains(items, matrix, setting, level, threshold),
          })),
        ),
      };
    }
    results.push(result);
  }
  return results;
}

function bandsOf(candidate: CelebaCandidate, scores: PairScores): CelebaResult['bands'] {
  const scale =
    candidate.parts.length === 1
      ? matchScaleOf(PIPELINE_CATALOG[candidate.parts[0]!.pipeline].modelId)
      : undefined;
  if (!scale) return undefined;
  // Scores are in ascending order.
  const highestDifferent = scores.different[scores.different.length - 1] ?? -1;
  return {
    possible: atThreshold(scores, scale.matchThreshold),
    strong: atThreshold(scores, scale.strongThreshold),
    highestDifferent,
  };
}

const RERANK_SETTINGS_LABELS = RERANK_SETTINGS.map((s) => `re-ranked, λ = ${s.lambda}`);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const sci = (x: number) => (x === 0 ? '0' : x.toExponential(1));

export function printCelebaResults(results: CelebaResult[], dir: string): void {
  const first = results[0];
  if (!first) return;
  console.log(
    `\nIn the wild: ${path.basename(dir)} (${first.photos} photos; ${first.samePairs} same-person and ` +
      `${first.differentPairs} different-person pairs; largest face of each photo; a photo without a face is a miss).\n`,
  );
  console.log(
    `| candidate | missed | ROC AUC | ${FMR_TARGETS.map((f) => `TPR at FMR ${sci(f)} (threshold)`).join(' | ')} | rank-1 | recall / precision of hits at FMR 1e-6 thr. |`,
  );
  console.log(`|---|---|---|${FMR_TARGETS.map(() => '---|').join('')}---|---|`);
  for (const r of results) {
    const cells = r.points.map((p) => `${pct(p.tpr)} (${p.threshold.toFixed(3)})`);
    const id = r.identification;
    console.log(
      `| ${r.candidate.name} | ${r.missed} | ${r.auc.toFixed(4)} | ${cells.join(' | ')} | ${pct(id.rank1)} | ` +
        `${pct(id.recall)} / ${(id.precision * 100).toFixed(2)} % (${id.wrongReturned} wrong of ${id.returned}) |`,
    );
  }
  for (const r of results) {
    if (!r.bands) continue;
    const { possible, strong, highestDifferent } = r.bands;
    const at = (p: OperatingPoint) =>
      `${p.threshold.toFixed(2)} (FMR ${sci(p.measuredFmr)}, ${p.falseMatches} pairs; TPR ${pct(p.tpr)})`;
    console.log(
      `\nBands users see for ${r.candidate.name} (contract/src/match-score.ts): "Possible match" from ` +
        `${at(possible)}, "Very likely same person" from ${at(strong)}; highest different-person pair ` +
        `${highestDifferent.toFixed(3)}.`,
    );
  }
  for (const r of results) {
    if (!r.shipped) continue;
    const s = r.shipped;
    console.log(
      `\nShipped ${r.candidate.name} at its threshold ${s.threshold.toFixed(4)}: TPR ${pct(s.tpr)}, ` +
        `FMR ${sci(s.measuredFmr)} (${s.falseMatches} of ${r.differentPairs} different-person pairs) → about ` +
        `${(s.measuredFmr * 1e6).toFixed(1)} strangers per query in a 1M-face index.`,
    );
    const id = r.identification;
    console.log(
      `Identification (each photo queries the ${r.photos - 1} others): rank-1 ${pct(id.rank1)}, recall of the ` +
        `person's other photos ${pct(id.recall)}, precision of returned hits ${(id.precision * 100).toFixed(2)} % ` +
        `(${id.wrongReturned} strangers among ${id.returned} hits; ${id.queriesWithStranger} of ${id.queries} queries got one).`,
    );
    if (r.cohort) {
      console.log(
        '\nS-norm against a cohort (2-fold split by identity: the other half of the people is the cohort; ' +
          'each face keeps the mean and spread of its K highest cohort similarities). TPR at FMR ' +
          `${FMR_TARGETS.map(sci).join(' / ')}:\n`,
      );
      console.log('| scores | fold 1 | fold 2 |');
      console.log('|---|---|---|');
      const row = (points: OperatingPoint[]) => points.map((p) => pct(p.tpr)).join(' / ');
      console.log(`| raw cosine | ${r.cohort[0]!.folds.map((f) => row(f.raw)).join(' | ')} |`);
      for (const c of r.cohort) {
        console.log(`| S-norm, K = ${c.k} | ${c.folds.map((f) => row(f.normalised)).join(' | ')} |`);
      }
    }
    if (r.rerank) printRerank(r.rerank);
    if (r.bySize) printBySize(r.bySize);
    if (r.multiFace) printMultiFace(r.multiFace, s.threshold);
    if (r.expansion) printExpansion(r.expansion, s.threshold);
    const d = r.withDistractors;
    if (d) {
      console.log(
        `\nWith ${d.distractors.toLocaleString('en')} synthetic distractors (Gaussian fitted to this model's celeba-dev ` +
          `descriptors: mean and full covariance, then L2-normalised): rank-1 ${pct(d.rank1)}, precision of returned ` +
          `hits ${(d.precision * 100).toFixed(2)} % (${d.wrongReturned} strangers among ${d.returned}); distractors ` +
          `crossed the threshold at ${sci(d.distractorFmr)} per comparison (real different-person pairs: ` +
          `${sci(s.measuredFmr)}). At the real rate, 100,000 strangers would add about ` +
          `${Math.round(s.measuredFmr * d.distractors * d.queries)} wrong hits over these ${d.queries} queries ` +
          `(precision ${(((id.returned - id.wrongReturned) / (id.returned + s.measuredFmr * d.distractors * d.queries)) * 100).toFixed(2)} %): ` +
          'the fitted Gaussian is less look-alike than real strangers, so read it as a lower bound on the wrong hits.',
      );
    }
  }
}

function printBySize({ thresholds, bands }: NonNullable<CelebaResult['bySize']>): void {
  const [atFmr4, shipped] = thresholds.map((t) => t.toFixed(3));
  console.log(
    '\nBy face size (each pair in the band of its smaller face, box side in px; photos without a face left out). ' +
      `Accepted at the FMR-1e-4 threshold ${atFmr4} and at the shipped ${shipped}:\n`,
  );
  console.log(
    `| smaller face | same-person pairs | TPR at ${atFmr4} / ${shipped} | different-person pairs | FMR at ${atFmr4} / ${shipped} |`,
  );
  console.log('|---|---|---|---|---|');
  for (const b of bands) {
    const range = b.to === Infinity ? `≥ ${b.from}` : `${b.from}–${b.to - 1}`;
    const rate = (accepted: number[], of: number) =>
      accepted.map((a) => (of ? `${((a / of) * 100).toFixed(1)} %` : '—')).join(' / ');
    const fmr = b.differentAccepted
      .map((a) => (b.differentPairs ? sci(a / b.differentPairs) : '—'))
      .join(' / ');
    console.log(
      `| ${range} | ${b.samePairs} | ${rate(b.sameAccepted, b.samePairs)} | ${b.differentPairs} | ${fmr} |`,
    );
  }
}

function printMultiFace(rows: MultiFaceQueryResult[], threshold: number): void {
  console.log(
    '\nQueries of several photos of the person (the mean of their descriptors, as a search of several chosen ' +
      'faces makes; up to 20 random sets per person), against every other photo:\n',
  );
  console.log(
    `| photos per query | queries | same / different-person pairs | at ${threshold.toFixed(2)}: TPR, FMR | ` +
      `TPR at FMR ${FMR_TARGETS.map(sci).join(' / ')} (thresholds) |`,
  );
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const points = r.points.map((p) => `${pct(p.tpr)} (${p.threshold.toFixed(3)})`).join(' / ');
    console.log(
      `| ${r.photosPerQuery} | ${r.queries} | ${r.samePairs} / ${r.differentPairs} | ` +
        `${pct(r.atShipped.tpr)}, ${sci(r.atShipped.measuredFmr)} (${r.atShipped.falseMatches}) | ${points} |`,
    );
  }
}

function printRerank(rows: RerankByDensity[]): void {
  console.log(
    '\nk-reciprocal re-ranking (k1 = 20, k2 = 6; distance (1 − λ)·Jaccard + λ·(1 − cosine)), on the whole set and ' +
      'on galleries thinned to a few photos per person. TPR at FMR ' +
      `${FMR_TARGETS.map(sci).join(' / ')} (— where the gallery has too few different-person pairs):\n`,
  );
  console.log(`| photos per person (photos) | raw cosine | ${RERANK_SETTINGS_LABELS.join(' | ')} |`);
  console.log(`|---|---|${RERANK_SETTINGS_LABELS.map(() => '---|').join('')}`);
  for (const row of rows) {
    const cells = (points: OperatingPoint[]) =>
      points.map((p) => (p.fmr * row.differentPairs < 1 ? '—' : pct(p.tpr))).join(' / ');
    console.log(
      `| ${row.perPerson ?? 'all'} (${row.photos}) | ${cells(row.raw)} | ${row.reranked.map((r) => cells(r.points)).join(' | ')} |`,
    );
  }
}

function printExpansion(
  { byDensity, chains }: NonNullable<CelebaResult['expansion']>,
  threshold: number,
): void {
  const settings = byDensity[0]!.expanded;
  const label = (e: ExpansionSettings) =>
    `expanded by ≤ ${e.maxHits} hits${Number.isFinite(e.floor) ? `, raw ≥ ${e.floor}` : ''}`;
  console.log(
    `\nQuery expansion: a second search with the normalised sum of the query and its hits at ${threshold.toFixed(2)} ` +
      "(the first search's hits stay). Every face queries the others (ordered pairs); whole set and thinned " +
      `galleries. TPR at FMR ${FMR_TARGETS.map(sci).join(' / ')}; TPR and false matches at ${threshold.toFixed(2)}:\n`,
  );
  console.log(`| photos per person (photos) | raw cosine | ${settings.map(label).join(' | ')} |`);
  console.log(`|---|---|${settings.map(() => '---|').join('')}`);
  for (const row of byDensity) {
    const cells = (points: OperatingPoint[], at: OperatingPoint) =>
      `${points.map((p) => (p.fmr * row.differentPairs < 1 ? '—' : pct(p.tpr))).join(' / ')}; ` +
      `${pct(at.tpr)}, ${at.falseMatches}`;
    console.log(
      `| ${row.perPerson ?? 'all'} (${row.photos}) | ${cells(row.raw, row.rawAtShipped)} | ` +
        `${row.expanded.map((e) => `${cells(e.points, e.atShipped)} (${pct(e.expanded)} expanded)`).join(' | ')} |`,
    );
  }
  console.log(
    '\nA stranger taken as the person: each different-person pair of the set at or above a raw score stands in ' +
      'for the strangers above the threshold that a large index holds; put into the expansion, how many of the ' +
      "stranger's other photos does it newly accept?\n",
  );
  console.log(
    '| setting | strangers at raw ≥ | pairs | photos of the stranger accepted: alone / with the own hits |',
  );
  console.log('|---|---|---|---|');
  for (const c of chains) {
    console.log(
      `| ${label(c)} | ${c.level} | ${c.strangers} | ${c.pulled.toFixed(2)} / ${c.pulledWithOwnHits.toFixed(2)} |`,
    );
  }
}
