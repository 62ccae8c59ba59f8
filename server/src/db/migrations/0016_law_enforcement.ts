import { sql, type Kysely } from 'kysely';

// Law-enforcement verification (spec 000 §2: minors may be searched by verified law enforcement only).
// An admin verifies an organization with a note of the evidence; both are kept on the organization (the
// audit log keeps the history). Unverified organizations have neither.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table organizations add column law_enforcement_verified_at timestamptz;
    alter table organizations add column law_enforcement_note text;
    alter table organizations add constraint organizations_law_enforcement_note_check
      check (law_enforcement_verified_at is null or length(trim(law_enforcement_note)) > 0);
  `.execute(db);
}
