import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgeEstimator, loadAgeEstimator } from '../../src/face/age/age-estimator.ts';
import { isPossibleMinor, SECOND_ESTIMATE_BELOW_AGE } from '../../src/face/age/possible-minor.ts';
import { createFaceEngine, type FaceEngine } from '../../src/face/face-engine.ts';
import { decodeImage } from '../../src/face/image-decode.ts';
import { demoPhoto } from './image-fixtures.ts';

// The age estimate as the face worker makes it (FaceRes-deep only where AgeGenderNet's estimate is under
// SECOND_ESTIMATE_BELOW_AGE) against both networks on every face, in this thread, on face-api's demo photos.

let engine: FaceEngine;
let estimator: AgeEstimator;

beforeAll(async () => {
  [engine, estimator] = await Promise.all([createFaceEngine({ threads: 1 }), loadAgeEstimator()]);
});

afterAll(async () => {
  await engine?.close();
});

describe('age estimate', () => {
  it('runs FaceRes-deep only where AgeGenderNet is under the limit, with the same decision as both', async () => {
    let spared = 0;
    let withBoth = 0;
    for (const n of [1, 5] as const) {
      const photo = demoPhoto(n);
      const { faces } = await engine.analyze(photo);
      const image = await decodeImage(photo);
      const both = await estimator.estimate(
        image,
        faces.map((f) => f.box),
        { bothNetworks: true },
      );
      faces.forEach(({ age }, i) => {
        const reference = both[i]!;
        expect(reference.faceresDeep).toBeTypeOf('number');
        expect(age.ageGenderNet).toBeCloseTo(reference.ageGenderNet, 3);
        if (age.ageGenderNet >= SECOND_ESTIMATE_BELOW_AGE) {
          spared++;
          expect(age.faceresDeep).toBeUndefined();
        } else {
          withBoth++;
          expect(age.faceresDeep).toBeCloseTo(reference.faceresDeep!, 3);
        }
        expect(isPossibleMinor(age)).toBe(isPossibleMinor(reference));
      });
    }
    // Both ways are exercised: sample 5 holds a face AgeGenderNet puts at about 40, the others are younger.
    expect(spared).toBeGreaterThan(0);
    expect(withBoth).toBeGreaterThan(0);
  });
});
