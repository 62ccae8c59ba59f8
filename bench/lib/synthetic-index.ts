// Fills an index with synthetic faces that sit where real ones do (bench:search, bench:load).
import { sql } from 'kysely';
import type { Db } from '../../server/src/db/database.ts';
import { vectorToBytes } from '../../server/src/face/index/face-index.ts';
import { SHIPPED_MODEL } from '../../server/src/services/face-index.service.ts';
import { createRandom } from './synthetic-face-vectors.ts';

const DIMENSIONS = SHIPPED_MODEL.dimensions;
const SYNTHETIC_PAGE = 'https://synthetic.bench.example/';

/**
 * Descriptors distributed like the real ones of the model that made `real`. Faces share a common
 * direction whose weight is model-specific (dlib: different people score ≈ 0.84; the shipped 512-d model:
 * ≈ 0.1), so it is read from `real`: μ, the mean cosine between two of them (most are different people).
 * Each synthetic person is a centre around that direction with 1–6 photos around the centre; photos of one
 * person score s = 1 − 0.4·(1 − μ) with each other (dlib 0.94, the 512-d model ≈ 0.64) and photos of
 * different people μ. Vectors from another distribution would sit apart from the real faces and make the
 * approximate index look worse (or better) than it is: with dlib's constants a million 512-d vectors
 * formed one narrow cone, and the index no longer reached the real faces outside it.
 */
export function realisticDescriptors(
  real: Float32Array[],
  count: number,
): { count: number; vectors: Float32Array } {
  const random = createRandom(11);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const normalise = (v: Float32Array) => {
    let sum = 0;
    for (const x of v) sum += x * x;
    const norm = Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  };
  /** baseWeight·base + scale·(a random unit direction), normalised, written into `out`. */
  const perturb = (base: Float32Array, baseWeight: number, scale: number, out: Float32Array) => {
    const noise = normalise(Float32Array.from({ length: DIMENSIONS }, gaussian));
    for (let i = 0; i < DIMENSIONS; i++) out[i] = baseWeight * base[i]! + scale * noise[i]!;
    return normalise(out);
  };
  if (real.length < 2) throw new Error('at least two real descriptors are needed to fit the distribution');
  const sum = new Float32Array(DIMENSIONS);
  for (const v of real) for (let i = 0; i < DIMENSIONS; i++) sum[i]! += v[i]!;
  // Σᵢⱼ vᵢ·vⱼ = |Σ v|², so the mean over pairs i ≠ j is (|Σ v|² − n) / (n (n − 1)) for unit vectors.
  const n = real.length;
  const mu = (sum.reduce((acc, x) => acc + x * x, 0) - n) / (n * (n - 1));
  const samePerson = 1 - 0.4 * (1 - mu);
  // Photo = centre + γ·noise: two photos of one centre score 1 / (1 + γ²) = samePerson. Centres score
  // α² with each other, so photos of different people score α²·samePerson = μ.
  const gamma = Math.sqrt(1 / samePerson - 1);
  const alphaSquared = Math.min(1, Math.max(0, mu / samePerson));
  const mean = normalise(sum);
  const vectors = new Float32Array(count * DIMENSIONS);
  const centre = new Float32Array(DIMENSIONS);
  let face = 0;
  while (face < count) {
    perturb(mean, Math.sqrt(alphaSquared), Math.sqrt(1 - alphaSquared), centre);
    const photos = 1 + Math.floor(random() * 6);
    for (let p = 0; p < photos && face < count; p++, face++) {
      perturb(centre, 1, gamma, vectors.subarray(face * DIMENSIONS, (face + 1) * DIMENSIONS));
    }
  }
  return { count, vectors };
}

/** Stores the faces as crawled ones (one image each on one synthetic page) with their change-log entries. */
export async function insertSyntheticFaces(
  db: Db,
  synthetic: { count: number; vectors: Float32Array },
  batchSize = 2000,
): Promise<void> {
  await sql`insert into pages (url, title) values (${SYNTHETIC_PAGE}, 'Synthetic')`.execute(db);
  for (let start = 0; start < synthetic.count; start += batchSize) {
    const end = Math.min(synthetic.count, start + batchSize);
    await db.transaction().execute(async (tx) => {
      const images = await tx
        .insertInto('images')
        .values(
          Array.from({ length: end - start }, (_, i) => ({
            content_hash: `synthetic-${start + i}`,
            phash: null,
            analyzed_at: new Date(),
          })),
        )
        .returning('id')
        .execute();
      await sql`insert into image_occurrences (image_id, page_id, image_url)
        select id, (select id from pages where url = ${SYNTHETIC_PAGE}), ${SYNTHETIC_PAGE} || id || '.jpg'
        from images where id = any(${images.map((r) => r.id)}::int[])`.execute(tx);
      const faces = await tx
        .insertInto('faces')
        .values(
          images.map((image, i) => ({
            image_id: image.id,
            box_x: 0,
            box_y: 0,
            box_width: 100,
            box_height: 100,
            score: 0.9,
            quality: 0.8,
            descriptor: Buffer.from(
              vectorToBytes(
                synthetic.vectors.subarray((start + i) * DIMENSIONS, (start + i + 1) * DIMENSIONS),
              ),
            ),
            model_id: SHIPPED_MODEL.modelId,
          })),
        )
        .returning('id')
        .execute();
      await tx
        .insertInto('face_index_log')
        .values(faces.map((f) => ({ face_id: f.id, op: 'add' as const })))
        .execute();
    });
  }
}
