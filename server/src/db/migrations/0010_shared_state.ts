import { sql, type Kysely } from 'kysely';

// State that several API processes over one database must share (issue 8, scale-out):
// - app_settings: small named values generated once, e.g. the key that seals query-face tokens, so that
//   N processes agree on it without configuration;
// - rate_limit_windows: fixed-window counters of the rate limits, one UPSERT per counted attempt, so a
//   limit holds across every process instead of per process.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table app_settings (
      key text primary key,
      value text not null,
      created_at timestamptz not null default now()
    );

    create table rate_limit_windows (
      key text primary key,
      count integer not null,
      reset_at timestamptz not null
    );
    create index rate_limit_windows_reset_at_idx on rate_limit_windows (reset_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table rate_limit_windows; drop table app_settings;`.execute(db);
}
