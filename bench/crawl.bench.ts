// npm run bench:crawl — indexing speed (crawl + analysis) of 0.25–1 MP photos, end to end through
// `npm run crawl`: a local site on 127.0.0.1 with one photo per page, made at bench time from face-api's
// sample photos (crops, resizes, mirror images, JPEG/WebP re-encodes, so that every image's bytes differ:
// the indexer analyses each distinct content once) plus faceless images; the crawl CLI runs in a child
// process on a fresh DATA_DIR (PGlite) with CRAWL_ALLOW_PRIVATE=1 and CRAWL_DELAY_MS=0.
// Prints images/s and pages/s, faces indexed, and the crawl process's CPU time per image by thread (main
// thread, libvips threads, other threads: face workers, V8's GC and compiler threads) read from /proc,
// with load averages. On a busy machine the wall-clock rate says how much CPU the crawl got, not what it
// can do, so it also prints how many of its threads were running or waiting for a CPU on average
// (/proc schedstat), and from that and its CPU per image the rate an idle machine would give.
// Then, in this process, the CPU cost of each stage of the shipped face pipeline (decode, BlazeFace run,
// landmark pass, descriptor per face).
//   npm run bench:crawl -- --images 200 --faceless 20 --mp 0.25-1
//   npm run bench:crawl -- --skip-stages      (the crawl only)   --skip-crawl   (the stages only)
// Extra environment variables are passed to the crawl (e.g. FACE_THREADS=1 npm run bench:crawl).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { createRandom as random } from './lib/synthetic-face-vectors.ts';

const { values } = parseArgs({
  options: {
    images: { type: 'string', default: '200' },
    faceless: { type: 'string', default: '20' },
    // Megapixels of the photos, drawn uniformly from this range.
    mp: { type: 'string', default: '0.25-1' },
    seed: { type: 'string', default: '1' },
    'skip-stages': { type: 'boolean', default: false },
    'skip-crawl': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // Another checkout whose crawl CLI runs (e.g. an export of main, to compare); its node_modules may
    // be links to this one's.
    code: { type: 'string' },
  },
});
const IMAGES = Number(values.images);
const FACELESS = Number(values.faceless);
const [MIN_MP, MAX_MP] = values.mp.split('-').map(Number) as [number, number];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.join(ROOT, 'node_modules', '@vladmandic', 'face-api', 'demo');
const TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
const cpuMsOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

interface BenchImage {
  path: string;
  type: string;
  body: Buffer;
  width: number;
  height: number;
  faceless: boolean;
}

/**
 * A photo of 0.25–1 MP (--mp): a random crop (55–100 % of each side) of a sample, resized, mirrored half of the
 * time, JPEG (quality 70–92) or, one in ten, WebP.
 */
async function photo(index: number, rand: () => number): Promise<BenchImage> {
  const sample = 1 + (index % 6);
  const file = path.join(SAMPLES, `sample${sample}.jpg`);
  const meta = await sharp(file).metadata();
  const cropW = Math.round(meta.width * (0.55 + 0.45 * rand()));
  const cropH = Math.round(meta.height * (0.55 + 0.45 * rand()));
  const left = Math.floor((meta.width - cropW) * rand());
  const top = Math.floor((meta.height - cropH) * rand());
  const megapixels = MIN_MP + (MAX_MP - MIN_MP) * rand();
  const width = Math.round(Math.sqrt((megapixels * 1e6 * cropW) / cropH));
  const height = Math.round((width * cropH) / cropW);
  let image = sharp(file).extract({ left, top, width: cropW, height: cropH }).resize(width, height);
  if (rand() < 0.5) image = image.flop();
  const webp = rand() < 0.1;
  const quality = 70 + Math.floor(23 * rand());
  const body = await (
    webp ? image.webp({ quality }) : image.jpeg({ quality, mozjpeg: rand() < 0.5 })
  ).toBuffer();
  const ext = webp ? 'webp' : 'jpg';
  return {
    path: `/photos/${index}.${ext}`,
    type: `image/${webp ? 'webp' : 'jpeg'}`,
    body,
    width,
    height,
    faceless: false,
  };
}

