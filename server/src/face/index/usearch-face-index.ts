import { setImmediate as nextTurn } from 'node:timers/promises';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { cosineSimilarity, searchWithOverfetch } from './exact-rerank.ts';
import { FaceVectorCache } from './face-vector-cache.ts';
import type { CandidateBatch, OverfetchOptions } from './exact-rerank.ts';
import type {
  FaceIndex,
  FaceIndexHit,
  FaceSearchOptions,
  FaceVectorEntry,
  FaceVectorLookup,
} from './face-index.ts';
import { MAX_WALKED_CANDIDATES, walkedCandidates } from './search-width.ts';

export type FaceIndexQuantization = 'f32' | 'f16' | 'i8';

export interface UsearchFaceIndexOptions {
  dimensions: number;
  /** How the graph stores vectors. Re-ranking uses full precision, so f16/i8 cost little recall. */
  quantization?: FaceIndexQuantization;
  /** HNSW neighbours per node (M). More: better recall, more memory, slower build. */
  connectivity?: number;
  /** Candidate list while inserting (efConstruction). */
  expansionAdd?: number;
  /** Candidate list while searching (ef); a search for k candidates explores max(k, this). */
  expansionSearch?: number;
  /**
   * Over-fetch and widening of searches; see OverfetchOptions. Without `minCandidates`, a search asks for
   * minCandidatesFor(size) candidates at least.
   */
  search?: Partial<OverfetchOptions>;
  /**
   * Threads for bulk adds (default 1; 0: all cores). Searches use one: concurrency comes from requests.
   * Measured: usearch's concurrent inserts leave some nodes unreachable from the graph's entry point
   * (0–8 of 1,200 clustered faces per build, about 1 in 500 at 20k), while one thread left none in
   * every run and built 1,200 faces in half the time on this 2-core machine. Change only with a
   * reachability check (server/test/face-index/usearch-face-index.test.ts).
   */
  addThreads?: number;
  /**
   * Full-precision vectors kept in memory for the exact re-rank (default 250,000, about 160 MB for
   * 128-d; 0: read every candidate's vector from the database).
   */
  vectorCacheSize?: number;
}

/**
 * Chosen with `npm run bench:index` (numbers in README.md). i8 because the exact re-rank makes up for
 * its coarse scores: after re-ranking, f32, f16 and i8 graphs reach the same recall, and i8 is the
 * smallest and quickest to build. M = 32 because real faces are isolated points at scale: with M = 16 a
 * wide walk still missed some (minCandidatesFor), with 32 a narrow one reaches them all.
 */
export const DEFAULT_USEARCH_OPTIONS = {
  quantization: 'i8',
  connectivity: 32,
  expansionAdd: 128,
  expansionSearch: 64,
  search: {
    minCandidates: 200,
    minFilteredCandidates: 50,
    overfetch: 2,
    maxCandidates: MAX_WALKED_CANDIDATES,
  },
  vectorCacheSize: 250_000,
} as const;

/** Candidates a search asks of a usearch graph of connectivity M at least (search-width.ts). */
export function minCandidatesFor(
  size: number,
  connectivity: number = DEFAULT_USEARCH_OPTIONS.connectivity,
): number {
  return walkedCandidates(size, connectivity, DEFAULT_USEARCH_OPTIONS.search.minCandidates);
}

const SCALAR_KINDS: Record<FaceIndexQuantization, ScalarKind> = {
  f32: ScalarKind.F32,
  f16: ScalarKind.F16,
  i8: ScalarKind.I8,
};

// Largest error of an approximate cosine similarity against the exact one, with room to spare
// (measured on normalised 128-d descriptors: f16 ≤ 0.0001, i8 ≤ 0.016; on the 512-d MobileFaceNet ones of
// celeba-dev, 200 nearest of each of 2,186 faces: f16 ≤ 0.0001, i8 ≤ 0.021). A candidate scoring more than
// this below the threshold is dropped without reading its vector (exact-rerank.ts).
const APPROXIMATION_MARGINS: Record<FaceIndexQuantization, number> = { f32: 0.001, f16: 0.005, i8: 0.05 };

// Vectors per native call when adding many: long enough to use every core, short enough that the
// event loop keeps answering requests in between.
const ADD_CHUNK = 8192;

/** The settings of a new graph; dimensions and quantisation also decide whether a saved one can be reused. */
export function graphSettings(options: UsearchFaceIndexOptions): {
  dimensions: number;
  quantization: FaceIndexQuantization;
  connectivity: number;
} {
  return {
    dimensions: options.dimensions,
    quantization: options.quantization ?? DEFAULT_USEARCH_OPTIONS.quantization,
    connectivity: options.connectivity ?? DEFAULT_USEARCH_OPTIONS.connectivity,
  };
}

