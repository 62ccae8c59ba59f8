// Age-gate calibration, `npm run bench:age`, on ../shared/faces/age-dev (or FACES_AGE_DIR): 800 faces with
// known ages, 200 per band 0–12, 13–17, 18–24, 25+ (its MANIFEST.md). Each photo is padded with 50 % grey on
// every side (the crops are tight, BlazeFace needs context), analysed by the face engine as an upload is, and
// its largest face's age estimates are kept. For every candidate estimator: the mean absolute error per band,
// the lowest threshold that flags ≥ 98 % of 13–17 and ≥ 99 % of 0–12 (with its bootstrap range), the share of
// each band flagged there, and the same at the shipped threshold. Estimates are cached in bench/results/
// (never committed); AGE_BENCH_FRESH=1 recomputes them. AGE_BENCH_THREADS sets the worker threads (default 2).
// The face engine finds the face; both networks are then run on it in this process, FaceRes-deep even where
// the shipped estimator skips it (SECOND_ESTIMATE_BELOW_AGE), so that the skip itself can be measured: on
// age-dev, and on celeba-dev's in-the-wild adults (../shared/faces/celeba-dev or FACES_CELEBA_DIR) when present.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { type AgeEstimator, loadAgeEstimator } from '../server/src/face/age/age-estimator.ts';
import {
  type AgeEstimates,
  estimatedAge,
  isPossibleMinor,
  needsSecondEstimate,
  POSSIBLE_MINOR_BELOW_AGE,
  SECOND_ESTIMATE_BELOW_AGE,
} from '../server/src/face/age/possible-minor.ts';
import { createFaceEngine } from '../server/src/face/face-engine.ts';
import { decodeImage } from '../server/src/face/image-decode.ts';
import { MIN_QUERY_FACE_PX } from '../server/src/face/similarity.ts';
import { listCeleba } from './lib/celeba-embeddings.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ageDir = process.env.FACES_AGE_DIR ?? path.resolve(repoRoot, '../shared/faces/age-dev');
const celebaDir = process.env.FACES_CELEBA_DIR ?? path.resolve(repoRoot, '../shared/faces/celeba-dev');
const resultsDir = path.join(repoRoot, 'bench', 'results');
const threads = Number(process.env.AGE_BENCH_THREADS ?? 2);

const BANDS = [
  { name: '0–12', min: 0, max: 12 },
  { name: '13–17', min: 13, max: 17 },
  { name: '18–24', min: 18, max: 24 },
  { name: '25+', min: 25, max: Infinity },
] as const;
type BandName = (typeof BANDS)[number]['name'];

/** The gate's targets (issue 13): shares of each minor band that must be flagged. */
const REQUIRED_FLAGGED: Partial<Record<BandName, number>> = { '0–12': 0.99, '13–17': 0.98 };

interface Candidate {
  name: string;
  age: (e: Required<AgeEstimates>) => number;
}

/** The estimates as the shipped estimator makes them: no FaceRes-deep where AgeGenderNet made it unneeded. */
function asShipped(e: Required<AgeEstimates>): AgeEstimates {
  return needsSecondEstimate(e.ageGenderNet) ? e : { ageGenderNet: e.ageGenderNet };
}

const CANDIDATES: Candidate[] = [
  { name: 'face-api AgeGenderNet (face + mirror)', age: (e) => e.ageGenderNet },
  { name: 'HSE FaceRes-deep (face + mirror)', age: (e) => e.faceresDeep },
  { name: 'mean of both', age: estimatedAge },
  {
    name: `mean of both, FaceRes-deep only under AgeGenderNet ${SECOND_ESTIMATE_BELOW_AGE} (shipped)`,
    age: (e) => estimatedAge(asShipped(e)),
  },
];

interface Sample {
  file: string;
  /** Undefined for celeba-dev (adults of unknown age). */
  age?: number;
  /** Both networks on the photo's largest face; undefined when no face was found. */
  estimates?: Required<AgeEstimates>;
}
type AgedSample = Sample & { age: number };

function bandOf(age: number): BandName {
  return BANDS.find((b) => age >= b.min && age <= b.max)!.name;
}

function readLabels(): { file: string; age: number }[] {
  const lines = readFileSync(path.join(ageDir, 'labels.csv'), 'utf8').trim().split(/\r?\n/).slice(1);
  return lines.map((line) => {
    const [file, age] = line.split(',');
    return { file: file!, age: Number(age) };
  });
}

/** The photo on a grey border of half its size on each side. */
async function padded(file: string): Promise<Buffer> {
  const image = sharp(path.join(ageDir, file));
  const { width = 0, height = 0 } = await image.metadata();
  const margin = Math.round(Math.max(width, height) / 2);
  return image
    .extend({
      top: margin,
      bottom: margin,
      left: margin,
      right: margin,
      background: { r: 128, g: 128, b: 128 },
    })
    .png()
    .toBuffer();
}

/**
 * Each photo's largest face (found by the engine, as an upload is) with both networks' estimates, cached in
 * bench/results/<name>-estimates.json.
 */
