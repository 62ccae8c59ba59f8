// The few ONNX protobuf messages a converted model needs, written by hand (field numbers from onnx.proto).
// A model is built in memory and handed to onnxruntime as bytes: nothing is written to disk.

/** ONNX TensorProto.DataType values used here. */
export const OnnxType = { FLOAT: 1, INT32: 6, INT64: 7 } as const;

class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];

  private varint(value: bigint | number): void {
    // int64 fields: negative numbers are written as their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v !== 0n);
    this.chunks.push(Uint8Array.from(bytes));
  }

  private tag(field: number, wireType: 0 | 2 | 5): void {
    this.varint((field << 3) | wireType);
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  ints(field: number, values: readonly number[]): this {
    for (const v of values) this.int(field, v);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.chunks.push(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.chunks.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const length = this.chunks.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(length);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

export type OnnxAttribute = number | number[] | string;

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integers and integer lists only, plus strings (auto_pad, mode). */
  attributes?: Record<string, OnnxAttribute>;
}

export interface OnnxTensor {
  name: string;
  dims: number[];
  type: (typeof OnnxType)[keyof typeof OnnxType];
  /** Little-endian values, as ONNX's raw_data. */
  data: Uint8Array;
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  /** Float inputs and outputs; a dimension given as a string is symbolic (a batch size). */
  inputs: { name: string; dims: (number | string)[] }[];
  outputs: { name: string }[];
}

const ATTRIBUTE_TYPE = { INT: 2, STRING: 3, INTS: 7 } as const;

function writeAttribute(w: ProtoWriter, name: string, value: OnnxAttribute): void {
  w.string(1, name);
  if (typeof value === 'string') w.bytes(4, new TextEncoder().encode(value)).int(20, ATTRIBUTE_TYPE.STRING);
  else if (Array.isArray(value)) w.ints(8, value).int(20, ATTRIBUTE_TYPE.INTS);
  else w.int(3, value).int(20, ATTRIBUTE_TYPE.INT);
}

function writeValueInfo(w: ProtoWriter, name: string, dims?: (number | string)[]): void {
  w.string(1, name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, OnnxType.FLOAT);
      if (dims)
        tensor.message(2, (shape) => {
          for (const d of dims)
            shape.message(1, (dim) => (typeof d === 'string' ? dim.string(2, d) : dim.int(1, d)));
        });
    }),
  );
}

/** Serialises a graph as an ONNX model (IR version 8, default opset 13). */
export function encodeOnnxModel(graph: OnnxGraph): Uint8Array {
  const model = new ProtoWriter();
  model.int(1, 8);
  model.string(2, 'osint-face-engine');
  model.message(7, (g) => {
    graph.nodes.forEach((node, i) =>
      g.message(1, (n) => {
        for (const input of node.inputs) n.string(1, input);
        for (const output of node.outputs) n.string(2, output);
        n.string(3, `n${i}`);
        n.string(4, node.op);
        for (const [name, value] of Object.entries(node.attributes ?? {}))
          n.message(5, (a) => writeAttribute(a, name, value));
      }),
    );
    g.string(2, 'converted');
    for (const t of graph.initializers)
      g.message(5, (tensor) => {
        tensor.ints(1, t.dims);
        tensor.int(2, t.type);
        tensor.string(8, t.name);
        tensor.bytes(9, t.data);
      });
    for (const input of graph.inputs) g.message(11, (v) => writeValueInfo(v, input.name, input.dims));
    for (const output of graph.outputs) g.message(12, (v) => writeValueInfo(v, output.name));
  });
  model.message(8, (opset) => opset.string(1, '').int(2, 13));
  return model.finish();
}
