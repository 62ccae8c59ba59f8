import { sql, type Kysely } from 'kysely';

// "Search again with these faces": a search run on its kept face together with results the analyst chose
// keeps the indexed faces it added (their ids; a face deleted since, e.g. opted out, is skipped when read),
// so that searching again from it keeps them too instead of starting over from the kept face alone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches add column added_face_ids bigint[] not null default '{}'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches drop column added_face_ids`.execute(db);
}
