import { createRequire } from 'node:module';
import type * as OrtTypes from 'onnxruntime-web';

// One way to run an ONNX model in a face worker. onnxruntime-node runs it on native CPU kernels (its npm
// package ships the Linux, macOS and Windows binaries); where that addon cannot load, onnxruntime-web's
// WASM build runs the same model, 4–5× slower. Both run on one thread: the engine already runs one worker
// per core. `FACE_ONNX_RUNTIME=wasm` selects the WASM build (for comparisons). onnxruntime-node loads in
// several worker threads of one process from version 1.27 on (earlier addons register once per process,
// so a second face worker fell back to WASM).

export type OnnxRuntimeName = 'native' | 'wasm';

export interface OnnxSession {
  readonly runtime: OnnxRuntimeName;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Runs the model on float inputs; returns every output's values by name. */
  run(inputs: Record<string, { data: Float32Array; dims: number[] }>): Promise<Record<string, Float32Array>>;
}

type Ort = typeof OrtTypes & { env: { wasm?: { numThreads?: number } } };

const require = createRequire(import.meta.url);
let nativeLoadError: unknown;

function loadRuntime(wanted: OnnxRuntimeName): { ort: Ort; runtime: OnnxRuntimeName } {
  if (wanted === 'native' && nativeLoadError === undefined) {
    try {
      return { ort: require('onnxruntime-node') as Ort, runtime: 'native' };
    } catch (error) {
      // Tried once per thread; the WASM build takes over, said once so that the slowdown has a cause.
      nativeLoadError = error;
      console.warn(`onnxruntime-node failed to load (${String(error)}): ONNX models run on the WASM build`);
    }
  }
  const ort = require('onnxruntime-web') as Ort;
  ort.env.wasm!.numThreads = 1;
  return { ort, runtime: 'wasm' };
}

function preferredRuntime(): OnnxRuntimeName {
  return process.env.FACE_ONNX_RUNTIME === 'wasm' ? 'wasm' : 'native';
}

/** Opens a model (ONNX bytes) on the preferred runtime, or on the WASM build when the native one fails. */
export async function createOnnxSession(
  model: Uint8Array,
  wanted: OnnxRuntimeName = preferredRuntime(),
): Promise<OnnxSession> {
  const { ort, runtime } = loadRuntime(wanted);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: [runtime === 'native' ? 'cpu' : 'wasm'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  return {
    runtime,
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    async run(inputs) {
      const feeds = Object.fromEntries(
        Object.entries(inputs).map(([name, { data, dims }]) => [name, new ort.Tensor('float32', data, dims)]),
      );
      const results = await session.run(feeds);
      const out: Record<string, Float32Array> = {};
      for (const [name, tensor] of Object.entries(results)) {
        out[name] = new Float32Array(tensor.data as Float32Array);
        tensor.dispose();
      }
      for (const tensor of Object.values(feeds)) tensor.dispose();
      return out;
    },
  };
}
