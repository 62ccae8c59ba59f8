// Face alerts benchmark (issue 17): active watches, newly indexed faces streamed through face_index_log,
// and the matcher following the log as it does in the worker.
//
//   npm run bench:alerts                                   10,000 watches, 100,000 faces (embedded database)
//   npm run bench:alerts -- --watches 1000 --faces 10000   quicker
//   DATABASE_URL=postgres://… npm run bench:alerts         on PostgreSQL
//   npm run bench:alerts -- --crash --faces 20000          exactly once under kill -9 (PostgreSQL: DATABASE_URL,
//                                                          else a throwaway cluster as the tests start)
//
// Synthetic clustered descriptors of the shipped model's size (bench/lib/synthetic-face-vectors.ts): every
// watch is a person; one new face in `--match-share` is another photo of a watched person, the rest are
// strangers; of those photos, `--copy-share` are another copy of an earlier one (a new image with the same
// perceptual hash and face), which joins that photo's alert. Faces are committed in transactions of
// `--commit` faces (as crawls store them) while the matcher polls; the lag is alert.created_at − the log
// entry's commit time. CPU is this process's (with the embedded database, the database's work too).
//
// --crash: the matcher runs in a child process, killed with SIGKILL `--kills` times while the faces stream
// (after a random commit, at a random moment of the matcher's next batch) and started again each time.
// Once it has caught up, the alerts and their copies must be exactly those of an exact comparison of every
// new face with every watch (the matcher's threshold and grouping, in log order): the counts are printed
// and the exit code is 1 when they differ.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { isNearDuplicate } from '../server/src/crawler/perceptual-hash.ts';
import { openDatabase, type Db } from '../server/src/db/database.ts';
import { migrateToLatest } from '../server/src/db/migrate.ts';
import { vectorFromBytes, vectorToBytes } from '../server/src/face/index/face-index.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';
import { matchThresholdOf } from '../server/src/face/similarity.ts';
import { JobQueue } from '../server/src/jobs/job-queue.ts';
import { createMailTransport } from '../server/src/mail/mail-transport.ts';
import { newPublicId } from '../server/src/lib/secure-token.ts';
import { FaceWatchRepository } from '../server/src/repositories/face-watch.repository.ts';
import { JobRepository } from '../server/src/repositories/job.repository.ts';
import { FaceWatchMatcher, rowsAtOrAbove } from '../server/src/services/face-watch-matcher.ts';
import { watchBinding } from '../server/src/services/face-watch.service.ts';
import { MailService } from '../server/src/services/mail.service.ts';
import { QueryFaceTokens } from '../server/src/services/query-face-token.ts';
import { startThrowawayPostgres } from '../server/test/support/postgres-server.ts';
import { createRandom } from './lib/synthetic-face-vectors.ts';

const { values: args } = parseArgs({
  options: {
    watches: { type: 'string', default: '10000' },
    faces: { type: 'string', default: '100000' },
    'match-share': { type: 'string', default: '0.01' },
    'copy-share': { type: 'string', default: '0.2' },
    commit: { type: 'string', default: '200' },
    batch: { type: 'string', default: '500' },
    crash: { type: 'boolean', default: false },
    kills: { type: 'string', default: '5' },
    // Internal: the matcher's child process of --crash (DATABASE_URL in its environment).
    'matcher-child': { type: 'boolean', default: false },
  },
});
const watchCount = Number(args.watches);
const faceCount = Number(args.faces);
const matchShare = Number(args['match-share']);
const copyShare = Number(args['copy-share']);
const commitSize = Number(args.commit);
const pipeline = PIPELINE_CATALOG[SHIPPED_PIPELINE];
const dimensions = pipeline.dimensions;
const modelId = pipeline.modelId;

// Only warnings and errors matter here.
const quiet = () => undefined;
const log = {
  info: quiet,
  debug: quiet,
  trace: quiet,
  warn: console.warn,
  error: console.error,
  fatal: console.error,
  child: () => log,
} as unknown as FastifyBaseLogger;
const tokens = new QueryFaceTokens({ getOrCreate: async (_key, value) => value }, 'bench-key');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const random = createRandom(23);
/**
 * The shared generator is tuned for 128-d dlib descriptors (strangers at cosine ≈ 0.47), which in 512-d
 * puts many strangers above the arcface threshold (0.58). Here: people are random directions (strangers at
 * cosine ≈ 0 ± 0.05), photos of one person their centre plus noise (same person ≈ 0.8).
 */
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const normalise = (vector: Float32Array) => {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
};
const space = {
  identity: () => normalise(Float32Array.from({ length: dimensions }, gaussian)),
  sample: (centre: Float32Array, out: Float32Array) => {
    for (let i = 0; i < dimensions; i++) out[i] = centre[i]! + (0.5 * gaussian()) / Math.sqrt(dimensions);
    return normalise(out);
  },
};
const randomPhash = () => Array.from({ length: 16 }, () => Math.floor(random() * 16).toString(16)).join('');

