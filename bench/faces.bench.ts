// Face pipeline benchmark, `npm run bench:faces`:
// - dev set (../shared/faces/dev, or FACES_DEV_DIR): verification, identification, group-photo detection and
//   speed for every candidate pipeline;
// - in the wild (../shared/faces/celeba-dev, or FACES_CELEBA_DIR): every same- and different-person pair
//   (≈ 2.4 million), TPR at FMR 1e-3…1e-6 with their thresholds, identification and the precision of
//   returned hits, also with FACES_BENCH_DISTRACTORS (default 100,000) synthetic distractors.
// FACES_BENCH_PIPELINES=a,b limits the candidates; FACES_BENCH_PARTS=dev or wild runs one part only;
// FACES_BENCH_RUNS sets the timing repetitions (default 5);
// FACES_BENCH_THREADS the worker threads for celeba-dev (default 1). Descriptors of celeba-dev are cached
// in bench/results/ (never committed).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createFaceEngine, type FaceEngine } from '../server/src/face/face-engine.ts';
import {
  isPipelineName,
  PIPELINE_CATALOG,
  type PipelineName,
  SHIPPED_PIPELINE,
} from '../server/src/face/pipeline/pipeline-catalog.ts';
import {
  MIN_INDEX_FACE_PX,
  MIN_QUERY_FACE_PX,
  SIMILARITY_THRESHOLD,
  similarity,
} from '../server/src/face/similarity.ts';
import {
  allPairs,
  bestThreshold,
  extremes,
  identification,
  type LabelledDescriptor,
  rocAuc,
  statsAt,
} from './lib/face-metrics.ts';
import { type CelebaCandidate, printCelebaResults, runCelebaBenchmark } from './lib/celeba-benchmark.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const devDir = process.env.FACES_DEV_DIR ?? path.resolve(repoRoot, '../shared/faces/dev');
const celebaDir = process.env.FACES_CELEBA_DIR ?? path.resolve(repoRoot, '../shared/faces/celeba-dev');
const distractorCount = Number(process.env.FACES_BENCH_DISTRACTORS ?? 100_000);

/** In-the-wild candidates: every single pipeline with its own descriptor, and score-level fusions. */
const CELEBA_CANDIDATES: CelebaCandidate[] = [
  { name: 'blazeface-mfn512', parts: [{ pipeline: 'blazeface-mfn512', weight: 1 }] },
  { name: 'blazeface-mfn512-flip', parts: [{ pipeline: 'blazeface-mfn512-flip', weight: 1 }] },
  { name: 'blazeface-dlib', parts: [{ pipeline: 'blazeface-dlib', weight: 1 }] },
  { name: 'human-faceres', parts: [{ pipeline: 'human-faceres', weight: 1 }] },
  {
    name: 'mfn512 + dlib, mean of cosines',
    parts: [
      { pipeline: 'blazeface-mfn512', weight: 0.5 },
      { pipeline: 'blazeface-dlib', weight: 0.5 },
    ],
  },
  {
    name: 'mfn512 + faceres, mean of cosines',
    parts: [
      { pipeline: 'blazeface-mfn512', weight: 0.5 },
      { pipeline: 'human-faceres', weight: 0.5 },
    ],
  },
];
const runs = Number(process.env.FACES_BENCH_RUNS ?? 5);
/** Faces visible in each group photo, counted by eye (bbt1…bbt5), to read the detection counts against. */
const VISIBLE_GROUP_FACES: Record<string, number> = {
  'bbt1.jpg': 4,
  'bbt2.jpg': 3,
  'bbt3.jpg': 5,
  'bbt4.jpg': 6,
  'bbt5.jpg': 5,
};

interface Photo {
  label: string;
  file: string;
  bytes: Buffer;
}

interface CandidateResult {
  /** Pairs of faces in the same demo photo: different people, photographed alike (hard negatives). */
  demo: { pairs: number; highest: number; acceptedAtShipped: number | null };
  name: PipelineName;
  found: number;
  auc: number;
  best: ReturnType<typeof bestThreshold>;
  extremes: ReturnType<typeof extremes>;
  atShipped: ReturnType<typeof statsAt> | null;
  rank1: number;
  recallAt5: number;
  groups: number[];
  msDev: number;
  msGroup: number;
  oneMp: Record<string, { wall: number; cpu: number; faces: number }>;
}

