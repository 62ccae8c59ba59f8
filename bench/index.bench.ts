// Face index benchmark: build time, memory per vector, query latency and recall@10 against exact
// search, on synthetic clustered face descriptors of the shipped model's size (see bench/lib/synthetic-face-vectors.ts).
//
//   npm run bench:index                          both engines side by side on 100k and 1M faces
//   npm run bench:index -- --engine pgvector     one engine (usearch | pgvector | usearch,pgvector)
//   npm run bench:index -- --sizes 100000        quicker
//   npm run bench:index -- --sweep               usearch only, in detail: candidate counts, and other
//                                                quantisations and connectivities (--quantization i8
//                                                --connectivity 16: the shipped graph only)
//
// Both engines get the same descriptors and the same queries and are searched as the product searches
// them (FaceIndex.search: candidates, filter, exact re-rank, threshold), with their shipped settings.
// usearch: in this process, the full-precision vectors in memory (a database lookup adds its own time).
// pgvector: a PostgreSQL server with the vector extension (--database-url, else a throwaway cluster from
// /usr/lib/postgresql/*/bin, as the tests start), the candidates and exact scores in one query.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import pg from 'pg';
import { MetricKind, exactSearch } from 'usearch';
import { bruteForceSearch } from '../server/src/face/index/exact-rerank.ts';
import { DEFAULT_USEARCH_OPTIONS, UsearchFaceIndex } from '../server/src/face/index/usearch-face-index.ts';
import { PgvectorFaceIndex } from '../server/src/face/index/pgvector-face-index.ts';
import type {
  FaceIndex,
  FaceSearchOptions,
  FaceVectorEntry,
  FaceVectorLookup,
} from '../server/src/face/index/face-index.ts';
import type {
  FaceIndexQuantization,
  UsearchFaceIndexOptions,
} from '../server/src/face/index/usearch-face-index.ts';
import { generateFaceSet, generateQueries } from './lib/synthetic-face-vectors.ts';
import { benchPostgres, poolSqlClient } from './lib/pgvector-bench-server.ts';
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
    engine: { type: 'string', default: 'usearch,pgvector' },
    'database-url': { type: 'string' },
    clients: { type: 'string', default: '8' },
  },
});

/**
 * "A match" in the synthetic space: it is tuned like dlib's descriptor (photos of one person ≈ 0.9, different
 * people ≈ 0.5, see synthetic-face-vectors.ts), where 0.8 separates the two as the product's threshold does
 * for its own model. Searches at this threshold are the product's searches; their recall is the one that counts.
 */
const SYNTHETIC_MATCH_THRESHOLD = 0.8;
/** Hits a thresholded search returns at most (the product pages 100 results at a time). */
const MATCH_LIMIT = 100;

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
  index: Pick<FaceIndex, 'search'>,
  queries: Float32Array[],
  truth: Set<number>[],
  search: { limit: number; minSimilarity: number; filter?: (faceId: number) => boolean },
): Promise<{ p50: number; p95: number; p99: number; cpu: number; recall: number }> {
  const times: number[] = [];
  let found = 0;
  let expected = 0;
  // CPU time per query as well: on a shared machine the wall-clock tail mostly measures the others.
  const cpuBefore = process.cpuUsage();
  for (let q = 0; q < queries.length; q++) {
    const started = performance.now();
    const hits = await index.search(queries[q]!, search);
    times.push(performance.now() - started);
    found += hits.filter((hit) => truth[q]!.has(hit.faceId)).length;
    expected += truth[q]!.size;
  }
  const cpuUsed = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return {
    cpu: (cpuUsed.user + cpuUsed.system) / 1000 / queries.length,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    p99: percentile(times, 0.99),
    // Share of the expected faces returned (every query expects its exact top `limit`, or fewer: its matches).
    recall: expected === 0 ? 1 : found / expected,
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

// ------------------------------------------------------------------------ engines side by side

const engines = args.engine.split(',').map((name) => name.trim());
for (const engine of engines) {
  if (engine !== 'usearch' && engine !== 'pgvector')
    throw new Error(`--engine: usearch or pgvector, not ${engine}`);
}
const clientCount = Number(args.clients);

interface EngineRow {
  engine: string;
  build: string;
  memory: string;
  recall: number;
  /** Share of the faces at or above the threshold that the thresholded search returns. */
  matchRecall: number;
  single: { p50: number; p95: number };
  concurrent: { p50: number; p95: number; perSecond: number };
  filtered: { recall: number; p50: number; p95: number };
}

/** `clients` searches in flight at once, as many API requests would be: latency of each, and throughput. */
async function measureConcurrent(
  index: Pick<FaceIndex, 'search'>,
  queries: Float32Array[],
  search: FaceSearchOptions,
  clients: number,
): Promise<{ p50: number; p95: number; perSecond: number }> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < queries.length) {
        const query = queries[next++]!;
        const begun = performance.now();
        await index.search(query, search);
        times.push(performance.now() - begun);
      }
    }),
  );
  const elapsed = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    perSecond: (queries.length / elapsed) * 1000,
  };
}

