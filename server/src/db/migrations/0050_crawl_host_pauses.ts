import { sql, type Kysely } from 'kysely';

// crawl_host_pauses: per crawl and host, until when the host asked to be left alone (429/503 with
// Retry-After). The crawler's own pause lives in memory; a crawl runs in slices and resumes, and each new
// run starts from these, so URLs of the host queued later are not fetched before the time is over either.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table crawl_host_pauses (
      crawl_id text not null,
      host text not null,
      until timestamptz not null,
      primary key (crawl_id, host)
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table crawl_host_pauses`.execute(db);
}
