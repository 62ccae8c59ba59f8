import { sql, type Kysely } from 'kysely';

// Stored rows that show an indexed face (a search's results, saved and extracted copies, "seen with"
// connections, face alerts and their copies) are hidden from organizations that may not see possible
// minors by looking the face up. A face can go while the row stays (an opt-out, a model switch that finds
// no replacement), and the row then named no face to look up, so it was shown to everyone.
// gone_face_was_minor keeps the face's flag when it goes. Rows whose face went before this migration cannot
// be told apart any more.
// Face alerts went with their face: at a model switch, an alert whose face the new model did not find was
// deleted with it. They now stay (face_id set null); an opt-out still withdraws them, explicitly.
// The copies' face_id gets an index: the flag is set, and a model switch moves the rows, by face.
const TABLES = [
  'search_results',
  'saved_search_results',
  'data_extraction_results',
  'data_extraction_connections',
  'face_alerts',
  'face_alert_copies',
] as const;
const WITHOUT_FACE_INDEX = ['saved_search_results', 'data_extraction_results', 'data_extraction_connections'];
const ALERT_TABLES = ['face_alerts', 'face_alert_copies'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await sql`
      alter table ${sql.table(table)} add column if not exists gone_face_was_minor boolean not null default false
    `.execute(db);
  }
  for (const table of WITHOUT_FACE_INDEX) {
    await sql`
      create index if not exists ${sql.id(`${table}_face_idx`)} on ${sql.table(table)} (face_id)
        where face_id is not null
    `.execute(db);
  }
  for (const table of ALERT_TABLES) {
    const constraint = sql.id(`${table}_face_id_fkey`);
    await sql`
      alter table ${sql.table(table)} alter column face_id drop not null;
      alter table ${sql.table(table)} drop constraint if exists ${constraint};
      alter table ${sql.table(table)} add constraint ${constraint}
        foreign key (face_id) references faces(id) on delete set null
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ALERT_TABLES) {
    const constraint = sql.id(`${table}_face_id_fkey`);
    await sql`
      delete from ${sql.table(table)} where face_id is null;
      alter table ${sql.table(table)} drop constraint if exists ${constraint};
      alter table ${sql.table(table)} add constraint ${constraint}
        foreign key (face_id) references faces(id) on delete cascade;
      alter table ${sql.table(table)} alter column face_id set not null
    `.execute(db);
  }
  for (const table of WITHOUT_FACE_INDEX)
    await sql`drop index if exists ${sql.id(`${table}_face_idx`)}`.execute(db);
  for (const table of TABLES) {
    await sql`alter table ${sql.table(table)} drop column if exists gone_face_was_minor`.execute(db);
  }
}
