import { sql, type Kysely } from 'kysely';

// Billing (spec 001 §3, §7): orders (bank transfer and card), payments (FastSpring events and bank
// payments), FastSpring subscriptions, and the links from billing plans to what paid for them.
// Billing records are kept for 7 years (spec 001 §9), so they outlive a deleted organization.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create sequence order_number_seq;

    create table orders (
      id serial primary key,
      order_number text not null unique,
      invoice_number text generated always as ('PF-' || order_number) stored,
      organization_id integer references organizations(id) on delete set null,
      created_by integer references users(id) on delete set null,
      status text not null default 'PENDING' check (status in ('PENDING', 'COMPLETED', 'CANCELED')),
      payment_method text not null check (payment_method in ('BANK_TRANSFER', 'CARD')),
      plan_kind text not null check (plan_kind in ('MONTHLY', 'FIXED')),
      start_date timestamptz not null,
      end_date timestamptz not null,
      months integer not null check (months between 1 and 12),
      seat_limit integer not null check (seat_limit between 1 and 100),
      base_price integer not null check (base_price >= 0),
      additional_user_fee integer not null check (additional_user_fee >= 0),
      amount integer not null check (amount >= 0),
      currency text not null default 'USD',
      organization_name text not null,
      buyer jsonb,
      fastspring_order_id text unique,
      fastspring_reference text,
      created_at timestamptz not null default now(),
      paid_at timestamptz,
      completed_by integer references users(id) on delete set null,
      check (end_date > start_date)
    );
    create index orders_organization_idx on orders (organization_id, created_at);
    create index orders_status_idx on orders (status, created_at);
    -- One bank transfer awaiting payment per organization; a second "Confirm order" cannot race past it.
    create unique index orders_one_pending_idx on orders (organization_id)
      where status = 'PENDING' and payment_method = 'BANK_TRANSFER';

    alter table billing_plans
      add column order_id integer references orders(id) on delete set null,
      add column fastspring_subscription_id text,
      add column activation_notified_at timestamptz,
      add column expiry_notified_at timestamptz;
    -- An order, or a FastSpring subscription, pays for exactly one plan: replays cannot create a second.
    create unique index billing_plans_order_idx on billing_plans (order_id) where order_id is not null;
    create unique index billing_plans_subscription_idx on billing_plans (fastspring_subscription_id)
      where fastspring_subscription_id is not null;
    create index billing_plans_end_idx on billing_plans (end_date);

    create table fastspring_subscriptions (
      id text primary key,
      organization_id integer references organizations(id) on delete set null,
      product text not null,
      seat_limit integer not null check (seat_limit between 1 and 100),
      state text not null check (state in ('ACTIVE', 'CANCELED', 'OVERDUE', 'DEACTIVATED')),
      billing_plan_id integer references billing_plans(id) on delete set null,
      paid_through timestamptz,
      state_changed_at timestamptz not null,
      deactivated_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table payments (
      id serial primary key,
      source text not null check (source in ('FASTSPRING', 'BANK_TRANSFER')),
      -- FastSpring's event id: a delivered event is processed once, however often it is sent.
      event_id text unique,
      event_type text not null,
      live boolean not null default false,
      organization_id integer references organizations(id) on delete set null,
      order_id integer references orders(id) on delete set null,
      fastspring_order_id text,
      fastspring_subscription_id text,
      amount_cents integer,
      currency text,
      outcome text not null check (outcome in ('PROCESSED', 'IGNORED')),
      note text,
      payload jsonb not null default '{}'::jsonb,
      occurred_at timestamptz not null,
      received_at timestamptz not null default now(),
      recorded_by integer references users(id) on delete set null
    );
    create index payments_received_idx on payments (received_at);
    create index payments_organization_idx on payments (organization_id, received_at);
  `.execute(db);
}
