import type { FaceVectorLookup } from './face-index.ts';

/**
 * Full-precision vectors kept in this process for the exact re-rank, so that a search does not read
 * its ~1,000 candidates' vectors from the database every time (measured: most of a search's CPU, in
 * PostgreSQL and in the driver). The index keeps it in step: faces it adds are stored, faces it removes
 * or replaces are dropped; faces of a memory-mapped snapshot are read from the database on first use.
 *
 * A read from the database races with changes being applied meanwhile: what it returns is only kept
 * when no change was applied while it ran (otherwise a removed face could come back). At most
 * `capacity` vectors are kept (512 bytes each for 128-d, plus about 150 bytes of bookkeeping); the
 * oldest go first.
 */
export class FaceVectorCache {
  private readonly vectors = new Map<number, Float32Array>();
  /** Counts applied changes, so that a read that overlapped one is not stored. */
  private changes = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.vectors.size;
  }

  /** A face was added or its vector replaced. */
  set(faceId: number, vector: Float32Array): void {
    this.changes++;
    this.vectors.delete(faceId);
    this.keep(faceId, vector);
  }

  /** Faces were removed (or are about to be replaced). */
  delete(faceIds: Iterable<number>): void {
    this.changes++;
    for (const faceId of faceIds) this.vectors.delete(faceId);
  }

  /** The vectors of the faces asked for: from memory, the rest from `source` (and kept). */
  async lookup(faceIds: readonly number[], source: FaceVectorLookup): Promise<Map<number, Float32Array>> {
    const found = new Map<number, Float32Array>();
    const missing: number[] = [];
    for (const faceId of faceIds) {
      const vector = this.vectors.get(faceId);
      if (vector) found.set(faceId, vector);
      else missing.push(faceId);
    }
    if (missing.length === 0) return found;
    const changesBefore = this.changes;
    const loaded = await source.vectorsByIds(missing);
    const keep = this.changes === changesBefore;
    for (const [faceId, vector] of loaded) {
      found.set(faceId, vector);
      if (keep) this.keep(faceId, vector);
    }
    return found;
  }

  private keep(faceId: number, vector: Float32Array): void {
    if (this.capacity <= 0) return;
    this.vectors.set(faceId, vector);
    if (this.vectors.size > this.capacity) {
      // Maps iterate in insertion order: the first key is the oldest.
      this.vectors.delete(this.vectors.keys().next().value!);
    }
  }
}
