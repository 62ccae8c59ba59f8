import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

// One tfjs-core instance is shared by face-api, Human and our own models (all resolve the same package),
// so the backend and the IO router registered here serve every model loaded in this thread.

const require = createRequire(import.meta.url);

// Node's fetch cannot read file:// URLs and the Node build of tfjs without tfjs-node has no file system
// handler, so models referenced as file:// URLs (Human builds such URLs from modelBasePath) are read here.
function fileLoadRouter(url: string | string[]): tf.io.IOHandler | null {
  if (typeof url !== 'string' || !url.startsWith('file://')) return null;
  const jsonPath = fileURLToPath(url);
  return {
    load: async () => {
      const json = JSON.parse(await readFile(jsonPath, 'utf8')) as tf.io.ModelJSON;
      const dir = path.dirname(jsonPath);
      const shards = await Promise.all(
        json.weightsManifest.flatMap((group) => group.paths.map((p) => readFile(path.join(dir, p)))),
      );
      const weights = Buffer.concat(shards);
      return {
        modelTopology: json.modelTopology,
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
        signature: json.signature,
        userDefinedMetadata: json.userDefinedMetadata,
        weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      };
    },
  };
}

let ready: Promise<typeof tf> | undefined;

/** Selects the WASM backend with its binaries read from node_modules (never from a CDN). Idempotent. */
export function initTfjsWasm(): Promise<typeof tf> {
  ready ??= (async () => {
    const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
    setWasmPaths(wasmDir + path.sep);
    // tfjs's own routers also return null for URLs they do not handle; the declared type omits that.
    tf.io.registerLoadRouter(fileLoadRouter as (url: string | string[]) => tf.io.IOHandler);
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs WASM backend failed to initialise');
    await tf.ready();
    return tf;
  })();
  return ready;
}

/** Directory of the WASM binaries, for libraries (Human) that set the paths themselves. */
export function tfjsWasmDir(): string {
  return path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep;
}

export { tf };
