import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import {
  vectorFromBytes,
  type FaceIndexChange,
  type FaceVectorEntry,
  type FaceVectorSource,
} from '../face/index/face-index.ts';

/** Any fixed number: the key of the advisory lock every writer of face_index_log takes. */
const FACE_INDEX_LOG_LOCK = 7_310_001;

/**
 * Serialises writers of the face change log inside their transaction, so that log sequence numbers
 * become visible in commit order and a reader polling "changes since N" never skips one.
 */
export async function lockFaceIndexLog(tx: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(${FACE_INDEX_LOG_LOCK})`.execute(tx);
}

/** The database side of the face index: every current vector, and the change log since a point. */
export class FaceVectorRepository implements FaceVectorSource {
  constructor(
    private readonly db: Db,
    private readonly modelId: string,
  ) {}

  async latestSeq(): Promise<number> {
    const row = await this.db
      .selectFrom('face_index_log')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
  }

  async changesSince(afterSeq: number, limit: number): Promise<FaceIndexChange[]> {
    const rows = await this.db
      .selectFrom('face_index_log as log')
      .leftJoin('faces', 'faces.id', 'log.face_id')
      .select(['log.seq', 'log.face_id', 'log.op', 'faces.descriptor', 'faces.model_id'])
      .where('log.seq', '>', afterSeq)
      .orderBy('log.seq')
      .limit(limit)
      .execute();
    return rows.map((row) => {
      // A face of another model (a reindex building the next one) is not part of this index.
      const otherModel = row.model_id !== null && row.model_id !== this.modelId;
      return {
        seq: row.seq,
        faceId: row.face_id,
        op: row.op,
        vector:
          row.op === 'add' && row.descriptor && !otherModel ? vectorFromBytes(row.descriptor) : undefined,
        ...(otherModel ? { otherModel } : {}),
      };
    });
  }

  async *allVectors(batchSize: number): AsyncIterable<FaceVectorEntry[]> {
    let afterId = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('faces')
        .select(['id', 'descriptor'])
        .where('model_id', '=', this.modelId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(batchSize)
        .execute();
      if (rows.length === 0) return;
      yield rows.map((row) => ({ faceId: row.id, vector: vectorFromBytes(row.descriptor) }));
      afterId = rows.at(-1)!.id;
    }
  }

  async vectorsByIds(faceIds: readonly number[]): Promise<Map<number, Float32Array>> {
    if (faceIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('faces')
      .select(['id', 'descriptor'])
      .where(sql<boolean>`id = any(${[...faceIds]}::bigint[])`)
      .where('model_id', '=', this.modelId)
      .execute();
    return new Map(rows.map((row) => [row.id, vectorFromBytes(row.descriptor)]));
  }
}
