import { sql, type Kysely } from 'kysely';

// A watch of a search of several faces of one person, and a saved copy of such a search, keep every face
// the search searched with — the other uploaded faces' crops and the results the analyst added — not only
// the face they show: a watch read again under a new model, a watch made from the saved copy and a search
// of a watch ("Save as search") then use all of them, as the search did. A watch's pictures are deleted
// with its descriptor when it ends.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['face_watches', 'saved_searches']) {
    await sql`alter table ${sql.table(table)} add column other_face_images bytea[] not null default '{}'`.execute(
      db,
    );
    await sql`alter table ${sql.table(table)} add column added_face_ids bigint[] not null default '{}'`.execute(
      db,
    );
  }
  // As its descriptor and picture: an ended watch keeps no face.
  await sql`alter table face_watches add constraint face_watches_ended_keep_no_faces
    check (ended_at is null or (other_face_images = '{}' and added_face_ids = '{}'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table face_watches drop constraint face_watches_ended_keep_no_faces`.execute(db);
  for (const table of ['face_watches', 'saved_searches']) {
    await sql`alter table ${sql.table(table)} drop column added_face_ids`.execute(db);
    await sql`alter table ${sql.table(table)} drop column other_face_images`.execute(db);
  }
}
