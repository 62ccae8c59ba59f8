import type * as tfTypes from '@tensorflow/tfjs';
import { encodeOnnxModel } from './onnx-protobuf.ts';
import { createOnnxSession, type OnnxSession } from './onnx-session.ts';
import { type TfjsGraphModel, tfjsGraphToOnnx } from './tfjs-graph-to-onnx.ts';

// face-api's 68-point landmark net is written as tfjs code, not as a graph. Its layers are re-stated here
// as the graph they compute (face-api's FaceFeatureExtractor: four dense blocks of separable convolutions,
// a 7×7 average pool, then a fully connected layer), with the weights face-api loaded, and converted to
// ONNX like the graph models. The test compares the two nets' outputs.

/** face-api's per-channel means (RGB) subtracted before its division by 255. */
const MEAN_RGB = [122.782, 117.001, 104.298];
export const LANDMARK_INPUT = 112;
export const LANDMARK_OUTPUT = 'landmarks';

interface SeparableConv {
  depthwise_filter: tfTypes.Tensor;
  pointwise_filter: tfTypes.Tensor;
  bias: tfTypes.Tensor;
}
interface PlainConv {
  filters: tfTypes.Tensor;
  bias: tfTypes.Tensor;
}
interface DenseBlock {
  conv0: SeparableConv | PlainConv;
  conv1: SeparableConv;
  conv2: SeparableConv;
  conv3: SeparableConv;
}
/** The `params` of face-api's FaceLandmark68Net once loaded. */
export interface LandmarkNetParams {
  fc: { weights: tfTypes.Tensor; bias: tfTypes.Tensor };
}
interface FeatureExtractorParams {
  dense0: DenseBlock;
  dense1: DenseBlock;
  dense2: DenseBlock;
  dense3: DenseBlock;
}

const SAME = Buffer.from('SAME').toString('base64');
const VALID = Buffer.from('VALID').toString('base64');
const BIAS_ADD = Buffer.from('BiasAdd').toString('base64');
const stride = (s: number) => ({ list: { i: ['1', `${s}`, `${s}`, '1'] } });

/** The landmark net as a tfjs graph (input [batch, 112, 112, 3] RGB 0..255, output [batch, 136]). */
function landmarkGraph(
  extractor: FeatureExtractorParams,
  fc: LandmarkNetParams['fc'],
): { model: TfjsGraphModel; weights: ArrayBuffer } {
  const nodes: TfjsGraphModel['modelTopology']['node'] = [];
  const specs: TfjsGraphModel['weightsManifest'][number]['weights'] = [];
  const data: Uint8Array[] = [];
  const constant = (name: string, values: Float32Array | Int32Array, shape: number[]): string => {
    nodes.push({ name, op: 'Const' });
    specs.push({ name, shape, dtype: values instanceof Float32Array ? 'float32' : 'int32' });
    data.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
    return name;
  };
  const fromTensor = (name: string, t: tfTypes.Tensor) =>
    constant(name, t.dataSync() as Float32Array, t.shape);
  const op = (
    name: string,
    kind: string,
    input: string[],
    attr: TfjsGraphModel['modelTopology']['node'][number]['attr'] = {},
  ) => {
    nodes.push({ name, op: kind, input, attr });
    return name;
  };
  const conv = (name: string, x: string, filter: string, bias: string, s: number) =>
    op(name, '_FusedConv2D', [x, filter, bias], {
      strides: stride(s),
      padding: { s: SAME },
      fused_ops: { list: { s: [BIAS_ADD] } },
    });
  const separable = (name: string, x: string, p: SeparableConv, s: number) => {
    const dw = op(
      `${name}/dw`,
      'DepthwiseConv2dNative',
      [x, fromTensor(`${name}/dw_filter`, p.depthwise_filter)],
      {
        strides: stride(s),
        padding: { s: SAME },
      },
    );
    return conv(
      name,
      dw,
      fromTensor(`${name}/pw_filter`, p.pointwise_filter),
      fromTensor(`${name}/bias`, p.bias),
      1,
    );
  };
  const add = (name: string, a: string, b: string) => op(name, 'AddV2', [a, b]);
  const relu = (name: string, x: string) => op(name, 'Relu', [x]);

  op('input', 'Placeholder', [], {
    shape: { shape: { dim: [-1, LANDMARK_INPUT, LANDMARK_INPUT, 3].map((d) => ({ size: `${d}` })) } },
  });
  const centred = op('centred', 'Sub', ['input', constant('mean_rgb', Float32Array.from(MEAN_RGB), [3])]);
  let x = op('scaled', 'Mul', [centred, constant('inv255', Float32Array.of(1 / 255), [])]);
  (['dense0', 'dense1', 'dense2', 'dense3'] as const).forEach((block, b) => {
    const p = extractor[block];
    const first =
      'filters' in p.conv0
        ? conv(
            `${block}/conv0`,
            x,
            fromTensor(`${block}/conv0/filter`, p.conv0.filters),
            fromTensor(`${block}/conv0/bias`, p.conv0.bias),
            2,
          )
        : separable(`${block}/conv0`, x, p.conv0, 2);
    if (b === 0 && !('filters' in p.conv0))
      throw new Error('unexpected landmark net: the first block has no plain convolution');
    const out1 = relu(`${block}/out1`, first);
    const out2 = separable(`${block}/conv1`, out1, p.conv1, 1);
    const in3 = relu(`${block}/in3`, add(`${block}/sum12`, out1, out2));
    const out3 = separable(`${block}/conv2`, in3, p.conv2, 1);
    const in4 = relu(`${block}/in4`, add(`${block}/sum1_23`, out1, add(`${block}/sum23`, out2, out3)));
    const out4 = separable(`${block}/conv3`, in4, p.conv3, 1);
    x = relu(
      `${block}/out`,
      add(`${block}/sum1_234`, out1, add(`${block}/sum2_34`, out2, add(`${block}/sum34`, out3, out4))),
    );
  });
  const pooled = op('pooled', 'AvgPool', [x], {
    ksize: stride(7),
    strides: stride(2),
    padding: { s: VALID },
  });
  const channels = fc.weights.shape[0]!;
  const flat = op('flat', 'Reshape', [pooled, constant('flat_shape', Int32Array.of(-1, channels), [2])]);
  op(
    LANDMARK_OUTPUT,
    '_FusedMatMul',
    [flat, fromTensor('fc/weights', fc.weights), fromTensor('fc/bias', fc.bias)],
    {
      fused_ops: { list: { s: [BIAS_ADD] } },
    },
  );

  const weights = Buffer.concat(data);
  return {
    model: { modelTopology: { node: nodes }, weightsManifest: [{ paths: [], weights: specs }] },
    weights: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer,
  };
}

/**
 * An ONNX session computing what face-api's loaded FaceLandmark68Net computes on 112×112 RGB crops: input
 * `input` [n, 112, 112, 3] (0..255), output `landmarks:out` [n, 136] (x0, y0, x1, y1, … relative to the crop).
 */
export async function landmarkNetAsOnnx(net: {
  params?: unknown;
  faceFeatureExtractor: { params?: unknown };
}): Promise<OnnxSession> {
  const extractor = net.faceFeatureExtractor.params as FeatureExtractorParams | undefined;
  const params = net.params as LandmarkNetParams | undefined;
  if (!extractor || !params) throw new Error('face-api landmark net is not loaded');
  const { model, weights } = landmarkGraph(extractor, params.fc);
  return createOnnxSession(encodeOnnxModel(tfjsGraphToOnnx(model, weights, [LANDMARK_OUTPUT])));
}
