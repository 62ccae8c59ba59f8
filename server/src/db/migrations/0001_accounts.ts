import { sql, type Kysely } from 'kysely';

// Organizations, their users, sessions, one-time tokens, billing plans, support messages, the audit trail
// and the job queue: everything the platform's foundation needs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table organizations (
      id serial primary key,
      name text not null,
      link text not null,
      type text not null,
      created_at timestamptz not null default now(),
      last_active_at timestamptz not null default now()
    );

    create table users (
      id serial primary key,
      hashed_id text not null unique,
      organization_id integer not null references organizations(id) on delete cascade,
      email text not null unique,
      password_hash text,
      role text not null check (role in ('OWNER', 'USER')),
      is_admin boolean not null default false,
      status text not null check (status in ('EMAIL_UNVERIFIED', 'PENDING_APPROVAL', 'ACTIVE', 'REJECTED', 'BLOCKED', 'INVITED')),
      has_access boolean not null default false,
      newsletter boolean not null default false,
      email_verified_at timestamptz,
      approved_at timestamptz,
      password_changed_at timestamptz,
      last_active_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index users_organization_idx on users (organization_id);
    create index users_status_idx on users (status);

    create table sessions (
      id text primary key,
      user_id integer not null references users(id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      expires_at timestamptz not null,
      ip text,
      user_agent text
    );
    create index sessions_user_idx on sessions (user_id);

    create table user_tokens (
      id serial primary key,
      user_id integer not null references users(id) on delete cascade,
      purpose text not null check (purpose in ('VERIFY_EMAIL', 'RESET_PASSWORD', 'SET_PASSWORD')),
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    );
    create index user_tokens_user_idx on user_tokens (user_id, purpose);

    create table billing_plans (
      id serial primary key,
      organization_id integer not null references organizations(id) on delete cascade,
      plan_type text not null check (plan_type in ('TRIAL', 'SUBSCRIPTION', 'ONE_TIME_PAYMENT', 'VIRTUAL')),
      start_date timestamptz not null,
      end_date timestamptz not null,
      seat_limit integer not null check (seat_limit > 0),
      created_at timestamptz not null default now(),
      check (end_date > start_date)
    );
    create index billing_plans_organization_idx on billing_plans (organization_id, start_date);

    create table support_messages (
      id serial primary key,
      user_id integer references users(id) on delete set null,
      email text not null,
      subject text not null,
      message text not null,
      created_at timestamptz not null default now()
    );

    create table support_attachments (
      id serial primary key,
      message_id integer not null references support_messages(id) on delete cascade,
      file_name text not null,
      content_type text not null,
      content bytea not null
    );

    create table audit_log (
      id bigserial primary key,
      at timestamptz not null default now(),
      actor_user_id integer references users(id) on delete set null,
      organization_id integer references organizations(id) on delete set null,
      action text not null,
      target text,
      detail jsonb not null default '{}'::jsonb,
      ip text
    );
    create index audit_log_organization_idx on audit_log (organization_id, at);

    create table jobs (
      id bigserial primary key,
      queue text not null,
      payload jsonb not null default '{}'::jsonb,
      status text not null default 'QUEUED' check (status in ('QUEUED', 'RUNNING', 'DONE', 'DEAD')),
      attempts integer not null default 0,
      max_attempts integer not null default 5,
      run_at timestamptz not null default now(),
      locked_at timestamptz,
      locked_by text,
      last_error text,
      unique_key text unique,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    );
    create index jobs_due_idx on jobs (run_at) where status = 'QUEUED';
  `.execute(db);
}
