// Faces turned any way, and non-faces kept out of the index: `npm run bench:face-filter`.
// - Non-faces: the BlazeFace detections a face was indexed for before the plausibility checks (upright
//   pass, score ≥ 0.5, box ≥ 40 px) against the faces reported now, on the demo sites' photos, the dev set
//   (../shared/faces/dev or FACES_DEV_DIR) and the CelebA dev photos (../shared/faces/celeba-dev or
//   CELEBA_DEV_DIR; research-only licence: read here, never copied). On CelebA the non-faces are known
//   from looking at every crop in question (KNOWN_NON_FACES); every other detection counts as a face, so a
//   rejected one is a face lost.
// - Turned faces: the 40 dev identity photos turned by 90°, 180°, 270° (and 30°, −45°): faces found and
//   the similarity of their descriptor to the upright photo's.
// - Cost: CPU per faceless image with and without the turned pass.
// FACE_FILTER_PIPELINE (default blazeface-mfn512), FACE_FILTER_CROPS=<dir> saves the crops of rejected
// and turned-pass detections there (look at them; never inside the repository), FACE_FILTER_CELEBA_LIMIT.

import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { renderDemoPhotos } from '../server/src/demo/demo-site.ts';
import type { FaceBox } from '../server/src/face/face-engine.ts';
import { decodeImage, type RgbImage } from '../server/src/face/image-decode.ts';
import { detectionRegions } from '../server/src/face/pipeline/blazeface-detector.ts';
import {
  type BlazeFaceFrontEnd,
  type BlazeFacePipelineName,
  loadBlazeFaceFrontEnd,
} from '../server/src/face/pipeline/face-pipelines.ts';
import type { FoundFaces } from '../server/src/face/pipeline/upright-faces.ts';
import {
  isIndexableFace,
  l2Normalise,
  MIN_INDEX_FACE_PX,
  similarity,
} from '../server/src/face/similarity.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const devDir = process.env.FACES_DEV_DIR ?? path.resolve(repoRoot, '../shared/faces/dev');
const celebaDir = process.env.CELEBA_DEV_DIR ?? path.resolve(repoRoot, '../shared/faces/celeba-dev');
const pipeline = (process.env.FACE_FILTER_PIPELINE ?? 'blazeface-mfn512') as BlazeFacePipelineName;
const cropsDir = process.env.FACE_FILTER_CROPS;
const celebaLimit = Number(process.env.FACE_FILTER_CELEBA_LIMIT ?? Infinity);

/**
 * CelebA dev detections that are not faces (file, centre of the BlazeFace box), found by looking at the
 * crops of every secondary detection and of every detection with an unusual measure: a mug, hands, a dog,
 * a belly, a logo, city lights. The first 11 are indexable (≥ 40 px); the last 4 are smaller.
 */
const KNOWN_NON_FACES: Array<[string, number, number]> = [
  ['7228/111278.jpg', 414, 49],
  ['7237/061970.jpg', 301, 382],
  ['7250/133375.jpg', 43, 239],
  ['7252/072039.jpg', 223, 508],
  ['7256/089654.jpg', 76, 233],
  ['7300/049963.jpg', 177, 226],
  ['7300/094415.jpg', 92, 420],
  ['7339/143498.jpg', 232, 382],
  ['7357/064867.jpg', 250, 549],
  ['7380/067515.jpg', 211, 37],
  ['7403/144554.jpg', 63, 32],
  ['7234/155148.jpg', 323, 352],
  ['7236/190117.jpg', 347, 176],
  ['7435/032289.jpg', 129, 111],
  ['7469/056381.jpg', 9, 70],
];

interface Photo {
  name: string;
  bytes: () => Promise<Buffer>;
  /** Faces visible by eye, where known. */
  visible?: number;
}

const centreOf = (b: FaceBox): [number, number] => [b.x + b.width / 2, b.y + b.height / 2];

function overlaps(a: FaceBox, b: FaceBox): boolean {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 && (w * h) / Math.min(a.width * a.height, b.width * b.height) > 0.3;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '–');

async function saveCrop(image: RgbImage, box: FaceBox, name: string): Promise<void> {
  if (!cropsDir) return;
  mkdirSync(cropsDir, { recursive: true });
  const m = 0.25 * Math.max(box.width, box.height);
  const left = Math.max(0, Math.floor(box.x - m));
  const top = Math.max(0, Math.floor(box.y - m));
  const width = Math.min(image.width - left, Math.ceil(box.width + 2 * m));
  const height = Math.min(image.height - top, Math.ceil(box.height + 2 * m));
  if (width < 2 || height < 2) return;
  await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({ left, top, width, height })
    .resize(160, 160, { fit: 'contain' })
    .jpeg()
    .toFile(path.join(cropsDir, `${name.replace(/[^\w.-]+/g, '_')}.jpg`));
}

