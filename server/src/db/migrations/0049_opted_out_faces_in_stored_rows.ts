import { sql, type Kysely } from 'kysely';

// An opt-out removes the person's faces from the index and withdraws the alerts they raised; the stored
// rows that showed one of those faces (a search's results, saved and extracted copies, "seen with"
// connections) stayed, named no face any more, and were shown, saved, copied and reported as before.
// gone_face_opted_out marks them when the face goes, and every read of such rows leaves them out, as it
// leaves out possible minors (storedFaceVisible).
const TABLES = [
  'search_results',
  'saved_search_results',
  'data_extraction_results',
  'data_extraction_connections',
  'face_alerts',
  'face_alert_copies',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`
      alter table ${sql.table(table)} add column if not exists gone_face_opted_out boolean not null default false
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`alter table ${sql.table(table)} drop column if exists gone_face_opted_out`.execute(db);
  }
}
