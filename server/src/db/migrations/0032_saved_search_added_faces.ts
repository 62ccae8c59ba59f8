import { sql, type Kysely } from 'kysely';

// A saved search keeps how many results the analyst had added to the searched face (a search searched
// again, migration 0031), so that its report says what the search looked for after the search is gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table saved_searches add column added_face_count integer not null default 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table saved_searches drop column added_face_count`.execute(db);
}
