import { describe, expect, it } from 'vitest';
import { type Point, turnWindow, unturnPoint } from '../../src/face/pipeline/blazeface-detector.ts';
import {
  applyTransform,
  eyeCentres,
  extractSquare,
  faceRoll,
  mouthCentre,
  squareTransform,
} from '../../src/face/pipeline/face-chip.ts';
import { faceGeometry, implausibilities, normTooShort } from '../../src/face/pipeline/face-plausibility.ts';
import {
  angleDifference,
  firstLandmarkRegion,
  refinedLandmarkRegion,
} from '../../src/face/pipeline/upright-faces.ts';

const deg = (d: number) => (d * Math.PI) / 180;

/** (x, y) turned by `angle` about `centre`. */
function turnAbout([x, y]: Point, angle: number, [cx, cy]: Point): Point {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [cx + c * (x - cx) - s * (y - cy), cy + s * (x - cx) + c * (y - cy)];
}

/** 68 landmarks of an upright face with eyes 40 px apart, centred on (100, 100), turned by `angle`. */
function face68(angle: number): Point[] {
  const marks: Point[] = Array.from({ length: 68 }, (_, i) => {
    // A rough face outline: jaw 0–16, brows 17–26, nose 27–35.
    if (i <= 16) return [60 + 5 * i, 95 + 35 * Math.sin((Math.PI * i) / 16)];
    if (i <= 26) return [68 + 6.4 * (i - 17), 78];
    return [100, 85 + 3 * (i - 27)];
  });
  for (let i = 36; i < 42; i++) marks[i] = [80 + ((i - 36) % 3) * 2 - 2, 88];
  for (let i = 42; i < 48; i++) marks[i] = [120 + ((i - 42) % 3) * 2 - 2, 88];
  for (let i = 48; i < 68; i++) marks[i] = [88 + (24 * (i - 48)) / 19, 132];
  marks[30] = [100, 112];
  return marks.map((p) => turnAbout(p, angle, [100, 100]));
}

describe('upright regions', () => {
  it('maps a turned square to the image with the chip centre on the square centre', () => {
    const square = { x: 10, y: 20, side: 100, angle: deg(90) };
    const t = squareTransform(square, 50);
    const centre = applyTransform(t, [25, 25]);
    expect(centre[0]).toBeCloseTo(60, 9);
    expect(centre[1]).toBeCloseTo(70, 9);
    // The chip's x axis runs along the turned square: a quarter turn clockwise points it down the image.
    const right = applyTransform(t, [50, 25]);
    expect(right[0]).toBeCloseTo(60, 9);
    expect(right[1]).toBeCloseTo(120, 9);
    // Without an angle it is the plain axis-aligned crop.
    expect(squareTransform({ x: 10, y: 20, side: 100 }, 50)).toEqual({ a: 2, b: 0, tx: 10, ty: 20 });
  });

  it('cuts a square turned by a quarter turn as the image turned the other way', () => {
    // 4×4 image whose red channel counts pixels row by row.
    const data = new Uint8Array(4 * 4 * 3);
    for (let i = 0; i < 16; i++) data[i * 3] = i;
    const crop = extractSquare({ data, width: 4, height: 4 }, { x: 0, y: 0, side: 4, angle: deg(90) }, 4);
    // A face turned a quarter turn clockwise has the top of its head towards the image's right: the
    // chip's top row is the image's last column, read downwards.
    const round = (v: number | undefined) => Math.round(v!);
    expect([0, 1, 2, 3].map((u) => round(crop[u * 3]))).toEqual([3, 7, 11, 15]);
    expect([0, 1, 2, 3].map((v) => round(crop[v * 4 * 3]))).toEqual([3, 2, 1, 0]);
  });

  it('turns the detector window a quarter turn clockwise and maps points back', () => {
    const window = new Float32Array(256 * 256 * 3);
    // A marker pixel at (x, y) = (10, 3).
    window[(3 * 256 + 10) * 3] = 1;
    const turned = turnWindow(window);
    // Clockwise: (x, y) → (255 − y, x).
    expect(turned[(10 * 256 + 252) * 3]).toBe(1);
    // Continuous coordinates: the centre of that pixel maps back to the marker's centre, for 1–3 turns.
    expect(unturnPoint([252.5, 10.5], 1)).toEqual([10.5, 3.5]);
    let p: Point = [10.5, 3.5];
    for (let k = 1; k <= 3; k++) {
      // Turning a point k times then unturning it k times gives it back.
      let q = p;
      for (let i = 0; i < k; i++) q = [256 - q[1], q[0]];
      expect(unturnPoint(q, k)).toEqual(p);
      p = [p[0] + 1, p[1] + 2];
    }
  });

  it('takes the roll from the eyes and mouth, even in profile where the eyes coincide', () => {
    expect(faceRoll([0, 0], [10, 0], [5, 12])).toBeCloseTo(0, 9);
    for (const angle of [30, -45, 90, 180, 270]) {
      const [re, le, mo] = [
        [0, 0],
        [10, 0],
        [5, 11],
      ].map((p) => turnAbout(p as Point, deg(angle), [5, 5]));
      expect(angleDifference(faceRoll(re!, le!, mo!), deg(angle))).toBeCloseTo(0, 1);
    }
    // Profile: both eye keypoints at one place (seen on a face-api demo photo); the mouth below them.
    expect(Math.abs(faceRoll([174, 104], [175, 101], [169, 144]))).toBeLessThan(deg(15));
  });

  it('frames the first region upright around the detector box', () => {
    const det = {
      x: 50,
      y: 50,
      width: 100,
      height: 100,
      score: 0.9,
      // Eyes and mouth of a face turned a quarter turn clockwise (its top points to the image's right).
      keypoints: [
        [130, 80],
        [130, 120],
        [100, 100],
        [80, 100],
        [140, 60],
        [140, 140],
      ] as Point[],
    };
    const region = firstLandmarkRegion(det, 1.5);
    expect(region.side).toBeCloseTo(150, 9);
    expect(angleDifference(region.angle!, deg(90))).toBeCloseTo(0, 9);
    // Moved 14 % of the box towards the top of the head, i.e. to the image's right.
    expect(region.x + region.side / 2).toBeCloseTo(114, 9);
    expect(region.y + region.side / 2).toBeCloseTo(100, 9);
  });

  it('frames the second region on the landmarks, turning at most 30° from the first region', () => {
    for (const angle of [0, 25, -60, 180]) {
      const region = refinedLandmarkRegion(face68(deg(angle)), deg(angle));
      expect(angleDifference(region.angle!, deg(angle))).toBeCloseTo(0, 6);
      // The same square whatever the roll: centred above the landmarks' middle, on the face's own axis.
      expect(region.side).toBeCloseTo(refinedLandmarkRegion(face68(0), 0).side, 6);
    }
    // Landmarks that say "upside down" on a region the detector saw upright: the turn is capped.
    const capped = refinedLandmarkRegion(face68(deg(170)), 0);
    expect(Math.abs(capped.angle!)).toBeCloseTo(deg(30), 9);
  });
});

