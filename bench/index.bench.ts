// Face index benchmark: build time, memory per vector, query latency and recall@10 against exact
// search, on synthetic clustered face descriptors of the shipped model's size (see bench/lib/synthetic-face-vectors.ts).
//
//   npm run bench:index                          100k and 1M faces, the shipped settings
//   npm run bench:index -- --sizes 100000        quicker
//   npm run bench:index -- --sweep               also tries other quantisations and connectivities
//
// Latency is one query at a time through UsearchFaceIndex.search (HNSW candidates + exact re-rank
// + threshold), with the full-precision vectors in memory: a database lookup adds its own time.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { MetricKind, exactSearch } from 'usearch';
import { bruteForceSearch } from '../server/src/face/index/exact-rerank.ts';
import { DEFAULT_USEARCH_OPTIONS, UsearchFaceIndex } from '../server/src/face/index/usearch-face-index.ts';
import type { FaceVectorEntry, FaceVectorLookup } from '../server/src/face/index/face-index.ts';
import type {
  FaceIndexQuantization,
  UsearchFaceIndexOptions,
} from '../server/src/face/index/usearch-face-index.ts';
import { generateFaceSet, generateQueries } from './lib/synthetic-face-vectors.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    queries: { type: 'string', default: '1000' },
    dimensions: { type: 'string', default: String(PIPELINE_CATALOG[SHIPPED_PIPELINE].dimensions) },
    candidates: { type: 'string', default: '' },
    sweep: { type: 'boolean', default: false },
    quantization: { type: 'string', default: '' },
    connectivity: { type: 'string', default: '' },
    // Internal: run in a child process to build one index and measure its memory.
    'build-probe': { type: 'string' },
  },
});

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const sizes = args.sizes.split(',').map(Number);
const queryCount = Number(args.queries);
const dimensions = Number(args.dimensions);
const defaultCandidates = DEFAULT_USEARCH_OPTIONS.search.minCandidates;
const candidateCounts = args.candidates
  ? args.candidates.split(',').map(Number)
  : [...new Set([50, 100, 150, defaultCandidates, 300])].sort((a, b) => a - b);
const shipped: UsearchFaceIndexOptions = { dimensions };
const quantizations = (
  args.quantization || (args.sweep ? 'f32,f16,i8' : DEFAULT_USEARCH_OPTIONS.quantization)
)
  .split(',')
  .map((name) => name as FaceIndexQuantization);
const connectivities = (
  args.connectivity || (args.sweep ? '8,16,32' : String(DEFAULT_USEARCH_OPTIONS.connectivity))
)
  .split(',')
  .map(Number);
const configs: UsearchFaceIndexOptions[] = quantizations.flatMap((quantization) =>
  connectivities.map((connectivity) => ({ dimensions, quantization, connectivity })),
);

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The re-rank lookup, over the flat array of vectors (face id = row + 1), like a database with
 * every row cached. */
function flatLookup(vectors: Float32Array): FaceVectorLookup {
  return {
    async vectorsByIds(faceIds) {
      const found = new Map<number, Float32Array>();
      for (const faceId of faceIds)
        found.set(faceId, vectors.subarray((faceId - 1) * dimensions, faceId * dimensions));
      return found;
    },
  };
}

function describe(options: UsearchFaceIndexOptions): string {
  const quantization = options.quantization ?? DEFAULT_USEARCH_OPTIONS.quantization;
  const connectivity = options.connectivity ?? DEFAULT_USEARCH_OPTIONS.connectivity;
  const expansionAdd = options.expansionAdd ?? DEFAULT_USEARCH_OPTIONS.expansionAdd;
  return `${quantization} M=${connectivity} efAdd=${expansionAdd}`;
}

interface BuildResult {
  buildMs: number;
  bytesPerVector: number;
}

/**
 * Builds in a fresh process: memory freed by earlier steps stays in this process's allocator and
 * would hide the index's growth. The child saves the index; this process loads it to search.
 */
function buildInChild(count: number, config: UsearchFaceIndexOptions, file: string): Promise<BuildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1]!, ['--build-probe', JSON.stringify({ count, config, file })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => resolve(message as BuildResult));
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`build probe exited with ${code}`));
    });
  });
}

async function buildProbe(probe: {
  count: number;
  config: UsearchFaceIndexOptions;
  file: string;
}): Promise<void> {
  const set = generateFaceSet({ count: probe.count, dimensions });
  const entries: FaceVectorEntry[] = Array.from({ length: probe.count }, (_, i) => ({
    faceId: i + 1,
    vector: set.vectors.subarray(i * dimensions, (i + 1) * dimensions),
  }));
  collectGarbage();
  const rssBefore = rssMiB();
  const index = UsearchFaceIndex.create(probe.config, flatLookup(set.vectors));
  const started = performance.now();
  await index.add(entries);
  const buildMs = performance.now() - started;
  collectGarbage();
  const bytesPerVector = ((rssMiB() - rssBefore) * 2 ** 20) / probe.count;
  index.saveTo(probe.file);
  process.send!({ buildMs, bytesPerVector } satisfies BuildResult);
}

async function measureSearch(
  index: UsearchFaceIndex,
  queries: Float32Array[],
  truth: Set<number>[],
  search: { limit: number; minSimilarity: number; filter?: (faceId: number) => boolean },
): Promise<{ p50: number; p95: number; p99: number; cpu: number; recall: number }> {
  const times: number[] = [];
  let found = 0;
  // CPU time per query as well: on a shared machine the wall-clock tail mostly measures the others.
  const cpuBefore = process.cpuUsage();
  for (let q = 0; q < queries.length; q++) {
    const started = performance.now();
    const hits = await index.search(queries[q]!, search);
    times.push(performance.now() - started);
    found += hits.filter((hit) => truth[q]!.has(hit.faceId)).length;
  }
  const cpuUsed = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return {
    cpu: (cpuUsed.user + cpuUsed.system) / 1000 / queries.length,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    p99: percentile(times, 0.99),
    recall: found / (queries.length * search.limit),
  };
}