interface Workload {
  count: number;
  entries: FaceVectorEntry[];
  lookup: FaceVectorLookup;
  queries: Float32Array[];
  truth: Set<number>[];
  keptTruth: Set<number>[];
  /** Each query's faces at or above the match threshold (within its exact top MATCH_LIMIT). */
  matches: Set<number>[];
}

const keptByFilter = (faceId: number) => faceId % 10 === 0;

async function measureEngine(
  engine: string,
  index: Pick<FaceIndex, 'search'>,
  work: Workload,
  build: string,
  memory: string,
): Promise<EngineRow> {
  const plain = { limit: 10, minSimilarity: -1 };
  const single = await measureSearch(index, work.queries, work.truth, plain);
  const concurrent = await measureConcurrent(index, work.queries, plain, clientCount);
  const filtered = await measureSearch(index, work.queries, work.keptTruth, {
    ...plain,
    filter: keptByFilter,
  });
  // As the product searches: the threshold, and every hit above it.
  const matches = await measureSearch(index, work.queries, work.matches, {
    limit: MATCH_LIMIT,
    minSimilarity: SYNTHETIC_MATCH_THRESHOLD,
  });
  const row = {
    engine,
    build,
    memory,
    recall: single.recall,
    matchRecall: matches.recall,
    single,
    concurrent,
    filtered,
  };
  console.log(`${engine}: ${JSON.stringify(row)}`);
  return row;
}