interface SetResult {
  photos: number;
  /** Indexable detections of the upright pass (what was indexed before the checks). */
  before: number;
  after: number;
  knownNonFacesBefore: number;
  knownNonFacesAfter: number;
  /** Detections counted as faces that no reported face covers any more. */
  facesLost: string[];
  /** Of those, the photo's best-scoring detection. */
  mainFacesLost: number;
  /** Faces reported only thanks to the turned pass. */
  addedByTurnedPass: number;
  turnedPassPhotos: number;
  visible: { known: number; before: number; after: number };
  reasons: Map<string, number>;
}

async function filterSet(
  frontEnd: BlazeFaceFrontEnd,
  label: string,
  photos: Photo[],
  nonFaces: Array<[string, number, number]> = [],
): Promise<SetResult> {
  const r: SetResult = {
    photos: photos.length,
    before: 0,
    after: 0,
    knownNonFacesBefore: 0,
    knownNonFacesAfter: 0,
    facesLost: [],
    mainFacesLost: 0,
    addedByTurnedPass: 0,
    turnedPassPhotos: 0,
    visible: { known: 0, before: 0, after: 0 },
    reasons: new Map(),
  };
  for (const [i, photo] of photos.entries()) {
    const image = await decodeImage(await photo.bytes(), { maxSide: 2048 });
    const found: FoundFaces = await frontEnd.find(image, MIN_INDEX_FACE_PX);
    const isNonFace = (b: FaceBox) =>
      nonFaces.some(([file, x, y]) => {
        if (file !== photo.name) return false;
        const [cx, cy] = centreOf(b);
        return Math.hypot(cx - x, cy - y) < Math.max(4, 0.2 * b.width);
      });
    const before = found.candidates
      .filter((c) => !c.detection.quarterTurns && isIndexableFace(c.box))
      .sort((a, b) => b.detection.score - a.detection.score);
    const after = found.faces.filter((f) => isIndexableFace(f.box));
    r.before += before.length;
    r.after += after.length;
    r.turnedPassPhotos += found.turnedPass ? 1 : 0;
    r.knownNonFacesBefore += before.filter((c) => isNonFace(c.box)).length;
    r.knownNonFacesAfter += after.filter((f) => isNonFace(f.box)).length;
    if (photo.visible !== undefined) {
      r.visible.known += photo.visible;
      r.visible.before += before.length;
      r.visible.after += after.length;
    }
    for (const [k, c] of before.entries()) {
      if (c.rejected.length === 0 || isNonFace(c.box)) continue;
      if (after.some((f) => overlaps(f.box, c.box))) continue;
      for (const why of c.rejected) r.reasons.set(why, (r.reasons.get(why) ?? 0) + 1);
      r.facesLost.push(`${photo.name} @${centreOf(c.box).map(Math.round).join(',')}`);
      if (k === 0) r.mainFacesLost++;
      await saveCrop(image, c.box, `${label}-${i}-lost-${c.rejected.join('+')}`);
    }
    for (const f of after.filter((f) => f.detection.quarterTurns)) {
      if (!before.some((c) => c.rejected.length === 0 && overlaps(f.box, c.box))) r.addedByTurnedPass++;
      await saveCrop(image, f.box, `${label}-${i}-turned-${f.detection.quarterTurns}`);
    }
    for (const c of before.filter((c) => c.rejected.length > 0 && isNonFace(c.box))) {
      await saveCrop(image, c.box, `${label}-${i}-nonface-${c.rejected.join('+')}`);
    }
  }
  return r;
}