async function estimateAll<T extends { file: string }>(
  name: string,
  photos: T[],
  bytesOf: (photo: T) => Promise<Buffer>,
): Promise<(T & Sample)[]> {
  const cacheFile = path.join(resultsDir, `${name}-estimates.json`);
  if (existsSync(cacheFile) && !process.env.AGE_BENCH_FRESH) {
    console.log(`(estimates read from ${path.relative(repoRoot, cacheFile)}; AGE_BENCH_FRESH=1 recomputes)`);
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as (T & Sample)[];
  }
  const engine = await createFaceEngine({ threads });
  const estimator = await loadAgeEstimator();
  const samples: (T & Sample)[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: threads * 2 }, async () => {
        for (;;) {
          const photo = photos[next++];
          if (!photo) return;
          const bytes = await bytesOf(photo);
          const [largest] = (await engine.analyze(bytes, { minFaceSize: 40 })).faces;
          const estimates = largest && (await bothEstimates(estimator, bytes, largest.box));
          samples.push({ ...photo, estimates });
          if (samples.length % 100 === 0) console.log(`  ${samples.length}/${photos.length} photos`);
        }
      }),
    );
  } finally {
    await engine.close();
  }
  samples.sort((a, b) => a.file.localeCompare(b.file));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(samples));
  return samples;
}

