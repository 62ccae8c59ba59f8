import { sql, type Kysely } from 'kysely';

// FastSpring's own paid-through date of a card subscription (its next charge date). The plan's period can
// start later than the payment (a chosen start date), so the plan's end is not FastSpring's: a deactivation
// dated at the end of FastSpring's period must not cut the plan's paid months short. Null for subscriptions
// stored before, which keep the former reading (FastSpring's end taken as the plan's).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table fastspring_subscriptions add column charged_through timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table fastspring_subscriptions drop column charged_through`.execute(db);
}
