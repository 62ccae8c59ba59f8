import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { FaceIndexPublicationsTable } from '../db/schema.ts';
import type {
  PublishedSnapshot,
  SnapshotPublications,
  SnapshotPublicationWriter,
} from '../face/index/face-index-publication.ts';
import type { FaceIndexQuantization } from '../face/index/usearch-face-index.ts';
import { BlobRepository } from './blob.repository.ts';

/** Any fixed number: the key of the advisory lock publishers of face-index snapshots take in turn. */
const FACE_INDEX_PUBLICATION_LOCK = 7_310_025;

/**
 * Published face-index snapshots: one row per descriptor model (face_index_publications, migration 0025),
 * the file's chunks in stored_blobs (through the blob store).
 */
export class FaceIndexPublicationRepository implements SnapshotPublications {
  constructor(private readonly db: Db) {}

  findByModel(model: string): Promise<PublishedSnapshot | undefined> {
    return findByModel(this.db, model);
  }

  chunk(key: string): Promise<Buffer | null> {
    return new BlobRepository(this.db).get(key);
  }

  publishing<T>(work: (tx: SnapshotPublicationWriter) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${FACE_INDEX_PUBLICATION_LOCK})`.execute(trx);
      const blobs = new BlobRepository(trx);
      return work({
        findByModel: (model) => findByModel(trx, model),
        findAll: async () => {
          const rows = await trx.selectFrom('face_index_publications').selectAll().execute();
          return rows.map(toSnapshot);
        },
        remove: async (model) => {
          await trx.deleteFrom('face_index_publications').where('model_id', '=', model).execute();
        },
        putChunk: (key, bytes) => blobs.put(key, bytes),
        deleteChunks: (keys) => blobs.delete(keys),
        save: (snapshot) => save(trx, snapshot),
      });
    });
  }
}

async function findByModel(db: Db, model: string): Promise<PublishedSnapshot | undefined> {
  const row = await db
    .selectFrom('face_index_publications')
    .selectAll()
    .where('model_id', '=', model)
    .executeTakeFirst();
  return row ? toSnapshot(row) : undefined;
}

function toSnapshot(row: Selectable<FaceIndexPublicationsTable>): PublishedSnapshot {
  return {
    model: row.model_id,
    file: row.file,
    seq: Number(row.seq),
    count: row.face_count,
    sizeBytes: Number(row.size_bytes),
    chunkBytes: row.chunk_bytes,
    chunkCount: row.chunk_count,
    dimensions: row.dimensions,
    quantization: row.quantization as FaceIndexQuantization,
    connectivity: row.connectivity,
    sha256: row.sha256,
    publishedAt: new Date(row.published_at),
  };
}

async function save(db: Db, snapshot: PublishedSnapshot): Promise<void> {
  const values = {
    file: snapshot.file,
    seq: snapshot.seq,
    face_count: snapshot.count,
    size_bytes: snapshot.sizeBytes,
    chunk_bytes: snapshot.chunkBytes,
    chunk_count: snapshot.chunkCount,
    dimensions: snapshot.dimensions,
    quantization: snapshot.quantization,
    connectivity: snapshot.connectivity,
    sha256: snapshot.sha256,
    published_at: snapshot.publishedAt,
  };
  await db
    .insertInto('face_index_publications')
    .values({ model_id: snapshot.model, ...values })
    .onConflict((oc) => oc.column('model_id').doUpdateSet(values))
    .execute();
}
