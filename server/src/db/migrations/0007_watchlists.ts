import { sql, type Kysely } from 'kysely';

// Watch-lists (issue 5): OpenSanctions lists of politically exposed, sanctioned and wanted people that
// the AI data extractor matches names against. A list is replaced whole when it is imported again: the
// new version is written beside the old one (state IMPORTING) and swapped in by one short transaction,
// so extractions running meanwhile read the old list until the new one is complete.
// name_keys (tokens of the normalised names and their 4-letter prefixes) find candidates through a GIN
// index; the exact score is computed in the application (extractor/name-match.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table watchlists (
      id serial primary key,
      name text not null,
      state text not null default 'IMPORTING' check (state in ('IMPORTING', 'READY')),
      format text not null check (format in ('ftm', 'csv')),
      entry_count integer not null default 0,
      politician_count integer not null default 0,
      sanctions_count integer not null default 0,
      criminal_count integer not null default 0,
      skipped_count integer not null default 0,
      imported_at timestamptz not null default now(),
      imported_by integer references users(id) on delete set null
    );
    create unique index watchlists_ready_name_idx on watchlists (name) where state = 'READY';

    create table watchlist_entries (
      id bigserial primary key,
      list_id integer not null references watchlists(id) on delete cascade,
      list_name text not null,
      entity_id text not null,
      schema text not null,
      name text not null,
      aliases text[] not null default '{}',
      topics text[] not null default '{}',
      countries text[] not null default '{}',
      birth_dates text[] not null default '{}',
      source_url text,
      politician boolean not null default false,
      sanctions boolean not null default false,
      criminal boolean not null default false,
      name_keys text[] not null default '{}',
      unique (list_id, entity_id)
    );
    create index watchlist_entries_keys_idx on watchlist_entries using gin (name_keys);
  `.execute(db);
}
