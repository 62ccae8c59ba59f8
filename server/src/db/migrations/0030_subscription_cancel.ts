import { sql, type Kysely } from 'kysely';

// Ending a plan paid by a card subscription cancels the subscription at FastSpring, or the card kept being
// charged (each charge then recorded FAILED for review). The cancellation runs as a job; the plan keeps when
// it was asked for (the plan's end, with API credentials set), when FastSpring confirmed it (the API's answer,
// or its subscription.deactivated webhook), and why the last attempt failed, for the admin's organization page.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table billing_plans add column subscription_cancel_requested_at timestamptz,
    add column subscription_cancelled_at timestamptz,
    add column subscription_cancel_error text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table billing_plans drop column subscription_cancel_error,
    drop column subscription_cancelled_at, drop column subscription_cancel_requested_at`.execute(db);
}
