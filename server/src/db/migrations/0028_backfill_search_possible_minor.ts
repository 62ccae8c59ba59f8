import { sql, type Kysely } from 'kysely';

// Searches made before 0027 carry no upload flag (false), so a watch made from one could clear a flag the
// upload had set. The audit log names every search whose face the gate let through as a possible minor:
// `search.minor` (a verified law-enforcement organization) and `search.minor_reviewed` (the one search a
// platform review approved). Those searches, and the saved copies still linked to them, get the flag.
// Data only: there is nothing to undo (0027's down drops the columns).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    update searches set possible_minor = true
    where not possible_minor
      and 'search:' || hashed_id in (
        select target from audit_log where action in ('search.minor', 'search.minor_reviewed'))`.execute(db);
  await sql`
    update saved_searches set possible_minor = true
    where not possible_minor
      and search_id in (select id from searches where possible_minor)`.execute(db);
}