async function benchSize(count: number): Promise<void> {
  console.log(`\n## ${count.toLocaleString('en')} faces × ${dimensions}-d, ${queryCount} queries`);
  let started = performance.now();
  const set = generateFaceSet({ count, dimensions });
  const generated = generateQueries(set, queryCount);
  const queries = Array.from({ length: queryCount }, (_, q) =>
    generated.vectors.subarray(q * dimensions, (q + 1) * dimensions),
  );
  console.log(
    `data: ${set.identityCount.toLocaleString('en')} identities, generated in ${seconds(performance.now() - started)}`,
  );

  // Ground truth by exhaustive search (usearch's exact kernel, checked against ours on a few queries).
  started = performance.now();
  const exact = exactSearch(set.vectors, generated.vectors, dimensions, 10, MetricKind.Cos, 0);
  const truth = queries.map((_, q) => {
    const keys = 'get' in exact ? exact.get(q).keys : exact.keys;
    return new Set(Array.from(keys, (key) => Number(key) + 1));
  });
  const entries: FaceVectorEntry[] = Array.from({ length: count }, (_, i) => ({
    faceId: i + 1,
    vector: set.vectors.subarray(i * dimensions, (i + 1) * dimensions),
  }));
  for (let q = 0; q < 3; q++) {
    const ours = bruteForceSearch(entries, queries[q]!, { limit: 10, minSimilarity: -1 }).map(
      (hit) => hit.faceId,
    );
    if (!ours.every((faceId) => truth[q]!.has(faceId)))
      throw new Error(`exact searches disagree on query ${q}`);
  }
  console.log(`exact top-10 of every query in ${seconds(performance.now() - started)}`);

  const lookup = flatLookup(set.vectors);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'face-index-bench-'));
  try {
    for (const config of configs) {
      const file = path.join(tmp, 'faces.usearch');
      const built = await buildInChild(count, config, file);
      const fileBytes = fs.statSync(file).size / count;
      console.log(
        `\n${describe(config)}: build ${seconds(built.buildMs)} (${Math.round(count / (built.buildMs / 1000))}/s), ` +
          `memory ${built.bytesPerVector.toFixed(0)} B/vector (RSS growth), file ${fileBytes.toFixed(0)} B/vector`,
      );
      const index = UsearchFaceIndex.open(file, config, lookup, 'load');
      for (const candidates of candidateCounts) {
        const tuned = UsearchFaceIndex.open(
          file,
          { ...config, expansionSearch: candidates, search: { minCandidates: candidates, overfetch: 1 } },
          lookup,
          'view',
        );
        const result = await measureSearch(tuned, queries, truth, { limit: 10, minSimilarity: -1 });
        const marker = candidates === defaultCandidates ? '  ← shipped' : '';
        console.log(
          `  candidates ${String(candidates).padStart(4)}: recall@10 ${result.recall.toFixed(4)}, ` +
            `p50 ${result.p50.toFixed(2)} ms, p95 ${result.p95.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
            `CPU ${result.cpu.toFixed(2)} ms/query${marker}`,
        );
      }
      if (config === configs[0]) {
        // What the product does: a filter that keeps one face in ten (a source type), a threshold.
        const kept = Array.from({ length: Math.floor(count / 10) }, (_, i) => 10 * (i + 1));
        const keptVectors = new Float32Array(kept.length * dimensions);
        kept.forEach((faceId, i) => keptVectors.set(entries[faceId - 1]!.vector, i * dimensions));
        const keptExact = exactSearch(keptVectors, generated.vectors, dimensions, 10, MetricKind.Cos, 0);
        const keptTruth = queries.map((_, q) => {
          const keys = 'get' in keptExact ? keptExact.get(q).keys : keptExact.keys;
          return new Set(Array.from(keys, (key) => kept[Number(key)]!));
        });
        const filtered = await measureSearch(index, queries, keptTruth, {
          limit: 10,
          minSimilarity: -1,
          filter: (faceId) => faceId % 10 === 0,
        });
        console.log(
          `  filter keeping 10 %: recall@10 ${filtered.recall.toFixed(4)}, ` +
            `p50 ${filtered.p50.toFixed(2)} ms, p95 ${filtered.p95.toFixed(2)} ms, CPU ${filtered.cpu.toFixed(2)} ms/query`,
        );
        const thresholded = await measureSearch(index, queries, truth, { limit: 100, minSimilarity: 0.8 });
        console.log(
          `  threshold 0.8, limit 100: p50 ${thresholded.p50.toFixed(2)} ms, p95 ${thresholded.p95.toFixed(2)} ms, ` +
            `CPU ${thresholded.cpu.toFixed(2)} ms/query`,
        );
        for (const mode of ['view', 'load'] as const) {
          started = performance.now();
          UsearchFaceIndex.open(file, config, lookup, mode);
          console.log(`  open (${mode}): ${(performance.now() - started).toFixed(0)} ms`);
        }
      }
      fs.rmSync(file);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (args['build-probe']) {
  await buildProbe(JSON.parse(args['build-probe']) as Parameters<typeof buildProbe>[0]);
  process.exit(0);
}

console.log(
  `# face index benchmark: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ` +
    `load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}, shipped ${describe(shipped)} efSearch=${DEFAULT_USEARCH_OPTIONS.expansionSearch}`,
);
for (const size of sizes) await benchSize(size);
console.log(
  `\nload average at the end: ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`,
);
