// The face index: given a query descriptor, the indexed faces most similar to it. The vectors live in
// the database (the source of truth); an index is derived from them and can always be rebuilt.

export interface FaceIndexHit {
  faceId: number;
  /** Cosine similarity of the full-precision vectors, in [-1, 1]; higher is more alike. */
  similarity: number;
}

export interface FaceVectorEntry {
  faceId: number;
  /** L2-normalised descriptor, `dimensions` long. */
  vector: Float32Array;
}

export interface FaceSearchOptions {
  /** At most this many hits, best first. */
  limit: number;
  /** Only hits at or above this similarity (the face engine's calibrated threshold). */
  minSimilarity: number;
  /**
   * Keep only faces for which this returns true (e.g. social-media sources only). Applied to
   * candidates before re-ranking; the search widens until `limit` hits pass, so a selective filter
   * does not starve the result.
   */
  filter?: ((faceId: number) => boolean) | undefined;
}

export interface FaceIndex {
  readonly dimensions: number;
  /** Number of faces in the index. */
  count(): Promise<number>;
  /** Adds faces, replacing the vector of a face that is already indexed. */
  add(entries: readonly FaceVectorEntry[]): Promise<void>;
  /** Removes faces; ids that are not indexed are ignored. */
  remove(faceIds: readonly number[]): Promise<void>;
  search(query: Float32Array, options: FaceSearchOptions): Promise<FaceIndexHit[]>;
}

/** Full-precision vectors by face id, for exact re-ranking. Faces that no longer exist are absent. */
export interface FaceVectorLookup {
  vectorsByIds(faceIds: readonly number[]): Promise<Map<number, Float32Array>>;
}

export type FaceIndexOp = 'add' | 'remove';

/** One row of the change log `face_index_log(seq bigserial primary key, face_id bigint, op text)`. */
export interface FaceIndexChange {
  seq: number;
  faceId: number;
  op: FaceIndexOp;
  /** For 'add': the face's current vector; absent when the face has been deleted since. */
  vector?: Float32Array | undefined;
  /**
   * The face is one of another descriptor model (a reindex stores the next model's faces beside the
   * index's): not part of this index, nothing to apply. Only the position in the log counts.
   */
  otherModel?: boolean;
}

/**
 * What an index needs from the database. The repository that owns the schema implements it; an
 * in-memory implementation serves tests and benchmarks.
 *
 * Contract of the change log: `changesSince` returns committed changes in ascending `seq` and must
 * never later reveal a change whose seq is at or below one it has already returned. With a
 * bigserial this holds when writers insert into the log under one transaction-level advisory lock
 * (so seq order is commit order); see README.md.
 */
export interface FaceVectorSource extends FaceVectorLookup {
  /** Highest seq in the log (0 when empty). Read before a full scan so scan + catch-up miss nothing. */
  latestSeq(): Promise<number>;
  /** Up to `limit` changes with seq > `afterSeq`, ascending. */
  changesSince(afterSeq: number, limit: number): Promise<FaceIndexChange[]>;
  /** Every current face, in batches of about `batchSize`. */
  allVectors(batchSize: number): AsyncIterable<FaceVectorEntry[]>;
}

/** Raw little-endian float32 bytes, the compact way to keep a descriptor in a bytea column. */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
}

export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0)
    throw new Error(`a float32 vector needs a multiple of 4 bytes, got ${bytes.byteLength}`);
  // Copy: the driver's buffer may be shared and unaligned.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