async function benchUsearch(work: Workload): Promise<EngineRow> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'face-index-bench-'));
  try {
    const file = path.join(tmp, 'faces.usearch');
    const built = await buildInChild(work.count, shipped, file);
    const fileBytes = fs.statSync(file).size / work.count;
    const index = UsearchFaceIndex.open(file, shipped, work.lookup, 'load');
    return await measureEngine(
      `usearch (${describe(shipped)}, ${DEFAULT_USEARCH_OPTIONS.search.minCandidates} candidates)`,
      index,
      work,
      `${seconds(built.buildMs)} (${Math.round(work.count / (built.buildMs / 1000))}/s)`,
      `API process RSS +${built.bytesPerVector.toFixed(0)} B/face (${((built.bytesPerVector * work.count) / 2 ** 20).toFixed(0)} MiB); snapshot ${fileBytes.toFixed(0)} B/face`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function benchPgvector(work: Workload): Promise<EngineRow> {
  const server = await benchPostgres(args['database-url']);
  const { url } = server;
  const pool = new pg.Pool({ connectionString: url, max: clientCount + 1 });
  try {
    const db = poolSqlClient(pool);
    const table = `bench_face_vectors_${work.count}`;
    const index = new PgvectorFaceIndex(db, { dimensions, table });
    await db.query(`drop table if exists ${table}`);
    await index.createSchema();
    let started = performance.now();
    for (let start = 0; start < work.count; start += 10_000) {
      await index.add(work.entries.slice(start, start + 10_000));
    }
    const loadMs = performance.now() - started;
    started = performance.now();
    await index.createIndex();
    const indexMs = performance.now() - started;
    const { rows } = await db.query<{ index_bytes: string; table_bytes: string; shared_buffers: string }>(
      `select pg_relation_size('${table}_hnsw') as index_bytes, pg_total_relation_size('${table}') - ` +
        `pg_relation_size('${table}_hnsw') as table_bytes, current_setting('shared_buffers') as shared_buffers`,
    );
    const indexBytes = Number(rows[0]!.index_bytes) / work.count;
    const tableBytes = Number(rows[0]!.table_bytes) / work.count;
    // One untimed pass reads the index into shared buffers: the figures are those of a warm server.
    for (const query of work.queries) await index.search(query, { limit: 10, minSimilarity: -1 });
    return await measureEngine(
      `pgvector (HNSW vector_cosine_ops m=32 efConstruction=64, ${await index.minCandidates()} candidates)`,
      index,
      work,
      `${seconds(loadMs + indexMs)} (load ${seconds(loadMs)}, HNSW ${seconds(indexMs)})`,
      `HNSW ${indexBytes.toFixed(0)} B/face (${((indexBytes * work.count) / 2 ** 20).toFixed(0)} MiB), table ${tableBytes.toFixed(0)} B/face; shared_buffers ${rows[0]!.shared_buffers}`,
    );
  } finally {
    await pool.end();
    server.stop();
  }
}

async function compareEngines(count: number): Promise<EngineRow[]> {
  console.log(
    `\n## ${count.toLocaleString('en')} faces × ${dimensions}-d, ${queryCount} queries, ${engines.join(' and ')}`,
  );
  let started = performance.now();
  const set = generateFaceSet({ count, dimensions });
  const generated = generateQueries(set, queryCount);
  const queries = Array.from({ length: queryCount }, (_, q) =>
    generated.vectors.subarray(q * dimensions, (q + 1) * dimensions),
  );
  const entries: FaceVectorEntry[] = Array.from({ length: count }, (_, i) => ({
    faceId: i + 1,
    vector: set.vectors.subarray(i * dimensions, (i + 1) * dimensions),
  }));
  console.log(`data generated in ${seconds(performance.now() - started)}`);
  started = performance.now();
  // One exhaustive search per query set: each query's exact best faces (id and similarity; cosine
  // distance = 1 − similarity), from which come its top 10 and its matches (those at or above the threshold).
  const exactBest = (vectors: Float32Array, idOf: (row: number) => number, k: number) => {
    const exact = exactSearch(vectors, generated.vectors, dimensions, k, MetricKind.Cos, 0);
    return queries.map((_, q) => {
      const { keys, distances } = 'get' in exact ? exact.get(q) : exact;
      return Array.from(keys, (key, i) => ({ faceId: idOf(Number(key)), similarity: 1 - distances[i]! }));
    });
  };
  const idsOf = (hits: { faceId: number }[]) => new Set(hits.map((hit) => hit.faceId));
  const best = exactBest(set.vectors, (row) => row + 1, MATCH_LIMIT);
  const truth = best.map((hits) => idsOf(hits.slice(0, 10)));
  const matches = best.map((hits) =>
    idsOf(hits.filter((hit) => hit.similarity >= SYNTHETIC_MATCH_THRESHOLD)),
  );
  const matchCount = matches.reduce((total, found) => total + found.size, 0);
  console.log(
    `${matchCount} faces at or above the threshold ${SYNTHETIC_MATCH_THRESHOLD} over ${queryCount} queries ` +
      `(${matches.filter((found) => found.size === MATCH_LIMIT).length} queries have ${MATCH_LIMIT} or more)`,
  );
  const kept = entries.filter((entry) => keptByFilter(entry.faceId));
  const keptVectors = new Float32Array(kept.length * dimensions);
  kept.forEach((entry, i) => keptVectors.set(entry.vector, i * dimensions));
  const keptTruth = exactBest(keptVectors, (row) => kept[row]!.faceId, 10).map(idsOf);
  console.log(
    `exact top-10 (all faces, and the 10 % the filter keeps) in ${seconds(performance.now() - started)}`,
  );

  const work: Workload = {
    count,
    entries,
    lookup: flatLookup(set.vectors),
    queries,
    truth,
    keptTruth,
    matches,
  };
  const rows: EngineRow[] = [];
  for (const engine of engines)
    rows.push(engine === 'usearch' ? await benchUsearch(work) : await benchPgvector(work));
  return rows;
}

function printComparison(results: { count: number; rows: EngineRow[] }[]): void {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(
    `\n| faces | engine | build | memory | recall@10 | matches ≥ ${SYNTHETIC_MATCH_THRESHOLD} found | p50 / p95, 1 client | p50 / p95, ${clientCount} clients (queries/s) | 10 % filter: recall@10, p50 / p95 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { count, rows } of results) {
    for (const row of rows) {
      console.log(
        `| ${count.toLocaleString('en')} | ${row.engine} | ${row.build} | ${row.memory} | ${row.recall.toFixed(3)} | ${row.matchRecall.toFixed(4)} | ` +
          `${ms(row.single.p50)} / ${ms(row.single.p95)} | ${ms(row.concurrent.p50)} / ${ms(row.concurrent.p95)} ` +
          `(${row.concurrent.perSecond.toFixed(0)}) | ${row.filtered.recall.toFixed(3)}, ${ms(row.filtered.p50)} / ${ms(row.filtered.p95)} |`,
      );
    }
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
if (args.sweep) {
  for (const size of sizes) await benchSize(size);
} else {
  const results: { count: number; rows: EngineRow[] }[] = [];
  for (const count of sizes) results.push({ count, rows: await compareEngines(count) });
  printComparison(results);
}
console.log(
  `\nload average at the end: ${os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}`,
);
