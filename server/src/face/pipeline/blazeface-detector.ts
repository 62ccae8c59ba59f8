import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import type { RgbImage } from '../image-decode.ts';
import type { OnnxSession } from './onnx-session.ts';
import { openTfjsGraphAsOnnx } from './tfjs-graph-to-onnx.ts';

// BlazeFace ("back camera" variant, shipped inside @vladmandic/human) run directly on its graph model.
// We decode its output ourselves instead of calling Human.detect because we need the raw box and the six
// keypoints, and we need to run it on tiles of a large image to find small faces.

export type Point = [number, number];

export interface Square {
  x: number;
  y: number;
  side: number;
}

/** A square the detector runs on, and which of its detections it is responsible for. */
export interface Region extends Square {
  /** Keep a detection only if its centre lies here (the cores of a level's tiles partition the image). */
  core: { x0: number; y0: number; x1: number; y1: number };
  /** Larger faces may be cut by this tile's border; a coarser level finds them whole. */
  maxFace: number;
}

export interface RawDetection {
  /** Box in image pixels (may extend beyond the image for faces cut by its border). */
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
  /** Right eye, left eye, nose tip, mouth centre, right ear, left ear (subject's left/right), image pixels. */
  keypoints: Point[];
  /** Set when found in the image turned clockwise by this many quarter turns (box and points are not). */
  quarterTurns?: QuarterTurns;
}

export type QuarterTurns = 1 | 2 | 3;

const INPUT = 256;
const KEYPOINTS = 6;
// Two output heads: 16×16 cells with 2 anchors (stride 16) then 8×8 cells with 6 anchors (stride 32).
const ANCHOR_LAYERS = [
  { stride: 16, perCell: 2 },
  { stride: 32, perCell: 6 },
];

function anchorCentres(): Point[] {
  const centres: Point[] = [];
  for (const { stride, perCell } of ANCHOR_LAYERS) {
    const cells = Math.ceil(INPUT / stride);
    for (let row = 0; row < cells; row++) {
      for (let col = 0; col < cells; col++) {
        for (let k = 0; k < perCell; k++) centres.push([(col + 0.5) * stride, (row + 0.5) * stride]);
      }
    }
  }
  return centres;
}

function iou(a: RawDetection, b: RawDetection): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/**
 * Greedy non-maximum suppression. Also drops a box lying more than 40 % inside a higher-scoring one:
 * BlazeFace sometimes adds a weaker box on part of a large face (seen on a blurry, upscaled portrait).
 */
export function suppressOverlaps(dets: RawDetection[], iouLimit = 0.3): RawDetection[] {
  const kept: RawDetection[] = [];
  for (const d of [...dets].sort((a, b) => b.score - a.score)) {
    const overlaps = kept.some((k) => {
      if (iou(k, d) > iouLimit) return true;
      const w = Math.min(k.x + k.width, d.x + d.width) - Math.max(k.x, d.x);
      const h = Math.min(k.y + k.height, d.y + d.height) - Math.max(k.y, d.y);
      return w > 0 && h > 0 && (w * h) / (d.width * d.height) > 0.4;
    });
    if (!overlaps) kept.push(d);
  }
  return kept;
}

export class BlazeFaceDetector {
  private readonly anchors = anchorCentres();
  /** Whole-image windows of the images detected on (kept while the image lives), for detectTurned. */
  private readonly wholeWindows = new WeakMap<RgbImage, Float32Array>();

  private constructor(private readonly model: OnnxSession) {}

  /** The model inside `@vladmandic/human`, converted to ONNX at load (see tfjs-graph-to-onnx.ts). */
  static async load(): Promise<BlazeFaceDetector> {
    const require = createRequire(import.meta.url);
    const humanDist = path.dirname(require.resolve('@vladmandic/human'));
    return new BlazeFaceDetector(
      await openTfjsGraphAsOnnx(path.join(humanDist, '..', 'models', 'blazeface.json'), undefined, {
        layoutProbe: { network: 'blazeface', inputs: { input: [1, INPUT, INPUT, 3] } },
      }),
    );
  }

  /**
   * Detects faces in square regions of the image (regions may extend beyond it; the outside is grey).
   * Each scale is made once with sharp (area-averaged, so small faces are not lost to aliasing as with a
   * plain bilinear resize), then the 256×256 window of each region is cut from it.
   */
  async detect(image: RgbImage, regions: Region[], minScore: number): Promise<RawDetection[]> {
    const found: RawDetection[] = [];
    const sides = [...new Set(regions.map((r) => r.side))];
    for (const side of sides) {
      const scale = INPUT / side;
      const level = await resizeRgb(image, scale);
      for (const region of regions.filter((r) => r.side === side)) {
        const left = Math.round(region.x * scale);
        const top = Math.round(region.y * scale);
        const window = cutWindow(level, left, top);
        if (region.maxFace === Infinity) this.wholeWindows.set(image, window);
        const dets = await this.detectWindow(window, minScore);
        for (const d of dets.map((t) => mapDetection(t, left / scale, top / scale, 1 / scale))) {
          const cx = d.x + d.width / 2;
          const cy = d.y + d.height / 2;
          const { core } = region;
          const inCore = cx >= core.x0 && cx < core.x1 && cy >= core.y0 && cy < core.y1;
          if (inCore && Math.max(d.width, d.height) <= region.maxFace) found.push(d);
        }
      }
    }
    return suppressOverlaps(found);
  }