async function bothEstimates(
  estimator: AgeEstimator,
  bytes: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<Required<AgeEstimates>> {
  const [estimates] = await estimator.estimate(await decodeImage(bytes), [box], { bothNetworks: true });
  return { ageGenderNet: estimates!.ageGenderNet, faceresDeep: estimates!.faceresDeep! };
}

/**
 * What skipping FaceRes-deep where AgeGenderNet says SECOND_ESTIMATE_BELOW_AGE or more does: the share of
 * faces spared it, and the gate's decisions it changes (against both networks on every face).
 */
function skipEffect(samples: Sample[]): { spared: number; changed: number; closestMean: number } {
  const found = samples.flatMap((s) => (s.estimates ? [s.estimates] : []));
  const spared = found.filter((e) => !needsSecondEstimate(e.ageGenderNet));
  return {
    spared: spared.length / found.length,
    changed: found.filter((e) => isPossibleMinor(e) !== isPossibleMinor(asShipped(e))).length,
    closestMean: Math.min(...spared.map(estimatedAge)),
  };
}

function reportSkip(ageDev: AgedSample[], celeba: Sample[] | undefined): void {
  console.log(
    `
FaceRes-deep only where AgeGenderNet says under ${SECOND_ESTIMATE_BELOW_AGE} (shipped), against both networks on every face:`,
  );
  const minors = ageDev.filter((s) => s.age < 18 && s.estimates);
  const highestMinor = Math.max(...minors.map((s) => s.estimates!.ageGenderNet));
  console.log(`  age-dev: highest AgeGenderNet estimate of a minor ${highestMinor.toFixed(1)}`);
  for (const band of BANDS) {
    const { spared, changed } = skipEffect(ageDev.filter((s) => bandOf(s.age) === band.name));
    console.log(
      `  age-dev ${band.name}: FaceRes-deep spared on ${pct(spared)}, decisions changed ${changed}`,
    );
  }
  const all = skipEffect(ageDev);
  console.log(
    `  age-dev all: spared ${pct(all.spared)}, decisions changed ${all.changed}, lowest mean of both among the spared ${all.closestMean.toFixed(1)}`,
  );
  if (!celeba) return;
  const inTheWild = skipEffect(celeba);
  const flagged = celeba.filter((s) => s.estimates && isPossibleMinor(s.estimates)).length;
  const found = celeba.filter((s) => s.estimates).length;
  console.log(
    `  celeba-dev (${found} in-the-wild photos of adults with a face): spared ${pct(inTheWild.spared)}, decisions changed ${inTheWild.changed}, ` +
      `lowest mean of both among the spared ${inTheWild.closestMean.toFixed(1)}; flagged as possible minors ${flagged} (${pct(flagged / found)})`,
  );
}

/** Share of `values` strictly below `threshold`. */
function shareBelow(values: number[], threshold: number): number {
  return values.filter((v) => v < threshold).length / values.length;
}

/** The lowest threshold (0.1-year steps) that flags the required share of every minor band. */
function lowestThreshold(byBand: Map<BandName, number[]>): number {
  let threshold = 0;
  for (const [band, share] of Object.entries(REQUIRED_FLAGGED) as [BandName, number][]) {
    const sorted = [...byBand.get(band)!].sort((a, b) => a - b);
    const needed = Math.ceil(share * sorted.length);
    threshold = Math.max(threshold, Math.floor(sorted[needed - 1]! * 10 + 1) / 10);
  }
  return threshold;
}

/** Deterministic pseudo-random numbers for the bootstrap (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 5th and 95th percentile of the threshold over 1000 resamplings of each band. */
function bootstrapRange(byBand: Map<BandName, number[]>): [number, number] {
  const next = random(13);
  const thresholds: number[] = [];
  for (let r = 0; r < 1000; r++) {
    const resampled = new Map<BandName, number[]>();
    for (const [band, values] of byBand) {
      resampled.set(
        band,
        values.map(() => values[Math.floor(next() * values.length)]!),
      );
    }
    thresholds.push(lowestThreshold(resampled));
  }
  thresholds.sort((a, b) => a - b);
  return [thresholds[50]!, thresholds[949]!];
}

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

async function timeEstimates(samples: Sample[]): Promise<void> {
  // CPU per face of the age estimate alone (face + mirror), on this thread: both networks, and as shipped
  // (FaceRes-deep skipped where AgeGenderNet says SECOND_ESTIMATE_BELOW_AGE or more).
  const estimator = await loadAgeEstimator();
  const files = samples.slice(0, 24).map((s) => s.file);
  const images = await Promise.all(files.map(async (f) => decodeImage(await padded(f))));
  const boxOf = (w: number, h: number) => ({ x: w / 4, y: h / 4, width: w / 2, height: h / 2 });
  await estimator.estimate(images[0]!, [boxOf(images[0]!.width, images[0]!.height)], { bothNetworks: true });
  for (const bothNetworks of [true, false]) {
    const start = process.cpuUsage();
    const wall = performance.now();
    let spared = 0;
    for (const image of images) {
      const [e] = await estimator.estimate(image, [boxOf(image.width, image.height)], { bothNetworks });
      if (e!.faceresDeep === undefined) spared++;
    }
    const cpu = process.cpuUsage(start);
    const cpuMs = (cpu.user + cpu.system) / 1000 / images.length;
    const wallMs = (performance.now() - wall) / images.length;
    console.log(
      `\nAge estimate per face, ${bothNetworks ? 'both networks' : `as shipped (FaceRes-deep spared on ${spared} of them)`}, face + mirror, one thread: ` +
        `${cpuMs.toFixed(0)} ms CPU, ${wallMs.toFixed(0)} ms wall (${images.length} faces, load average ${loadAverage()}).`,
    );
  }
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!;
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(ageDir, 'labels.csv'))) {
    console.log(`age-dev not found at ${ageDir} (set FACES_AGE_DIR): nothing to measure.`);
    return;
  }
  const started = performance.now();
  const samples = await estimateAll('age-dev', readLabels(), (label) => padded(label.file));
  const found = samples.filter((s): s is Required<AgedSample> => s.estimates !== undefined);
  console.log(
    `\nage-dev: ${samples.length} photos, a face found in ${found.length}` +
      ` (${((performance.now() - started) / 1000).toFixed(0)} s, ${threads} worker threads; MIN_QUERY_FACE_PX ${MIN_QUERY_FACE_PX}).`,
  );
  const missedByBand = BANDS.map(
    (b) => samples.filter((s) => !s.estimates && bandOf(s.age) === b.name).length,
  );
  if (found.length < samples.length) console.log(`No face found, per band: ${missedByBand.join(' / ')}`);

  console.log(
    '\n| estimator | MAE 0–12 / 13–17 / 18–24 / 25+ (years) | threshold flagging ≥ 99 % of 0–12 and ≥ 98 % of 13–17 (bootstrap 5–95 %) | then flagged 0–12 / 13–17 / 18–24 / 25+ | at the shipped < ' +
      `${POSSIBLE_MINOR_BELOW_AGE}: flagged 0–12 / 13–17 / 18–24 / 25+ |`,
  );
  console.log('|---|---|---|---|---|');
  for (const candidate of CANDIDATES) {
    const byBand = new Map<BandName, number[]>(BANDS.map((b) => [b.name, []]));
    const errors = new Map<BandName, number[]>(BANDS.map((b) => [b.name, []]));
    for (const s of found) {
      const estimate = candidate.age(s.estimates);
      byBand.get(bandOf(s.age))!.push(estimate);
      errors.get(bandOf(s.age))!.push(Math.abs(estimate - s.age));
    }
    const mae = BANDS.map((b) => {
      const e = errors.get(b.name)!;
      return (e.reduce((sum, v) => sum + v, 0) / e.length).toFixed(1);
    });
    const threshold = lowestThreshold(byBand);
    const [low, high] = bootstrapRange(byBand);
    const flagged = (t: number) => BANDS.map((b) => pct(shareBelow(byBand.get(b.name)!, t))).join(' / ');
    console.log(
      `| ${candidate.name} | ${mae.join(' / ')} | < ${threshold.toFixed(1)} (${low.toFixed(1)}–${high.toFixed(1)}) | ${flagged(threshold)} | ${flagged(POSSIBLE_MINOR_BELOW_AGE)} |`,
    );
  }
  console.log(
    '\nA face with no detection cannot be searched, so it is neither flagged nor let through; the shares count found faces.',
  );
  const celeba = existsSync(celebaDir)
    ? await estimateAll(
        'celeba-dev',
        listCeleba(celebaDir).map((p) => ({ file: `${p.label}/${p.file}` })),
        (p) => readFile(path.join(celebaDir, p.file)),
      )
    : (console.log(
        `\n(no celeba-dev at ${celebaDir}, set FACES_CELEBA_DIR: the skip is measured on age-dev only)`,
      ),
      undefined);
  reportSkip(samples, celeba);
  await timeEstimates(samples);
}

await main();
