import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createFaceEngine } from '../../server/src/face/face-engine.ts';
import { PIPELINE_CATALOG, type PipelineName } from '../../server/src/face/pipeline/pipeline-catalog.ts';
import { MIN_INDEX_FACE_PX } from '../../server/src/face/similarity.ts';

// The in-the-wild set (faces/celeba-dev: <identity>/<file>.jpg) analysed once per pipeline. Embeddings
// are cached under bench/results/ (never committed: the set is evaluation-only), keyed by the pipeline's
// model id and the list of files, so the scale metrics can be recomputed in seconds.

export interface CelebaFace {
  label: string;
  file: string;
  /** Largest face of the photo (the MANIFEST's protocol); null when none was found. */
  descriptor: Float32Array | null;
  /** Side of that face's box in pixels (shorter side), 0 when none. */
  size: number;
  /** Faces found in the photo. */
  faces: number;
}

export function listCeleba(dir: string): { label: string; file: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .flatMap((label) =>
      readdirSync(path.join(dir, label))
        .filter((f) => /\.jpe?g$/i.test(f))
        .sort()
        .map((file) => ({ label, file })),
    );
}

interface CacheFile {
  modelId: string;
  dimensions: number;
  items: { label: string; file: string; size: number; faces: number; descriptor: number[] | null }[];
}

export async function celebaEmbeddings(
  dir: string,
  pipeline: PipelineName,
  cacheDir: string,
  onProgress?: (done: number, total: number) => void,
): Promise<CelebaFace[]> {
  const list = listCeleba(dir);
  const { modelId, dimensions } = PIPELINE_CATALOG[pipeline];
  const key = createHash('sha256')
    .update(modelId)
    .update(list.map((i) => `${i.label}/${i.file}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const cachePath = path.join(cacheDir, `celeba-${pipeline}-${key}.json`);
  if (existsSync(cachePath)) {
    const cached = JSON.parse(readFileSync(cachePath, 'utf8')) as CacheFile;
    return cached.items.map((i) => ({
      ...i,
      descriptor: i.descriptor ? Float32Array.from(i.descriptor) : null,
    }));
  }
  const threads = Number(process.env.FACES_BENCH_THREADS ?? 1);
  const engine = await createFaceEngine({ pipeline, threads });
  const out: CelebaFace[] = new Array(list.length);
  try {
    let done = 0;
    let next = 0;
    // As many photos in flight as worker threads.
    await Promise.all(
      Array.from({ length: threads }, async () => {
        while (next < list.length) {
          const i = next++;
          const { label, file } = list[i]!;
          const { faces } = await engine.analyze(readFileSync(path.join(dir, label, file)), {
            minFaceSize: MIN_INDEX_FACE_PX,
          });
          const face = faces[0];
          out[i] = {
            label,
            file,
            descriptor: face?.descriptor ?? null,
            size: face ? Math.round(Math.min(face.box.width, face.box.height)) : 0,
            faces: faces.length,
          };
          onProgress?.(++done, list.length);
        }
      }),
    );
  } finally {
    await engine.close();
  }
  mkdirSync(cacheDir, { recursive: true });
  const file: CacheFile = {
    modelId,
    dimensions,
    items: out.map((i) => ({ ...i, descriptor: i.descriptor ? Array.from(i.descriptor) : null })),
  };
  writeFileSync(cachePath, JSON.stringify(file));
  return out;
}