describe('plausibility checks', () => {
  /** A detection whose box and keypoints agree with the landmarks of face68(angle). */
  function detectionFor(marks: Point[], score = 0.9) {
    const [re, le] = eyeCentres(marks);
    return {
      x: 50,
      y: 50,
      width: 100,
      height: 100,
      score,
      keypoints: [re, le, marks[30]!, mouthCentre(marks), [60, 90], [140, 90]] as Point[],
    };
  }

  it('accepts a face whose landmarks, keypoints and two passes agree, at any roll', () => {
    for (const angle of [0, 90, -135]) {
      const marks = face68(deg(angle));
      const g = faceGeometry(detectionFor(marks), marks, marks);
      expect(implausibilities(0.9, g, 0.5)).toEqual([]);
      expect(g.nose[0]).toBeCloseTo(0, 6);
      expect(g.nose[1]).toBeCloseTo(24 / 44, 6);
      expect(g.eyeDistance).toBeCloseTo(40 / 44, 6);
    }
  });

  it('names what does not fit a face', () => {
    const marks = face68(0);
    const det = detectionFor(marks, 0.45);
    // The detector saw its eyes and mouth somewhere else, and upside down.
    det.keypoints = [[120, 140], [80, 140], [100, 120], [100, 60], ...det.keypoints.slice(4)];
    // The second landmark pass moved every point by 30 px.
    const moved = marks.map(([x, y]): Point => [x + 30, y]);
    const reasons = implausibilities(det.score, faceGeometry(det, marks, moved), 0.5);
    expect(reasons).toEqual(['score', 'keypoints', 'landmark passes', 'roll']);
    // A nose above the eyes.
    const noseUp = face68(0);
    noseUp[30] = [100, 70];
    const g = faceGeometry(detectionFor(noseUp), noseUp, noseUp);
    expect(implausibilities(0.9, g, 0.5)).toContain('nose');
    // Landmarks far too small for the box.
    const tiny = face68(0).map(([x, y]): Point => [100 + (x - 100) / 5, 100 + (y - 100) / 5]);
    const small = faceGeometry(detectionFor(tiny), tiny, tiny);
    expect(implausibilities(0.9, small, 0.5)).toContain('size');
  });

  it('lets a short descriptor through only when keypoints and landmarks agree closely', () => {
    const limits = {
      min: 2,
      minWhenConsistent: 1.4,
      consistent: { maxKeypointGap: 0.35, maxPassGap: 0.1 },
      weak: 2.6,
      uprightPreference: 0.5,
    };
    const marks = face68(0);
    const close = faceGeometry(detectionFor(marks), marks, marks);
    expect(normTooShort(1.6, close, limits)).toBe(false);
    expect(normTooShort(1.3, close, limits)).toBe(true);
    const loose = { ...close, keypointGap: 0.6 };
    expect(normTooShort(1.6, loose, limits)).toBe(true);
    expect(normTooShort(2.1, loose, limits)).toBe(false);
  });
});
