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
  /** The convolution layout the native runtime runs (see OnnxSessionOptions.layoutProbe). */
  readonly layout: OnnxLayout;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Runs the model on float inputs; returns every output's values by name. */
  run(inputs: Record<string, { data: Float32Array; dims: number[] }>): Promise<Record<string, Float32Array>>;
}

type Ort = typeof OrtTypes & { env: { wasm?: { numThreads?: number } } };
type OrtSession = OrtTypes.InferenceSession;

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

export interface OnnxSessionOptions {
  runtime?: OnnxRuntimeName;
  /**
   * Input shapes to time the model with. When given, the native runtime opens the model twice, with and
   * without onnxruntime's blocked channel layout (its NCHWc transformer), and keeps the one that runs this
   * model faster on this CPU. The blocked layout is 1.3–2× faster for most of our networks, but it made
   * the MobileFaceNet descriptor 3× slower on one machine (66 against 22 ms a face; 10.6 ms on another):
   * which kernels win depends on the model and the CPU, so every network of the face worker is measured
   * when it loads, not assumed.
   */
  layoutProbe?: LayoutProbe;
  /** Opens the native session in this layout, without timing (for comparisons). */
  layout?: OnnxLayout;
}

/** Which convolution kernels a native session runs: onnxruntime's blocked (NCHWc) layout, or not. */
export type OnnxLayout = 'blocked' | 'plain';

export interface LayoutProbe {
  /** Names the network: the layout chosen for it is kept and reused (see adoptKernelLayouts). */
  network: string;
  /** Input shapes to time the model with, by input name. */
  inputs: Record<string, number[]>;
}

// The layouts chosen in this thread, by network. The choice depends on the model and the CPU only, so it
// is measured once per process: a face worker reports what it measured, and the pool hands the choices to
// every later worker (also of later engines), which open their sessions without timing them (≈ 1 s less
// start-up per worker).
const chosenLayouts = new Map<string, OnnxLayout>();

/** The layouts this thread has chosen or adopted, by network. */
export function chosenKernelLayouts(): Record<string, OnnxLayout> {
  return Object.fromEntries(chosenLayouts);
}

/** Layouts measured elsewhere in this process: later sessions of these networks open them directly. */
export function adoptKernelLayouts(layouts: Record<string, OnnxLayout>): void {
  for (const [network, layout] of Object.entries(layouts)) chosenLayouts.set(network, layout);
}

const PROBE_RUNS = 3;

/** Opens a model (ONNX bytes) on the preferred runtime, or on the WASM build when the native one fails. */
export async function createOnnxSession(
  model: Uint8Array,
  options: OnnxSessionOptions = {},
): Promise<OnnxSession> {
  const { ort, runtime } = loadRuntime(options.runtime ?? preferredRuntime());
  const open = (layout: OnnxLayout) =>
    ort.InferenceSession.create(model, {
      executionProviders: [runtime === 'native' ? 'cpu' : 'wasm'],
      graphOptimizationLevel: 'all',
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      // The WASM build has no blocked kernels: there every session is 'plain' as it is.
      ...(runtime === 'native' && layout === 'plain'
        ? { extra: { optimization: { disable_specified_optimizers: 'NchwcTransformer' } } }
        : {}),
    });
  const wrap = (session: OrtSession, layout: OnnxLayout): OnnxSession & { release(): Promise<void> } => ({
    release: () => session.release(),
    runtime,
    layout,
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
  });
  if (runtime !== 'native') return wrap(await open('plain'), 'plain');
  if (options.layout) return wrap(await open(options.layout), options.layout);
  const { layoutProbe } = options;
  if (!layoutProbe) return wrap(await open('blocked'), 'blocked');
  const known = chosenLayouts.get(layoutProbe.network);
  if (known) return wrap(await open(known), known);
  // A constant input: the probe only times the kernels.
  const candidates = [wrap(await open('blocked'), 'blocked'), wrap(await open('plain'), 'plain')];
  const probe = Object.fromEntries(
    Object.entries(layoutProbe.inputs).map(([name, dims]) => [
      name,
      { data: new Float32Array(dims.reduce((n, d) => n * d, 1)).fill(0.5), dims },
    ]),
  );
  const fastest = await fastestOf(candidates, (session) => session.run(probe).then(() => undefined));
  for (const candidate of candidates) if (candidate !== fastest) await candidate.release();
  chosenLayouts.set(layoutProbe.network, fastest.layout);
  return fastest;
}

/**
 * The candidate whose run is fastest: each is run once to warm up, then `PROBE_RUNS` times in turns (so a
 * burst of other work on the machine slows both), and each keeps its quickest run.
 */
export async function fastestOf<T>(
  candidates: readonly T[],
  runOnce: (candidate: T) => Promise<void>,
): Promise<T> {
  for (const candidate of candidates) await runOnce(candidate);
  const best = candidates.map(() => Infinity);
  for (let round = 0; round < PROBE_RUNS; round++) {
    for (const [i, candidate] of candidates.entries()) {
      const start = performance.now();
      await runOnce(candidate);
      best[i] = Math.min(best[i]!, performance.now() - start);
    }
  }
  return candidates[best.indexOf(Math.min(...best))]!;
}
