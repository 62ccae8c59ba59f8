import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeOnnxModel,
  OnnxType,
  type OnnxGraph,
  type OnnxNode,
  type OnnxTensor,
} from './onnx-protobuf.ts';
import { createOnnxSession, type OnnxSession, type OnnxSessionOptions } from './onnx-session.ts';

// Converts a TensorFlow.js graph model (model.json + weights) into an ONNX graph, so that the same weights
// run on onnxruntime's native CPU kernels instead of tfjs's WASM ones (4–5× less CPU per run here). Only
// the operations of the models this engine loads are supported (BlazeFace, HSE FaceRes); anything else is
// refused with the operation's name, never approximated.
//
// TensorFlow computes in NHWC and ONNX's convolutions in NCHW: the input is transposed once, every 4-D
// tensor stays NCHW inside the graph, constants are laid out to match, and a 4-D tensor is transposed
// back only where it leaves the spatial part (Reshape, graph outputs).

interface TfjsNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfjsAttr>;
}

interface TfjsAttr {
  s?: string;
  b?: boolean;
  list?: { i?: string[]; s?: string[] };
  shape?: { dim?: { size: string }[] };
}

interface TfjsWeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

export interface TfjsGraphModel {
  modelTopology: { node: TfjsNode[] };
  /** Weight files (`paths`, beside model.json) and what they hold, in order. */
  weightsManifest: { paths: string[]; weights: TfjsWeightSpec[] }[];
}

interface Constant {
  shape: number[];
  dtype: 'float32' | 'int32';
  values: Float32Array | Int32Array;
}

/** A converted tensor: its ONNX name, rank, and whether it is a 4-D tensor held in NCHW order. */
interface Value {
  name: string;
  rank: number;
  nchw: boolean;
}

const NHWC_TO_NCHW = [0, 3, 1, 2];
const NCHW_TO_NHWC = [0, 2, 3, 1];
/** Where each NHWC axis sits in NCHW. */
const NHWC_AXIS_IN_NCHW = [0, 2, 3, 1];

const decodeBase64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

function readConstants(model: TfjsGraphModel, weightData: ArrayBuffer): Map<string, Constant> {
  const constants = new Map<string, Constant>();
  let offset = 0;
  for (const spec of model.weightsManifest.flatMap((group) => group.weights)) {
    if (spec.quantization) throw new Error(`quantised weights (${spec.name}) are not supported`);
    if (spec.dtype !== 'float32' && spec.dtype !== 'int32')
      throw new Error(`weights of type ${spec.dtype} (${spec.name}) are not supported`);
    const count = spec.shape.reduce((n, d) => n * d, 1);
    const bytes = weightData.slice(offset, offset + count * 4);
    offset += count * 4;
    const values = spec.dtype === 'float32' ? new Float32Array(bytes) : new Int32Array(bytes);
    constants.set(spec.name, { shape: spec.shape, dtype: spec.dtype, values });
  }
  return constants;
}

/** Values of `source` (of shape `shape`) with its axes permuted: out axis k is source axis perm[k]. */
function permute(
  source: Float32Array,
  shape: number[],
  perm: number[],
): { values: Float32Array; shape: number[] } {
  const outShape = perm.map((p) => shape[p]!);
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((n, d) => n * d, 1));
  const out = new Float32Array(source.length);
  const index = new Array<number>(shape.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let from = 0;
    for (let k = 0; k < perm.length; k++) from += index[k]! * strides[perm[k]!]!;
    out[o] = source[from]!;
    for (let k = perm.length - 1; k >= 0; k--) {
      if (++index[k]! < outShape[k]!) break;
      index[k] = 0;
    }
  }
  return { values: out, shape: outShape };
}

