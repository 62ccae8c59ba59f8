import { sql, type Kysely } from 'kysely';

// A "seen with" connection named through the face index kept the address of its photo in the index
// (/api/thumbnails/{image}), which answers only for images the organization's own searches returned: the
// photo of another figure of the article, and every photo for an admin, did not load. A connection now keeps
// the face and its image, and the extraction serves the photo to whoever may read the connection (the
// minors rule applied to that face as to results).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_extraction_connections add column face_id bigint`.execute(db);
  await sql`alter table data_extraction_connections add column image_id bigint`.execute(db);
  await sql`
    update data_extraction_connections
       set image_id = substring(img_url from '^/api/thumbnails/([0-9]+)$')::bigint
     where img_url ~ '^/api/thumbnails/[0-9]+$'`.execute(db);
  await sql`alter table data_extraction_connections drop column img_url`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_extraction_connections add column img_url text`.execute(db);
  await sql`
    update data_extraction_connections set img_url = '/api/thumbnails/' || image_id
     where image_id is not null`.execute(db);
  await sql`alter table data_extraction_connections drop column image_id`.execute(db);
  await sql`alter table data_extraction_connections drop column face_id`.execute(db);
}
