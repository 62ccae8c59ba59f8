import { sql, type Kysely } from 'kysely';

// Pending image occurrences (0037) were only ever removed when their image was stored, so the rows of images
// never stored (a 404, not an image, too large, a refused address, a host the crawl does not fetch images
// from) stayed for good. They now go once the crawl that recorded them knows it will not store the image,
// and when that crawl ends; both keep the rows of an image some crawl still has queued.
//
// crawl_id: the crawl whose page recorded the row. A crawl removes only its own rows: another crawl's page
// may have recorded a row for the same image a moment before queueing the image, and would lose its link.
// Rows recorded before this column (null) have no crawl to wait for and go with any crawl's clean-up.
//
// The partial index answers "is this image URL queued in some crawl?" without reading the whole frontier.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table pending_image_occurrences add column if not exists crawl_id text;
    create index if not exists pending_image_occurrences_crawl_idx on pending_image_occurrences (crawl_id, image_url);
    create index if not exists crawl_frontier_waiting_images_idx on crawl_frontier (url)
      where kind = 'image' and state in ('queued', 'claimed');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index crawl_frontier_waiting_images_idx;
    drop index pending_image_occurrences_crawl_idx;
    alter table pending_image_occurrences drop column crawl_id;
  `.execute(db);
}