  /**
   * Detects faces in the whole image (padded to a square, as the first region of detectionRegions) turned
   * clockwise by each of `turns` quarter turns, for faces lying sideways or upside down, which BlazeFace
   * finds poorly or with its keypoints in the wrong places. Only the 256×256 window is turned, so a turn
   * costs one model run. Boxes and keypoints are mapped back to the unturned image; duplicates across turns
   * are kept (the caller checks each against its landmarks).
   */
  async detectTurned(image: RgbImage, turns: QuarterTurns[], minScore: number): Promise<RawDetection[]> {
    const [whole] = detectionRegions(image.width, image.height, Infinity);
    const scale = INPUT / whole!.side;
    const left = Math.round(whole!.x * scale);
    const top = Math.round(whole!.y * scale);
    const window = this.wholeWindows.get(image) ?? cutWindow(await resizeRgb(image, scale), left, top);
    const found: RawDetection[] = [];
    for (const k of turns) {
      let turned = window;
      for (let i = 0; i < k; i++) turned = turnWindow(turned);
      for (const d of suppressOverlaps(await this.detectWindow(turned, minScore))) {
        const unturned = unturnDetection(d, k);
        found.push({ ...mapDetection(unturned, left / scale, top / scale, 1 / scale), quarterTurns: k });
      }
    }
    return found;
  }

  /** Runs the model on one normalised 256×256 window; coordinates of the result are in that window. */
  private async detectWindow(window: Float32Array, minScore: number): Promise<RawDetection[]> {
    const outputs = await this.model.run({ input: { data: window, dims: [1, INPUT, INPUT, 3] } });
    // The model returns four heads; sorted by size they are
    // scores(384), scores(512), boxes(384), boxes(512); anchors list the 512 stride-16 ones first.
    const [scores384, scores512, boxes384, boxes512] = Object.values(outputs).sort(
      (a, b) => a.length - b.length,
    );
    const logits = [...scores512!, ...scores384!];
    const regs = new Float32Array([...boxes512!, ...boxes384!]);
    const minLogit = Math.log(minScore / (1 - minScore));
    const found: RawDetection[] = [];
    for (let i = 0; i < logits.length; i++) {
      if (logits[i]! < minLogit) continue;
      const [ax, ay] = this.anchors[i]!;
      const r = regs.subarray(i * 16, i * 16 + 16);
      const keypoints: Point[] = [];
      for (let k = 0; k < KEYPOINTS; k++) keypoints.push([ax + r[4 + 2 * k]!, ay + r[5 + 2 * k]!]);
      const score = 1 / (1 + Math.exp(-logits[i]!));
      const [w, h] = [r[2]!, r[3]!];
      found.push({ x: ax + r[0]! - w / 2, y: ay + r[1]! - h / 2, width: w, height: h, score, keypoints });
    }
    return found;
  }
}

/**
 * The 256×256 window at (left, top) of the scaled image, normalised to −1..1 as the model expects, with
 * grey (0) where it lies outside the image. Cut in JavaScript from the 8-bit pixels, so no tensor of the
 * whole scaled image is ever made (that would be hundreds of MB for a large photo).
 */
function cutWindow(level: RgbImage, left: number, top: number): Float32Array {
  const window = new Float32Array(INPUT * INPUT * 3);
  const x0 = Math.max(0, left);
  const x1 = Math.min(level.width, left + INPUT);
  for (let y = 0; y < INPUT; y++) {
    const sy = top + y;
    if (sy < 0 || sy >= level.height) continue;
    for (let sx = x0; sx < x1; sx++) {
      const s = (sy * level.width + sx) * 3;
      const o = (y * INPUT + (sx - left)) * 3;
      window[o] = level.data[s]! / 127.5 - 1;
      window[o + 1] = level.data[s + 1]! / 127.5 - 1;
      window[o + 2] = level.data[s + 2]! / 127.5 - 1;
    }
  }
  return window;
}

function mapDetection(d: RawDetection, dx: number, dy: number, k: number): RawDetection {
  return {
    x: dx + d.x * k,
    y: dy + d.y * k,
    width: d.width * k,
    height: d.height * k,
    score: d.score,
    keypoints: d.keypoints.map(([x, y]): Point => [dx + x * k, dy + y * k]),
  };
}

