import type { RgbImage } from '../image-decode.ts';
import type { Point, Square } from './blazeface-detector.ts';

// Face "chips": the fixed-size, aligned face images a descriptor network is fed with.

export const CHIP_SIZE = 150;

/** Chip pixel (u, v) → image point (a·u − b·v + tx, b·u + a·v + ty): rotation, uniform scale, shift. */
export interface ChipTransform {
  a: number;
  b: number;
  tx: number;
  ty: number;
}

export type ChipAlignment =
  /** dlib-style: least-squares similarity transform of 5 landmarks onto FIVE_POINT_TEMPLATE. */
  | 'five-point'
  /** face-api's own crop: landmarks' bounding box + 20 %, not rotated, black bars to make it square. */
  | 'faceapi-box';

/**
 * Where the five points of a frontal face sit in a 150×150 chip: subject's right eye, left eye, nose tip,
 * right and left mouth corner. Measured on the 22 faces of face-api's demo photos (not the dev set) as the
 * average position of these landmarks inside face-api's own crop (landmarks' box + 20 %) after levelling
 * the eyes, then made left/right symmetric. So chips keep the scale face-api feeds the dlib network, while
 * the fit over five points also removes rotation and is not thrown off by the jaw line, which the landmark
 * net places poorly when the chin is cut off or turned away.
 */
export const FIVE_POINT_TEMPLATE: readonly Point[] = [
  [48.92, 39.9],
  [101.08, 39.9],
  [75, 74.8],
  [52.93, 96.15],
  [97.07, 96.15],
];

const mean = (pts: readonly Point[]): Point => [
  pts.reduce((s, p) => s + p[0], 0) / pts.length,
  pts.reduce((s, p) => s + p[1], 0) / pts.length,
];

/** Eye centres (subject's right eye first, i.e. the one on the image's left) from the 68 landmarks. */
export function eyeCentres(landmarks: Point[]): [Point, Point] {
  return [mean(landmarks.slice(36, 42)), mean(landmarks.slice(42, 48))];
}

/** Centre of the mouth: the mean of the 20 mouth landmarks. */
export function mouthCentre(landmarks: Point[]): Point {
  return mean(landmarks.slice(48, 68));
}

/**
 * Roll of a face in radians (0 upright, clockwise on screen positive) from its eyes (subject's right eye
 * first) and mouth centre: the eye line, and the line from between the eyes to the mouth turned a quarter
 * turn, summed as vectors. Either alone fails somewhere: in profile the two eyes nearly coincide (the eye
 * line of a face-api demo profile pointed 72° off), and the mouth line follows a nod or a turned head.
 */
export function faceRoll(rightEye: Point, leftEye: Point, mouth: Point): number {
  const ex = leftEye[0] - rightEye[0];
  const ey = leftEye[1] - rightEye[1];
  const dx = mouth[0] - (leftEye[0] + rightEye[0]) / 2;
  const dy = mouth[1] - (leftEye[1] + rightEye[1]) / 2;
  return Math.atan2(ey - dx, ex + dy);
}

/** The five template points (see FIVE_POINT_TEMPLATE) from the 68 dlib landmarks. */
export function fivePoints(landmarks: Point[]): Point[] {
  const [right, left] = eyeCentres(landmarks);
  return [right, left, landmarks[30]!, landmarks[48]!, landmarks[54]!];
}

/**
 * The similarity transform (rotation, uniform scale, shift) that best maps `from` onto `to` in the
 * least-squares sense (closed form, no reflection).
 */
export function fitSimilarity(from: readonly Point[], to: readonly Point[]): ChipTransform {
  const fm = mean(from);
  const tm = mean(to);
  let dot = 0;
  let cross = 0;
  let norm = 0;
  from.forEach((f, i) => {
    const fx = f[0] - fm[0];
    const fy = f[1] - fm[1];
    const tx = to[i]![0] - tm[0];
    const ty = to[i]![1] - tm[1];
    dot += fx * tx + fy * ty;
    cross += fx * ty - fy * tx;
    norm += fx * fx + fy * fy;
  });
  const a = dot / norm;
  const b = cross / norm;
  return { a, b, tx: tm[0] - (a * fm[0] - b * fm[1]), ty: tm[1] - (b * fm[0] + a * fm[1]) };
}

interface Framing {
  transform: ChipTransform;
  /** Part of the chip that holds image content; the rest is black (face-api pads its crops this way). */
  content: { u0: number; v0: number; u1: number; v1: number };
}

function frame(landmarks: Point[], alignment: ChipAlignment): Framing {
  if (alignment === 'five-point') {
    return {
      transform: fitSimilarity(FIVE_POINT_TEMPLATE, fivePoints(landmarks)),
      content: { u0: 0, v0: 0, u1: CHIP_SIZE, v1: CHIP_SIZE },
    };
  }
  // face-api: box around all 68 points, 20 % larger, centred in a square with black bars.
  const xs = landmarks.map((p) => p[0]);
  const ys = landmarks.map((p) => p[1]);
  const w = (Math.max(...xs) - Math.min(...xs)) * 1.2;
  const h = (Math.max(...ys) - Math.min(...ys)) * 1.2;
  const side = Math.max(w, h);
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const cy = (Math.max(...ys) + Math.min(...ys)) / 2;
  const scale = side / CHIP_SIZE;
  const barX = (CHIP_SIZE * (side - w)) / 2 / side;
  const barY = (CHIP_SIZE * (side - h)) / 2 / side;
  return {
    transform: { a: scale, b: 0, tx: cx - side / 2, ty: cy - side / 2 },
    content: { u0: barX, v0: barY, u1: CHIP_SIZE - barX, v1: CHIP_SIZE - barY },
  };
}

