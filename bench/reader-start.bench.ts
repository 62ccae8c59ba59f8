// npm run bench:reader-start — how long an API process on a machine of its own (empty DATA_DIR) takes
// before it can search, with PostgreSQL the only shared part. Two ways (issue 18):
//   build:    scan every face from the database and build the HNSW graph (what a reader does today
//             without a snapshot), then follow the change log;
//   snapshot: the writer publishes its snapshot file in the database (FaceIndexPublication: stored_blobs in
//             chunks, one publication row); the reader (FaceIndexSync, as an API process opens its index)
//             downloads it into its DATA_DIR, checks it, memory-maps it and follows the change log from its seq.
// Synthetic descriptors (distributed like real ones), a throwaway PostgreSQL server.
//   npm run bench:reader-start -- --faces 1000000
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/src/db/database.ts';
import { migrateToLatest } from '../server/src/db/migrate.ts';
import { FaceIndexStore } from '../server/src/face/index/face-index-store.ts';
import { FaceIndexPublication } from '../server/src/face/index/face-index-publication.ts';
import { buildFaceIndex, FaceIndexSync } from '../server/src/face/index/face-index-sync.ts';
import { FaceIndexPublicationRepository } from '../server/src/repositories/face-index-publication.repository.ts';
import { FaceVectorRepository } from '../server/src/repositories/face-vector.repository.ts';
import { SHIPPED_MODEL } from '../server/src/services/face-index.service.ts';
import { startThrowawayPostgres } from '../server/test/support/postgres-server.ts';
import { createRandom } from './lib/synthetic-face-vectors.ts';
import { insertSyntheticFaces, realisticDescriptors } from './lib/synthetic-index.ts';

const { values } = parseArgs({
  options: { faces: { type: 'string', default: '1000000' }, chunk: { type: 'string', default: '16' } },
});
const FACES = Number(values.faces);
const CHUNK_BYTES = Number(values.chunk) * 1024 * 1024;
const MODEL = SHIPPED_MODEL.modelId;
const INDEX_OPTIONS = { dimensions: SHIPPED_MODEL.dimensions };

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

const postgres = await startThrowawayPostgres();
const scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'osint-bench-reader-'));
const database = await openDatabase({ databaseUrl: postgres.url, dataDir: ':memory:', poolSize: 4 });
try {
  await migrateToLatest(database.db);
  let started = performance.now();
  // Cluster centres around a few random "real" directions: the shape of real descriptors, no model needed.
  const random = createRandom(7);
  const real = Array.from({ length: 50 }, () =>
    Float32Array.from({ length: SHIPPED_MODEL.dimensions }, () => random() - 0.5),
  );
  await insertSyntheticFaces(database.db, realisticDescriptors(real, FACES), 5000);
  console.log(`${FACES} synthetic faces stored in ${seconds(started)} s`);
  const source = new FaceVectorRepository(database.db, MODEL);

  // 0. The scan alone: what reading every vector from PostgreSQL costs.
  started = performance.now();
  let scanned = 0;
  for await (const batch of source.allVectors(10_000)) scanned += batch.length;
  const scanSeconds = seconds(started);

  // 1. build: the reader builds its own index from the database.
  started = performance.now();
  const built = await buildFaceIndex(source, INDEX_OPTIONS);
  const buildSeconds = seconds(started);
  const buildRss = rssMb();

  // The writer's snapshot, saved in its own DATA_DIR.
  const writerStore = FaceIndexStore.forModel(path.join(scratch, 'writer'), MODEL);
  const manifest = await writerStore.save(built.index, built.seq, MODEL);
  const snapshotBytes = fs.statSync(writerStore.pathOf(manifest)).size;

  // 2a. Publishing it in the database (the writer's cost, after each save), as the writer does it.
  const publication = new FaceIndexPublication(new FaceIndexPublicationRepository(database.db), CHUNK_BYTES);
  started = performance.now();
  const published = await publication.publish(writerStore, manifest);
  const publishSeconds = seconds(started);
  if (!published) throw new Error('the snapshot was not published');

  // 2b. snapshot: a reader on another machine (empty DATA_DIR) opens its index as the product does:
  // downloads the published snapshot, maps it and catches up from its seq.
  started = performance.now();
  const reader = new FaceIndexSync({
    source,
    index: INDEX_OPTIONS,
    store: FaceIndexStore.forModel(path.join(scratch, 'reader'), MODEL),
    publication,
    role: 'reader',
    model: MODEL,
  });
  await reader.open();
  const snapshotStartSeconds = seconds(started);
  if (reader.startedFrom !== 'published snapshot')
    throw new Error(`the reader started from ${reader.startedFrom}`);
  const viewed = reader.index;
  if (viewed.size !== built.index.size)
    throw new Error(`viewed ${viewed.size} faces, built ${built.index.size}`);

  // The same query on both: the downloaded snapshot answers like the built index.
  const [probe] = await source.vectorsByIds([Math.ceil(FACES / 2)]).then((m) => [...m.values()]);
  const a = await built.index.search(probe!, { limit: 5, minSimilarity: 0.5 });
  const b = await viewed.search(probe!, { limit: 5, minSimilarity: 0.5 });
  if (a[0]?.faceId !== b[0]?.faceId) throw new Error('the downloaded snapshot answers differently');
  await reader.stop();

  console.log(
    `\nReader start-up at ${FACES.toLocaleString('en')} faces (${os.availableParallelism()} cores)`,
  );
  console.log('| way | start-up s | notes |');
  console.log('| --- | ---: | --- |');
  console.log(`| scan of every vector (part of build) | ${scanSeconds} | ${scanned} rows |`);
  console.log(`| build from the database | ${buildSeconds} | process RSS ${buildRss} MB after |`);
  console.log(
    `| snapshot from the database | ${snapshotStartSeconds} | download ${(snapshotBytes / 1024 / 1024).toFixed(0)} MB in ${published.chunkCount} chunks (checksum checked), map, catch up |`,
  );
  console.log(`| (writer) publish the snapshot | ${publishSeconds} | after each save |`);
} finally {
  await database.close();
  postgres.stop();
  await fsp.rm(scratch, { recursive: true, force: true });
}
