// npm run bench:index-recall — does the shipped usearch index return the real matches an exact scan finds,
// when real faces sit among many strangers? The faces of ../shared/faces/celeba-dev (or FACES_CELEBA_DIR;
// descriptors from bench/results/, computed once like `npm run bench:faces`) are indexed together with
// synthetic strangers drawn from their fitted distribution (mean and full covariance); each real face then
// queries the index at the shipped threshold. Prints the share of same-person matches found, the queries
// that miss one, and the faces not returned for their own vector.
//   npm run bench:index-recall -- --distractors 200000
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { UsearchFaceIndex } from '../server/src/face/index/usearch-face-index.ts';
import { InMemoryFaceVectorSource } from '../server/src/face/index/in-memory-face-vector-source.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';
import { SIMILARITY_THRESHOLD, similarity } from '../server/src/face/similarity.ts';
import { celebaEmbeddings } from './lib/celeba-embeddings.ts';
import { fittedDistractors } from './lib/fitted-distractors.ts';

const { values } = parseArgs({ options: { distractors: { type: 'string', default: '200000' } } });
const DISTRACTORS = Number(values.distractors);
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
const started = performance.now();
const index = UsearchFaceIndex.create({ dimensions }, source);
await index.add(entries);
console.log(`${entries.length} faces indexed in ${((performance.now() - started) / 1000).toFixed(0)} s`);

let exactMatches = 0;
let foundMatches = 0;
let queriesMissingOne = 0;
let notFoundForOwnVector = 0;
let strangerHits = 0;
for (const query of real) {
  const exact = real.filter((r) => similarity(query.vector, r.vector) >= SIMILARITY_THRESHOLD);
  const hits = await index.search(query.vector, { limit: 100, minSimilarity: SIMILARITY_THRESHOLD });
  const returned = new Set(hits.map((h) => h.faceId));
  const found = exact.filter((r) => returned.has(r.faceId)).length;
  exactMatches += exact.length;
  foundMatches += found;
  if (found < exact.length) queriesMissingOne++;
  if (!returned.has(query.faceId)) notFoundForOwnVector++;
  strangerHits += hits.filter((h) => h.faceId >= firstStranger).length;
}
console.log(
  `${real.length} real faces among ${DISTRACTORS} strangers, threshold ${SIMILARITY_THRESHOLD}:\n` +
    `  matches an exact scan finds that the index returns: ${foundMatches}/${exactMatches} ` +
    `(${((100 * foundMatches) / exactMatches).toFixed(2)} %)\n` +
    `  queries missing at least one: ${queriesMissingOne}; faces not returned for their own vector: ` +
    `${notFoundForOwnVector}; stranger hits: ${strangerHits}`,
);
