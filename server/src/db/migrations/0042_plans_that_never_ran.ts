import { sql, type Kysely } from 'kysely';

// A card subscription deactivated before its start used to keep a plan of one second (the period check
// allowed a zero-length plan only for plans an admin ended), which granted a second of access at its start
// and could announce a plan that never ran. A plan that never runs now ends at its own start, whatever ended
// it: every reader already treats end = start as "never runs". Plans already stored that way move back to
// their start.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table billing_plans drop constraint billing_plans_period_check;
    update billing_plans set end_date = start_date
      where plan_type = 'SUBSCRIPTION' and end_date = start_date + interval '1 second';
    alter table billing_plans add constraint billing_plans_period_check check (end_date >= start_date);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table billing_plans drop constraint billing_plans_period_check;
    update billing_plans set end_date = start_date + interval '1 second'
      where end_date = start_date and ended_at is null;
    alter table billing_plans add constraint billing_plans_period_check
      check (end_date > start_date or (ended_at is not null and end_date = start_date));
  `.execute(db);
}
