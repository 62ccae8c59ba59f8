import { sql, type Kysely } from 'kysely';

// Two things a crawl kept only in memory, and so lost at every slice end, stop or crash.
//
// pending_image_occurrences: where an image not stored yet was seen. A page is indexed before the images
// it shows, and several pages usually show an image before it is fetched; only the first page's link
// reached the database (in the image's frontier row), so the other pages were never linked to the image.
// The page's indexing now writes its link here, in its own transaction, and the image's indexing moves the
// rows into image_occurrences in its transaction.
//
// crawl_robots_outages: per crawl and host, since when its robots.txt cannot be read. The host's URLs wait
// for it without using up their retries (a short outage used to fail the whole site), up to a limit
// counted from this time, which must survive the job slices a crawl runs in.
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

    create table crawl_robots_outages (
      crawl_id text not null,
      host text not null,
      since timestamptz not null,
      primary key (crawl_id, host)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table crawl_robots_outages; drop table pending_image_occurrences`.execute(db);
}
