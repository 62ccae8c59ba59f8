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
  matchThresholdOf,
  meanDescriptor,
  SIMILARITY_THRESHOLD,
  similarity,
} from '../../src/face/similarity.ts';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../../src/face/pipeline/pipeline-catalog.ts';
import {
  DLIB_SCALE,
  MATCH_SCALES,
  MATCH_SCORE_EXPLANATION,
  MATCH_THRESHOLD,
  matchBand,
  matchBandLabel,
  matchScoreDetail,
  matchScoreLegend,
  SHIPPED_SCORE_MODEL,
  STRONG_MATCH_THRESHOLD,
} from '@osint/contract/match-score';

describe('similarity', () => {
  it('is the cosine of normalised descriptors', () => {
    const a = l2Normalise(new Float32Array([3, 4]));
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(similarity(a, a)).toBeCloseTo(1, 6);
    expect(similarity(a, l2Normalise(new Float32Array([-4, 3])))).toBeCloseTo(0, 6);
    expect(similarity(a, l2Normalise(new Float32Array([-3, -4])))).toBeCloseTo(-1, 6);
  });

  it('makes one query of several faces: the normalised mean, between them and closer than either to both', () => {
    const a = l2Normalise(new Float32Array([1, 0, 0]));
    const b = l2Normalise(new Float32Array([0.6, 0.8, 0]));
    const mean = meanDescriptor([a, b]);
    expect(Math.hypot(...mean)).toBeCloseTo(1, 6);
    expect(similarity(mean, a)).toBeCloseTo(similarity(mean, b), 6);
    expect(similarity(mean, a)).toBeGreaterThan(similarity(a, b));
    expect(mean[2]).toBe(0);
    // One face: itself; the inputs are left as they were.
    expect(Array.from(meanDescriptor([b]))).toEqual(Array.from(b));
    expect(Array.from(a)).toEqual([1, 0, 0]);
  });

  it('refuses descriptors of different models', () => {
    expect(() => similarity(new Float32Array(128), new Float32Array(1024))).toThrow(/sizes differ/);
  });

  it('has a threshold between unrelated and identical faces', () => {
    expect(SIMILARITY_THRESHOLD).toBeGreaterThan(0);
    expect(SIMILARITY_THRESHOLD).toBeLessThan(1);
  });

  it('compares each model at its own threshold: the shipped one is the threshold users are shown', () => {
    const shipped = PIPELINE_CATALOG[SHIPPED_PIPELINE];
    expect(matchThresholdOf(shipped.modelId)).toBe(SIMILARITY_THRESHOLD);
    expect(SIMILARITY_THRESHOLD).toBe(MATCH_THRESHOLD);
    expect(STRONG_MATCH_THRESHOLD).toBeGreaterThan(MATCH_THRESHOLD);
    // The previous model's scores live on another scale: its own threshold, not the shipped one.
    expect(matchThresholdOf(PIPELINE_CATALOG['blazeface-dlib'].modelId)).toBe(0.93);
    expect(matchThresholdOf('no-such-model@1')).toBe(SIMILARITY_THRESHOLD);
  });

  it('names the band of a score the same way for screens and reports', () => {
    const shipped = PIPELINE_CATALOG[SHIPPED_PIPELINE].modelId;
    expect(shipped).toBe(SHIPPED_SCORE_MODEL);
    expect(matchBandLabel(STRONG_MATCH_THRESHOLD, shipped)).toBe('Very likely same person');
    expect(matchBandLabel(0.99, shipped)).toBe('Very likely same person');
    expect(matchBandLabel(MATCH_THRESHOLD, shipped)).toBe('Possible match');
    expect(matchBandLabel(STRONG_MATCH_THRESHOLD - 0.001, shipped)).toBe('Possible match');
  });

  it('reads a score on the scale of the model that computed it', () => {
    // The fall-back model's results start at 0.93: there a score of 0.94 is a possible match, not a
    // certain one, and its tooltip gives that model's thresholds.
    const dlib = PIPELINE_CATALOG['blazeface-dlib'].modelId;
    expect(matchThresholdOf(dlib)).toBe(MATCH_SCALES[dlib]!.matchThreshold);
    expect(matchBandLabel(0.94, dlib)).toBe('Possible match');
    expect(matchBandLabel(DLIB_SCALE.strongThreshold, dlib)).toBe('Very likely same person');
    expect(matchScoreDetail(0.94, dlib)).toContain('results start at 0.93');
    // A model without a scale here (a benchmark candidate), or a score whose model is not known.
    for (const model of ['blazeface+dlib128-5pt-1pass@1', null, 'constructor']) {
      expect(matchBand(0.99, model)).toBe('other-model');
      expect(matchBandLabel(0.99, model)).toBe('Match by another face model');
      expect(matchScoreDetail(0.99, model)).toMatch(/^Scored by a face model .* Cosine similarity 0\.99\.$/);
    }
    expect(matchScoreLegend([SHIPPED_SCORE_MODEL, SHIPPED_SCORE_MODEL])).toBe(MATCH_SCORE_EXPLANATION);
    const legend = matchScoreLegend([SHIPPED_SCORE_MODEL, dlib, null]);
    expect(legend.startsWith(MATCH_SCORE_EXPLANATION)).toBe(true);
    expect(legend).toContain(
      `Results of the face model ${dlib} are on its own scale: "Possible match" from 0.93`,
    );
    expect(legend).toContain('"Match by another face model": Scored by a face model');
    // One sentence for every score without a scale, however many unknown models there are.
    const unknown = matchScoreLegend([null, 'blazeface+mfn512-arcface5pt@1']);
    expect(unknown.split('"Match by another face model"')).toHaveLength(2);
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