const isImage = (f: string) => /\.(jpe?g|png|bmp|tiff?|webp)$/i.test(f);

function loadDevSet(): { identities: Photo[]; groups: Photo[] } {
  const idDir = path.join(devDir, 'identities');
  const identities = readdirSync(idDir)
    .sort()
    .flatMap((label) =>
      readdirSync(path.join(idDir, label))
        .filter(isImage)
        .sort()
        .map((f) => ({ label, file: f, bytes: readFileSync(path.join(idDir, label, f)) })),
    );
  const groupDir = path.join(devDir, 'groups');
  const groups = existsSync(groupDir)
    ? readdirSync(groupDir)
        .filter(isImage)
        .sort()
        .map((f) => ({ label: 'group', file: f, bytes: readFileSync(path.join(groupDir, f)) }))
    : [];
  return { identities, groups };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wall and CPU time of analysing one image, median over `runs` (the worker's CPU counts: same process). */
async function timeAnalysis(engine: FaceEngine, bytes: Buffer, minFaceSize: number) {
  const walls: number[] = [];
  const cpus: number[] = [];
  let faces = 0;
  for (let i = 0; i < runs; i++) {
    const cpu0 = cpuMs();
    const t0 = performance.now();
    faces = (await engine.analyze(bytes, { minFaceSize })).faces.length;
    walls.push(performance.now() - t0);
    cpus.push(cpuMs() - cpu0);
  }
  return { wall: median(walls), cpu: median(cpus), faces };
}

/**
 * face-api's demo photos (node_modules), 960 px wide: 22 faces of different people, 3 to 5 per photo. Faces in
 * one photo share camera, light and often ethnicity, so their pairs are hard different-person pairs that the
 * dev set (one TV cast) lacks.
 */
function demoPhotos(): Promise<Buffer[]> {
  const dir = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api')),
    '..',
    'demo',
  );
  return Promise.all(
    [1, 2, 3, 4, 5, 6].map((n) =>
      sharp(path.join(dir, `sample${n}.jpg`))
        .resize(960)
        .jpeg({ quality: 90 })
        .toBuffer(),
    ),
  );
}

/** 1000×1000 JPEGs: a group photo (several faces) and a portrait (one face) of the dev set. */
async function oneMegapixelPhotos(identities: Photo[], groups: Photo[]): Promise<Record<string, Buffer>> {
  const make = (bytes: Buffer) =>
    sharp(bytes).resize(1000, 1000, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer();
  const photos: Record<string, Buffer> = {};
  const group = groups.find((g) => g.file === 'bbt4.jpg') ?? groups[0];
  if (group) photos[`group ${group.file}`] = await make(group.bytes);
  if (identities[0]) photos[`portrait ${identities[0].file}`] = await make(identities[0].bytes);
  return photos;
}

async function evaluate(
  name: PipelineName,
  identities: Photo[],
  groups: Photo[],
  oneMp: Record<string, Buffer>,
  demoPhotos: Buffer[],
): Promise<CandidateResult> {
  const engine = await createFaceEngine({ pipeline: name, threads: 1 });
  try {
    // The first run of each network shape compiles WASM kernels; keep that out of the timings.
    await engine.analyze((groups[0] ?? identities[0]!).bytes);
    const items: LabelledDescriptor[] = [];
    const devTimes: number[] = [];
    for (const photo of identities) {
      const t0 = performance.now();
      const { faces } = await engine.analyze(photo.bytes);
      devTimes.push(performance.now() - t0);
      // Identity photos show one person; when a detector returns more, the largest face is that person.
      items.push({ label: photo.label, descriptor: faces[0]?.descriptor ?? null });
    }
    const groupCounts: number[] = [];
    const groupTimes: number[] = [];
    for (const photo of groups) {
      const t0 = performance.now();
      const { faces } = await engine.analyze(photo.bytes);
      groupTimes.push(performance.now() - t0);
      groupCounts.push(faces.length);
    }
    const timings: CandidateResult['oneMp'] = {};
    for (const [label, bytes] of Object.entries(oneMp)) {
      timings[`${label}, query (≥${MIN_QUERY_FACE_PX}px)`] = await timeAnalysis(
        engine,
        bytes,
        MIN_QUERY_FACE_PX,
      );
      timings[`${label}, index (≥${MIN_INDEX_FACE_PX}px)`] = await timeAnalysis(
        engine,
        bytes,
        MIN_INDEX_FACE_PX,
      );
    }
    const pairs = allPairs(items);
    const shipped = PIPELINE_CATALOG[SHIPPED_PIPELINE];
    const sameSpace = PIPELINE_CATALOG[name].dimensions === shipped.dimensions;
    const demoScores: number[] = [];
    for (const photo of demoPhotos) {
      const { faces } = await engine.analyze(photo);
      for (let i = 0; i < faces.length; i++) {
        for (let j = i + 1; j < faces.length; j++)
          demoScores.push(similarity(faces[i]!.descriptor, faces[j]!.descriptor));
      }
    }
    return {
      name,
      found: items.filter((i) => i.descriptor).length,
      auc: rocAuc(pairs),
      best: bestThreshold(pairs),
      extremes: extremes(pairs),
      atShipped: sameSpace ? statsAt(pairs, SIMILARITY_THRESHOLD) : null,
      ...identification(items),
      groups: groupCounts,
      msDev: devTimes.reduce((a, b) => a + b, 0) / devTimes.length,
      msGroup: groupTimes.reduce((a, b) => a + b, 0) / Math.max(1, groupTimes.length),
      oneMp: timings,
      demo: {
        pairs: demoScores.length,
        highest: Math.max(...demoScores),
        acceptedAtShipped: sameSpace ? demoScores.filter((x) => x >= SIMILARITY_THRESHOLD).length : null,
      },
    };
  } finally {
    await engine.close();
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function report(results: CandidateResult[], identities: Photo[], groups: Photo[]): void {
  const positives = allPairs(identities.map((p) => ({ label: p.label, descriptor: null }))).filter(
    (p) => p.same,
  );
  const pairCount = (identities.length * (identities.length - 1)) / 2;
  const visible = groups.map((g) => VISIBLE_GROUP_FACES[g.file] ?? '?').join('/');
  console.log(
    `\nDev set: ${identities.length} photos of ${new Set(identities.map((p) => p.label)).size} identities ` +
      `(${positives.length} same-person and ${pairCount - positives.length} different-person pairs), ` +
      `${groups.length} group photos (visible faces ${visible}).`,
  );
  console.log(
    `Shipped pipeline: ${SHIPPED_PIPELINE}; shipped threshold: cosine ≥ ${SIMILARITY_THRESHOLD}.\n`,
  );
  console.log(
    '| pipeline | dims | faces found | ROC AUC | best pair acc. (threshold) | acc. at shipped thr. (TPR / FPR) | rank-1 | recall@5 | group faces | ms/img dev | ms/img groups |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const at = r.atShipped
      ? `${pct(r.atShipped.accuracy)} (${pct(r.atShipped.tpr)} / ${pct(r.atShipped.fpr)})`
      : 'n/a (other space)';
    console.log(
      `| ${r.name} | ${PIPELINE_CATALOG[r.name].dimensions} | ${r.found}/${identities.length} | ${r.auc.toFixed(4)} | ` +
        `${pct(r.best.accuracy)} (${r.best.threshold.toFixed(3)}) | ${at} | ${pct(r.rank1)} | ${pct(r.recallAt5)} | ` +
        `${r.groups.join('/')} | ${r.msDev.toFixed(0)} | ${r.msGroup.toFixed(0)} |`,
    );
  }
  console.log(`\n1000×1000 photo, median of ${runs} runs (wall ms / CPU ms of the process / faces):\n`);
  const labels = Object.keys(results[0]?.oneMp ?? {});
  console.log(`| pipeline | ${labels.join(' | ')} |`);
  console.log(`|---|${labels.map(() => '---|').join('')}`);
  for (const r of results) {
    const cells = labels.map((l) => {
      const t = r.oneMp[l]!;
      return `${t.wall.toFixed(0)} / ${t.cpu.toFixed(0)} / ${t.faces}`;
    });
    console.log(`| ${r.name} | ${cells.join(' | ')} |`);
  }
  console.log(
    `\nHard different-person pairs: faces in the same face-api demo photo (${results[0]?.demo.pairs ?? 0} pairs ` +
      'for the shipped pipeline):\n',
  );
  console.log('| pipeline | pairs | highest similarity | accepted at the shipped threshold |');
  console.log('|---|---|---|---|');
  for (const r of results) {
    const accepted =
      r.demo.acceptedAtShipped === null ? 'n/a (other space)' : String(r.demo.acceptedAtShipped);
    console.log(`| ${r.name} | ${r.demo.pairs} | ${r.demo.highest.toFixed(3)} | ${accepted} |`);
  }
  for (const r of results) {
    const b = r.best;
    console.log(
      `\n${r.name}: best accuracy ${pct(b.accuracy)} for cosine thresholds in (${b.low.toFixed(4)}, ${b.high.toFixed(4)}]; ` +
        `midpoint ${b.threshold.toFixed(4)}: TPR ${pct(b.tpr)}, FPR ${pct(b.fpr)}. Lowest same-person pair ` +
        `${r.extremes.lowestSame.toFixed(4)}, highest different-person pair ${r.extremes.highestDifferent.toFixed(4)}.`,
    );
  }
}

async function runDevSet(requested: PipelineName[]): Promise<void> {
  if (!existsSync(path.join(devDir, 'identities'))) {
    console.log(
      `Dev-set part skipped: no dev set at ${devDir} (expected identities/<name>/*.png and groups/*.jpg). ` +
        'Set FACES_DEV_DIR to its location.',
    );
    return;
  }
  const { identities, groups } = loadDevSet();
  const oneMp = await oneMegapixelPhotos(identities, groups);
  const demo = await demoPhotos();
  console.log(
    `Face benchmark on ${devDir}; ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)} ` +
      '(other processes slow the wall-clock times; CPU ms are less affected).',
  );
  const results: CandidateResult[] = [];
  for (const name of requested) {
    process.stdout.write(`  ${name}… `);
    const t0 = performance.now();
    results.push(await evaluate(name, identities, groups, oneMp, demo));
    console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  report(results, identities, groups);
}

async function runInTheWild(requested: PipelineName[]): Promise<void> {
  const candidates = CELEBA_CANDIDATES.filter((c) => c.parts.every((p) => requested.includes(p.pipeline)));
  const results = await runCelebaBenchmark({
    dir: celebaDir,
    cacheDir: path.join(repoRoot, 'bench', 'results'),
    candidates,
    shipped: { pipeline: SHIPPED_PIPELINE, threshold: SIMILARITY_THRESHOLD },
    distractors: distractorCount,
  });
  if (!results) {
    console.log(
      `In-the-wild part skipped: no celeba-dev set at ${celebaDir}. Set FACES_CELEBA_DIR to its location.`,
    );
    return;
  }
  printCelebaResults(results, celebaDir);
}

async function main(): Promise<void> {
  const requested = (process.env.FACES_BENCH_PIPELINES ?? Object.keys(PIPELINE_CATALOG).join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = requested.filter((n) => !isPipelineName(n));
  if (unknown.length > 0) throw new Error(`Unknown pipelines: ${unknown.join(', ')}`);
  const pipelines = requested.filter(isPipelineName);
  if (process.env.FACES_BENCH_PARTS !== 'wild') await runDevSet(pipelines);
  if (process.env.FACES_BENCH_PARTS !== 'dev') await runInTheWild(pipelines);
  console.log(`\nLoad average at the end: ${os.loadavg()[0]!.toFixed(1)}.`);
}

await main();
