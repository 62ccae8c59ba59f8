import { sql, type Kysely } from 'kysely';

// Face-index snapshots published in the database (issue 18): a reader on a machine of its own downloads
// the writer's latest snapshot instead of building its index for minutes or hours. The file lives in
// stored_blobs in chunks (keys face-index/<model folder>/<file>/<part>); this row, one per descriptor model,
// says which file is published and how to check it. It is written in the same transaction as the chunks,
// so a reader sees a whole snapshot or the previous one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table face_index_publications (
      model_id text primary key,
      file text not null,
      seq bigint not null,
      face_count integer not null,
      size_bytes bigint not null,
      chunk_bytes integer not null check (chunk_bytes > 0),
      chunk_count integer not null,
      dimensions integer not null,
      quantization text not null,
      connectivity integer not null,
      sha256 text not null,
      published_at timestamptz not null default now()
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table face_index_publications`.execute(db);
}
