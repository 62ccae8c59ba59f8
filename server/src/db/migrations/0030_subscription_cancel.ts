import { sql, type Kysely } from 'kysely';

// Ending a plan paid by a card subscription cancels the subscription at FastSpring, or the card kept being
// charged (each charge then recorded FAILED for review). The cancellation runs as a job; the plan keeps when
// FastSpring confirmed it, or the last reason it did not, for the admin's organization page.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table billing_plans add column subscription_cancelled_at timestamptz,
    add column subscription_cancel_error text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table billing_plans drop column subscription_cancel_error,
    drop column subscription_cancelled_at`.execute(db);
}