/** An image without faces: a sky gradient over hills with random shapes, of the same sizes. */
async function faceless(index: number, rand: () => number): Promise<BenchImage> {
  const megapixels = MIN_MP + (MAX_MP - MIN_MP) * rand();
  const width = Math.round(Math.sqrt(megapixels * 1e6 * 1.5));
  const height = Math.round(width / 1.5);
  const colour = () =>
    `rgb(${Math.floor(255 * rand())},${Math.floor(255 * rand())},${Math.floor(255 * rand())})`;
  const shapes = Array.from({ length: 12 }, () => {
    const x = Math.round(width * rand());
    const y = Math.round(height * rand());
    const r = Math.round(20 + 0.15 * width * rand());
    return rand() < 0.5
      ? `<circle cx="${x}" cy="${y}" r="${r}" fill="${colour()}" opacity="0.7"/>`
      : `<rect x="${x}" y="${y}" width="${r * 2}" height="${r}" fill="${colour()}" opacity="0.7"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${colour()}"/>
<stop offset="1" stop-color="${colour()}"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#sky)"/>
<path d="M0 ${height * 0.7} Q ${width * 0.3} ${height * 0.4} ${width * 0.6} ${height * 0.65} T ${width} ${height * 0.6} V ${height} H 0 Z" fill="${colour()}"/>
${shapes}</svg>`;
  const body = await sharp(Buffer.from(svg))
    .jpeg({ quality: 70 + Math.floor(23 * rand()) })
    .toBuffer();
  return { path: `/photos/${index}.jpg`, type: 'image/jpeg', body, width, height, faceless: true };
}

/** The images of this seed and size, made once and kept in the temporary folder for later runs. */
async function benchImages(): Promise<BenchImage[]> {
  const dir = path.join(
    os.tmpdir(),
    `osint-bench-crawl-v1-${values.seed}-${IMAGES}-${FACELESS}-${values.mp}`,
  );
  const manifest = path.join(dir, 'images.json');
  type Stored = Omit<BenchImage, 'body'>;
  if (fs.existsSync(manifest)) {
    const stored = JSON.parse(await fsp.readFile(manifest, 'utf8')) as Stored[];
    return Promise.all(
      stored.map(async (image) => ({ ...image, body: await fsp.readFile(path.join(dir, image.path)) })),
    );
  }
  const images = await makeImages();
  await fsp.mkdir(path.join(dir, 'photos'), { recursive: true });
  for (const image of images) await fsp.writeFile(path.join(dir, image.path), image.body);
  const stored: Stored[] = images.map(({ body: _body, ...rest }) => rest);
  await fsp.writeFile(manifest, JSON.stringify(stored));
  return images;
}

async function makeImages(): Promise<BenchImage[]> {
  const rand = random(Number(values.seed));
  // Every tenth-or-so image is faceless, spread over the crawl.
  const every = FACELESS > 0 ? IMAGES / FACELESS : Infinity;
  const images: BenchImage[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const isFaceless = FACELESS > 0 && Math.floor((i + 1) / every) !== Math.floor(i / every);
    images.push(await (isFaceless ? faceless(i, rand) : photo(i, rand)));
  }
  const distinct = new Set(images.map((image) => image.body.toString('base64'))).size;
  if (distinct !== images.length) throw new Error(`only ${distinct} of ${images.length} images differ`);
  return images;
}

interface Resource {
  type: string;
  body: Buffer;
}

function site(images: BenchImage[]): Map<string, Resource> {
  const html = (title: string, body: string): Resource => ({
    type: 'text/html; charset=utf-8',
    body: Buffer.from(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`,
    ),
  });
  const resources = new Map<string, Resource>();
  resources.set('/robots.txt', { type: 'text/plain', body: Buffer.from('User-agent: *\nAllow: /\n') });
  const links = images.map((_, i) => `<li><a href="/story/${i}">Story ${i}</a></li>`).join('\n');
  resources.set('/', html('Bench news', `<h1>Bench news</h1><ul>${links}</ul>`));
  images.forEach((image, i) => {
    const text = `Story ${i} of the crawl benchmark. `.repeat(30);
    resources.set(
      `/story/${i}`,
      html(
        `Story ${i}`,
        `<article><h1>Story ${i}</h1><figure><img src="${image.path}" alt="Photo ${i}" width="${image.width}">` +
          `<figcaption>Caption of photo ${i}</figcaption></figure><p>${text}</p></article>`,
      ),
    );
    resources.set(image.path, { type: image.type, body: image.body });
  });
  return resources;
}

interface ThreadStat {
  comm: string;
  /** CPU time, in clock ticks. */
  ticks: number;
  /** Nanoseconds running plus nanoseconds runnable but waiting for a CPU (schedstat). */
  wantedNs: number;
}

/** CPU ticks of each thread of a process, with its name; threads that ended are not listed. */
function threadTicks(pid: number): Map<number, ThreadStat> {
  const threads = new Map<number, ThreadStat>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [running, waiting] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      threads.set(Number(tid), {
        comm,
        ticks: Number(fields[11]) + Number(fields[12]),
        wantedNs: Number(running) + Number(waiting),
      });
    } catch {
      // ended meanwhile
    }
  }
  return threads;
}

/** CPU ms of the whole process so far, ended threads included. */
function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function benchCrawl(): Promise<void> {
  const madeAt = performance.now();
  const images = await benchImages();
  const megapixels = images.map((i) => (i.width * i.height) / 1e6);
  const bytes = images.reduce((sum, i) => sum + i.body.length, 0);
  console.log(
    `${images.length} images (${images.filter((i) => i.faceless).length} faceless), ` +
      `${Math.min(...megapixels).toFixed(2)}–${Math.max(...megapixels).toFixed(2)} MP, ` +
      `${(bytes / 1e6).toFixed(1)} MB, ready in ${((performance.now() - madeAt) / 1000).toFixed(1)} s`,
  );
  const resources = site(images);

  let pid = 0;
  let firstRequestAt = 0;
  let cpuAtFirstRequest = 0;
  let ticksAtFirstRequest = new Map<number, ThreadStat>();
  const imageRequests: number[] = [];
  let pageRequests = 0;
  const server = http.createServer((req, res) => {
    const now = performance.now();
    if (!firstRequestAt && pid) {
      firstRequestAt = now;
      cpuAtFirstRequest = processCpuMs(pid);
      ticksAtFirstRequest = threadTicks(pid);
    }
    const url = (req.url ?? '/').split('?')[0]!;
    const resource = resources.get(url);
    if (!resource) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (url.startsWith('/photos/')) imageRequests.push(now);
    else if (url !== '/robots.txt') pageRequests++;
    res.writeHead(200, { 'content-type': resource.type, 'content-length': resource.body.length });
    res.end(resource.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'osint-bench-crawl-'));

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    CRAWL_ALLOW_PRIVATE: '1',
    CRAWL_DELAY_MS: '0',
  };
  delete env.DATABASE_URL;
  const loadBefore = load();
  const benchCpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/src/cli/crawl.ts', `http://127.0.0.1:${port}/`],
    { cwd: values.code ? path.resolve(values.code) : ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  pid = child.pid!;
  // The threads of the crawl process, polled: the last reading of each thread counts.
  const lastTicks = new Map<number, ThreadStat>();
  const loads: number[] = [];
  const poll = () => {
    for (const [tid, t] of threadTicks(pid)) lastTicks.set(tid, t);
    loads.push(os.loadavg()[0]!);
  };
  const poller = setInterval(poll, 250);
  let doneAt = 0;
  let cpuAtDone = 0;
  let peakRssMb = 0;
  let doneLine = '';
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
    const match = /^Done: .*$/m.exec(output);
    if (match && !doneAt) {
      // Read before the face workers are closed (their threads and times would be gone).
      doneAt = performance.now();
      cpuAtDone = processCpuMs(pid);
      peakRssMb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
      poll();
      doneLine = match[0];
    }
  });
  let errors = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (errors += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const exitedAt = performance.now();
  clearInterval(poller);
  const benchCpuMs = cpuMsOf(process.cpuUsage(benchCpuBefore));
  server.close();
  if (!values.keep) await fsp.rm(dataDir, { recursive: true, force: true });
  else console.log(`DATA_DIR kept: ${dataDir}`);
  if (code !== 0 || !doneAt) {
    console.error(output, errors);
    throw new Error(`crawl exited with code ${code}`);
  }

  const [, pages, imageCount, faces] = /Done: (\d+) pages?, (\d+) images?, (\d+) faces? indexed/.exec(
    doneLine,
  )!;
  const crawlS = (doneAt - firstRequestAt) / 1000;
  // Fetch rate once the pipeline is full: from the 10th image request to the last one.
  const steadyFrom = imageRequests[Math.min(9, imageRequests.length - 1)]!;
  const steadyTo = imageRequests.at(-1)!;
  const steadyRate = (imageRequests.length - 10) / ((steadyTo - steadyFrom) / 1000);
  const perImage = (ms: number) => (ms / Number(imageCount)).toFixed(0);

  // CPU per thread during the crawl (first request → Done).
  const groups = new Map<string, number>();
  const others: Array<{ tid: number; ms: number }> = [];
  for (const [tid, t] of lastTicks) {
    const ms = (t.ticks - (ticksAtFirstRequest.get(tid)?.ticks ?? 0)) * TICK_MS;
    const group =
      tid === pid ? 'main thread' : t.comm.startsWith('libvips') ? 'libvips threads' : 'other threads';
    groups.set(group, (groups.get(group) ?? 0) + ms);
    if (group === 'other threads' && ms >= 500) others.push({ tid, ms });
  }
  const crawlCpuMs = cpuAtDone - cpuAtFirstRequest;
  // Threads running or runnable (waiting for a CPU), on average: the cores the crawl would take on an
  // idle machine, where none of them waits. Time blocked (on I/O, or on another thread's result) is not
  // counted, so a pipeline that runs its stages one after another stays near 1 however many cores exist.
  let wantedNs = 0;
  for (const [tid, t] of lastTicks) wantedNs += t.wantedNs - (ticksAtFirstRequest.get(tid)?.wantedNs ?? 0);
  const wantedCores = wantedNs / 1e6 / (doneAt - firstRequestAt);
  // A thread never gets more than one core: the busiest one (a face worker) bounds the rate too.
  let busiestMs = 0;
  for (const [tid, t] of lastTicks)
    busiestMs = Math.max(busiestMs, (t.ticks - (ticksAtFirstRequest.get(tid)?.ticks ?? 0)) * TICK_MS);
  const idleEstimate = Math.min(
    (Math.min(wantedCores, os.availableParallelism()) * 1000 * Number(imageCount)) / crawlCpuMs,
    (1000 * Number(imageCount)) / busiestMs,
  );
  const meanLoad = loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length);

  if (values.code) console.log(`\nCrawl CLI of ${path.resolve(values.code)}`);
  console.log(
    `\nCrawl of http://127.0.0.1:${port}/ (${os.availableParallelism()} cores; ${process.env.FACE_THREADS ? `FACE_THREADS=${process.env.FACE_THREADS}` : 'default face threads'})`,
  );
  console.log(`  ${doneLine}`);
  console.log(
    `  start-up (spawn → first request) ${((firstRequestAt - startedAt) / 1000).toFixed(1)} s; ` +
      `crawl (first request → Done) ${crawlS.toFixed(1)} s; exit ${((exitedAt - doneAt) / 1000).toFixed(1)} s after`,
  );
  console.log(
    `  images/s ${(Number(imageCount) / crawlS).toFixed(2)} (steady, 10th → last image fetched: ${steadyRate.toFixed(2)}); ` +
      `pages/s ${(Number(pages) / crawlS).toFixed(2)}; faces ${faces}; page fetches ${pageRequests}`,
  );
  console.log(
    `  CPU of the crawl process during the crawl: ${(crawlCpuMs / 1000).toFixed(1)} s = ${perImage(crawlCpuMs)} ms per image; ` +
      `a fully used 2-core machine would do ${((2000 * Number(imageCount)) / crawlCpuMs).toFixed(1)} images/s at that cost`,
  );
  console.log(
    `  threads running or waiting for a CPU: ${wantedCores.toFixed(2)} on average; on an idle ` +
      `${os.availableParallelism()}-core machine ≈ ${idleEstimate.toFixed(1)} images/s (min(that, cores) × 1000 / CPU ms ` +
      `per image, at most 1000 / the busiest thread's ${perImage(busiestMs)} ms per image)`,
  );
  for (const [group, ms] of [...groups].sort((a, b) => b[1] - a[1])) {
    console.log(
      `    ${group.padEnd(16)} ${(ms / 1000).toFixed(1).padStart(6)} s  ${perImage(ms).padStart(4)} ms/image`,
    );
  }
  console.log(
    `    other threads over 0.5 s: ${others
      .sort((a, b) => b.ms - a.ms)
      .map((o) => `${(o.ms / 1000).toFixed(1)} s`)
      .join(', ')} (face workers, then V8's GC and compiler threads)`,
  );
  console.log(`  peak memory of the crawl process (VmHWM): ${peakRssMb.toFixed(0)} MB`);
  console.log(`  this process (site server, polling): ${(benchCpuMs / 1000).toFixed(1)} s CPU`);
  console.log(
    `  load average (1/5/15 min) before ${loadBefore}, after ${load()}; 1-min mean during ${meanLoad.toFixed(1)}`,
  );
}

/** Median CPU ms of `runs` calls of `work` in this process (no other thread of it is busy meanwhile). */
async function cpuMedian(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    await work();
    times.push(cpuMsOf(process.cpuUsage(before)));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * CPU cost of each stage of the shipped pipeline, run in this process one stage at a time, on a 1 MP photo
 * of sample 1 (its faces: 6) and on one face: decode, BlazeFace run (the whole image, and a tile), one
 * landmark pass per face, the descriptor per face, the whole analysis.
 */
async function benchStages(): Promise<void> {
  const { decodeImage } = await import('../server/src/face/image-decode.ts');
  const { loadPipeline } = await import('../server/src/face/pipeline/face-pipelines.ts');
  const { BlazeFaceDetector, detectionRegions } =
    await import('../server/src/face/pipeline/blazeface-detector.ts');
  const { landmarks68, loadFaceApiNets } = await import('../server/src/face/pipeline/faceapi-nets.ts');
  const { alignedChip } = await import('../server/src/face/pipeline/face-chip.ts');
  const { ARCFACE_TEMPLATE, loadMobileFaceNet, MFN_CHIP_SIZE } =
    await import('../server/src/face/pipeline/mobilefacenet-onnx.ts');
  const { SHIPPED_PIPELINE } = await import('../server/src/face/pipeline/pipeline-catalog.ts');
  const { MIN_INDEX_FACE_PX } = await import('../server/src/face/similarity.ts');

  const loadBefore = load();
  const bytes = await sharp(path.join(SAMPLES, 'sample1.jpg')).resize(1225).jpeg({ quality: 85 }).toBuffer();
  await loadFaceApiNets(['landmarks']);
  const detector = await BlazeFaceDetector.load();
  const mfn = await loadMobileFaceNet({ withMirror: false });
  const pipeline = await loadPipeline(SHIPPED_PIPELINE);
  await pipeline.warmUp?.();

  const image = await decodeImage(bytes, { maxSide: 2048 });
  const regions = detectionRegions(image.width, image.height, MIN_INDEX_FACE_PX);
  const whole = regions.slice(0, 1);
  const dets = await detector.detect(image, whole, 0.5);
  const boxes = dets.map((d) => {
    const side = 1.5 * Math.max(d.width, d.height);
    return { x: d.x + d.width / 2 - side / 2, y: d.y + d.height / 2 - 0.14 * d.height - side / 2, side };
  });
  const [firstMarks] = await landmarks68(image, boxes.slice(0, 1));
  const chip = alignedChip(image, firstMarks!, ARCFACE_TEMPLATE, MFN_CHIP_SIZE);
  const faces = (await pipeline.analyze(image, MIN_INDEX_FACE_PX)).length;
  const runs = 15;
  const decode = await cpuMedian(runs, () => decodeImage(bytes, { maxSide: 2048 }));
  const blazeWhole = await cpuMedian(runs, () => detector.detect(image, whole, 0.5));
  const blazeAll = await cpuMedian(runs, () => detector.detect(image, regions, 0.5));
  const landmarksOne = await cpuMedian(runs, () => landmarks68(image, boxes.slice(0, 1)));
  const landmarksAll = await cpuMedian(runs, () => landmarks68(image, boxes));
  const chipMs = await cpuMedian(runs, async () =>
    alignedChip(image, firstMarks!, ARCFACE_TEMPLATE, MFN_CHIP_SIZE),
  );
  const descriptor = await cpuMedian(3 * runs, () => mfn.describe([chip]));
  const descriptors = await cpuMedian(runs, () => mfn.describe(boxes.map(() => chip)));
  const analysis = await cpuMedian(runs, () => pipeline.analyze(image, MIN_INDEX_FACE_PX));

  console.log(
    `\nShipped pipeline (${SHIPPED_PIPELINE}) stage by stage, in-process CPU ms (median of ${runs}), ` +
      `${image.width}×${image.height} photo (sample 1), ${faces} faces ≥ ${MIN_INDEX_FACE_PX} px, ` +
      `${regions.length} BlazeFace regions; load average ${loadBefore}`,
  );
  const rows: Array<[string, number]> = [
    ['decode (sharp, to RGB)', decode],
    ['BlazeFace, whole image (1 run)', blazeWhole],
    [`BlazeFace, all ${regions.length} regions`, blazeAll],
    ['landmarks, 1 face, 1 pass', landmarksOne],
    [
      `landmarks, ${boxes.length} faces, 1 pass (per face: ${(landmarksAll / boxes.length).toFixed(1)})`,
      landmarksAll,
    ],
    ['aligned 112×112 chip, 1 face', chipMs],
    [`MobileFaceNet descriptor, 1 face (median of ${3 * runs})`, descriptor],
    [
      `MobileFaceNet, ${boxes.length} faces (per face: ${(descriptors / boxes.length).toFixed(1)})`,
      descriptors,
    ],
    [`whole analysis (decoded image → ${faces} descriptors)`, analysis],
  ];
  for (const [label, ms] of rows) console.log(`  ${label.padEnd(62)} ${ms.toFixed(1).padStart(7)}`);
  console.log(`  load average after: ${load()}`);
}

if (!values['skip-crawl']) await benchCrawl();
if (!values['skip-stages']) await benchStages();
process.exit(0);
