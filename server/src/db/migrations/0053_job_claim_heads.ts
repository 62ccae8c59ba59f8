import { sql, type Kysely } from 'kysely';

// What a job claim reads, by index lookups whose count does not grow with the backlog (see
// JobRepository.claimNext). Jobs of no organization are keyed as organization 0 (ids start at 1).
// jobs_queued_line_idx: each (queue, organization)'s queued jobs in their line (run_at, id), from which the
// claim finds the pairs with queued jobs (one lookup per pair) and the first few due jobs of each.
// jobs_served_idx: each organization's last claim of a queue, one lookup per (organization, queue); it
// replaces jobs_claimed_idx, which made the claim read every job claimed within the last hour.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index jobs_queued_line_idx on jobs (queue, coalesce(organization_id, 0), run_at, id)
      where status = 'QUEUED'
  `.execute(db);
  await sql`
    create index jobs_served_idx on jobs (coalesce(organization_id, 0), queue, claimed_at)
      where claimed_at is not null
  `.execute(db);
  await sql`drop index jobs_claimed_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index jobs_claimed_idx on jobs (claimed_at) where claimed_at is not null`.execute(db);
  await sql`drop index jobs_served_idx`.execute(db);
  await sql`drop index jobs_queued_line_idx`.execute(db);
}
