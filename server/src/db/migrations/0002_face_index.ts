import { sql, type Kysely } from 'kysely';

// The public web as indexed: crawls and their frontier, pages, images (one row per distinct content),
// where each image was seen, the faces found in it, the change log the vector indexes follow, the
// opt-out list, and the searches organizations ran over it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table crawls (
      id serial primary key,
      public_id text not null unique,
      seeds jsonb not null,
      options jsonb not null default '{}'::jsonb,
      status text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'DONE', 'STOPPED', 'FAILED')),
      is_demo boolean not null default false,
      pages integer not null default 0,
      images integer not null default 0,
      faces integer not null default 0,
      errors integer not null default 0,
      last_error text,
      requested_by integer references users(id) on delete set null,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz
    );

    create table crawl_frontier (
      crawl_id text not null,
      url text not null,
      kind text not null check (kind in ('page', 'image', 'sitemap')),
      host text not null,
      depth integer not null,
      referrer text,
      data jsonb,
      state text not null check (state in ('queued', 'claimed', 'done', 'failed', 'skipped')),
      attempts integer not null default 0,
      due_at timestamptz not null default now(),
      last_error text,
      seq bigserial not null,
      primary key (crawl_id, url)
    );
    create index crawl_frontier_queued_idx on crawl_frontier (crawl_id, host, depth, seq) where state = 'queued';

    create table pages (
      id serial primary key,
      url text not null unique,
      title text not null default '',
      text text not null default '',
      lang text,
      content_hash text,
      first_crawled_at timestamptz not null default now(),
      last_crawled_at timestamptz not null default now()
    );

    create table images (
      id serial primary key,
      content_hash text not null unique,
      phash text,
      width integer,
      height integer,
      mime_type text,
      thumbnail_path text,
      face_count integer not null default 0,
      first_indexed_at timestamptz not null default now(),
      analyzed_at timestamptz
    );

    create table image_occurrences (
      id serial primary key,
      image_id integer not null references images(id) on delete cascade,
      page_id integer not null references pages(id) on delete cascade,
      image_url text not null,
      alt text not null default '',
      caption text not null default '',
      nearby_text text not null default '',
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      unique (image_url, page_id)
    );
    create index image_occurrences_image_idx on image_occurrences (image_id);

    create table faces (
      id bigserial primary key,
      image_id integer not null references images(id) on delete cascade,
      box_x real not null,
      box_y real not null,
      box_width real not null,
      box_height real not null,
      score real not null,
      quality real not null,
      descriptor bytea not null,
      model_id text not null,
      created_at timestamptz not null default now()
    );
    create index faces_image_idx on faces (image_id);

    create table face_index_log (
      seq bigserial primary key,
      face_id bigint not null,
      op text not null check (op in ('add', 'remove')),
      at timestamptz not null default now()
    );

    create table face_opt_outs (
      id serial primary key,
      descriptor bytea not null,
      model_id text not null,
      reason text not null,
      created_by integer references users(id) on delete set null,
      created_at timestamptz not null default now()
    );

    create table searches (
      id serial primary key,
      hashed_id text not null unique,
      organization_id integer not null references organizations(id) on delete cascade,
      user_id integer references users(id) on delete set null,
      type text not null check (type in ('OSINT', 'SOCIAL_MEDIA_SEARCH')),
      duration_ms integer not null,
      result_count integer not null,
      created_at timestamptz not null default now()
    );
    create index searches_organization_idx on searches (organization_id, created_at);

    -- A search's results are a snapshot: they survive re-crawls and removals from the live index.
    create table search_results (
      id serial primary key,
      search_id integer not null references searches(id) on delete cascade,
      record_hash text not null,
      rank integer not null,
      face_id bigint references faces(id) on delete set null,
      image_id integer references images(id) on delete set null,
      group_key text not null,
      similarity real not null,
      image_url text not null,
      source_url text not null,
      source_title text not null default '',
      crawled_at timestamptz not null,
      removed_at timestamptz,
      unique (search_id, record_hash)
    );
  `.execute(db);
}