function printSet(label: string, r: SetResult): void {
  const visible = r.visible.known
    ? `; faces visible ${r.visible.known}: reported ${r.visible.before} before, ${r.visible.after} after`
    : '';
  console.log(
    `${label}: ${r.photos} photos; indexable detections ${r.before} before, faces ${r.after} after${visible}`,
  );
  if (r.knownNonFacesBefore || r.knownNonFacesAfter) {
    console.log(`  known non-faces indexed: ${r.knownNonFacesBefore} before → ${r.knownNonFacesAfter} after`);
  }
  console.log(
    `  faces lost: ${r.facesLost.length} (${pct(r.facesLost.length, r.before - r.knownNonFacesBefore)}), ` +
      `of which the photo's main face: ${r.mainFacesLost}; added by the turned pass: ${r.addedByTurnedPass}; ` +
      `turned pass run on ${r.turnedPassPhotos} photos (${pct(r.turnedPassPhotos, r.photos)})`,
  );
  if (r.reasons.size) {
    const reasons = [...r.reasons].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`);
    console.log(`  failed checks of the faces lost: ${reasons.join(', ')}`);
  }
  if (r.facesLost.length && r.facesLost.length <= 12) console.log(`  lost: ${r.facesLost.join('; ')}`);
}

function listDir(dir: string, ext: RegExp): string[] {
  return readdirSync(dir)
    .filter((f) => ext.test(f))
    .sort();
}

async function turnedFaces(frontEnd: BlazeFaceFrontEnd): Promise<void> {
  const idDir = path.join(devDir, 'identities');
  const files = listDir(idDir, /^[^.]/).flatMap((p) =>
    listDir(path.join(idDir, p), /\.(png|jpe?g)$/i).map((f) => path.join(idDir, p, f)),
  );
  const describe = async (bytes: Buffer) => {
    const image = await decodeImage(bytes, { maxSide: 2048 });
    return (await frontEnd.find(image, MIN_INDEX_FACE_PX)).faces.map((f) =>
      l2Normalise(new Float32Array(f.descriptor)),
    );
  };
  const reference = new Map<string, Float32Array>();
  for (const f of files) {
    const [d] = await describe(readFileSync(f));
    if (d) reference.set(f, d);
  }
  console.log(
    `\nTurned dev photos (${files.length} identity photos, ${reference.size} found upright): faces found, ` +
      'similarity of the best face to the upright photo (min / median), photos with more than one face',
  );
  for (const angle of [90, 180, 270, 30, -45]) {
    const sims: number[] = [];
    let found = 0;
    let extra = 0;
    for (const f of files) {
      const ref = reference.get(f);
      if (!ref) continue;
      const turned = await sharp(readFileSync(f)).rotate(angle, { background: '#808080' }).png().toBuffer();
      const faces = await describe(turned);
      if (faces.length > 1) extra++;
      if (faces.length === 0) continue;
      found++;
      sims.push(Math.max(...faces.map((d) => similarity(d, ref))));
    }
    console.log(
      `  ${String(angle).padStart(4)}°: found ${found}/${reference.size}, similarity ` +
        `${sims.length ? `${Math.min(...sims).toFixed(3)} / ${median(sims).toFixed(3)}` : '–'}, ` +
        `more than one face: ${extra}`,
    );
  }
}

/** Faceless pictures of about 1 MP: drawings that fool BlazeFace a little, a texture, a gradient. */
async function facelessImages(): Promise<Array<{ name: string; image: RgbImage }>> {
  const svgs = {
    'red light': `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><defs><radialGradient id="g">
      <stop offset="0" stop-color="#ffe9d0"/><stop offset="0.4" stop-color="#ff2a1a"/><stop offset="1" stop-color="#300"/>
      </radialGradient></defs><rect width="1200" height="900" fill="#111"/><circle cx="600" cy="450" r="260" fill="url(#g)"/></svg>`,
    text: `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="#fff"/>
      <text x="60" y="300" font-size="160" font-family="serif" font-weight="bold">Breaking</text>
      <text x="60" y="520" font-size="160" font-family="serif" font-weight="bold">News 0:00</text></svg>`,
    gradient: `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><defs><linearGradient id="g">
      <stop offset="0" stop-color="#7aa7d9"/><stop offset="1" stop-color="#f2d6a2"/></linearGradient></defs>
      <rect width="1200" height="900" fill="url(#g)"/></svg>`,
  };
  const out: Array<{ name: string; image: RgbImage }> = [];
  for (const [name, svg] of Object.entries(svgs)) {
    out.push({
      name,
      image: await decodeImage(await sharp(Buffer.from(svg)).png().toBuffer(), { maxSide: 2048 }),
    });
  }
  const noise = Buffer.alloc(1200 * 900 * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (Math.sin(i * 0.37) * 60 + ((i * 7919) % 97)) & 255;
  const texture = await sharp(noise, { raw: { width: 1200, height: 900, channels: 3 } })
    .blur(3)
    .png()
    .toBuffer();
  out.push({ name: 'texture', image: await decodeImage(texture, { maxSide: 2048 }) });
  return out;
}

async function turnedPassCost(frontEnd: BlazeFaceFrontEnd): Promise<void> {
  console.log(
    '\nCPU per faceless 1200×900 image, median of 5 runs (upright pass only → with the turned pass):',
  );
  for (const minFace of [MIN_INDEX_FACE_PX, 128]) {
    const rows: string[] = [];
    const extra: number[] = [];
    for (const { name, image } of await facelessImages()) {
      const time = async (turnedPass: boolean) => {
        const runs: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t0 = cpuMs();
          await frontEnd.find(image, minFace, { turnedPass });
          runs.push(cpuMs() - t0);
        }
        return median(runs);
      };
      const [without, withTurned] = [await time(false), await time(true)];
      extra.push(withTurned - without);
      rows.push(`${name} ${without.toFixed(0)} → ${withTurned.toFixed(0)} ms`);
    }
    const regions = detectionRegions(1200, 900, minFace).length;
    console.log(
      `  faces ≥ ${minFace} px (${regions} BlazeFace run${regions > 1 ? 's' : ''} upright): ${rows.join('; ')}; ` +
        `turned pass +${median(extra).toFixed(0)} ms (median); over tiles it would be ${3 * regions} runs instead of 3`,
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `Face filter benchmark, pipeline ${pipeline}; ${os.availableParallelism()} cores, ` +
      `load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const frontEnd = await loadBlazeFaceFrontEnd(pipeline);
  await frontEnd.warmUp();

  const demoVisible: Record<string, number> = {
    'riverside-festival.jpg': 3,
    'library-reopens.jpg': 3,
    'northwind-team.jpg': 3,
    'council-candidates.jpg': 4,
    'hospice-gala.jpg': 5,
    'crown-court-witnesses.jpg': 4,
    'helena-marsh.jpg': 1,
    'carla-mendes.jpg': 1,
    'festival-courier.jpg': 3,
    'gala-courier.jpg': 5,
    'northwind-courier.jpg': 3,
  };
  const demo = [...(await renderDemoPhotos())].map(([name, bytes]) => ({
    name,
    bytes: async () => bytes,
    visible: demoVisible[name],
  }));
  printSet('Demo sites', await filterSet(frontEnd, 'demo', demo));

  if (!existsSync(path.join(devDir, 'identities'))) {
    console.log(
      `\nNo dev set at ${devDir} (FACES_DEV_DIR): the dev, CelebA and turned-face measurements are skipped.`,
    );
    await turnedPassCost(frontEnd);
    return;
  }
  const idDir = path.join(devDir, 'identities');
  const identities = listDir(idDir, /^[^.]/).flatMap((p) =>
    listDir(path.join(idDir, p), /\.(png|jpe?g)$/i).map((f) => ({
      name: f,
      bytes: async () => readFileSync(path.join(idDir, p, f)),
      visible: 1,
    })),
  );
  const groupVisible: Record<string, number> = {
    'bbt1.jpg': 4,
    'bbt2.jpg': 3,
    'bbt3.jpg': 5,
    'bbt4.jpg': 6,
    'bbt5.jpg': 5,
  };
  const groups = listDir(path.join(devDir, 'groups'), /\.jpe?g$/i).map((f) => ({
    name: f,
    bytes: async () => readFileSync(path.join(devDir, 'groups', f)),
    visible: groupVisible[f],
  }));
  printSet('Dev identities', await filterSet(frontEnd, 'dev', identities));
  printSet('Dev groups', await filterSet(frontEnd, 'groups', groups));

  if (existsSync(celebaDir)) {
    const celeba = listDir(celebaDir, /^\d+$/)
      .flatMap((id) =>
        listDir(path.join(celebaDir, id), /\.jpe?g$/i).map((f) => ({
          name: `${id}/${f}`,
          bytes: async () => readFileSync(path.join(celebaDir, id, f)),
        })),
      )
      .slice(0, celebaLimit);
    const t0 = performance.now();
    const result = await filterSet(frontEnd, 'celeba', celeba, KNOWN_NON_FACES);
    printSet(`CelebA dev (${((performance.now() - t0) / 1000).toFixed(0)} s)`, result);
  } else {
    console.log(`\nNo CelebA dev set at ${celebaDir} (CELEBA_DEV_DIR): skipped.`);
  }

  await turnedFaces(frontEnd);
  await turnedPassCost(frontEnd);
}

await main();
