import { sql, type Kysely } from 'kysely';

// A search of several faces of one person (other photos added on the search page) keeps every searched
// face's crop, not only the one it shows: searching again with results, watching the search's face and its
// report then use (and name) every face the analyst searched with, not the first one alone. A saved copy
// keeps how many there were, for its report.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table searches add column other_face_images bytea[] not null default '{}'`.execute(db);
  await sql`alter table saved_searches add column other_face_count integer not null default 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table saved_searches drop column other_face_count`.execute(db);
  await sql`alter table searches drop column other_face_images`.execute(db);
}
