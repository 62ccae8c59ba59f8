import { sql, type Kysely } from 'kysely';

// Whether a search's face was flagged as a possible minor when it was uploaded (the flag sealed in its
// query token), kept with the search and with a saved copy of it: a watch made from either later analyses
// the kept 256-px crop again, and that estimate alone must not clear a face the upload flagged.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches add column possible_minor boolean not null default false`.execute(db);
  await sql`alter table saved_searches add column possible_minor boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table saved_searches drop column possible_minor`.execute(db);
  await sql`alter table searches drop column possible_minor`.execute(db);
}