function toKeys(faceIds: readonly number[]): BigUint64Array {
  const keys = new BigUint64Array(faceIds.length);
  faceIds.forEach((faceId, i) => {
    if (!Number.isSafeInteger(faceId) || faceId < 0) throw new Error(`invalid face id ${faceId}`);
    keys[i] = BigInt(faceId);
  });
  return keys;
}

/**
 * HNSW face index on usearch. The graph holds quantised vectors; hits are re-scored exactly with
 * full-precision vectors from `vectors` (the database, through an in-memory cache), so the scores and
 * the threshold are exact.
 *
 * A file can be opened two ways. `load` copies it into memory and the index stays mutable. `view`
 * memory-maps it read-only: start-up is instant and processes on one machine share the pages, but
 * usearch cannot change a viewed graph, so changes go to a small in-memory delta graph and removed
 * faces are masked out of the viewed one until the next snapshot replaces it.
 */
export class UsearchFaceIndex implements FaceIndex {
  readonly dimensions: number;
  readonly quantization: FaceIndexQuantization;
  readonly connectivity: number;
  private readonly options: UsearchFaceIndexOptions;
  private readonly overfetch: OverfetchOptions;
  private readonly vectors: FaceVectorLookup;
  /** Shared with the index that replaces this one (a newer snapshot), which keeps it in step. */
  readonly vectorCache: FaceVectorCache;
  private readonly base: Index;
  private readonly baseIsViewed: boolean;
  private delta: Index | undefined;
  /** Faces of the viewed base that were removed or replaced since it was saved. */
  private readonly masked = new Set<number>();

  private constructor(
    options: UsearchFaceIndexOptions,
    vectors: FaceVectorLookup,
    base: Index,
    viewed: boolean,
    vectorCache: FaceVectorCache | undefined,
  ) {
    this.options = options;
    ({ dimensions: this.dimensions, quantization: this.quantization } = graphSettings(options));
    // A saved graph keeps the connectivity it was built with, whatever new graphs are given.
    this.connectivity = base.connectivity();
    this.overfetch = {
      ...DEFAULT_USEARCH_OPTIONS.search,
      approximationMargin: APPROXIMATION_MARGINS[this.quantization],
      ...options.search,
    };
    this.vectors = vectors;
    this.vectorCache =
      vectorCache ?? new FaceVectorCache(options.vectorCacheSize ?? DEFAULT_USEARCH_OPTIONS.vectorCacheSize);
    this.base = base;
    this.baseIsViewed = viewed;
  }

  /** An empty, mutable index. */
  static create(options: UsearchFaceIndexOptions, vectors: FaceVectorLookup): UsearchFaceIndex {
    return new UsearchFaceIndex(options, vectors, UsearchFaceIndex.newGraph(options), false, undefined);
  }

  /**
   * Opens a saved index file; see the class comment for `view` against `load`. `vectorCache`: the
   * cache of the index this one replaces, valid here too since the file reflects an earlier point of
   * the change log and the changes since are applied to both.
   */
  static open(
    file: string,
    options: UsearchFaceIndexOptions,
    vectors: FaceVectorLookup,
    mode: 'view' | 'load',
    vectorCache?: FaceVectorCache,
  ): UsearchFaceIndex {
    // The file's header sets dimensions, metric and quantisation; the search expansion is ours.
    const graph = UsearchFaceIndex.newGraph(options);
    if (mode === 'view') graph.view(file);
    else graph.load(file);
    if (graph.dimensions() !== options.dimensions) {
      throw new Error(`${file} holds ${graph.dimensions()}-d vectors, expected ${options.dimensions}-d`);
    }
    return new UsearchFaceIndex(options, vectors, graph, mode === 'view', vectorCache);
  }

  private static newGraph(options: UsearchFaceIndexOptions): Index {
    const settings = graphSettings(options);
    return new Index({
      dimensions: settings.dimensions,
      metric: MetricKind.Cos,
      quantization: SCALAR_KINDS[settings.quantization],
      connectivity: settings.connectivity,
      expansion_add: options.expansionAdd ?? DEFAULT_USEARCH_OPTIONS.expansionAdd,
      expansion_search: options.expansionSearch ?? DEFAULT_USEARCH_OPTIONS.expansionSearch,
      multi: false,
    });
  }

  get size(): number {
    return this.base.size() - this.masked.size + (this.delta?.size() ?? 0);
  }

