import { meanDescriptor, similarity } from '../../server/src/face/similarity.ts';
import { atFmr, atThreshold, type Embedded, type OperatingPoint } from './scale-metrics.ts';
import { createRandom } from './synthetic-face-vectors.ts';

// A search may start from several faces chosen as the same person: the query is the normalised mean of
// their descriptors (meanDescriptor, as the search service does). Does that raise the true-match rate, and
// does the threshold set on single faces keep its false-match rate? For k photos per query: for each person
// with more than k described photos, up to `setsPerPerson` random k-photo sets (seeded), each set's mean
// scored against the person's other photos (same person; a photo without a face is a miss) and against
// every photo of the other people (different people).

export interface MultiFaceQueryResult {
  photosPerQuery: number;
  queries: number;
  samePairs: number;
  differentPairs: number;
  /** At the threshold set for single faces. */
  atShipped: OperatingPoint;
  /** At each FMR target, with the thresholds these queries' own different-person scores give. */
  points: OperatingPoint[];
}

export function multiFaceQueries(
  faces: Embedded[],
  photosPerQuery: readonly number[],
  threshold: number,
  fmrs: readonly number[],
  setsPerPerson = 20,
): MultiFaceQueryResult[] {
  const byPerson = new Map<string, number[]>();
  faces.forEach((face, i) => {
    const photos = byPerson.get(face.label);
    if (photos) photos.push(i);
    else byPerson.set(face.label, [i]);
  });
  return photosPerQuery.map((k) => {
    const random = createRandom(1000 + k);
    const same: number[] = [];
    const different: number[] = [];
    let queries = 0;
    for (const [label, photos] of byPerson) {
      const described = photos.filter((i) => faces[i]!.descriptor);
      if (described.length <= k) continue;
      // Distinct sets only (a person with few photos has few of them).
      const sets = new Map<string, number[]>();
      for (let attempt = 0; sets.size < setsPerPerson && attempt < 4 * setsPerPerson; attempt++) {
        const chosen = sample(described, k, random).sort((a, b) => a - b);
        sets.set(chosen.join(','), chosen);
      }
      for (const chosen of sets.values()) {
        const query = meanDescriptor(chosen.map((i) => faces[i]!.descriptor!));
        queries++;
        faces.forEach((face, i) => {
          if (chosen.includes(i)) return;
          const s = face.descriptor ? similarity(query, face.descriptor) : -Infinity;
          (face.label === label ? same : different).push(s);
        });
      }
    }
    const scores = {
      same: Float64Array.from(same).sort(),
      different: Float64Array.from(different).sort(),
    };
    return {
      photosPerQuery: k,
      queries,
      samePairs: same.length,
      differentPairs: different.length,
      atShipped: atThreshold(scores, threshold),
      points: fmrs.map((fmr) => atFmr(scores, fmr)),
    };
  });
}

function sample(from: number[], k: number, random: () => number): number[] {
  const pool = [...from];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}