function createMatcher(db: Db, dataDir: string): FaceWatchMatcher {
  const mail = new MailService(
    new JobQueue(new JobRepository(db), undefined),
    createMailTransport({ from: 'bench@example.org', outboxDir: path.join(dataDir, 'outbox') }),
  );
  return new FaceWatchMatcher(new FaceWatchRepository(db), tokens, mail, log, {
    publicUrl: 'http://localhost',
    isSocialMedia: () => false,
    batchSize: Number(args.batch),
  });
}

/**
 * One organization (verified law enforcement, so the minors gate passes everything; a plan in force), its owner, the
 * watches (one person each) and the page the new images are on. Returns the people's centres, the
 * watches' ids and their descriptors as one row-major matrix.
 */
async function setUp(db: Db) {
  await migrateToLatest(db);
  const organization = await db
    .insertInto('organizations')
    .values({
      name: 'Bench organization',
      link: 'https://bench.example.org',
      type: 'Research',
      law_enforcement_verified_at: new Date(),
      law_enforcement_note: 'bench',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const user = await db
    .insertInto('users')
    .values({
      hashed_id: newPublicId(),
      email: `bench-${Date.now()}@alerts.example.org`,
      password_hash: 'x',
      organization_id: organization.id,
      role: 'OWNER',
      status: 'ACTIVE',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Watches raise alerts only while the organization has a plan in force.
  await db
    .insertInto('billing_plans')
    .values({
      organization_id: organization.id,
      plan_type: 'SUBSCRIPTION',
      start_date: new Date(Date.now() - 86_400_000),
      end_date: new Date(Date.now() + 365 * 86_400_000),
      seat_limit: 1,
    })
    .execute();
  const centres: Float32Array[] = [];
  const watchIds: number[] = [];
  const watchVectors = new Float32Array(watchCount * dimensions);
  console.log(`Creating ${watchCount.toLocaleString('en')} watches (${dimensions}-d, ${modelId})…`);
  for (let start = 0; start < watchCount; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(watchCount, start + 500); i++) {
      const centre = space.identity();
      centres.push(centre);
      const descriptor = space.sample(centre, watchVectors.subarray(i * dimensions, (i + 1) * dimensions));
      rows.push({
        organization_id: organization.id,
        user_id: user.id,
        name: `Watch ${i}`,
        descriptor_sealed: await tokens.sealStored(descriptor, watchBinding(organization.id)),
        model_id: modelId,
        ends_at: new Date(Date.now() + 86_400_000),
        // Muted: the bench measures matching, not the mail queue.
        muted: true,
      });
    }
    const inserted = await db.insertInto('face_watches').values(rows).returning('id').execute();
    watchIds.push(...inserted.map((row) => row.id));
  }
  // Watches begin before the faces: back-date them so every face counts as news.
  await db
    .updateTable('face_watches')
    .set({ created_at: new Date(Date.now() - 60_000) } as never)
    .execute();
  const page = await db
    .insertInto('pages')
    .values({ url: 'https://bench.example.org/', title: 'Bench page' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { organizationId: organization.id, centres, watchIds, watchVectors, pageId: page.id };
}

/** Streams the new faces in commits of `commitSize`, calling `afterCommit` after each. */
async function streamFaces(
  db: Db,
  { centres, pageId }: { centres: Float32Array[]; pageId: number },
  afterCommit: (commit: number) => Promise<void>,
) {
  console.log(
    `Streaming ${faceCount.toLocaleString('en')} new faces through the log (${commitSize} per commit)…`,
  );
  const started = performance.now();
  let photos = 0;
  let copies = 0;
  // The photos of watched people so far: what a copy repeats.
  const earlierPhotos: { phash: string; vector: Float32Array }[] = [];
  for (let start = 0; start < faceCount; start += commitSize) {
    const count = Math.min(commitSize, faceCount - start);
    const newFaces = Array.from({ length: count }, () => {
      if (random() >= matchShare) {
        return { phash: null, vector: space.sample(space.identity(), new Float32Array(dimensions)) };
      }
      photos++;
      if (earlierPhotos.length > 0 && random() < copyShare) {
        copies++;
        return earlierPhotos[Math.floor(random() * earlierPhotos.length)]!;
      }
      const centre = centres[Math.floor(random() * centres.length)]!;
      const photo = { phash: randomPhash(), vector: space.sample(centre, new Float32Array(dimensions)) };
      earlierPhotos.push(photo);
      return photo;
    });
    await db.transaction().execute(async (tx) => {
      const images = await tx
        .insertInto('images')
        .values(
          newFaces.map((face, i) => ({
            content_hash: `bench-${start + i}-${random().toString(36).slice(2)}`,
            phash: face.phash,
            width: 640,
            height: 480,
          })),
        )
        .returning('id')
        .execute();
      await tx
        .insertInto('image_occurrences')
        .values(
          images.map((image) => ({
            image_id: image.id,
            page_id: pageId,
            image_url: `https://bench.example.org/${image.id}.jpg`,
          })),
        )
        .execute();
      const faces = await tx
        .insertInto('faces')
        .values(
          images.map((image, i) => ({
            image_id: image.id,
            box_x: 100,
            box_y: 80,
            box_width: 120,
            box_height: 120,
            score: 0.99,
            quality: 0.9,
            descriptor: Buffer.from(vectorToBytes(newFaces[i]!.vector)),
            model_id: modelId,
            possible_minor: false,
          })),
        )
        .returning('id')
        .execute();
      await sql`select pg_advisory_xact_lock(7310001)`.execute(tx);
      await tx
        .insertInto('face_index_log')
        .values(faces.map((face) => ({ face_id: face.id, op: 'add' as const })))
        .execute();
    });
    await afterCommit(start / commitSize);
    if ((start / commitSize) % 50 === 0) process.stdout.write(`  ${start.toLocaleString('en')}\r`);
  }
  return { photos, copies, ms: performance.now() - started };
}

/** Seconds from each alert's log entry commit to the alert, sorted. */
async function commitToAlertLags(db: Db): Promise<number[]> {
  const { rows } = await sql<{ lag: number }>`
    select extract(epoch from (a.created_at - l.at)) as lag
    from face_alerts a join face_index_log l on l.seq = a.log_seq`.execute(db);
  return rows.map((row) => Number(row.lag)).sort((a, b) => a - b);
}

function describeLags(lags: number[]): string {
  const pct = (p: number) =>
    lags.length ? lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]! : NaN;
  return `commit-to-alert lag: p50 ${pct(0.5).toFixed(2)} s, p95 ${pct(0.95).toFixed(2)} s, max ${pct(1).toFixed(2)} s`;
}

const loadAverage = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

/** The throughput run: the matcher polls in this process while the faces stream. */
async function measureThroughput() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-bench-alerts-'));
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  const db = database.db;
  const setup = await setUp(db);
  const matcher = createMatcher(db, dataDir);
  await matcher.drain(); // loads the matrix

  let matchingDone = false;
  let matchedEntries = 0;
  let matcherCpuMicros = 0;
  let matcherWallMs = 0;
  const matching = (async () => {
    for (;;) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const result = await matcher.drain();
      const used = process.cpuUsage(cpu);
      if (result.entries > 0) {
        matcherCpuMicros += used.user + used.system;
        matcherWallMs += performance.now() - started;
        matchedEntries += result.entries;
      }
      if (matchingDone && result.entries === 0) return;
      await pause(200);
    }
  })();
  const stream = await streamFaces(db, setup, async () => undefined);
  matchingDone = true;
  await matching;

  const lags = await commitToAlertLags(db);
  const alerts = lags.length;
  console.log(
    [
      '',
      `watches ${watchCount.toLocaleString('en')}, new faces ${faceCount.toLocaleString('en')} (${stream.photos} photos of watched people, ${stream.copies} of them copies), ${dimensions}-d`,
      `faces committed in ${(stream.ms / 1000).toFixed(1)} s; matcher passed ${matchedEntries.toLocaleString('en')} log entries in ${(matcherWallMs / 1000).toFixed(1)} s of its own`,
      `alerts raised ${alerts} (${(alerts / (matcherWallMs / 1000)).toFixed(1)} alerts/s of matcher time; ${(matchedEntries / (matcherWallMs / 1000)).toFixed(0)} faces/s)`,
      `CPU per 1,000 new faces: ${(matcherCpuMicros / 1000 / (matchedEntries / 1000)).toFixed(0)} ms`,
      describeLags(lags),
      `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
      loadAverage(),
    ].join('\n'),
  );
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** A message of the matcher's child: a batch begins, or one ended (with its entries and time). */
type ChildMessage = { batch: true } | { batch: false; entries: number; ms: number };

/** The child of --crash: the matcher polling as in the worker, telling the parent when a batch is open. */
async function runMatcherChild() {
  // The parent's folder: a killed child leaves nothing of its own behind.
  const dataDir = process.env.ALERTS_BENCH_DATA_DIR!;
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  const matcher = createMatcher(database.db, dataDir);
  const tell = (message: ChildMessage) => process.send!(message);
  for (;;) {
    tell({ batch: true });
    const started = performance.now();
    const result = await matcher.runOnce();
    tell({ batch: false, entries: result?.entries ?? 0, ms: performance.now() - started });
    if (!result || result.entries === 0) await pause(200);
  }
}

/**
 * The alerts and copies the matcher must have recorded: every new face, in log order, against every watch
 * at the model's threshold; a watch's image is recorded once; an image whose perceptual hash is near one
 * of the watch's alerts is a copy of that alert. From the log entry after `fromSeq`. Keys: `watch:image` for an alert, `watch:alert's
 * image:image` for a copy.
 */
async function expectedAlerts(
  db: Db,
  { watchIds, watchVectors }: { watchIds: number[]; watchVectors: Float32Array },
  fromSeq: number,
) {
  const threshold = matchThresholdOf(modelId);
  const alerts = new Set<string>();
  const copies = new Set<string>();
  const photosOfWatch = new Map<number, { imageId: number; phash: string }[]>();
  const seen = new Set<string>();
  for (let afterSeq = fromSeq; ;) {
    const rows = await db
      .selectFrom('face_index_log as l')
      .innerJoin('faces as f', 'f.id', 'l.face_id')
      .innerJoin('images as i', 'i.id', 'f.image_id')
      .select(['l.seq', 'f.descriptor', 'i.id as image_id', 'i.phash'])
      .where('l.seq', '>', afterSeq)
      .where('l.op', '=', 'add')
      .orderBy('l.seq')
      .limit(2000)
      .execute();
    if (rows.length === 0) break;
    afterSeq = Number(rows.at(-1)!.seq);
    for (const row of rows) {
      const vector = vectorFromBytes(row.descriptor);
      for (const { row: watchRow } of rowsAtOrAbove(watchVectors, dimensions, vector, threshold)) {
        const watchId = watchIds[watchRow]!;
        if (seen.has(`${watchId}:${row.image_id}`)) continue;
        seen.add(`${watchId}:${row.image_id}`);
        const photos = photosOfWatch.get(watchId) ?? [];
        const phash = row.phash;
        const samePhoto = phash ? photos.find((photo) => isNearDuplicate(photo.phash, phash)) : undefined;
        if (samePhoto) {
          copies.add(`${watchId}:${samePhoto.imageId}:${row.image_id}`);
          continue;
        }
        alerts.add(`${watchId}:${row.image_id}`);
        if (phash) photosOfWatch.set(watchId, [...photos, { imageId: row.image_id, phash }]);
      }
    }
  }
  return { alerts, copies };
}

/** Exactly once under kill -9: the matcher in a child process, killed and started again while faces stream. */
async function checkExactlyOnceUnderKills() {
  const throwaway = process.env.DATABASE_URL ? undefined : await startThrowawayPostgres();
  const databaseUrl = process.env.DATABASE_URL ?? throwaway!.url;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-bench-alerts-'));
  const database = await openDatabase({ databaseUrl, dataDir });
  const db = database.db;
  const setup = await setUp(db);
  const repository = new FaceWatchRepository(db);
  // The matcher starts where the log ends (a database used before holds older entries).
  const fromSeq = (await repository.cursor())!.seq;

  let child: ChildProcess;
  let inBatch = false;
  // How long the child's last batch with entries took (0: none yet), and who waits for its next batch.
  let lastBatchMs = 0;
  let onNextBatch: (() => void) | undefined;
  const startMatcher = () => {
    inBatch = false;
    lastBatchMs = 0;
    child = fork(process.argv[1]!, ['--matcher-child', '--batch', args.batch], {
      env: { ...process.env, DATABASE_URL: databaseUrl, ALERTS_BENCH_DATA_DIR: dataDir },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') return;
      console.error(`the matcher's process ended by itself (${signal ?? code})`);
      process.exit(1);
    });
    child.on('message', (message: ChildMessage) => {
      inBatch = message.batch;
      if (!message.batch && message.entries > 0) lastBatchMs = message.ms;
      if (message.batch && lastBatchMs > 0) onNextBatch?.();
    });
  };
  const stopMatcher = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  let kills = 0;
  let killsInBatch = 0;
  /** Once the child has done a batch, kills it at a random moment of its next one (most fall inside it). */
  const killDuringABatch = async () => {
    await new Promise<void>((resolve) => (onNextBatch = resolve));
    onNextBatch = undefined;
    await pause(random() * lastBatchMs);
    if (inBatch) killsInBatch++;
    kills++;
    await stopMatcher();
    startMatcher();
  };
  startMatcher();

  const commits = Math.ceil(faceCount / commitSize);
  const killAt = new Set<number>();
  while (killAt.size < Math.min(Number(args.kills), commits)) killAt.add(Math.floor(random() * commits));
  const stream = await streamFaces(db, setup, async (commit) => {
    if (killAt.has(commit)) await killDuringABatch();
  });
  const streamEnded = performance.now();
  const { seq: lastSeq } = await db
    .selectFrom('face_index_log')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirstOrThrow();
  while (((await repository.cursor())?.seq ?? 0) < Number(lastSeq)) await pause(1000);
  const catchUpMs = performance.now() - streamEnded;
  await stopMatcher();

  const expected = await expectedAlerts(db, setup, fromSeq);
  const recordedAlerts = (
    await db
      .selectFrom('face_alerts')
      .select(['watch_id', 'image_id'])
      .where('organization_id', '=', setup.organizationId)
      .execute()
  ).map((alert) => `${alert.watch_id}:${alert.image_id}`);
  const copyRows = await db
    .selectFrom('face_alert_copies as c')
    .innerJoin('face_alerts as a', 'a.id', 'c.alert_id')
    .where('a.organization_id', '=', setup.organizationId)
    .select(['a.watch_id', 'a.image_id as alert_image_id', 'c.image_id'])
    .execute();
  const recordedCopies = copyRows.map((copy) => `${copy.watch_id}:${copy.alert_image_id}:${copy.image_id}`);
  // Every image once per watch, as an alert or as a copy.
  const imagesPerWatch = [...recordedAlerts, ...copyRows.map((copy) => `${copy.watch_id}:${copy.image_id}`)];
  const duplicates = imagesPerWatch.length - new Set(imagesPerWatch).size;
  const recorded = new Set([...recordedAlerts, ...recordedCopies]);
  const expectedKeys = [...expected.alerts, ...expected.copies];
  const missing = expectedKeys.filter((key) => !recorded.has(key)).length;
  const unexpected = [...recorded].filter(
    (key) => !expected.alerts.has(key) && !expected.copies.has(key),
  ).length;
  console.log(
    [
      '',
      `watches ${watchCount.toLocaleString('en')}, new faces ${faceCount.toLocaleString('en')} (${stream.photos} photos of watched people, ${stream.copies} of them copies), ${dimensions}-d, PostgreSQL`,
      `faces committed in ${(stream.ms / 1000).toFixed(1)} s; the matcher had caught up ${(catchUpMs / 1000).toFixed(0)} s later`,
      `kills ${kills} (${killsInBatch} during a batch)`,
      `alerts expected ${expected.alerts.size}, recorded ${recordedAlerts.length}; copies expected ${expected.copies.size}, recorded ${recordedCopies.length}`,
      `duplicates ${duplicates}, missing ${missing}, unexpected ${unexpected}`,
      describeLags(await commitToAlertLags(db)),
      loadAverage(),
    ].join('\n'),
  );
  await database.close();
  throwaway?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const exact = duplicates === 0 && missing === 0 && unexpected === 0;
  console.log(exact ? 'exactly once: yes' : 'exactly once: NO');
  process.exitCode = exact ? 0 : 1;
}

if (args['matcher-child']) await runMatcherChild();
else if (args.crash) await checkExactlyOnceUnderKills();
else await measureThroughput();
