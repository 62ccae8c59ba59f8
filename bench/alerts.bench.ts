// Face alerts benchmark (issue 17): active watches, newly indexed faces streamed through face_index_log,
// and the matcher following the log as it does in the worker.
//
//   npm run bench:alerts                                   10,000 watches, 100,000 faces (embedded database)
//   npm run bench:alerts -- --watches 1000 --faces 10000   quicker
//   DATABASE_URL=postgres://… npm run bench:alerts         on PostgreSQL
//
// Synthetic clustered descriptors of the shipped model's size (bench/lib/synthetic-face-vectors.ts): every
// watch is a person; one new face in `--match-share` is another photo of a watched person, the rest are
// strangers. Faces are committed in transactions of `--commit` faces (as crawls store them) while the
// matcher polls; the lag is alert.created_at − the log entry's commit time. CPU is this process's (with the
// embedded database, the database's work too).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { openDatabase } from '../server/src/db/database.ts';
import { migrateToLatest } from '../server/src/db/migrate.ts';
import { vectorToBytes } from '../server/src/face/index/face-index.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../server/src/face/pipeline/pipeline-catalog.ts';
import { JobQueue } from '../server/src/jobs/job-queue.ts';
import { createMailTransport } from '../server/src/mail/mail-transport.ts';
import { newPublicId } from '../server/src/lib/secure-token.ts';
import { FaceWatchRepository } from '../server/src/repositories/face-watch.repository.ts';
import { JobRepository } from '../server/src/repositories/job.repository.ts';
import { FaceWatchMatcher } from '../server/src/services/face-watch-matcher.ts';
import { watchBinding } from '../server/src/services/face-watch.service.ts';
import { MailService } from '../server/src/services/mail.service.ts';
import { QueryFaceTokens } from '../server/src/services/query-face-token.ts';
import { createRandom } from './lib/synthetic-face-vectors.ts';

const { values: args } = parseArgs({
  options: {
    watches: { type: 'string', default: '10000' },
    faces: { type: 'string', default: '100000' },
    'match-share': { type: 'string', default: '0.01' },
    commit: { type: 'string', default: '200' },
    batch: { type: 'string', default: '500' },
  },
});
const watchCount = Number(args.watches);
const faceCount = Number(args.faces);
const matchShare = Number(args['match-share']);
const commitSize = Number(args.commit);
const pipeline = PIPELINE_CATALOG[SHIPPED_PIPELINE];
const dimensions = pipeline.dimensions;
const modelId = pipeline.modelId;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'osint-bench-alerts-'));
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
await migrateToLatest(database.db);
const db = database.db;
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

// One organization (verified law enforcement, so the minors gate passes everything) and its owner.
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
const tokens = new QueryFaceTokens({ getOrCreate: async (_key, value) => value }, 'bench-key');
const repository = new FaceWatchRepository(db);
const centres: Float32Array[] = [];
console.log(`Creating ${watchCount.toLocaleString('en')} watches (${dimensions}-d, ${modelId})…`);
for (let start = 0; start < watchCount; start += 500) {
  const rows = [];
  for (let i = start; i < Math.min(watchCount, start + 500); i++) {
    const centre = space.identity();
    centres.push(centre);
    const descriptor = space.sample(centre, new Float32Array(dimensions));
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
  await db.insertInto('face_watches').values(rows).execute();
}
// Watches begin before the faces: back-date them so every face counts as news.
await db
  .updateTable('face_watches')
  .set({ created_at: new Date(Date.now() - 60_000) } as never)
  .execute();

const mail = new MailService(
  new JobQueue(new JobRepository(db), undefined),
  createMailTransport({ from: 'bench@example.org', outboxDir: path.join(dataDir, 'outbox') }),
);
const matcher = new FaceWatchMatcher(repository, tokens, mail, log, {
  publicUrl: 'http://localhost',
  isSocialMedia: () => false,
  batchSize: Number(args.batch),
});
await matcher.drain(); // loads the matrix

const page = await db
  .insertInto('pages')
  .values({ url: 'https://bench.example.org/', title: 'Bench page' })
  .returning('id')
  .executeTakeFirstOrThrow();

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
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
})();

console.log(
  `Streaming ${faceCount.toLocaleString('en')} new faces through the log (${commitSize} per commit)…`,
);
const streamStarted = performance.now();
let expectedMatches = 0;
for (let start = 0; start < faceCount; start += commitSize) {
  const count = Math.min(commitSize, faceCount - start);
  await db.transaction().execute(async (tx) => {
    const images = await tx
      .insertInto('images')
      .values(
        Array.from({ length: count }, (_, i) => ({
          content_hash: `bench-${start + i}-${random().toString(36).slice(2)}`,
          phash: null,
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
          page_id: page.id,
          image_url: `https://bench.example.org/${image.id}.jpg`,
        })),
      )
      .execute();
    const faces = await tx
      .insertInto('faces')
      .values(
        images.map((image) => {
          const watched = random() < matchShare;
          if (watched) expectedMatches++;
          const centre = watched ? centres[Math.floor(random() * centres.length)]! : space.identity();
          return {
            image_id: image.id,
            box_x: 100,
            box_y: 80,
            box_width: 120,
            box_height: 120,
            score: 0.99,
            quality: 0.9,
            descriptor: Buffer.from(vectorToBytes(space.sample(centre, new Float32Array(dimensions)))),
            model_id: modelId,
            possible_minor: false,
          };
        }),
      )
      .returning('id')
      .execute();
    await sql`select pg_advisory_xact_lock(7310001)`.execute(tx);
    await tx
      .insertInto('face_index_log')
      .values(faces.map((face) => ({ face_id: face.id, op: 'add' as const })))
      .execute();
  });
  if ((start / commitSize) % 50 === 0) process.stdout.write(`  ${start.toLocaleString('en')}\r`);
}
const streamMs = performance.now() - streamStarted;
matchingDone = true;
await matching;

const lags = (
  await sql<{ lag: number }>`
    select extract(epoch from (a.created_at - l.at)) as lag
    from face_alerts a join face_index_log l on l.seq = a.log_seq`.execute(db)
).rows
  .map((row) => Number(row.lag))
  .sort((a, b) => a - b);
const alerts = lags.length;
const pct = (p: number) =>
  lags.length ? lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]! : NaN;
console.log(
  [
    '',
    `watches ${watchCount.toLocaleString('en')}, new faces ${faceCount.toLocaleString('en')} (${expectedMatches} photos of watched people), ${dimensions}-d`,
    `faces committed in ${(streamMs / 1000).toFixed(1)} s; matcher passed ${matchedEntries.toLocaleString('en')} log entries in ${(matcherWallMs / 1000).toFixed(1)} s of its own`,
    `alerts raised ${alerts} (${(alerts / (matcherWallMs / 1000)).toFixed(1)} alerts/s of matcher time; ${(matchedEntries / (matcherWallMs / 1000)).toFixed(0)} faces/s)`,
    `CPU per 1,000 new faces: ${(matcherCpuMicros / 1000 / (matchedEntries / 1000)).toFixed(0)} ms`,
    `commit-to-alert lag: p50 ${pct(0.5).toFixed(2)} s, p95 ${pct(0.95).toFixed(2)} s, max ${pct(1).toFixed(2)} s`,
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  ].join('\n'),
);
await database.close();
fs.rmSync(dataDir, { recursive: true, force: true });
