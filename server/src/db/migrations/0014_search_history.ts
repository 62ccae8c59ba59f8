import { sql, type Kysely } from 'kysely';

// Searches that last: a search keeps the face that was searched (the small JPEG crop the chooser showed,
// re-encoded; never the uploaded photo) so its history entry, its report and a reopened search can show
// it, and each result keeps the box of the matched face in its image with the image's size, so the
// result can show which face matched even after a re-crawl or a reindex replaced the face row.
// searches_organization_idx (organization_id, created_at) already serves the history's newest-first pages.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table searches add column face_image bytea;
    alter table search_results
      add column face_box_x integer,
      add column face_box_y integer,
      add column face_box_width integer,
      add column face_box_height integer,
      add column image_width integer,
      add column image_height integer;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table search_results
      drop column face_box_x, drop column face_box_y, drop column face_box_width,
      drop column face_box_height, drop column image_width, drop column image_height;
    alter table searches drop column face_image;
  `.execute(db);
}