const bytesOf = (a: Float32Array | BigInt64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Names of the nodes no other node reads: a graph model's outputs when its signature names none. */
export function tfjsGraphSinks(model: TfjsGraphModel): string[] {
  const read = new Set(
    model.modelTopology.node.flatMap((n) => (n.input ?? []).map((i) => i.replace(/^\^/, '').split(':')[0]!)),
  );
  return model.modelTopology.node.filter((n) => n.op !== 'Const' && !read.has(n.name)).map((n) => n.name);
}

/**
 * Converts the part of `model` that `outputs` (tfjs node names) depend on. The ONNX graph has one input,
 * `input`, in NHWC like the original, and one output per requested node, under the same name.
 */
export function tfjsGraphToOnnx(
  model: TfjsGraphModel,
  weightData: ArrayBuffer,
  outputs: string[],
): OnnxGraph {
  const constants = readConstants(model, weightData);
  const byName = new Map(model.modelTopology.node.map((n) => [n.name, n]));
  const nodes: OnnxNode[] = [];
  const initializers: OnnxTensor[] = [];
  const values = new Map<string, Value>();
  let inputDims: (number | string)[] = [];
  let fresh = 0;
  const freshName = (hint: string) => `${hint}__${fresh++}`;

  const floatInitializer = (values: Float32Array, dims: number[], hint: string): string => {
    const name = freshName(hint);
    initializers.push({ name, dims, type: OnnxType.FLOAT, data: bytesOf(values) });
    return name;
  };
  const int64Initializer = (values: number[], hint: string): string => {
    const name = freshName(hint);
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    initializers.push({ name, dims: [values.length], type: OnnxType.INT64, data: bytesOf(data) });
    return name;
  };
  const constantOf = (tfName: string): Constant => {
    const c = constants.get(tfName.split(':')[0]!);
    if (!c) throw new Error(`${tfName} is not a constant`);
    return c;
  };
  const transpose = (value: Value, perm: number[], nchw: boolean): Value => {
    const name = freshName('transpose');
    nodes.push({ op: 'Transpose', inputs: [value.name], outputs: [name], attributes: { perm } });
    return { name, rank: value.rank, nchw };
  };
  const toNhwc = (value: Value): Value => (value.nchw ? transpose(value, NCHW_TO_NHWC, false) : value);
  const isConstant = (tfName: string) => byName.get(tfName.split(':')[0]!)?.op === 'Const';

  /** A constant operand of an element-wise operation with a 4-D NCHW tensor: per-channel → [C, 1, 1]. */
  const broadcastConstant = (c: Constant, towardsNchw: boolean, hint: string): string => {
    const floats = Float32Array.from(c.values);
    if (!towardsNchw || c.shape.length === 0 || floats.length === 1)
      return floatInitializer(floats, c.shape, hint);
    const channels = c.shape[c.shape.length - 1]!;
    if (floats.length !== channels) throw new Error(`${hint}: only per-channel constants are supported`);
    return floatInitializer(floats, [channels, 1, 1], hint);
  };

  const spatialAttributes = (attr: Record<string, TfjsAttr>) => {
    const padding = decodeBase64(attr.padding?.s ?? '');
    if (padding !== 'SAME' && padding !== 'VALID') throw new Error(`padding ${padding} is not supported`);
    if (attr.data_format && decodeBase64(attr.data_format.s ?? '') !== 'NHWC')
      throw new Error('only NHWC models are supported');
    const strides = (attr.strides?.list?.i ?? ['1', '1', '1', '1']).map(Number);
    // TensorFlow's SAME puts the odd pixel of padding at the end, as ONNX's SAME_UPPER does.
    return { auto_pad: padding === 'SAME' ? 'SAME_UPPER' : 'VALID', strides: [strides[1]!, strides[2]!] };
  };

  const activation = (input: string, ops: string[], hint: string): string => {
    let current = input;
    for (const op of ops) {
      const name = freshName(hint);
      if (op === 'Relu') nodes.push({ op: 'Relu', inputs: [current], outputs: [name] });
      else if (op === 'Relu6') {
        const [low, high] = [
          floatInitializer(Float32Array.of(0), [], 'zero'),
          floatInitializer(Float32Array.of(6), [], 'six'),
        ];
        nodes.push({ op: 'Clip', inputs: [current, low, high], outputs: [name] });
      } else throw new Error(`fused ${op} is not supported`);
      current = name;
    }
    return current;
  };

  const convert = (tfName: string): Value => {
    const key = tfName.replace(/^\^/, '').split(':')[0]!;
    const known = values.get(key);
    if (known) return known;
    const node = byName.get(key);
    if (!node) throw new Error(`unknown node ${key}`);
    const attr = node.attr ?? {};
    const inputs = (node.input ?? []).filter((i) => !i.startsWith('^'));
    const out = key;
    let result: Value;
    switch (node.op) {
      case 'Placeholder': {
        const dims = (attr.shape?.shape?.dim ?? []).map((d) => Number(d.size));
        if (dims.length !== 4) throw new Error('only 4-D (NHWC) inputs are supported');
        inputDims = dims.map((d) => (d < 0 ? 'batch' : d));
        result = transpose({ name: 'input', rank: 4, nchw: false }, NHWC_TO_NCHW, true);
        break;
      }
      case 'Conv2D':
      case '_FusedConv2D':
      case 'DepthwiseConv2dNative':
      case '_FusedDepthwiseConv2dNative': {
        const x = convert(inputs[0]!);
        if (!x.nchw) throw new Error(`${key}: convolution of a tensor that is not 4-D`);
        const filter = constantOf(inputs[1]!);
        const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
        const depthwise = node.op.includes('Depthwise');
        // TensorFlow HWIO → ONNX OIHW; a depthwise [H, W, C, M] filter is a grouped convolution of C groups
        // whose output channel c·M + m is filter[…, c, m], i.e. the OIHW weight [C·M, 1, H, W].
        const weight = depthwise
          ? {
              values: permute(filter.values as Float32Array, [kh, kw, cin * cout], [2, 0, 1]).values,
              shape: [cin * cout, 1, kh, kw],
            }
          : permute(filter.values as Float32Array, filter.shape, [3, 2, 0, 1]);
        const fused = (attr.fused_ops?.list?.s ?? []).map(decodeBase64);
        const convInputs = [x.name, floatInitializer(weight.values, weight.shape, 'weight')];
        if (fused[0] === 'BiasAdd') {
          const bias = constantOf(inputs[2]!);
          convInputs.push(floatInitializer(Float32Array.from(bias.values), bias.shape, 'bias'));
          fused.shift();
        } else if (fused.length) throw new Error(`${key}: fused ${fused.join(', ')} is not supported`);
        const dilations = (attr.dilations?.list?.i ?? ['1', '1', '1', '1']).map(Number);
        const conv = freshName('conv');
        nodes.push({
          op: 'Conv',
          inputs: convInputs,
          outputs: [conv],
          attributes: {
            ...spatialAttributes(attr),
            kernel_shape: [kh, kw],
            dilations: [dilations[1]!, dilations[2]!],
            group: depthwise ? cin : 1,
          },
        });
        result = { name: activation(conv, fused, 'act'), rank: 4, nchw: true };
        break;
      }
      case 'MaxPool':
      case 'AvgPool': {
        const x = convert(inputs[0]!);
        const ksize = (attr.ksize?.list?.i ?? []).map(Number);
        nodes.push({
          op: node.op === 'MaxPool' ? 'MaxPool' : 'AveragePool',
          inputs: [x.name],
          outputs: [out],
          attributes: { ...spatialAttributes(attr), kernel_shape: [ksize[1]!, ksize[2]!] },
        });
        result = { name: out, rank: 4, nchw: true };
        break;
      }
      case 'Add':
      case 'AddV2':
      case 'Sub':
      case 'Mul':
      case 'Minimum':
      case 'Maximum': {
        const operands = inputs.map((i) => (isConstant(i) ? undefined : convert(i)));
        const tensor = operands.find((o) => o !== undefined);
        if (!tensor) throw new Error(`${key}: element-wise operation of two constants`);
        const names = inputs.map((input, i) => {
          const operand = operands[i];
          if (operand) return operand.nchw === tensor.nchw ? operand.name : layoutMismatch(key);
          return broadcastConstant(constantOf(input), tensor.nchw, 'operand');
        });
        const op = { Add: 'Add', AddV2: 'Add', Sub: 'Sub', Mul: 'Mul', Minimum: 'Min', Maximum: 'Max' }[
          node.op
        ]!;
        nodes.push({ op, inputs: names, outputs: [out] });
        result = { name: out, rank: tensor.rank, nchw: tensor.nchw };
        break;
      }
      case 'Relu':
      case 'Relu6':
      case 'Sigmoid':
      case 'Identity': {
        const x = convert(inputs[0]!);
        if (node.op === 'Relu6') result = { ...x, name: activation(x.name, ['Relu6'], 'act') };
        else {
          nodes.push({ op: node.op, inputs: [x.name], outputs: [out] });
          result = { ...x, name: out };
        }
        break;
      }
      case 'Softmax': {
        const x = convert(inputs[0]!);
        if (x.nchw) throw new Error(`${key}: softmax over a 4-D tensor is not supported`);
        nodes.push({ op: 'Softmax', inputs: [x.name], outputs: [out], attributes: { axis: -1 } });
        result = { ...x, name: out };
        break;
      }
      case 'Pad': {
        const x = convert(inputs[0]!);
        const paddings = Array.from(constantOf(inputs[1]!).values); // [[before, after] per NHWC axis]
        const before = [0, 0, 0, 0];
        const after = [0, 0, 0, 0];
        for (let axis = 0; axis < 4; axis++) {
          before[NHWC_AXIS_IN_NCHW[axis]!] = paddings[2 * axis]!;
          after[NHWC_AXIS_IN_NCHW[axis]!] = paddings[2 * axis + 1]!;
        }
        if (!x.nchw) throw new Error(`${key}: padding of a tensor that is not 4-D`);
        nodes.push({
          op: 'Pad',
          inputs: [x.name, int64Initializer([...before, ...after], 'pads')],
          outputs: [out],
          attributes: { mode: 'constant' },
        });
        result = { name: out, rank: 4, nchw: true };
        break;
      }
      case 'Reshape': {
        const x = toNhwc(convert(inputs[0]!));
        const shape = Array.from(constantOf(inputs[1]!).values);
        if (shape.length === 4) throw new Error(`${key}: a reshape to 4-D is not supported`);
        nodes.push({ op: 'Reshape', inputs: [x.name, int64Initializer(shape, 'shape')], outputs: [out] });
        result = { name: out, rank: shape.length, nchw: false };
        break;
      }
      case 'Mean': {
        const x = convert(inputs[0]!);
        const keep = attr.keep_dims?.b === true;
        const axes = Array.from(constantOf(inputs[1]!).values).map((a) =>
          x.nchw ? NHWC_AXIS_IN_NCHW[a < 0 ? a + 4 : a]! : a,
        );
        nodes.push({
          op: 'ReduceMean',
          inputs: [x.name],
          outputs: [out],
          attributes: { axes, keepdims: keep ? 1 : 0 },
        });
        const rank = keep ? x.rank : x.rank - axes.length;
        if (keep && x.nchw) result = { name: out, rank, nchw: true };
        else if (!x.nchw || axes.every((a) => a >= 2) || rank <= 2) result = { name: out, rank, nchw: false };
        else throw new Error(`${key}: this reduction of a 4-D tensor is not supported`);
        break;
      }
      case 'MatMul':
      case '_FusedMatMul': {
        const x = convert(inputs[0]!);
        if (x.nchw || attr.transpose_a?.b) throw new Error(`${key}: unsupported matrix product`);
        const kernel = constantOf(inputs[1]!);
        const w = attr.transpose_b?.b
          ? permute(kernel.values as Float32Array, kernel.shape, [1, 0])
          : { values: Float32Array.from(kernel.values), shape: kernel.shape };
        const product = freshName('matmul');
        nodes.push({
          op: 'MatMul',
          inputs: [x.name, floatInitializer(w.values, w.shape, 'kernel')],
          outputs: [product],
        });
        const fused = (attr.fused_ops?.list?.s ?? []).map(decodeBase64);
        let current = product;
        if (fused[0] === 'BiasAdd') {
          const bias = constantOf(inputs[2]!);
          current = freshName('biased');
          nodes.push({
            op: 'Add',
            inputs: [product, floatInitializer(Float32Array.from(bias.values), bias.shape, 'bias')],
            outputs: [current],
          });
          fused.shift();
        } else if (fused.length) throw new Error(`${key}: fused ${fused.join(', ')} is not supported`);
        result = { name: activation(current, fused, 'act'), rank: 2, nchw: false };
        break;
      }
      default:
        throw new Error(`the operation ${node.op} (${key}) is not supported`);
    }
    values.set(key, result);
    return result;
  };

  const graphOutputs = outputs.map((tfName) => {
    const value = toNhwc(convert(tfName));
    const name = tfName.split(':')[0]!;
    nodes.push({ op: 'Identity', inputs: [value.name], outputs: [`${name}:out`] });
    return { name: `${name}:out` };
  });
  return { nodes, initializers, inputs: [{ name: 'input', dims: inputDims }], outputs: graphOutputs };
}

function layoutMismatch(node: string): never {
  throw new Error(`${node}: element-wise operation of a 4-D tensor with a tensor of another layout`);
}

/**
 * Opens a tfjs graph model (the model.json path; its weight files beside it) as an ONNX session. Outputs
 * default to the graph's sinks; each output is named `<tfjs node name>:out`.
 */
export async function openTfjsGraphAsOnnx(
  jsonPath: string,
  outputs?: string[],
  options: OnnxSessionOptions = {},
): Promise<OnnxSession> {
  const model = JSON.parse(await readFile(jsonPath, 'utf8')) as TfjsGraphModel;
  const shards = await Promise.all(
    model.weightsManifest.flatMap((group) =>
      group.paths.map((p) => readFile(path.join(path.dirname(jsonPath), p))),
    ),
  );
  const weights = Buffer.concat(shards);
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength);
  const graph = tfjsGraphToOnnx(model, weightData as ArrayBuffer, outputs ?? tfjsGraphSinks(model));
  return createOnnxSession(encodeOnnxModel(graph), options);
}
