import { sql, type Kysely } from 'kysely';

// The crops the upload answered for a search's faces, as SHA-256 digests (32 bytes each, one after
// another): a save or an extraction of the search may keep only one of those crops, or the picture kept
// with the search, as the searched face shown on its list and report cover.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches add column crop_digests bytea`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches drop column crop_digests`.execute(db);
}
