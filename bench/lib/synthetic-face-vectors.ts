// Synthetic face descriptors that behave like a real index: many identities, each with a few noisy
// samples, in an anisotropic space (a shared mean direction, demographic-like groups, a decaying
// spectrum), L2-normalised. Uniform random vectors would make ANN search look harder than it is
// (no structure) and exact search look easier (no near-duplicates); clustered data is the honest case.

export interface SyntheticFaceSet {
  dimensions: number;
  count: number;
  /** count × dimensions, row i is the descriptor of face i. */
  vectors: Float32Array;
  /** identity of each face (several faces share one). */
  identityOf: Int32Array;
  identityCount: number;
}

export interface SyntheticFaceOptions {
  count: number;
  dimensions: number;
  seed?: number;
  /** mean number of photos per identity (geometric distribution, at least 1). */
  samplesPerIdentity?: number;
}

/** Small deterministic PRNG (mulberry32) so every run of the bench sees the same data. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function createGaussian(random: () => number): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    const u = Math.max(random(), 1e-12);
    const angle = 2 * Math.PI * random();
    const radius = Math.sqrt(-2 * Math.log(u));
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

function normaliseInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

const GROUP_COUNT = 24;
// Tuned so that, like face-api's 128-d dlib descriptor, photos of one person have a cosine
// similarity of about 0.9 and different people about 0.5, with a tail of look-alikes.
const MEAN_WEIGHT = 0.8;
const GROUP_WEIGHT = 0.4;
const IDENTITY_WEIGHT = 0.65;
const SAMPLE_NOISE = 0.38;

/** The space's fixed structure: a mean direction, group centres and a per-dimension spread. */
export class SyntheticFaceSpace {
  readonly dimensions: number;
  private readonly gaussian: () => number;
  private readonly random: () => number;
  private readonly mean: Float32Array;
  private readonly groups: Float32Array[];
  private readonly spread: Float32Array;

  constructor(dimensions: number, seed = 1) {
    this.dimensions = dimensions;
    this.random = createRandom(seed);
    this.gaussian = createGaussian(this.random);
    this.mean = normaliseInPlace(this.gaussianVector());
    this.groups = Array.from({ length: GROUP_COUNT }, () => normaliseInPlace(this.gaussianVector()));
    // Decaying spectrum: a few directions carry most of the variation, as in learned embeddings.
    this.spread = new Float32Array(dimensions);
    for (let i = 0; i < dimensions; i++) this.spread[i] = 1 / Math.sqrt(1 + i / 8);
    let norm = 0;
    for (const s of this.spread) norm += s * s;
    const scale = Math.sqrt(dimensions / norm);
    for (let i = 0; i < dimensions; i++) this.spread[i] = this.spread[i]! * scale;
  }

  private gaussianVector(): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) vector[i] = this.gaussian();
    return vector;
  }

  /** A new identity's centre (unnormalised; samples are normalised). */
  identity(): Float32Array {
    const group = this.groups[Math.floor(this.random() * GROUP_COUNT)]!;
    const centre = new Float32Array(this.dimensions);
    const perDimension = IDENTITY_WEIGHT / Math.sqrt(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) {
      centre[i] =
        MEAN_WEIGHT * this.mean[i]! +
        GROUP_WEIGHT * group[i]! +
        perDimension * this.spread[i]! * this.gaussian();
    }
    return centre;
  }

  /** One photo of an identity: its centre plus noise, normalised, written into `out`. */
  sample(centre: Float32Array, out: Float32Array): Float32Array {
    const perDimension = SAMPLE_NOISE / Math.sqrt(this.dimensions);
    for (let i = 0; i < this.dimensions; i++) {
      out[i] = centre[i]! + perDimension * this.spread[i]! * this.gaussian();
    }
    return normaliseInPlace(out);
  }

  /** Number of photos of a new identity: geometric with the given mean, at least one. */
  sampleCount(mean: number): number {
    const p = 1 / mean;
    let n = 1;
    while (this.random() > p && n < 50) n++;
    return n;
  }
}

/** Generates `count` faces. Identity centres are kept only as long as their samples are produced. */
export function generateFaceSet(options: SyntheticFaceOptions): SyntheticFaceSet & {
  space: SyntheticFaceSpace;
  centres: Float32Array[];
} {
  const { count, dimensions } = options;
  const space = new SyntheticFaceSpace(dimensions, options.seed ?? 1);
  const vectors = new Float32Array(count * dimensions);
  const identityOf = new Int32Array(count);
  const centres: Float32Array[] = [];
  let face = 0;
  while (face < count) {
    const centre = space.identity();
    const identity = centres.length;
    centres.push(centre);
    const samples = Math.min(space.sampleCount(options.samplesPerIdentity ?? 4), count - face);
    for (let s = 0; s < samples; s++, face++) {
      space.sample(centre, vectors.subarray(face * dimensions, (face + 1) * dimensions));
      identityOf[face] = identity;
    }
  }
  return { dimensions, count, vectors, identityOf, identityCount: centres.length, space, centres };
}

/**
 * Queries as the product sees them: mostly a new photo of someone who is in the index, some of
 * strangers (who must find nothing above the threshold).
 */
export function generateQueries(
  set: ReturnType<typeof generateFaceSet>,
  count: number,
  options: { strangerShare?: number; seed?: number } = {},
): { vectors: Float32Array; identity: Int32Array } {
  const random = createRandom(options.seed ?? 7);
  const strangerShare = options.strangerShare ?? 0.2;
  const { dimensions } = set;
  const vectors = new Float32Array(count * dimensions);
  const identity = new Int32Array(count);
  for (let q = 0; q < count; q++) {
    const out = vectors.subarray(q * dimensions, (q + 1) * dimensions);
    if (random() < strangerShare) {
      set.space.sample(set.space.identity(), out);
      identity[q] = -1;
    } else {
      const who = Math.floor(random() * set.identityCount);
      set.space.sample(set.centres[who]!, out);
      identity[q] = who;
    }
  }
  return { vectors, identity };
}
