import { sql, type Kysely } from 'kysely';

// The index keeps no copy of an image, so a reindex fetches every image again. An image whose site did not
// answer for now (5xx, 429, time-out, network or DNS failure) is not gone: it is listed here, fetched again
// before the switch, and while any is still listed the switch waits for the operator (its old-model faces
// would otherwise leave the index for good at the switch).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table if not exists face_model_unreachable_images (
      model_id text not null references face_models (model_id) on delete cascade,
      image_id integer not null references images (id) on delete cascade,
      primary key (model_id, image_id)
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists face_model_unreachable_images`.execute(db);
}
