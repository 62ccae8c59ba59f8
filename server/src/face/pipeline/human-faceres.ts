import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as tfTypes from '@tensorflow/tfjs';
import type { Config, FaceResult, Human } from '@vladmandic/human';
import { initTfjsWasm, tfjsWasmDir } from './tfjs-wasm.ts';

// Human's own face pipeline (BlazeFace → FaceMesh → faceres 1024-d), kept as a benchmark candidate.

type HumanModule = { Human: new (config: Partial<Config>) => Human };

export async function loadHuman(): Promise<Human> {
  await initTfjsWasm();
  const require = createRequire(import.meta.url);
  // The package's "exports" map hides the node-wasm build (its keys lack "./"), so it is loaded by path.
  const nodeBuild = require.resolve('@vladmandic/human');
  const distDir = path.dirname(nodeBuild);
  const { Human: HumanClass } = require(path.join(distDir, 'human.node-wasm.js')) as HumanModule;
  const human = new HumanClass({
    backend: 'wasm',
    wasmPath: tfjsWasmDir(),
    // file:// model URLs are served by the IO router registered in tfjs-wasm.ts.
    modelBasePath: pathToFileURL(path.join(distDir, '..', 'models')).href + '/',
    debug: false,
    async: false,
    warmup: 'none',
    // Human caches results between "frames" of a video; every call here is a different photo.
    cacheSensitivity: 0,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 100, minConfidence: 0.5, skipFrames: 0, skipTime: 0 },
      mesh: { enabled: true },
      iris: { enabled: false },
      description: { enabled: true },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
      gear: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  });
  await human.load();
  return human;
}

export async function detectWithHuman(human: Human, image: tfTypes.Tensor4D): Promise<FaceResult[]> {
  const result = await human.detect(image as unknown as Parameters<Human['detect']>[0]);
  return result.face;
}
