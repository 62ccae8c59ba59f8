import { describe, expect, it } from 'vitest';
import {
  faceSizePx,
  isIndexableFace,
  isSearchableFace,
  isSmallQueryFace,
  l2Normalise,
  MIN_INDEX_FACE_PX,
  MIN_QUERY_FACE_PX,
  RELIABLE_QUERY_FACE_PX,
  SIMILARITY_THRESHOLD,
  similarity,
} from '../../src/face/similarity.ts';

describe('similarity', () => {
  it('is the cosine of normalised descriptors', () => {
    const a = l2Normalise(new Float32Array([3, 4]));
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(similarity(a, a)).toBeCloseTo(1, 6);
    expect(similarity(a, l2Normalise(new Float32Array([-4, 3])))).toBeCloseTo(0, 6);
    expect(similarity(a, l2Normalise(new Float32Array([-3, -4])))).toBeCloseTo(-1, 6);
  });

  it('refuses descriptors of different models', () => {
    expect(() => similarity(new Float32Array(128), new Float32Array(1024))).toThrow(/sizes differ/);
  });

  it('has a threshold between unrelated and identical faces', () => {
    expect(SIMILARITY_THRESHOLD).toBeGreaterThan(0);
    expect(SIMILARITY_THRESHOLD).toBeLessThan(1);
  });

  it('offers faces for search from 64 px, marks them small under 128 px, and indexes them from 40 px', () => {
    expect(MIN_QUERY_FACE_PX).toBe(64);
    expect(RELIABLE_QUERY_FACE_PX).toBe(128);
    expect(MIN_INDEX_FACE_PX).toBe(40);
    expect(isSearchableFace({ width: 64, height: 66 })).toBe(true);
    expect(isSearchableFace({ width: 63, height: 300 })).toBe(false);
    expect(isSmallQueryFace({ width: 64, height: 64 })).toBe(true);
    expect(isSmallQueryFace({ width: 127, height: 300 })).toBe(true);
    expect(isSmallQueryFace({ width: 128, height: 130 })).toBe(false);
    expect(faceSizePx({ width: 63.9, height: 70 })).toBe(63);
    expect(isIndexableFace({ width: 40, height: 40 })).toBe(true);
    expect(isIndexableFace({ width: 39, height: 80 })).toBe(false);
  });
});
