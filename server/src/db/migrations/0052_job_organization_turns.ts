import { sql, type Kysely } from 'kysely';

// jobs.organization_id: the organization a job works for (an extraction, a saved search's copy, its
// mails), null for the platform's own work (sweeps, crawls, password resets). The claim lets organizations
// take turns by it, so that one organization's backlog never holds up another's jobs. No foreign key: it
// only orders the queue, and a job outliving its organization must still run (or die) as before.
// jobs.claimed_at: when a worker last claimed the job (kept after it finishes, unlike locked_at), which
// tells the claim which organization was served longest ago.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table jobs add column organization_id integer, add column claimed_at timestamptz
  `.execute(db);
  // What each claim reads besides the due jobs: the running ones and those claimed lately.
  await sql`create index jobs_running_idx on jobs (queue) where status = 'RUNNING'`.execute(db);
  await sql`create index jobs_claimed_idx on jobs (claimed_at) where claimed_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index jobs_claimed_idx`.execute(db);
  await sql`drop index jobs_running_idx`.execute(db);
  await sql`alter table jobs drop column claimed_at, drop column organization_id`.execute(db);
}
