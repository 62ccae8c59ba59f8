// npm run bench:search-cpu — CPU time per search over PostgreSQL, per stage, in one API process:
// a throwaway PostgreSQL with 100,000 realistic faces, the app built in this process as an API process
// (WORKERS=0, face index mapped as a reader), searches with face tokens of the demo photos' faces.
// Prints, per search, the CPU milliseconds of this process (process.cpuUsage) and of PostgreSQL (the
// cluster's processes in /proc), for the whole POST /api/search and for each stage run on its own.
// CPU time, unlike wall time, does not depend on what else the machine is doing.
//   npm run bench:search-cpu -- --faces 100000 --runs 200
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/search-cpu.bench.ts  (a profile of it)
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { openDatabase } from '../server/src/db/database.ts';
import { migrateToLatest } from '../server/src/db/migrate.ts';
import { renderDemoPhotos } from '../server/src/demo/demo-site.ts';
import { LazyFaceEngine } from '../server/src/face/lazy-face-engine.ts';
import { l2Normalise, SIMILARITY_THRESHOLD } from '../server/src/face/similarity.ts';
import { AuditRepository } from '../server/src/repositories/audit.repository.ts';
import { SearchRepository } from '../server/src/repositories/search.repository.ts';
import { SHIPPED_MODEL } from '../server/src/services/face-index.service.ts';
import { startThrowawayPostgres } from '../server/test/support/postgres-server.ts';
import { insertSyntheticFaces, realisticDescriptors } from './lib/synthetic-index.ts';

const { values } = parseArgs({
  options: { faces: { type: 'string', default: '100000' }, runs: { type: 'string', default: '200' } },
});
const FACES = Number(values.faces);
const RUNS = Number(values.runs);
const ADMIN = { email: 'cpu@provider.example.org', password: 'Cpu.Bench.Pass1' };
const ORIGIN = 'http://127.0.0.1';
const TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

