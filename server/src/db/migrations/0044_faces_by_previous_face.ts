import { sql, type Kysely } from 'kysely';

// A model switch moves everything that names an old face to the face that replaces it (previous_face_id),
// inside the switch's transaction: looked up per row without an index, that read the whole faces table
// once for every search, saved search and watch with added faces (66 s for 2,000 of them among 400,000
// faces). Only faces made by a reindex have a previous face.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index if not exists faces_previous_face_idx on faces (previous_face_id)
      where previous_face_id is not null
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists faces_previous_face_idx`.execute(db);
}
