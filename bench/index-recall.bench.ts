// npm run bench:index-recall — does the shipped usearch index return the real matches an exact scan finds,
// when real faces sit among many strangers? The faces of ../shared/faces/celeba-dev (or FACES_CELEBA_DIR;
// descriptors from bench/results/, computed once like `npm run bench:faces`) are indexed together with
// synthetic strangers drawn from their fitted distribution (mean and full covariance); each real face then
// queries the index at the shipped threshold. Prints the share of same-person matches found, the queries
// that miss one, and the faces not returned for their own vector, for each search width asked.
//   npm run bench:index-recall -- --distractors 200000 [--quantization f16] [--candidates 200,1000,shipped]
//     [--connectivity 32] [--expansion-add 256]   (graph settings; default the shipped ones)
//     [--graph-file /tmp/recall-1m.usearch]   (reuses a graph built earlier with the same settings)
//   npm run bench:index-recall -- --engine pgvector [--database-url postgres://…]   (pgvector's HNSW: the
//     server's settings by default, m = 32, f32; a throwaway PostgreSQL cluster unless a URL is given)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  DEFAULT_USEARCH_OPTIONS,
  minCandidatesFor,
  UsearchFaceIndex,
} from '../server/src/face/index/usearch-face-index.ts';
import type { FaceIndexQuantization } from '../server/src/face/index/usearch-face-index.ts';
import { InMemoryFaceVectorSource } from '../server/src/face/index/in-memory-face-vector-source.ts';
import type { FaceIndex, FaceVectorEntry } from '../server/src/face/index/face-index.ts';
import { PgvectorFaceIndex } from '../server/src/face/index/pgvector-face-index.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';
import { SIMILARITY_THRESHOLD, similarity } from '../server/src/face/similarity.ts';
import { celebaEmbeddings } from './lib/celeba-embeddings.ts';
import { fittedDistractors } from './lib/fitted-distractors.ts';
import { benchPostgres, poolSqlClient } from './lib/pgvector-bench-server.ts';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'usearch' },
    distractors: { type: 'string', default: '200000' },
    // Graph settings; default the engine's shipped ones.
    quantization: { type: 'string' },
    // Candidates each search asks of the graph; 'shipped': what the engine asks at the index's size.
    candidates: { type: 'string', default: 'shipped' },
    connectivity: { type: 'string' },
    'expansion-add': { type: 'string' },
    'graph-file': { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const engine = values.engine;
if (engine !== 'usearch' && engine !== 'pgvector')
  throw new Error(`--engine: usearch or pgvector, not ${engine}`);
const DISTRACTORS = Number(values.distractors);
const quantization = (values.quantization ??
  (engine === 'usearch' ? DEFAULT_USEARCH_OPTIONS.quantization : 'f32')) as FaceIndexQuantization;
const quantizations = engine === 'usearch' ? ['f32', 'f16', 'i8'] : ['f32', 'f16'];
if (!quantizations.includes(quantization))
  throw new Error(`--quantization for ${engine}: ${quantizations.join(', ')}`);
const graph = {
  connectivity: Number(
    values.connectivity ?? (engine === 'usearch' ? DEFAULT_USEARCH_OPTIONS.connectivity : 32),
  ),
  expansionAdd: Number(
    values['expansion-add'] ?? (engine === 'usearch' ? DEFAULT_USEARCH_OPTIONS.expansionAdd : 64),
  ),
};
const candidateWidths = values.candidates.split(',').map((w) => (w === 'shipped' ? undefined : Number(w)));
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const celebaDir = process.env.FACES_CELEBA_DIR ?? path.resolve(repoRoot, '../shared/faces/celeba-dev');
if (!existsSync(celebaDir)) {
  console.log(`No celeba-dev set at ${celebaDir} (set FACES_CELEBA_DIR): nothing to measure.`);
  process.exit(0);
}

const { dimensions } = PIPELINE_CATALOG[SHIPPED_PIPELINE];
const items = await celebaEmbeddings(celebaDir, SHIPPED_PIPELINE, path.join(repoRoot, 'bench', 'results'));
const real = items.flatMap((item, k) =>
  item.descriptor ? [{ faceId: k + 1, vector: item.descriptor }] : [],
);
const strangers = fittedDistractors(items, dimensions, DISTRACTORS);
const firstStranger = items.length + 1;
const entries = [
  ...real,
  ...Array.from({ length: DISTRACTORS }, (_, i) => ({
    faceId: firstStranger + i,
    vector: strangers.subarray(i * dimensions, (i + 1) * dimensions),
  })),
];
/** The index built once over `entries`, and a view of it per search width (undefined: the engine's own). */
interface BuiltIndex {
  withCandidates(minCandidates: number | undefined): FaceIndex;
  shippedCandidates: string;
  close(): Promise<void>;
}

function secondsSince(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(0)} s`;
}

async function buildUsearch(entries: FaceVectorEntry[]): Promise<BuiltIndex> {
  const source = new InMemoryFaceVectorSource();
  source.seed(entries);
  // The graph is built once and saved; each search width then views the same file.
  const scratch = values['graph-file'] ? undefined : mkdtempSync(path.join(os.tmpdir(), 'index-recall-'));
  const graphFile = values['graph-file'] ?? path.join(scratch!, 'graph.usearch');
  const options = { dimensions, quantization, ...graph };
  if (existsSync(graphFile)) {
    console.log(`reusing ${graphFile} (it must hold these ${entries.length} faces, ${quantization})`);
  } else {
    const started = performance.now();
    const built = UsearchFaceIndex.create(options, source);
    await built.add(entries);
    built.saveTo(graphFile);
    console.log(
      `${entries.length} faces indexed (usearch ${quantization}, M = ${graph.connectivity}, ` +
        `efConstruction = ${graph.expansionAdd}) in ${secondsSince(started)}`,
    );
  }
  return {
    withCandidates: (minCandidates) =>
      UsearchFaceIndex.open(
        graphFile,
        { ...options, search: minCandidates === undefined ? {} : { minCandidates } },
        source,
        'view',
      ),
    shippedCandidates: `${minCandidatesFor(entries.length, graph.connectivity)} (shipped)`,
    close: async () => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

async function buildPgvector(entries: FaceVectorEntry[]): Promise<BuiltIndex> {
  const server = await benchPostgres(values['database-url']);
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  const db = poolSqlClient(pool);
  const table = `recall_face_vectors_${entries.length}`;
  const options = { dimensions, table, quantization: quantization as 'f32' | 'f16', ...graph };
  const built = new PgvectorFaceIndex(db, options);
  await db.query(`drop table if exists ${table}`);
  await built.createSchema();
  const started = performance.now();
  for (let start = 0; start < entries.length; start += 10_000) {
    await built.add(entries.slice(start, start + 10_000));
  }
  await built.createIndex();
  console.log(
    `${entries.length} faces indexed (pgvector ${quantization}, m = ${graph.connectivity}, ` +
      `ef_construction = ${graph.expansionAdd}) in ${secondsSince(started)}`,
  );
  return {
    withCandidates: (minCandidates) =>
      new PgvectorFaceIndex(db, { ...options, search: minCandidates === undefined ? {} : { minCandidates } }),
    shippedCandidates: `${await built.minCandidates()} (shipped)`,
    close: async () => {
      await pool.end();
      server.stop();
    },
  };
}

const built = engine === 'usearch' ? await buildUsearch(entries) : await buildPgvector(entries);
for (const minCandidates of candidateWidths) {
  const index = built.withCandidates(minCandidates);
  let exactMatches = 0;
  let foundMatches = 0;
  let queriesMissingOne = 0;
  let notFoundForOwnVector = 0;
  let strangerHits = 0;
  const searchMs: number[] = [];
  for (const query of real) {
    const exact = real.filter((r) => similarity(query.vector, r.vector) >= SIMILARITY_THRESHOLD);
    const started = performance.now();
    const hits = await index.search(query.vector, { limit: 100, minSimilarity: SIMILARITY_THRESHOLD });
    searchMs.push(performance.now() - started);
    const returned = new Set(hits.map((h) => h.faceId));
    const found = exact.filter((r) => returned.has(r.faceId)).length;
    exactMatches += exact.length;
    foundMatches += found;
    if (found < exact.length) queriesMissingOne++;
    if (!returned.has(query.faceId)) notFoundForOwnVector++;
    strangerHits += hits.filter((h) => h.faceId >= firstStranger).length;
  }
  searchMs.sort((a, b) => a - b);
  const median = searchMs[Math.floor(searchMs.length / 2)]!;
  const p95 = searchMs[Math.floor(searchMs.length * 0.95)]!;
  console.log(
    `${real.length} real faces among ${DISTRACTORS} strangers, ${engine} ${quantization} graph, ` +
      `${minCandidates ?? built.shippedCandidates} candidates, threshold ${SIMILARITY_THRESHOLD}:\n` +
      `  matches an exact scan finds that the index returns: ${foundMatches}/${exactMatches} ` +
      `(${((100 * foundMatches) / exactMatches).toFixed(2)} %)\n` +
      `  queries missing at least one: ${queriesMissingOne}; faces not returned for their own vector: ` +
      `${notFoundForOwnVector}; stranger hits: ${strangerHits}\n` +
      `  search (vectors from memory) p50 ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`,
  );
}
await built.close();
