import { randomBytes } from 'node:crypto';

export interface QueryFace {
  descriptor: Float32Array;
  organizationId: number;
  userId: number;
  expiresAt: number;
}

/**
 * Descriptors of the faces found in an upload, kept in memory for a short time so the user can pick
 * one and search; the upload itself is never stored. Bounded, so uploads cannot exhaust memory.
 */
export class QueryFaceCache {
  private readonly faces = new Map<string, QueryFace>();

  constructor(
    private readonly ttlMs = 30 * 60_000,
    private readonly maxEntries = 20_000,
  ) {}

  put(face: Omit<QueryFace, 'expiresAt'>): string {
    this.evictExpired();
    while (this.faces.size >= this.maxEntries) this.faces.delete(this.faces.keys().next().value!);
    const hash = randomBytes(16).toString('base64url');
    this.faces.set(hash, { ...face, expiresAt: Date.now() + this.ttlMs });
    return hash;
  }

  /** The face, if it exists, has not expired and belongs to the organization asking. */
  get(hash: string, organizationId: number): QueryFace | undefined {
    const face = this.faces.get(hash);
    if (!face || face.expiresAt <= Date.now()) return undefined;
    return face.organizationId === organizationId ? face : undefined;
  }

  private evictExpired(): void {
    const now = Date.now();
    // Insertion order is expiry order (one TTL for all), so stop at the first live entry.
    for (const [hash, face] of this.faces) {
      if (face.expiresAt > now) break;
      this.faces.delete(hash);
    }
  }
}
