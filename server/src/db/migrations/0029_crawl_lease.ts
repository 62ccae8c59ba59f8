import { sql, type Kysely } from 'kysely';

// A crawl is run by one process at a time. The run holding it writes its owner token and the time its
// lease ends, and renews the lease as it goes (as the job queue renews a running job's locked_at); another
// process may take the crawl only once the lease has run out (its holder is gone) or was given back. Without
// it a second run (`npm run crawl -- --resume` while a worker runs the crawl, or a duplicated job chain)
// put the first run's claimed URLs back in the queue at its start: URLs fetched twice, counts inflated.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table crawls add column lease_owner text, add column lease_expires_at timestamptz`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table crawls drop column lease_expires_at, drop column lease_owner`.execute(db);
}
