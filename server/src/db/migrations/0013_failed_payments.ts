import { sql, type Kysely } from 'kysely';

// A card payment whose amount or currency does not match the price of what was ordered is recorded as
// FAILED (no plan is made) for an admin to review, beside PROCESSED and IGNORED events.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table payments drop constraint payments_outcome_check;
    alter table payments add constraint payments_outcome_check
      check (outcome in ('PROCESSED', 'IGNORED', 'FAILED'));
  `.execute(db);
}
