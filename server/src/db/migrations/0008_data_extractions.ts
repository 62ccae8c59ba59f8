import { sql, type Kysely } from 'kysely';

// The AI data extractor (spec 001 §2, §3): an extraction analyses the pages of one search's results to
// work out who the person is. Its results are a copy of the search results (with their thumbnails), so
// later crawls and removals do not change them, plus what the analysis found: the person's name, flags
// with their evidence, alternative names, the persons seen with them, and one Wikipedia summary.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table data_extractions (
      id serial primary key,
      hashed_id text not null unique,
      organization_id integer not null references organizations(id) on delete cascade,
      user_id integer references users(id) on delete set null,
      search_id integer references searches(id) on delete set null,
      name text not null,
      description text not null default '',
      image bytea not null,
      state text not null default 'PENDING' check (state in ('PENDING', 'DONE', 'FAILED')),
      status text not null default 'NEW' check (status in ('NEW', 'CHECKED')),
      result_count integer not null default 0,
      processed_count integer not null default 0,
      best_name text,
      names_found integer not null default 0,
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz not null default now(),
      completed_at timestamptz,
      notified_at timestamptz
    );
    create index data_extractions_organization_idx on data_extractions (organization_id, state, created_at desc);

    create table data_extraction_results (
      id serial primary key,
      extraction_id integer not null references data_extractions(id) on delete cascade,
      hashed_id text not null unique,
      record_hash text not null,
      rank integer not null,
      similarity real not null,
      image_url text not null,
      source_url text not null,
      source_title text not null default '',
      crawled_at timestamptz not null,
      thumbnail bytea,
      person_name text not null default '',
      person_desc text not null default '',
      politician boolean not null default false,
      sanctions boolean not null default false,
      criminal boolean not null default false,
      seen_with boolean not null default false,
      checked boolean not null default false,
      alternative_names jsonb not null default '[]'::jsonb,
      evidence jsonb not null default '[]'::jsonb,
      removed boolean not null default false,
      unique (extraction_id, record_hash)
    );
    create index data_extraction_results_extraction_idx on data_extraction_results (extraction_id, rank);

    create table data_extraction_connections (
      id serial primary key,
      result_id integer not null references data_extraction_results(id) on delete cascade,
      hashed_id text not null unique,
      name text not null,
      img_url text,
      about_url text,
      politician boolean not null default false,
      sanctions boolean not null default false,
      criminal boolean not null default false,
      evidence jsonb not null default '[]'::jsonb
    );
    create index data_extraction_connections_result_idx on data_extraction_connections (result_id);

    create table data_extraction_wikipedia (
      extraction_id integer primary key references data_extractions(id) on delete cascade,
      name text not null,
      person_description text not null default '',
      politician boolean not null default false,
      sanctions boolean not null default false,
      criminal boolean not null default false,
      url text not null,
      checked boolean not null default false
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table data_extraction_wikipedia;
    drop table data_extraction_connections;
    drop table data_extraction_results;
    drop table data_extractions;
  `.execute(db);
}
