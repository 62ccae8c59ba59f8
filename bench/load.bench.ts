// npm run bench:load — production mode under load on one machine, over loopback only: a throwaway
// PostgreSQL, 100,000 indexed faces, 2 API processes (WORKERS=0) and 1 worker process (npm run worker)
// that crawls the demo site meanwhile. autocannon drives POST /api/search, GET /api/saved-search (list)
// and GET /api/saved-search/results/:hash (detail); prints throughput and p50/p99 per call and whether
// the target holds: 50 searches/s with p99 ≤ 500 ms while a crawl runs.
//   npm run bench:load -- --faces 100000 --seconds 30
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { openDatabase } from '../server/src/db/database.ts';
import { migrateToLatest } from '../server/src/db/migrate.ts';
import { DEMO_PHOTOS } from '../server/src/demo/demo-content.ts';
import { renderDemoPhotos, startDemoSite } from '../server/src/demo/demo-site.ts';
import { LazyFaceEngine } from '../server/src/face/lazy-face-engine.ts';
import { startThrowawayPostgres } from '../server/test/support/postgres-server.ts';
import { insertSyntheticFaces, realisticDescriptors } from './lib/synthetic-index.ts';

const { values } = parseArgs({
  options: {
    faces: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '30' },
    rate: { type: 'string', default: '50' },
  },
});
const FACES = Number(values.faces);
const SECONDS = Number(values.seconds);
const TARGET_RATE = Number(values.rate);
const TARGET_P99_MS = 500;
const ADMIN = { email: 'load@provider.example.org', password: 'Load.Bench.Pass1' };
const ROOT = path.resolve(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  for (const cleanup of cleanups.reverse()) await cleanup();
}
process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));
// Whatever ends the run (a failed step included), no process or server is left behind.
const onExit: (() => void)[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of onExit) cleanup();
});

