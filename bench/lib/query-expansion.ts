import { atFmr, atThreshold, type Embedded, type OperatingPoint } from './scale-metrics.ts';
import { cosineMatrix, thinGallery } from './k-reciprocal.ts';

// Query expansion from confident hits: a search first finds the faces that are almost surely the person
// (cosine ≥ `confident`), then searches again with the normalised sum of the query and (at most `maxHits`
// of) those faces' descriptors, as a search of several photos of the person does. Unlike k-reciprocal
// re-ranking it needs nothing kept per indexed face, and a query with no confident hit is left as it was,
// so a person indexed in one photo scores exactly as before. `floor` optionally keeps the raw cosine in the
// decision: a face is a hit only if its raw similarity to the query is at least `floor` too.
//
// Measured like a search: every face queries the others (ordered pairs, both directions), the expansion
// drawn from those others; its scores are TPR / FMR per comparison, like the raw cosine's. A set of 100
// people cannot show what an index of millions does, where a query meets about one stranger above the
// threshold in two: `strangerChains` measures what such a stranger does once it is taken as the person.

export interface ExpansionSettings {
  confident: number;
  maxHits: number;
  floor: number;
}

export interface ExpansionResult extends ExpansionSettings {
  points: OperatingPoint[];
  /** At the shipped threshold. */
  atShipped: OperatingPoint;
  /** Share of queries that found a confident hit (and so were expanded). */
  expanded: number;
}

/**
 * The cosine of face g with the normalised sum of face q and the faces `hits`, from the cosine matrix:
 * every vector has length 1, so |q + Σ h|² = 1 + 2 Σ cos(q, h) + Σ Σ cos(a, b).
 */
function expandedQuery(
  matrix: Float32Array,
  n: number,
  q: number,
  hits: readonly number[],
): (g: number) => number {
  const row = matrix.subarray(q * n, (q + 1) * n);
  let lengthSquared = 1;
  for (const h of hits) lengthSquared += 2 * row[h]!;
  for (const a of hits) for (const b of hits) lengthSquared += matrix[a * n + b]!;
  const length = Math.sqrt(lengthSquared);
  return (g) => {
    let dot = row[g]!;
    for (const h of hits) dot += matrix[h * n + g]!;
    return dot / length;
  };
}

/** Ordered-pair scores of the expanded queries (the cosine matrix holds every face's similarity to every other). */
function expandedScores(
  items: Embedded[],
  matrix: Float32Array,
  setting: ExpansionSettings,
): { same: Float64Array; different: Float64Array; expanded: number } {
  const n = items.length;
  const same: number[] = [];
  const different: number[] = [];
  let expanded = 0;
  let queries = 0;
  for (let q = 0; q < n; q++) {
    const query = items[q]!;
    const row = matrix.subarray(q * n, (q + 1) * n);
    if (query.descriptor) queries++;
    const hits: number[] = [];
    if (query.descriptor) {
      for (let j = 0; j < n; j++) if (j !== q && row[j]! >= setting.confident) hits.push(j);
      hits.sort((a, b) => row[b]! - row[a]!);
      hits.length = Math.min(hits.length, setting.maxHits);
    }
    if (hits.length > 0) expanded++;
    const expandedScore = expandedQuery(matrix, n, q, hits);
    for (let g = 0; g < n; g++) {
      if (g === q) continue;
      let s = -Infinity;
      if (query.descriptor && items[g]!.descriptor) {
        // The first search's hits stay hits; the second search adds faces its raw score kept above `floor`.
        s = Math.max(row[g]!, row[g]! >= setting.floor ? expandedScore(g) : -Infinity);
      }
      (items[g]!.label === query.label ? same : different).push(s);
    }
  }
  return {
    same: Float64Array.from(same).sort(),
    different: Float64Array.from(different).sort(),
    expanded: queries > 0 ? expanded / queries : 0,
  };
}

