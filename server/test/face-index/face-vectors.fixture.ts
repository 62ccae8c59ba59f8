import { generateFaceSet, generateQueries } from '../../../bench/lib/synthetic-face-vectors.ts';
import type { FaceVectorEntry } from '../../src/face/index/face-index.ts';

/** Clustered, normalised synthetic faces (identities with several photos each), ids 1..count. */
export function syntheticFaces(count: number, dimensions = 128, seed = 1) {
  const set = generateFaceSet({ count, dimensions, seed });
  const entries: FaceVectorEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push({ faceId: i + 1, vector: set.vectors.slice(i * dimensions, (i + 1) * dimensions) });
  }
  const queries = (n: number): Float32Array[] => {
    const { vectors } = generateQueries(set, n, { seed: seed + 100 });
    return Array.from({ length: n }, (_, q) => vectors.slice(q * dimensions, (q + 1) * dimensions));
  };
  return { entries, queries, identityOf: (faceId: number) => set.identityOf[faceId - 1]! };
}
