import { describe, expect, it } from 'vitest';
import {
  detectionRegions,
  type RawDetection,
  suppressOverlaps,
} from '../../src/face/pipeline/blazeface-detector.ts';
import {
  extractChip,
  fitSimilarity,
  FIVE_POINT_TEMPLATE,
  resample,
} from '../../src/face/pipeline/face-chip.ts';
import { faceQuality } from '../../src/face/pipeline/face-quality.ts';

describe('detectionRegions', () => {
  it('uses the whole image once when faces of the requested size are large enough for it', () => {
    const regions = detectionRegions(1000, 1000, 128);
    expect(regions).toHaveLength(1);
    expect(regions[0]).toMatchObject({ x: 0, y: 0, side: 1000 });
  });

  it('pads a wide image to a square rather than stretching it', () => {
    const [whole] = detectionRegions(1600, 900, 1000);
    expect(whole).toMatchObject({ x: 0, y: -350, side: 1600 });
  });

  it('adds overlapping tiles whose cores split the image, for small faces', () => {
    const regions = detectionRegions(1920, 1280, 40);
    const tiles = regions.filter((r) => Number.isFinite(r.maxFace));
    expect(tiles.length).toBeGreaterThan(1);
    // Every point belongs to exactly one tile core of each level, so no face is reported twice.
    for (const side of new Set(tiles.map((t) => t.side))) {
      const level = tiles.filter((t) => t.side === side);
      for (const [px, py] of [
        [0, 0],
        [960, 640],
        [1919, 1279],
        [700, 1100],
      ] as const) {
        const owners = level.filter(
          (t) => px >= t.core.x0 && px < t.core.x1 && py >= t.core.y0 && py < t.core.y1,
        );
        expect(owners).toHaveLength(1);
        // ...and a face up to maxFace centred there lies inside that tile.
        const t = owners[0]!;
        const half = t.maxFace / 2;
        const clampedX = Math.min(Math.max(px, half), 1920 - half);
        const clampedY = Math.min(Math.max(py, half), 1280 - half);
        if (clampedX === px && clampedY === py) {
          expect(px - half).toBeGreaterThanOrEqual(t.x - 1e-9);
          expect(px + half).toBeLessThanOrEqual(t.x + t.side + 1e-9);
        }
      }
    }
  });
});

describe('suppressOverlaps', () => {
  const det = (x: number, y: number, size: number, score: number): RawDetection => ({
    x,
    y,
    width: size,
    height: size,
    score,
    keypoints: [],
  });

  it('keeps the best of overlapping boxes and boxes inside a better one, and separate faces', () => {
    const kept = suppressOverlaps([
      det(0, 0, 100, 0.9),
      det(5, 5, 100, 0.8),
      det(20, 20, 40, 0.7),
      det(300, 0, 100, 0.6),
    ]);
    expect(kept.map((d) => d.score)).toEqual([0.9, 0.6]);
  });
});

describe('face chips', () => {
  it('fits the similarity transform that maps the template onto rotated, scaled points', () => {
    const angle = 0.3;
    const scale = 2.5;
    const [a, b] = [scale * Math.cos(angle), scale * Math.sin(angle)];
    const points = FIVE_POINT_TEMPLATE.map(([u, v]): [number, number] => [
      a * u - b * v + 40,
      b * u + a * v - 7,
    ]);
    const t = fitSimilarity(FIVE_POINT_TEMPLATE, points);
    expect(t.a).toBeCloseTo(a, 9);
    expect(t.b).toBeCloseTo(b, 9);
    expect(t.tx).toBeCloseTo(40, 9);
    expect(t.ty).toBeCloseTo(-7, 9);
  });

  it('resamples exactly at scale 1 and fills outside the image', () => {
    const data = new Uint8Array(4 * 4 * 3).map((_, i) => i);
    const image = { data, width: 4, height: 4 };
    const same = resample(image, { a: 1, b: 0, tx: 0, ty: 0 }, 4);
    expect([...same]).toEqual([...data]);
    const shifted = resample(image, { a: 1, b: 0, tx: -10, ty: 0 }, 4, 7);
    expect([...shifted].every((v) => v === 7)).toBe(true);
  });

  it('puts the five landmarks of a face on the template', () => {
    // Pixel values encode their position (red = x, green = y), so the chip shows where it sampled.
    const image = { data: new Uint8Array(256 * 256 * 3), width: 256, height: 256 };
    for (let y = 0; y < 256; y++) for (let x = 0; x < 256; x++) image.data.set([x, y, 0], (y * 256 + x) * 3);
    const landmarks = Array.from({ length: 68 }, (): [number, number] => [0, 0]);
    // The face's points are the template moved by (50, 60): the chip must be the image moved back.
    const place = (i: number, p: readonly [number, number]) => (landmarks[i] = [p[0] + 50, p[1] + 60]);
    for (let i = 36; i < 42; i++) place(i, FIVE_POINT_TEMPLATE[0]!);
    for (let i = 42; i < 48; i++) place(i, FIVE_POINT_TEMPLATE[1]!);
    place(30, FIVE_POINT_TEMPLATE[2]!);
    place(48, FIVE_POINT_TEMPLATE[3]!);
    place(54, FIVE_POINT_TEMPLATE[4]!);
    const chip = extractChip(image, landmarks, 'five-point');
    expect(chip.length).toBe(150 * 150 * 3);
    for (const [u, v] of [
      [0, 0],
      [48, 39],
      [149, 120],
    ] as const) {
      expect(chip[(v * 150 + u) * 3]).toBeCloseTo(u + 50, 3);
      expect(chip[(v * 150 + u) * 3 + 1]).toBeCloseTo(v + 60, 3);
    }
  });
});

describe('faceQuality', () => {
  it('is high for a large frontal face and falls with yaw and size', () => {
    const frontal = faceQuality(1, { width: 200, height: 200 }, [0, 0], [100, 0], [50, 60]);
    const turned = faceQuality(1, { width: 200, height: 200 }, [0, 0], [100, 0], [85, 60]);
    const small = faceQuality(1, { width: 64, height: 64 }, [0, 0], [100, 0], [50, 60]);
    expect(frontal).toBe(1);
    expect(turned).toBeCloseTo(0.3, 5);
    expect(small).toBeCloseTo(0.5, 5);
  });
});
