// The face pipelines the benchmark compares and the one the product ships. This module is light (no model
// code) so the main thread can read model ids and sizes without loading tfjs.

import {
  DLIB_SCALE,
  DLIB_SCORE_MODEL,
  MATCH_THRESHOLD,
  SHIPPED_SCORE_MODEL,
} from '@osint/contract/match-score';

export interface PipelineInfo {
  /** Stored with every vector: a different model means vectors are not comparable and need a reindex. */
  modelId: string;
  dimensions: number;
  /**
   * Two faces of this model are the same person when their cosine similarity reaches this. Set by
   * `npm run bench:faces` (server/src/face/README.md): for the MobileFaceNet models at a false-match rate
   * of ≤ 1e-6 per comparison on celeba-dev; for the dlib family the dev-set calibration it shipped with;
   * for Human's faceres its celeba-dev 1e-6 point. Searches, opt-outs and extraction use the threshold
   * of the model their vectors come from.
   */
  matchThreshold: number;
  description: string;
}

export const PIPELINE_CATALOG = {
  'blazeface-mfn512': {
    modelId: SHIPPED_SCORE_MODEL,
    dimensions: 512,
    matchThreshold: MATCH_THRESHOLD,
    description:
      'BlazeFace (tiled) → face-api 68 landmarks, 2 passes → ArcFace 5-point 112×112 chip → MobileFaceNet 512-d (ONNX)',
  },
  'blazeface-mfn512-flip': {
    modelId: 'blazeface+mfn512-arcface5pt-flip@2',
    dimensions: 512,
    matchThreshold: 0.66,
    description: 'as blazeface-mfn512, descriptor of the chip plus that of its mirror image',
  },
  'blazeface-dlib': {
    modelId: DLIB_SCORE_MODEL,
    dimensions: 128,
    matchThreshold: DLIB_SCALE.matchThreshold,
    description:
      'BlazeFace (tiled) → face-api 68 landmarks, 2 passes → 5-point aligned chip → dlib ResNet 128-d',
  },
  'blazeface-dlib-1pass': {
    modelId: 'blazeface+dlib128-5pt-1pass@1',
    dimensions: 128,
    matchThreshold: 0.93,
    description: 'as blazeface-dlib with one landmark pass on the detector box (SSD-sized region)',
  },
  'blazeface-dlib-facebox': {
    modelId: 'blazeface+dlib128-facebox@1',
    dimensions: 128,
    matchThreshold: 0.93,
    description: 'as blazeface-dlib with face-api’s unrotated crop instead of the 5-point alignment',
  },
  'ssd-dlib': {
    modelId: 'ssd+dlib128-5pt@1',
    dimensions: 128,
    matchThreshold: 0.93,
    description: 'face-api SSD (tiny fallback) boxes → the shipped landmarks, alignment and descriptor',
  },
  'faceapi-ssd-dlib': {
    modelId: 'faceapi-ssd+dlib128@1',
    dimensions: 128,
    matchThreshold: 0.93,
    description: 'face-api as shipped: SSD MobileNet v1 (tiny fallback) → 68 landmarks → dlib ResNet 128-d',
  },
  'faceapi-tiny-dlib': {
    modelId: 'faceapi-tiny+dlib128@1',
    dimensions: 128,
    matchThreshold: 0.93,
    description: 'face-api as shipped: tiny face detector 416 → 68 landmarks → dlib ResNet 128-d',
  },
  'human-faceres': {
    modelId: 'human-faceres1024@1',
    dimensions: 1024,
    matchThreshold: 0.76,
    description: 'Human as shipped: BlazeFace → FaceMesh (rotation) → faceres 1024-d',
  },
} satisfies Record<string, PipelineInfo>;

export type PipelineName = keyof typeof PIPELINE_CATALOG;

/** The pipeline the product uses, chosen by `npm run bench:faces` (numbers in server/src/face/README.md). */
export const SHIPPED_PIPELINE: PipelineName = 'blazeface-mfn512';

export function isPipelineName(name: string): name is PipelineName {
  return Object.hasOwn(PIPELINE_CATALOG, name);
}
