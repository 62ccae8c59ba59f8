import { sql, type Kysely } from 'kysely';

// The minors gate (spec 000 §2: minors may be searched by verified law enforcement only).
// - organizations: an admin verifies an organization as law enforcement with a note of the evidence; both
//   are kept on the organization (the audit log keeps the history). Unverified organizations have neither.
// - faces.possible_minor: the age estimate made when the face was indexed (face/age/possible-minor.ts);
//   null for faces indexed before the estimate existed, whose age is unknown.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table organizations add column law_enforcement_verified_at timestamptz;
    alter table organizations add column law_enforcement_note text;
    alter table organizations add constraint organizations_law_enforcement_note_check
      check (law_enforcement_verified_at is null or length(trim(law_enforcement_note)) > 0);
    alter table faces add column possible_minor boolean;
  `.execute(db);
}
