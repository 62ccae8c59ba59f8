import type { Kysely } from 'kysely';
import { faceIndexEngine } from '../../config.ts';
import { createPgvectorFaceIndexSchema } from '../../face/index/pgvector-face-index-sync.ts';
import { kyselySqlClient } from '../../repositories/sql-client.ts';

// The face index in PostgreSQL (FACE_INDEX=pgvector): the vector extension and the table that records,
// per descriptor model, which table holds its vectors and how far the change log is applied to it. Only
// when pgvector is selected: the default (usearch) must not need the extension on the server. Each
// model's table and HNSW index are built from the faces by the first process that opens that model; a
// deployment that selects pgvector later gets the same from its first start.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (faceIndexEngine(process.env.FACE_INDEX) !== 'pgvector') return;
  await createPgvectorFaceIndexSchema(kyselySqlClient(db));
}
