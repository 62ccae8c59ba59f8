import type * as tfTypes from '@tensorflow/tfjs';
import { encodeOnnxModel } from './onnx-protobuf.ts';
import { createOnnxSession, type OnnxSession } from './onnx-session.ts';
import { type TfjsGraphModel, tfjsGraphToOnnx } from './tfjs-graph-to-onnx.ts';

// face-api's landmark and age networks are written as tfjs code, not as graphs. Their layers are re-stated
// here as the graphs they compute, with the weights face-api loaded, and converted to ONNX like the graph
// models (3–4× less CPU). The tests compare each with face-api's own forward pass.

/** Both nets take 112×112 RGB crops (0..255). */
export const FACEAPI_INPUT = 112;
export const LANDMARK_OUTPUT = 'landmarks';
export const AGE_OUTPUT = 'age';
/** face-api's per-channel means (RGB), subtracted before its division by 255. */
const MEAN_RGB = [122.782, 117.001, 104.298];

interface SeparableConv {
  depthwise_filter: tfTypes.Tensor;
  pointwise_filter: tfTypes.Tensor;
  bias: tfTypes.Tensor;
}
interface PlainConv {
  filters: tfTypes.Tensor;
  bias: tfTypes.Tensor;
}
interface FullyConnected {
  weights: tfTypes.Tensor;
  bias: tfTypes.Tensor;
}
type DenseBlock = Record<'conv1' | 'conv2' | 'conv3', SeparableConv> & { conv0: SeparableConv | PlainConv };
type FeatureExtractorParams = Record<'dense0' | 'dense1' | 'dense2' | 'dense3', DenseBlock>;
interface ReductionBlock {
  separable_conv0: SeparableConv;
  separable_conv1: SeparableConv;
  expansion_conv: PlainConv;
}
type MainBlock = Record<'separable_conv0' | 'separable_conv1' | 'separable_conv2', SeparableConv>;
interface TinyXceptionParams {
  entry_flow: { conv_in: PlainConv; reduction_block_0: ReductionBlock; reduction_block_1: ReductionBlock };
  middle_flow: Record<string, MainBlock>;
  exit_flow: { reduction_block: ReductionBlock; separable_conv: SeparableConv };
}

type TfjsNode = TfjsGraphModel['modelTopology']['node'][number];
const base64 = (s: string) => Buffer.from(s).toString('base64');
const stride = (s: number) => ({ list: { i: ['1', `${s}`, `${s}`, '1'] } });
const SAME = { s: base64('SAME') };
const BIAS_ADD = { list: { s: [base64('BiasAdd')] } };

/** Writes a tfjs graph node by node, as face-api's code would have traced it. */
class GraphBuilder {
  private readonly nodes: TfjsNode[] = [];
  private readonly specs: TfjsGraphModel['weightsManifest'][number]['weights'] = [];
  private readonly data: Uint8Array[] = [];

  constant(name: string, values: Float32Array | Int32Array, shape: number[]): string {
    this.nodes.push({ name, op: 'Const' });
    this.specs.push({ name, shape, dtype: values instanceof Float32Array ? 'float32' : 'int32' });
    this.data.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    return name;
  }

  weight(name: string, t: tfTypes.Tensor): string {
    return this.constant(name, t.dataSync() as Float32Array, t.shape);
  }

  op(name: string, op: string, input: string[], attr: TfjsNode['attr'] = {}): string {
    this.nodes.push({ name, op, input, attr });
    return name;
  }

  relu(x: string): string {
    return this.op(`${x}/relu`, 'Relu', [x]);
  }

  add(name: string, ...terms: string[]): string {
    return terms.reduceRight((sum, term, i) => this.op(`${name}/${i}`, 'AddV2', [term, sum]));
  }

  /** face-api's input: [n, 112, 112, 3] RGB 0..255, centred on its means and divided by 255. */
  normalisedInput(): string {
    const dims = [-1, FACEAPI_INPUT, FACEAPI_INPUT, 3].map((d) => ({ size: `${d}` }));
    this.op('input', 'Placeholder', [], { shape: { shape: { dim: dims } } });
    const centred = this.op('centred', 'Sub', [
      'input',
      this.constant('mean_rgb', Float32Array.from(MEAN_RGB), [3]),
    ]);
    return this.op('scaled', 'Mul', [centred, this.constant('inv255', Float32Array.of(1 / 255), [])]);
  }

  conv(name: string, x: string, p: PlainConv, s: number): string {
    const inputs = [x, this.weight(`${name}/filter`, p.filters), this.weight(`${name}/bias`, p.bias)];
    return this.op(name, '_FusedConv2D', inputs, { strides: stride(s), padding: SAME, fused_ops: BIAS_ADD });
  }

  /** tf.separableConv2d + bias (face-api's depthwiseSeparableConv). */
  separable(name: string, x: string, p: SeparableConv, s: number): string {
    const dw = this.op(
      `${name}/dw`,
      'DepthwiseConv2dNative',
      [x, this.weight(`${name}/dw_filter`, p.depthwise_filter)],
      {
        strides: stride(s),
        padding: SAME,
      },
    );
    return this.conv(name, dw, { filters: p.pointwise_filter, bias: p.bias }, 1);
  }

  /** The 7×7 average pool face-api ends its feature extractors with, flattened to [n, channels]. */
  pooledFeatures(x: string, channels: number): string {
    const pooled = this.op('pooled', 'AvgPool', [x], {
      ksize: stride(7),
      strides: stride(2),
      padding: { s: base64('VALID') },
    });
    return this.op('flat', 'Reshape', [
      pooled,
      this.constant('flat_shape', Int32Array.of(-1, channels), [2]),
    ]);
  }

