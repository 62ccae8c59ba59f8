import { sql, type Kysely } from 'kysely';

// Plans an admin ends early (spec 000 §1: a trial may be revoked for misuse) keep their dates as the
// record of what access was given: the end moves to the moment it was ended, and a plan that had not
// started yet ends at its own start (zero length, so it never grants access). Who ended it and why is kept.
//
// Bank orders carry the buyer's optional VAT ID and purchase-order number for the invoices, and a final
// invoice number once paid: numbered per year without gaps, from a counter row that the paying
// transaction locks (a sequence would skip numbers on rollback).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table billing_plans
      add column ended_at timestamptz,
      add column ended_by integer references users(id) on delete set null,
      add column end_reason text;
    alter table billing_plans drop constraint billing_plans_check;
    alter table billing_plans add constraint billing_plans_period_check
      check (end_date > start_date or (ended_at is not null and end_date = start_date));

    alter table orders
      add column vat_id text,
      add column purchase_order text,
      add column final_invoice_number text unique;

    create table invoice_counters (
      year integer primary key,
      last_number integer not null check (last_number > 0)
    );
  `.execute(db);
}