/** The 256×256 window turned a quarter turn clockwise: pixel (x, y) moves to (255 − y, x). */
export function turnWindow(window: Float32Array): Float32Array {
  const out = new Float32Array(window.length);
  for (let y = 0; y < INPUT; y++) {
    for (let x = 0; x < INPUT; x++) {
      const s = (y * INPUT + x) * 3;
      const o = (x * INPUT + (INPUT - 1 - y)) * 3;
      out[o] = window[s]!;
      out[o + 1] = window[s + 1]!;
      out[o + 2] = window[s + 2]!;
    }
  }
  return out;
}

/** A point of the window turned `k` quarter turns clockwise, back in the unturned window. */
export function unturnPoint([x, y]: Point, k: number, side = INPUT): Point {
  let p: Point = [x, y];
  // One clockwise turn maps (x, y) to (side − y, x) in continuous coordinates; undo it k times.
  for (let i = 0; i < k; i++) p = [p[1], side - p[0]];
  return p;
}

function unturnDetection(d: RawDetection, k: number): RawDetection {
  const corners = [unturnPoint([d.x, d.y], k), unturnPoint([d.x + d.width, d.y + d.height], k)];
  const x = Math.min(corners[0]![0], corners[1]![0]);
  const y = Math.min(corners[0]![1], corners[1]![1]);
  return {
    x,
    y,
    width: Math.max(corners[0]![0], corners[1]![0]) - x,
    height: Math.max(corners[0]![1], corners[1]![1]) - y,
    score: d.score,
    keypoints: d.keypoints.map((p) => unturnPoint(p, k)),
  };
}

async function resizeRgb(image: RgbImage, scale: number): Promise<RgbImage> {
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  if (width === image.width && height === image.height) return image;
  const raw = { width: image.width, height: image.height, channels: 3 as const };
  const { data, info } = await sharp(image.data, { raw })
    .resize(width, height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Faces down to this fraction of a region's side are found (measured: 11–13 px of the 256-px input). */
const MIN_FACE_FRACTION = 0.06;
/** Adjacent tiles overlap by this fraction of their side. */
const TILE_OVERLAP = 0.25;

/** Start positions of `count` tiles of `side` spread evenly over `length` (first and last at the borders). */
function tileStarts(length: number, side: number): number[] {
  const count = side >= length ? 1 : Math.ceil((length - side) / (side * (1 - TILE_OVERLAP))) + 1;
  if (count === 1) return [(length - side) / 2];
  return Array.from({ length: count }, (_, i) => (i * (length - side)) / (count - 1));
}

/** Tile cores: split at the middle of each overlap, open-ended at the image borders. */
function cores(starts: number[], side: number): Array<[number, number]> {
  return starts.map((start, i) => [
    i === 0 ? -Infinity : (starts[i - 1]! + side + start) / 2,
    i === starts.length - 1 ? Infinity : (start + side + starts[i + 1]!) / 2,
  ]);
}

/**
 * Regions for finding faces down to minFace pixels: the whole image (as a square, padded), then, while
 * faces that small would be under MIN_FACE_FRACTION of the region, overlapping tiles of a smaller side.
 * A tile level only keeps faces smaller than its overlap whose centre lies in the tile's core, so every
 * face is found whole, once; the coarser level finds the bigger ones.
 */
export function detectionRegions(width: number, height: number, minFace: number): Region[] {
  const long = Math.max(width, height);
  const everywhere = { x0: -Infinity, y0: -Infinity, x1: Infinity, y1: Infinity };
  const regions: Region[] = [
    { x: (width - long) / 2, y: (height - long) / 2, side: long, core: everywhere, maxFace: Infinity },
  ];
  let side = long;
  // Tiles are never smaller than the model input: the image is not enlarged to look for tinier faces.
  const target = Math.max(minFace, MIN_FACE_FRACTION * INPUT);
  while (side * MIN_FACE_FRACTION > target) {
    // Small enough to reach minFace, but large enough that the overlap holds every face the coarser level
    // may miss (those under MIN_FACE_FRACTION of its side).
    side = Math.max(target / MIN_FACE_FRACTION, (side * MIN_FACE_FRACTION) / TILE_OVERLAP);
    const xs = tileStarts(width, side);
    const ys = tileStarts(height, side);
    const xCores = cores(xs, side);
    const yCores = cores(ys, side);
    ys.forEach((y, row) => {
      xs.forEach((x, col) => {
        const [x0, x1] = xCores[col]!;
        const [y0, y1] = yCores[row]!;
        regions.push({ x, y, side, core: { x0, y0, x1, y1 }, maxFace: side * TILE_OVERLAP });
      });
    });
  }
  return regions;
}
