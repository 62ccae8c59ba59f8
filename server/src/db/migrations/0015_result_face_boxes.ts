import { sql, type Kysely } from 'kysely';

// Saved results and the results of AI data extractions keep the matched face's box and their image's
// size too (copied from the search's results, see 0014), so their pages and PDF reports outline the
// face that matched. Results copied before stay without one.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['saved_search_results', 'data_extraction_results']) {
    await sql`
      alter table ${sql.table(table)}
        add column face_box_x integer,
        add column face_box_y integer,
        add column face_box_width integer,
        add column face_box_height integer,
        add column image_width integer,
        add column image_height integer;
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['saved_search_results', 'data_extraction_results']) {
    await sql`
      alter table ${sql.table(table)}
        drop column face_box_x, drop column face_box_y, drop column face_box_width,
        drop column face_box_height, drop column image_width, drop column image_height;
    `.execute(db);
  }
}
