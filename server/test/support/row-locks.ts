import { sql } from 'kysely';
import pg from 'pg';
import type { TestApp } from './test-app.ts';
import { TEST_DATABASE_KIND } from './test-database.ts';

// Requests made to run at the same time on PostgreSQL, whatever the timing of the machine: a connection
// of the test's own holds the row the requests lock, and lets go only once every request waits on a lock
// (pg_stat_activity). PGlite has a single session: there the requests simply run together.

export async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await done());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A connection of its own to the test database, in a transaction holding the locks `lock` takes. */
export async function holdLock(
  t: TestApp,
  lock: (client: pg.Client) => Promise<unknown>,
): Promise<{ release(): Promise<void> }> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(t.db);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${rows[0]!.name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query('begin');
  await lock(client);
  let released: Promise<void> | undefined;
  return {
    // Once: later calls wait for the first.
    release: () =>
      (released ??= client.query('commit').then(
        () => client.end(),
        async (error: unknown) => {
          await client.end();
          throw error;
        },
      )),
  };
}

/** Sessions of the test database waiting on a lock. */
export async function lockWaiters(t: TestApp): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db);
  return rows[0]!.n;
}

/**
 * Runs the requests `start` starts all at once. On PostgreSQL the row `id` of `table` is locked first
 * and released when every one of them waits on a lock, whatever the timing of the machine.
 */
export async function together<T>(
  t: TestApp,
  table: 'saved_searches' | 'data_extractions' | 'minor_reviews',
  id: number,
  start: () => Promise<T>[],
): Promise<T[]> {
  if (TEST_DATABASE_KIND !== 'postgres') return Promise.all(start());
  const holder = await holdLock(t, (client) =>
    client.query(`select id from ${table} where id = $1 for update`, [id]),
  );
  let started: Promise<T>[] = [];
  try {
    started = start();
    await until(
      `${started.length} requests waiting on a lock`,
      async () => (await lockWaiters(t)) >= started.length,
    );
  } finally {
    await holder.release();
  }
  return Promise.all(started);
}