/**
 * Resamples a size×size patch through a chip transform: bilinear, averaged over several samples per output
 * pixel when the source is much larger than the patch (plain bilinear would alias). Outside the image (and
 * outside `content`) the patch is `fill`.
 */
export function resample(
  image: RgbImage,
  t: ChipTransform,
  size: number,
  fill = 0,
  content = { u0: 0, v0: 0, u1: size, v1: size },
): Float32Array {
  const { data, width, height } = image;
  const out = new Float32Array(size * size * 3).fill(fill);
  const n = Math.max(1, Math.ceil(Math.hypot(t.a, t.b)));
  for (let v = 0; v < size; v++) {
    for (let u = 0; u < size; u++) {
      if (u < content.u0 || u >= content.u1 || v < content.v0 || v >= content.v1) continue;
      let r = 0;
      let g = 0;
      let bl = 0;
      let inside = 0;
      for (let sv = 0; sv < n; sv++) {
        for (let su = 0; su < n; su++) {
          const cu = u + (su + 0.5) / n;
          const cv = v + (sv + 0.5) / n;
          // Pixel centres sit at half-integer positions in both spaces.
          const x = t.a * cu - t.b * cv + t.tx - 0.5;
          const y = t.b * cu + t.a * cv + t.ty - 0.5;
          if (x < -0.5 || y < -0.5 || x > width - 0.5 || y > height - 0.5) continue;
          const xc = Math.min(Math.max(x, 0), width - 1);
          const yc = Math.min(Math.max(y, 0), height - 1);
          const x0 = Math.floor(xc);
          const y0 = Math.floor(yc);
          const x1 = Math.min(x0 + 1, width - 1);
          const y1 = Math.min(y0 + 1, height - 1);
          const fx = xc - x0;
          const fy = yc - y0;
          const i00 = (y0 * width + x0) * 3;
          const i01 = (y0 * width + x1) * 3;
          const i10 = (y1 * width + x0) * 3;
          const i11 = (y1 * width + x1) * 3;
          const w00 = (1 - fx) * (1 - fy);
          const w01 = fx * (1 - fy);
          const w10 = (1 - fx) * fy;
          const w11 = fx * fy;
          r += data[i00]! * w00 + data[i01]! * w01 + data[i10]! * w10 + data[i11]! * w11;
          g += data[i00 + 1]! * w00 + data[i01 + 1]! * w01 + data[i10 + 1]! * w10 + data[i11 + 1]! * w11;
          bl += data[i00 + 2]! * w00 + data[i01 + 2]! * w01 + data[i10 + 2]! * w10 + data[i11 + 2]! * w11;
          inside++;
        }
      }
      if (inside === 0) continue;
      // Samples falling outside the image count as `fill`.
      const outside = n * n - inside;
      const o = (v * size + u) * 3;
      out[o] = (r + fill * outside) / (n * n);
      out[o + 1] = (g + fill * outside) / (n * n);
      out[o + 2] = (bl + fill * outside) / (n * n);
    }
  }
  return out;
}

/** The aligned 150×150 chip for the descriptor network; black outside the image, as dlib's chips are. */
export function extractChip(image: RgbImage, landmarks: Point[], alignment: ChipAlignment): Float32Array {
  const { transform, content } = frame(landmarks, alignment);
  return resample(image, transform, CHIP_SIZE, 0, content);
}

/**
 * A size×size chip aligned by the least-squares similarity transform of the five points onto `template`
 * (given in that chip's pixels); black outside the image, as OpenCV's warpAffine and dlib leave it.
 */
export function alignedChip(
  image: RgbImage,
  landmarks: Point[],
  template: readonly Point[],
  size: number,
): Float32Array {
  return resample(image, fitSimilarity(template, fivePoints(landmarks)), size, 0);
}

/**
 * A square of the image turned by `angle` radians about its centre (clockwise on screen, since image y
 * points down; 0 or absent: axis-aligned). x, y, side describe the square before it is turned.
 */
export interface OrientedSquare extends Square {
  angle?: number;
}

/** The transform from the pixels of a size×size patch to the image, for an (oriented) square. */
export function squareTransform(square: OrientedSquare, size: number): ChipTransform {
  const scale = square.side / size;
  const angle = square.angle ?? 0;
  const a = scale * Math.cos(angle);
  const b = scale * Math.sin(angle);
  const half = size / 2;
  const cx = square.x + square.side / 2;
  const cy = square.y + square.side / 2;
  return { a, b, tx: cx - (a - b) * half, ty: cy - (a + b) * half };
}

/** Chip point (u, v) → image point. */
export function applyTransform(t: ChipTransform, [u, v]: Point): Point {
  return [t.a * u - t.b * v + t.tx, t.b * u + t.a * v + t.ty];
}

/** A square of the image (turned when it has an angle) resampled to size×size, grey outside the image. */
export function extractSquare(image: RgbImage, square: OrientedSquare, size: number): Float32Array {
  return resample(image, squareTransform(square, size), size, 127.5);
}