const postgres = await startThrowawayPostgres();
const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'osint-bench-cpu-'));
process.on('exit', () => {
  postgres.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
const database = await openDatabase({ databaseUrl: postgres.url, dataDir });
await migrateToLatest(database.db);

// PostgreSQL's CPU: the postmaster and every process it started (backends, WAL writer, checkpointer…).
const pgDataDir = (
  await sql<{ setting: string }>`select current_setting('data_directory') as setting`.execute(database.db)
).rows[0]!.setting;
const postmaster = Number(fs.readFileSync(path.join(pgDataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
function postgresCpuMs(): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // Fields after the command name (which may hold spaces): state ppid … utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(entry) === postmaster) {
      // Its own time and that of the children it has reaped (backends that ended meanwhile).
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } else if (Number(fields[1]) === postmaster) {
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  }
  return ticks * TICK_MS;
}

const photos = await renderDemoPhotos();
const engine = new LazyFaceEngine();
const real: Float32Array[] = [];
for (const photo of photos.values()) {
  for (const face of (await (await engine.get()).analyze(photo)).faces) real.push(face.descriptor);
}
await engine.close();
// Typical people (1-6 photos each, so a search finds a few sightings) and one person seen very often,
// whose search reaches the 500-hit limit: the worst case for the sightings, grouping and stored rows.
const POPULAR = 600;
const typical = realisticDescriptors(real, FACES - POPULAR);
const DIMS = SHIPPED_MODEL.dimensions;
const vectors = new Float32Array(FACES * DIMS);
vectors.set(typical.vectors);
const gaussian = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
const popularFace = l2Normalise(real[0]!);
for (let f = 0; f < POPULAR; f++) {
  const v = vectors.subarray((FACES - POPULAR + f) * DIMS, (FACES - POPULAR + f + 1) * DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = popularFace[i]! + 0.015 * gaussian();
  l2Normalise(v);
}
let started = performance.now();
await insertSyntheticFaces(database.db, { count: FACES, vectors });
// Crawled images have perceptual hashes, which the grouping compares pairwise.
await sql`update images set phash = substr(md5(id::text), 1, 16)`.execute(database.db);
await sql`vacuum analyze`.execute(database.db);
console.log(`${FACES} faces in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const config = loadConfig(
  {},
  {
    dataDir,
    databaseUrl: postgres.url,
    publicUrl: ORIGIN,
    adminEmail: ADMIN.email,
    adminPassword: ADMIN.password,
    runWorkers: false,
    demoData: false,
    rateLimit: { enabled: false },
    logLevel: 'warn',
  },
);
const { app, container } = await buildApp(config, database.db, { logger: false });
await container.services.seed.run();
started = performance.now();
await container.services.faceIndex.start();
console.log(
  `face index of ${await container.services.faceIndex.size()} faces in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

const login = await app.inject({
  method: 'POST',
  url: '/api/user/login',
  headers: { origin: ORIGIN },
  payload: { mail: ADMIN.email, password: ADMIN.password },
});
if (login.statusCode !== 200) throw new Error(`login ${login.statusCode}: ${login.body}`);
const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
const user = await database.db
  .selectFrom('users')
  .select(['id', 'organization_id'])
  .where('email', '=', ADMIN.email)
  .executeTakeFirstOrThrow();
const seal = (descriptor: Float32Array) =>
  container.services.queryFaces.seal({
    descriptor,
    modelId: SHIPPED_MODEL.modelId,
    possibleMinor: false,
    organizationId: user.organization_id!,
    userId: user.id,
  });
const typicalQueries = Array.from({ length: 50 }, (_, i) =>
  l2Normalise(typical.vectors.slice(i * 1997 * DIMS, (i * 1997 + 1) * DIMS)),
);
const typicalTokens = await Promise.all(typicalQueries.map(seal));
const popularToken = await seal(popularFace);

interface Cost {
  stage: string;
  apiMs: number;
  postgresMs: number;
  wallMs: number;
}
/** Runs `body` RUNS times (after a few warm-up runs); CPU and wall milliseconds per run. */
async function measure(stage: string, body: (run: number) => Promise<unknown>): Promise<Cost> {
  for (let run = 0; run < 5; run++) await body(run);
  const pg0 = postgresCpuMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let run = 0; run < RUNS; run++) await body(run);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pg = postgresCpuMs() - pg0;
  return {
    stage,
    apiMs: (cpu.user + cpu.system) / 1000 / RUNS,
    postgresMs: pg / RUNS,
    wallMs: wall / RUNS,
  };
}

const searches = new SearchRepository(database.db);
const audit = new AuditRepository(database.db);
const searchIndex = (query: Float32Array) =>
  container.services.faceIndex.search(query, {
    model: SHIPPED_MODEL.modelId,
    limit: 500,
    minSimilarity: SIMILARITY_THRESHOLD,
  });
const typicalHits = await Promise.all(typicalQueries.map(searchIndex));
const popularHits = await searchIndex(popularFace);
const popularSightings = await searches.findSightings(popularHits.map((h) => h.faceId));
const popularResults = popularSightings.map((s, rank) => ({
  recordHash: `r${rank}`,
  rank,
  faceId: s.faceId,
  imageId: s.imageId,
  groupKey: s.contentHash.slice(0, 16),
  similarity: 0.95,
  scoreModel: SHIPPED_MODEL.modelId,
  imageUrl: s.imageUrl,
  sourceUrl: s.sourceUrl,
  sourceTitle: s.sourceTitle,
  crawledAt: s.firstSeenAt,
  faceBox: s.faceBox,
  imageSize: s.imageSize,
}));
const pick = <T>(list: T[], run: number) => list[run % list.length]!;
console.log(
  `hits per typical search: ${typicalHits.map((h) => h.length).join(' ')}; popular person: ${popularHits.length}`,
);

const bytes: Record<string, number> = {};
const httpSearch = (label: string, token: (run: number) => string) => async (run: number) => {
  const answer = await app.inject({
    method: 'POST',
    url: '/api/search',
    headers: { origin: ORIGIN, cookie },
    payload: { faces: [token(run)], type: 'OSINT' },
  });
  if (answer.statusCode !== 200) throw new Error(`search ${answer.statusCode}: ${answer.body}`);
  bytes[label] = answer.rawPayload.length;
};
const costs: Cost[] = [];
costs.push(
  await measure(
    'POST /api/search, typical',
    httpSearch('typical', (run) => pick(typicalTokens, run)),
  ),
);
costs.push(
  await measure(
    'POST /api/search, 500 hits',
    httpSearch('popular', () => popularToken),
  ),
);
costs.push(await measure('  face index, typical', (run) => searchIndex(pick(typicalQueries, run))));
costs.push(await measure('  face index, 500 hits', () => searchIndex(popularFace)));
costs.push(
  await measure('  findSightings, 500 hits', () => searches.findSightings(popularHits.map((h) => h.faceId))),
);
costs.push(
  await measure('  insertSearch, 500 rows', (run) =>
    searches.insertSearch({
      hashedId: `cpu-${run}-${Math.random()}`,
      organizationId: user.organization_id!,
      userId: user.id,
      type: 'OSINT',
      durationMs: 1,
      faceImage: null,
      cropDigests: null,
      possibleMinor: false,
      results: popularResults,
    }),
  ),
);
costs.push(
  await measure('  audit insert', () =>
    audit.insert({
      actorUserId: user.id,
      organizationId: user.organization_id,
      action: 'search.performed',
      target: 'search:cpu',
      detail: { type: 'OSINT', results: 500 },
    }),
  ),
);

const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
console.log(
  `\n${RUNS} runs per stage over ${FACES} faces; answers ${bytes.typical} and ${bytes.popular} bytes; load average ${load}`,
);
console.log('stage                          API CPU ms  PostgreSQL CPU ms  total CPU ms  wall ms');
for (const c of costs) {
  console.log(
    `${c.stage.padEnd(30)} ${c.apiMs.toFixed(1).padStart(10)} ${c.postgresMs.toFixed(1).padStart(18)} ` +
      `${(c.apiMs + c.postgresMs).toFixed(1).padStart(13)} ${c.wallMs.toFixed(1).padStart(8)}`,
  );
}
await app.close();
await database.close();
process.exit(0);