export function queryExpansion(
  items: Embedded[],
  settings: readonly ExpansionSettings[],
  fmrs: readonly number[],
  threshold: number,
): {
  raw: OperatingPoint[];
  rawAtShipped: OperatingPoint;
  differentPairs: number;
  expanded: ExpansionResult[];
} {
  const matrix = cosineMatrix(items);
  const raw = expandedScores(items, matrix, { confident: Infinity, maxHits: 0, floor: -Infinity });
  return {
    raw: fmrs.map((fmr) => atFmr(raw, fmr)),
    rawAtShipped: atThreshold(raw, threshold),
    differentPairs: raw.different.length,
    expanded: settings.map((setting) => {
      const scores = expandedScores(items, matrix, setting);
      return {
        ...setting,
        points: fmrs.map((fmr) => atFmr(scores, fmr)),
        atShipped: atThreshold(scores, threshold),
        expanded: scores.expanded,
      };
    }),
  };
}

export interface ExpansionByDensity extends ReturnType<typeof queryExpansion> {
  perPerson: number | null;
  photos: number;
}

/** On the whole set and on galleries thinned to a few photos per person, as a web index mostly holds people. */
export function queryExpansionByGalleryDensity(
  items: Embedded[],
  settings: readonly ExpansionSettings[],
  fmrs: readonly number[],
  threshold: number,
): ExpansionByDensity[] {
  return thinGallery(items).map(({ perPerson, gallery }) => ({
    perPerson,
    photos: gallery.length,
    ...queryExpansion(gallery, settings, fmrs, threshold),
  }));
}

export interface StrangerChain {
  /** Different-person (query, stranger) pairs whose raw score is at least `level`: the strangers tried. */
  strangers: number;
  /** That stranger's other photos the expanded query takes above the threshold (raw below it), per stranger. */
  pulled: number;
  /** The same when the query's own confident hits (up to maxHits − 1) are in the expansion too. */
  pulledWithOwnHits: number;
}

/**
 * A stranger above the threshold becomes a confident hit, and the expansion then searches for the
 * stranger too. Close strangers of the set (raw ≥ `level`) stand in for those an index of millions holds:
 * each is put into the query's expansion, alone (a person not indexed, or indexed once) or with the query's
 * own confident hits, and the stranger's other photos the expanded query newly accepts are counted.
 */
export function strangerChains(
  items: Embedded[],
  matrix: Float32Array,
  setting: ExpansionSettings,
  level: number,
  threshold: number,
): StrangerChain {
  const n = items.length;
  let strangers = 0;
  let pulled = 0;
  let pulledWithOwnHits = 0;
  const pulledBy = (q: number, stranger: number, hits: number[]): number => {
    const row = matrix.subarray(q * n, (q + 1) * n);
    const expandedScore = expandedQuery(matrix, n, q, hits);
    let count = 0;
    for (let g = 0; g < n; g++) {
      if (g === stranger || items[g]!.label !== items[stranger]!.label || !items[g]!.descriptor) continue;
      if (row[g]! >= threshold || row[g]! < setting.floor) continue;
      if (expandedScore(g) >= threshold) count++;
    }
    return count;
  };
  for (let q = 0; q < n; q++) {
    const query = items[q]!;
    if (!query.descriptor) continue;
    const row = matrix.subarray(q * n, (q + 1) * n);
    const own: number[] = [];
    for (let j = 0; j < n; j++) {
      if (j !== q && items[j]!.label === query.label && row[j]! >= setting.confident) own.push(j);
    }
    own.sort((a, b) => row[b]! - row[a]!);
    own.length = Math.min(own.length, setting.maxHits - 1);
    for (let s = 0; s < n; s++) {
      if (items[s]!.label === query.label || !items[s]!.descriptor || row[s]! < level) continue;
      strangers++;
      pulled += pulledBy(q, s, [s]);
      pulledWithOwnHits += pulledBy(q, s, [...own, s]);
    }
  }
  return {
    strangers,
    pulled: strangers > 0 ? pulled / strangers : 0,
    pulledWithOwnHits: strangers > 0 ? pulledWithOwnHits / strangers : 0,
  };
}