  fullyConnected(name: string, x: string, p: FullyConnected): string {
    const inputs = [x, this.weight(`${name}/weights`, p.weights), this.weight(`${name}/bias`, p.bias)];
    return this.op(name, '_FusedMatMul', inputs, { fused_ops: BIAS_ADD });
  }

  toOnnxSession(output: string): Promise<OnnxSession> {
    // Timed on two crops (a face and its mirror image, or two faces): see OnnxSessionOptions.layoutProbe.
    const layoutProbe = {
      network: `faceapi-${output}`,
      inputs: { input: [2, FACEAPI_INPUT, FACEAPI_INPUT, 3] },
    };
    const weights = Buffer.concat(this.data);
    const model: TfjsGraphModel = {
      modelTopology: { node: this.nodes },
      weightsManifest: [{ paths: [], weights: this.specs }],
    };
    const buffer = weights.buffer.slice(
      weights.byteOffset,
      weights.byteOffset + weights.byteLength,
    ) as ArrayBuffer;
    return createOnnxSession(encodeOnnxModel(tfjsGraphToOnnx(model, buffer, [output])), { layoutProbe });
  }
}

interface FaceApiNet {
  params?: unknown;
  faceFeatureExtractor: { params?: unknown };
}

function loadedParams<E, P>(net: FaceApiNet, name: string): { extractor: E; params: P } {
  const extractor = net.faceFeatureExtractor.params as E | undefined;
  const params = net.params as P | undefined;
  if (!extractor || !params) throw new Error(`face-api's ${name} is not loaded`);
  return { extractor, params };
}

/**
 * face-api's FaceLandmark68Net (four dense blocks of separable convolutions, pool, fully connected):
 * input `input` [n, 112, 112, 3], output `landmarks:out` [n, 136] (x0, y0, x1, y1, … relative to the crop).
 */
export function landmarkNetAsOnnx(net: FaceApiNet): Promise<OnnxSession> {
  const { extractor, params } = loadedParams<FeatureExtractorParams, { fc: FullyConnected }>(
    net,
    'landmark net',
  );
  const g = new GraphBuilder();
  let x = g.normalisedInput();
  for (const block of ['dense0', 'dense1', 'dense2', 'dense3'] as const) {
    const p = extractor[block];
    const first =
      'filters' in p.conv0
        ? g.conv(`${block}/conv0`, x, p.conv0, 2)
        : g.separable(`${block}/conv0`, x, p.conv0, 2);
    const out1 = g.relu(first);
    const out2 = g.separable(`${block}/conv1`, out1, p.conv1, 1);
    const out3 = g.separable(`${block}/conv2`, g.relu(g.add(`${block}/in3`, out1, out2)), p.conv2, 1);
    const out4 = g.separable(`${block}/conv3`, g.relu(g.add(`${block}/in4`, out1, out2, out3)), p.conv3, 1);
    x = g.relu(g.add(`${block}/out`, out1, out2, out3, out4));
  }
  g.fullyConnected(LANDMARK_OUTPUT, g.pooledFeatures(x, params.fc.weights.shape[0]!), params.fc);
  return g.toOnnxSession(LANDMARK_OUTPUT);
}

/**
 * face-api's AgeGenderNet (a TinyXception with two middle blocks, pool, fully connected): input `input`
 * [n, 112, 112, 3], output `age:out` [n, 1] in years (the gender head is not used).
 */
export function ageNetAsOnnx(net: FaceApiNet): Promise<OnnxSession> {
  const { extractor: p, params } = loadedParams<TinyXceptionParams, { fc: { age: FullyConnected } }>(
    net,
    'age net',
  );
  const g = new GraphBuilder();
  const reduction = (name: string, x: string, r: ReductionBlock, activateInput: boolean) => {
    const in0 = activateInput ? g.relu(x) : x;
    const sep = g.separable(
      `${name}/sep1`,
      g.relu(g.separable(`${name}/sep0`, in0, r.separable_conv0, 1)),
      r.separable_conv1,
      1,
    );
    const pooled = g.op(`${name}/pool`, 'MaxPool', [sep], {
      ksize: stride(3),
      strides: stride(2),
      padding: SAME,
    });
    return g.add(name, pooled, g.conv(`${name}/expansion`, x, r.expansion_conv, 2));
  };
  let x = g.relu(g.conv('conv_in', g.normalisedInput(), p.entry_flow.conv_in, 2));
  x = reduction('reduction0', x, p.entry_flow.reduction_block_0, false);
  x = reduction('reduction1', x, p.entry_flow.reduction_block_1, true);
  for (const [name, m] of Object.entries(p.middle_flow).sort(([a], [b]) => a.localeCompare(b))) {
    let out = g.separable(`${name}/sep0`, g.relu(x), m.separable_conv0, 1);
    out = g.separable(`${name}/sep1`, g.relu(out), m.separable_conv1, 1);
    out = g.separable(`${name}/sep2`, g.relu(out), m.separable_conv2, 1);
    x = g.add(name, out, x);
  }
  x = reduction('exit', x, p.exit_flow.reduction_block, true);
  x = g.relu(g.separable('exit/sep', x, p.exit_flow.separable_conv, 1));
  g.fullyConnected(AGE_OUTPUT, g.pooledFeatures(x, params.fc.age.weights.shape[0]!), params.fc.age);
  return g.toOnnxSession(AGE_OUTPUT);
}
