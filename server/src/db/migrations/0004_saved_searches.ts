import { sql, type Kysely } from 'kysely';

// Saved searches: a search's result set kept under a name and a note. The results and their thumbnails
// are copied when the save job runs, so a saved search survives re-crawls, opt-outs and removals from
// the live index; the searched face is kept as a small JPEG for the list and the report cover.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table saved_searches (
      id serial primary key,
      hashed_id text not null unique,
      organization_id integer not null references organizations(id) on delete cascade,
      user_id integer references users(id) on delete set null,
      search_id integer references searches(id) on delete set null,
      name text not null,
      description text not null default '',
      type text not null check (type in ('OSINT', 'SOCIAL_MEDIA_SEARCH')),
      duration_ms integer not null default 0,
      image bytea not null,
      status text not null default 'PENDING' check (status in ('PENDING', 'COMPLETED')),
      result_count integer not null default 0,
      created_at timestamptz not null default now(),
      completed_at timestamptz
    );
    create index saved_searches_organization_idx on saved_searches (organization_id, status, created_at desc);

    create table saved_search_results (
      id serial primary key,
      saved_search_id integer not null references saved_searches(id) on delete cascade,
      record_hash text not null,
      rank integer not null,
      group_key text not null,
      similarity real not null,
      quality real,
      image_url text not null,
      source_url text not null,
      source_title text not null default '',
      crawled_at timestamptz not null,
      thumbnail bytea,
      unique (saved_search_id, record_hash)
    );
    create index saved_search_results_search_idx on saved_search_results (saved_search_id, rank);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table saved_search_results; drop table saved_searches;`.execute(db);
}
