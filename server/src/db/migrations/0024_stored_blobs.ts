import { sql, type Kysely } from 'kysely';

// No shared disk between machines (issue 18): the thumbnails of indexed images move from DATA_DIR into
// the database, the one part every process shares. The key is what images.thumbnail_path already holds
// ("thumbnails/<2 hex>/<sha256>.jpg"), so no image row changes; files of an existing DATA_DIR are imported
// once at start-up (importLegacyThumbnails).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table stored_blobs (
      key text primary key,
      bytes bytea not null,
      created_at timestamptz not null default now()
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table stored_blobs`.execute(db);
}