  /** True when the graph is a read-only view of a file (changes since then live in the delta). */
  get isViewed(): boolean {
    return this.baseIsViewed;
  }

  /** Faces added or removed since the viewed file was saved (0 for a mutable index). */
  get pendingChanges(): number {
    return this.masked.size + (this.delta?.size() ?? 0);
  }

  async count(): Promise<number> {
    return this.size;
  }

  async add(entries: readonly FaceVectorEntry[]): Promise<void> {
    // The last entry of a face wins, as in the database; usearch refuses duplicate keys in one call.
    const latest = new Map<number, Float32Array>();
    for (const { faceId, vector } of entries) {
      if (vector.length !== this.dimensions) {
        throw new Error(`face ${faceId}: ${vector.length}-d vector, index is ${this.dimensions}-d`);
      }
      latest.set(faceId, vector);
    }
    const faceIds = [...latest.keys()];
    for (let start = 0; start < faceIds.length; start += ADD_CHUNK) {
      const chunk = faceIds.slice(start, start + ADD_CHUNK);
      const flat = new Float32Array(chunk.length * this.dimensions);
      chunk.forEach((faceId, i) => flat.set(latest.get(faceId)!, i * this.dimensions));
      const keys = toKeys(chunk);
      this.detach(keys);
      this.writable().add(keys, flat, this.options.addThreads ?? 1);
      for (const faceId of chunk) this.vectorCache.set(faceId, latest.get(faceId)!);
      if (start + ADD_CHUNK < faceIds.length) await nextTurn();
    }
  }

  async remove(faceIds: readonly number[]): Promise<void> {
    if (faceIds.length > 0) this.detach(toKeys(faceIds));
  }

  /** Takes faces out of the graph they are in, so they can be re-added or stay removed. */
  private detach(keys: BigUint64Array): void {
    this.vectorCache.delete(Array.from(keys, Number));
    if (this.baseIsViewed) {
      const inBase = this.base.contains(keys) as boolean[];
      keys.forEach((key, i) => {
        if (inBase[i]) this.masked.add(Number(key));
      });
      this.delta?.remove(keys);
    } else {
      // Removing an absent key is a no-op for usearch.
      this.base.remove(keys);
    }
  }

  private writable(): Index {
    if (!this.baseIsViewed) return this.base;
    this.delta ??= UsearchFaceIndex.newGraph(this.options);
    return this.delta;
  }

  async search(query: Float32Array, options: FaceSearchOptions): Promise<FaceIndexHit[]> {
    if (query.length !== this.dimensions) {
      throw new Error(`query is ${query.length}-d, index is ${this.dimensions}-d`);
    }
    const minCandidates =
      this.options.search?.minCandidates ?? minCandidatesFor(this.size, this.connectivity);
    return searchWithOverfetch(
      async (count) => this.candidates(query, count),
      async (faceIds) => {
        const vectors = await this.vectorCache.lookup(faceIds, this.vectors);
        const scores = new Map<number, number>();
        for (const [faceId, vector] of vectors) scores.set(faceId, cosineSimilarity(query, vector));
        return scores;
      },
      { ...this.overfetch, minCandidates, ...options },
    );
  }

  private candidates(query: Float32Array, count: number): CandidateBatch {
    const candidates: { faceId: number; similarity: number }[] = [];
    let exhausted = true;
    for (const graph of [this.base, this.delta]) {
      if (!graph || graph.size() === 0) continue;
      // Masked faces still take places in the viewed graph's answer: ask for more (bounded; a
      // shortfall only makes the search widen once more).
      const wanted = graph === this.base ? count + Math.min(this.masked.size, count) : count;
      const matches = graph.search(query, wanted, 1);
      if (matches.keys.length === wanted) exhausted = false;
      matches.keys.forEach((key, i) => {
        const faceId = Number(key);
        if (graph === this.base && this.masked.has(faceId)) return;
        candidates.push({ faceId, similarity: 1 - matches.distances[i]! });
      });
    }
    candidates.sort((a, b) => b.similarity - a.similarity);
    return { candidates: candidates.slice(0, count), exhausted };
  }

  /**
   * Writes the index to `file`. A viewed index with pending changes cannot be written (usearch
   * cannot merge the delta into a read-only graph): the process that saves opens with `load`.
   */
  saveTo(file: string): void {
    if (this.baseIsViewed && this.pendingChanges > 0) {
      throw new Error('a viewed face index with pending changes cannot be saved; open it with load');
    }
    this.base.save(file);
  }
}
