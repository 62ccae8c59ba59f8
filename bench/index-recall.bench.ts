// npm run bench:index-recall — does the shipped usearch index return the real matches an exact scan finds,
// when real faces sit among many strangers? The faces of ../shared/faces/celeba-dev (or FACES_CELEBA_DIR;
// descriptors from bench/results/, computed once like `npm run bench:faces`) are indexed together with
// synthetic strangers drawn from their fitted distribution (mean and full covariance); each real face then
// queries the index at the shipped threshold. Prints the share of same-person matches found, the queries
// that miss one, and the faces not returned for their own vector, for each search width asked.
//   npm run bench:index-recall -- --distractors 200000 [--quantization f16] [--candidates 200,1000,shipped]
//     [--connectivity 32] [--expansion-add 256]   (graph settings; default the shipped ones)
//     [--graph-file /tmp/recall-1m.usearch]   (reuses a graph built earlier with the same settings)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DEFAULT_USEARCH_OPTIONS,
  minCandidatesFor,
  UsearchFaceIndex,
} from '../server/src/face/index/usearch-face-index.ts';
import type { FaceIndexQuantization } from '../server/src/face/index/usearch-face-index.ts';
import { InMemoryFaceVectorSource } from '../server/src/face/index/in-memory-face-vector-source.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';
import { SIMILARITY_THRESHOLD, similarity } from '../server/src/face/similarity.ts';
import { celebaEmbeddings } from './lib/celeba-embeddings.ts';
import { fittedDistractors } from './lib/fitted-distractors.ts';

const { values } = parseArgs({
  options: {
    distractors: { type: 'string', default: '200000' },
    quantization: { type: 'string', default: DEFAULT_USEARCH_OPTIONS.quantization },
    // Candidates each search asks of the graph; 'shipped': minCandidatesFor(the index's size).
    candidates: { type: 'string', default: 'shipped' },
    connectivity: { type: 'string', default: String(DEFAULT_USEARCH_OPTIONS.connectivity) },
    'expansion-add': { type: 'string', default: String(DEFAULT_USEARCH_OPTIONS.expansionAdd) },
    'graph-file': { type: 'string' },
  },
});
const DISTRACTORS = Number(values.distractors);
const quantization = values.quantization as FaceIndexQuantization;
if (!['f32', 'f16', 'i8'].includes(quantization)) throw new Error(`unknown quantization ${quantization}`);
const graph = { connectivity: Number(values.connectivity), expansionAdd: Number(values['expansion-add']) };
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
const source = new InMemoryFaceVectorSource();
source.seed(entries);
// The graph is built once and saved; each search width then views the same file.
const scratch = values['graph-file'] ? undefined : mkdtempSync(path.join(os.tmpdir(), 'index-recall-'));
const graphFile = values['graph-file'] ?? path.join(scratch!, 'graph.usearch');
if (existsSync(graphFile)) {
  console.log(`reusing ${graphFile} (it must hold these ${entries.length} faces, ${quantization})`);
} else {
  const started = performance.now();
  const built = UsearchFaceIndex.create({ dimensions, quantization, ...graph }, source);
  await built.add(entries);
  built.saveTo(graphFile);
  console.log(
    `${entries.length} faces indexed (${quantization}, M = ${graph.connectivity}, ` +
      `efConstruction = ${graph.expansionAdd}) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

for (const minCandidates of candidateWidths) {
  const index = UsearchFaceIndex.open(
    graphFile,
    { dimensions, quantization, ...graph, search: minCandidates === undefined ? {} : { minCandidates } },
    source,
    'view',
  );
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
    `${real.length} real faces among ${DISTRACTORS} strangers, ${quantization} graph, ` +
      `${minCandidates ?? `${minCandidatesFor(entries.length, graph.connectivity)} (shipped)`} candidates, threshold ${SIMILARITY_THRESHOLD}:\n` +
      `  matches an exact scan finds that the index returns: ${foundMatches}/${exactMatches} ` +
      `(${((100 * foundMatches) / exactMatches).toFixed(2)} %)\n` +
      `  queries missing at least one: ${queriesMissingOne}; faces not returned for their own vector: ` +
      `${notFoundForOwnVector}; stranger hits: ${strangerHits}\n` +
      `  search (vectors from memory) p50 ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`,
  );
}
if (scratch) rmSync(scratch, { recursive: true, force: true });
