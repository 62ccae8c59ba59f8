import type { FaceIndexChange, FaceIndexOp, FaceVectorEntry, FaceVectorSource } from './face-index.ts';

/**
 * The database side of the face index, kept in memory: a faces table and its change log. Tests and
 * benchmarks use it; the SQL repository implements the same interface.
 */
export class InMemoryFaceVectorSource implements FaceVectorSource {
  private readonly faces = new Map<number, Float32Array>();
  private readonly log: { seq: number; faceId: number; op: FaceIndexOp }[] = [];
  /** Counts lookups, so tests can see what a search asked of the database. */
  lookups = 0;

  /** Stores a face (new or with a new vector) and logs 'add', as the crawler's transaction would. */
  upsert(faceId: number, vector: Float32Array): void {
    this.faces.set(faceId, vector);
    this.append(faceId, 'add');
  }

  /** Deletes a face (e.g. an opt-out) and logs 'remove'. */
  delete(faceId: number): void {
    this.faces.delete(faceId);
    this.append(faceId, 'remove');
  }

  /** Stores faces without logging them, as if they were there before the log began. */
  seed(entries: Iterable<FaceVectorEntry>): void {
    for (const { faceId, vector } of entries) this.faces.set(faceId, vector);
  }

  get size(): number {
    return this.faces.size;
  }

  entries(): FaceVectorEntry[] {
    return [...this.faces].map(([faceId, vector]) => ({ faceId, vector }));
  }

  private append(faceId: number, op: FaceIndexOp): void {
    this.log.push({ seq: this.log.length + 1, faceId, op });
  }

  async latestSeq(): Promise<number> {
    return this.log.length;
  }

  async changesSince(afterSeq: number, limit: number): Promise<FaceIndexChange[]> {
    // seq n sits at log[n - 1]; like the SQL version, an 'add' carries the face's current vector.
    return this.log.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit).map((entry) => ({
      ...entry,
      vector: entry.op === 'add' ? this.faces.get(entry.faceId) : undefined,
    }));
  }

  async *allVectors(batchSize: number): AsyncIterable<FaceVectorEntry[]> {
    // Like a keyset scan in SQL: faces deleted while the scan runs are skipped when reached, faces
    // added meanwhile may be missed (the log replay after the scan brings them in).
    const ids = [...this.faces.keys()].sort((a, b) => a - b);
    for (let start = 0; start < ids.length; start += batchSize) {
      const batch: FaceVectorEntry[] = [];
      for (const faceId of ids.slice(start, start + batchSize)) {
        const vector = this.faces.get(faceId);
        if (vector) batch.push({ faceId, vector });
      }
      yield batch;
    }
  }

  async vectorsByIds(faceIds: readonly number[]): Promise<Map<number, Float32Array>> {
    this.lookups++;
    const found = new Map<number, Float32Array>();
    for (const faceId of faceIds) {
      const vector = this.faces.get(faceId);
      if (vector) found.set(faceId, vector);
    }
    return found;
  }
}