/** Starts `server/src/<script>` under tsx with its output in DATA_DIR/logs; resolves once `ready` says so. */
async function startProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: () => Promise<boolean>,
): Promise<ChildProcess> {
  const log = fs.openSync(path.join(dataDir, 'logs', `${name}.log`), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/src', script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  children.push(child);
  let exited = false;
  child.once('exit', () => (exited = true));
  // Building the face index of 100k faces takes 1-2 minutes on an idle 2-core machine; far more on a busy one.
  const deadline = Date.now() + 20 * 60_000;
  while (!(await ready().catch(() => false))) {
    if (exited) throw new Error(`${name} exited; see ${path.join(dataDir, 'logs', `${name}.log`)}`);
    if (Date.now() > deadline) throw new Error(`${name} did not start within 20 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return child;
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

// 1. PostgreSQL and 100k faces.
const postgres = await startThrowawayPostgres();
let postgresStopped = false;
cleanups.push(() => {
  postgresStopped = true;
  postgres.stop();
});
onExit.push(() => postgresStopped || postgres.stop());
const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'osint-bench-load-'));
await fsp.mkdir(path.join(dataDir, 'logs'));
cleanups.push(() => fsp.rm(dataDir, { recursive: true, force: true }));
onExit.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
console.log(`PostgreSQL on ${postgres.url}; DATA_DIR ${dataDir}`);
const database = await openDatabase({ databaseUrl: postgres.url, dataDir });
cleanups.push(() => database.close());
await migrateToLatest(database.db);

let started = performance.now();
const photos = await renderDemoPhotos();
const engine = new LazyFaceEngine();
const real: Float32Array[] = [];
for (const photo of photos.values()) {
  for (const face of (await (await engine.get()).analyze(photo)).faces) real.push(face.descriptor);
}
await engine.close();
await insertSyntheticFaces(database.db, realisticDescriptors(real, FACES));
console.log(
  `${FACES} synthetic faces (around ${real.length} real demo descriptors) in ${seconds(started)} s`,
);

// 2. The processes: the worker first (it builds and saves the face index snapshot the API processes map).
const site = await startDemoSite({ port: 0 });
cleanups.push(() => site.close());
const common = {
  DATABASE_URL: postgres.url,
  DATA_DIR: dataDir,
  DEMO_DATA: '0',
  RATE_LIMIT: '0',
  HOST: '127.0.0.1',
  PUBLIC_URL: 'http://127.0.0.1',
  LOG_LEVEL: 'warn',
  // One machine: the outbox in the shared DATA_DIR is fine here (production mode otherwise needs MAIL_URL).
  MAIL_OUTBOX: '1',
};
started = performance.now();
const manifest = path.join(dataDir, 'face-index');
await startProcess('worker', 'worker.ts', { ...common, LOG_LEVEL: 'info' }, async () =>
  fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8').includes('worker started'),
);
console.log(`worker up in ${seconds(started)} s (face index snapshot in ${manifest})`);
const apiPorts = [await freePort(), await freePort()];
for (const [i, port] of apiPorts.entries()) {
  started = performance.now();
  await startProcess(
    `api-${i + 1}`,
    'main.ts',
    {
      ...common,
      WORKERS: '0',
      PORT: String(port),
      ...(i === 0 ? { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } : {}),
    },
    async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).ok,
  );
  console.log(`API process ${i + 1} on 127.0.0.1:${port} up in ${seconds(started)} s`);
}
const apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);

// 3. A signed-in user with access, face tokens of a few photos, saved searches for the list and detail calls.
const headers = { origin: common.PUBLIC_URL, 'content-type': 'application/json' };
const signIn = await fetch(`${apis[0]}/api/user/login`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ mail: ADMIN.email, password: ADMIN.password }),
});
if (!signIn.ok) throw new Error(`sign-in ${signIn.status}: ${await signIn.text()}`);
const cookie = signIn.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');
const authed = { ...headers, cookie };
async function call<T>(base: string, method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: authed,
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url} ${response.status}: ${await response.text()}`);
  return response.json() as Promise<T>;
}
const tokens: string[] = [];
const savedHashes: string[] = [];
for (const [i, key] of (['marsh', 'festival', 'court'] as const).entries()) {
  const upload = await call<{ faces: { hash: string; base64: string; possibleMinor: boolean }[] }>(
    apis[i % 2]!,
    'POST',
    '/api/upload-image',
    { img: photos.get(DEMO_PHOTOS[key].file)!.toString('base64') },
  );
  // Faces the minors gate flags cannot be searched by this (not law-enforcement) organization.
  for (const face of upload.faces.filter((f) => !f.possibleMinor)) {
    tokens.push(face.hash);
    const answer = await call<{ searchHash: string }>(apis[(i + 1) % 2]!, 'POST', '/api/search', {
      faces: [face.hash],
      type: 'OSINT',
    });
    const saved = await call<{ hash: string }>(apis[i % 2]!, 'POST', '/api/search/save', {
      name: `Load ${key} ${savedHashes.length + 1}`,
      description: '',
      hash: answer.searchHash,
      image: face.base64,
    });
    savedHashes.push(saved.hash);
  }
}
for (const hash of savedHashes) {
  for (let i = 0; ; i++) {
    const saved = await fetch(`${apis[0]}/api/saved-search/results/${hash}`, { headers: authed });
    if (saved.ok) break;
    if (i > 240) throw new Error(`saved search ${hash} not completed: ${saved.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
if (tokens.length === 0) throw new Error('every face of the 3 photos was flagged as a possible minor');
console.log(`${tokens.length} face tokens from 3 photos; ${savedHashes.length} saved searches completed`);

// 4. The crawl the worker runs meanwhile (queued through the job table like an admin's crawl).
const { app: queuer, container } = await buildApp(
  loadConfig(
    {},
    { dataDir, databaseUrl: postgres.url, runWorkers: false, demoData: false, logLevel: 'warn' },
  ),
  database.db,
  { logger: false },
);
cleanups.push(() => queuer.close());
async function crawlState(id: string) {
  return database.db
    .selectFrom('crawls')
    .select(['status', 'pages', 'images', 'faces'])
    .where('public_id', '=', id)
    .executeTakeFirstOrThrow();
}

interface Measured {
  call: string;
  mode: string;
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

/** One autocannon run per API process at once (a load balancer's even split); results added up. */
async function drive(
  label: string,
  mode: string,
  options: { method: 'GET' | 'POST'; path: string; body?: () => string; connections: number; rate?: number },
  durationSeconds: number,
): Promise<Measured> {
  const runs = await Promise.all(
    apis.map((base) =>
      autocannon({
        url: base,
        method: options.method,
        headers: authed,
        connections: options.connections,
        duration: durationSeconds,
        ...(options.rate ? { overallRate: options.rate / apis.length } : {}),
        requests: [
          {
            method: options.method,
            path: options.path,
            ...(options.body ? { setupRequest: (request) => ({ ...request, body: options.body!() }) } : {}),
          },
        ],
      }),
    ),
  );
  const requests = runs.reduce((sum, r) => sum + r.requests.total, 0);
  const errors = runs.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
  return {
    call: label,
    mode,
    requests,
    perSecond: runs.reduce((sum, r) => sum + r.requests.average, 0),
    // The slower process's percentile bounds the combined one.
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    max: Math.max(...runs.map((r) => r.latency.max)),
    errors,
  };
}

let turn = 0;
const searchBody = () => JSON.stringify({ faces: [tokens[turn++ % tokens.length]], type: 'OSINT' });
const results: Measured[] = [];
const { id: crawlId } = await container.services.crawl.startCrawl({
  urls: site.urls,
  requestedBy: null,
  demo: site.crawlTarget,
});
const crawlBefore = await crawlState(crawlId);
console.log(`\nCrawl ${crawlId} queued; driving load for ${SECONDS} s per run…`);
results.push(
  await drive(
    'POST /api/search',
    `${TARGET_RATE}/s fixed`,
    { method: 'POST', path: '/api/search', body: searchBody, connections: 8, rate: TARGET_RATE },
    SECONDS,
  ),
);
const crawlAfterTarget = await crawlState(crawlId);
results.push(
  await drive(
    'POST /api/search',
    'saturation, 2×4 conn.',
    { method: 'POST', path: '/api/search', body: searchBody, connections: 4 },
    Math.max(10, SECONDS / 2),
  ),
);
results.push(
  await drive(
    'GET /api/saved-search',
    'saturation, 2×4 conn.',
    { method: 'GET', path: '/api/saved-search?pageNumber=1&pageSize=5', connections: 4 },
    Math.max(10, SECONDS / 2),
  ),
);
results.push(
  await drive(
    'GET /api/saved-search/results/:hash',
    'saturation, 2×4 conn.',
    { method: 'GET', path: `/api/saved-search/results/${savedHashes[0]}`, connections: 4 },
    Math.max(10, SECONDS / 2),
  ),
);
const crawlAfter = await crawlState(crawlId);

console.log(
  `\n${FACES} faces, 2 API processes + 1 worker, ${os.cpus().length} cores, PostgreSQL over loopback; ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min)`,
);
console.log(
  `crawl during the ${TARGET_RATE}/s search run: ${crawlBefore.status} → ${crawlAfterTarget.status}, ` +
    `pages ${crawlBefore.pages} → ${crawlAfterTarget.pages}, faces ${crawlBefore.faces} → ${crawlAfterTarget.faces}; ` +
    `at the end: ${crawlAfter.status}, ${crawlAfter.pages} pages, ${crawlAfter.images} images, ${crawlAfter.faces} faces`,
);
console.log(
  'call                                  mode                    requests   req/s   p50 ms   p99 ms   max ms  errors',
);
for (const r of results) {
  console.log(
    `${r.call.padEnd(37)} ${r.mode.padEnd(22)} ${String(r.requests).padStart(9)} ${r.perSecond.toFixed(1).padStart(7)} ` +
      `${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.max).padStart(8)} ${String(r.errors).padStart(7)}`,
  );
}
const target = results[0]!;
const crawlRan = crawlBefore.status !== 'DONE' && crawlAfterTarget.pages > crawlBefore.pages;
const holds = target.perSecond >= TARGET_RATE * 0.95 && target.p99 <= TARGET_P99_MS && target.errors === 0;
console.log(
  `\nTarget ${TARGET_RATE} searches/s with p99 ≤ ${TARGET_P99_MS} ms while a crawl runs: ` +
    `${holds && crawlRan ? 'HOLDS' : 'DOES NOT HOLD'} (${target.perSecond.toFixed(1)}/s, p99 ${target.p99} ms, ` +
    `${target.errors} errors, crawl ${crawlRan ? 'ran' : 'did not run'} meanwhile)`,
);
await cleanUp();
process.exit(0);
