import { sql, type Kysely } from 'kysely';

// Where an image not stored yet was seen. A page is indexed before the images it shows, and several pages
// usually show an image before it is fetched; the crawler knew those pages only in memory (and the first
// one in the image's frontier row), so a slice end, a stop or a crash lost every other page's link to the
// image. The page's indexing now writes its link here, in its own transaction, and the image's indexing
// moves the rows into image_occurrences in its transaction.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table pending_image_occurrences (
      image_url text not null,
      page_id integer not null references pages(id) on delete cascade,
      alt text not null default '',
      caption text not null default '',
      nearby_text text not null default '',
      seen_at timestamptz not null,
      primary key (image_url, page_id)
    );
    create index pending_image_occurrences_page_idx on pending_image_occurrences (page_id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table pending_image_occurrences`.execute(db);
}
