// npm run bench:jobs — how long one job claim takes behind a backlog. JobRepository.claimNext ranks only
// each (queue, organization)'s first due jobs (organizations take turns): its cost should not grow with it.
// Fills a fresh database with N due mail jobs spread over 50 organizations, then times single claims: median and p95 of `--claims` claims per backlog size. PGlite in memory by
// default; with BENCH_DATABASE_URL (a PostgreSQL server's admin URL) a throwaway database there too.
//   npm run bench:jobs -- --sizes 1000,10000,50000 --claims 30
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../server/src/db/database.ts';
import { QUEUES, SHORT_QUEUES } from '../server/src/jobs/job-queue.ts';
import { JobRepository } from '../server/src/repositories/job.repository.ts';
import { createTestDatabase } from '../server/test/support/test-database.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,50000' },
    claims: { type: 'string', default: '30' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const CLAIMS = Number(values.claims);
const ORGANIZATIONS = 50;
const STALE_AFTER_MS = 5 * 60_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Runs `run` on a fresh, migrated database of that kind, closed (and on PostgreSQL dropped) afterwards. */
async function withDatabase<T>(
  kind: 'pglite' | 'postgres',
  run: (h: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const handle = await createTestDatabase(kind, process.env.BENCH_DATABASE_URL);
  try {
    return await run(handle);
  } finally {
    await handle.close();
  }
}

/** `size` due mail jobs over the organizations, added in one statement per batch. */
async function fillBacklog(handle: DatabaseHandle, size: number): Promise<void> {
  await sql`insert into organizations (name, type, link)
    select 'Bench ' || i, 'nonProfit', 'https://bench-' || i || '.example.org'
    from generate_series(1, ${ORGANIZATIONS}) as i`.execute(handle.db);
  await sql`insert into jobs (queue, payload, organization_id, run_at)
    select ${QUEUES.sendMail}, '{}'::jsonb,
      (select min(id) from organizations) + (i % ${ORGANIZATIONS}), now() - make_interval(secs => ${size} - i)
    from generate_series(1, ${size}) as i`.execute(handle.db);
  await sql`analyze jobs`.execute(handle.db);
}

async function timeClaims(handle: DatabaseHandle): Promise<{ p50: number; p95: number }> {
  const jobs = new JobRepository(handle.db);
  const ms: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const started = performance.now();
    const job = await jobs.claimNext([...SHORT_QUEUES], 'bench', STALE_AFTER_MS);
    ms.push(performance.now() - started);
    if (!job) throw new Error('the backlog ran dry');
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p95: percentile(ms, 95) };
}

const kinds: Array<'pglite' | 'postgres'> = ['pglite'];
if (process.env.BENCH_DATABASE_URL) kinds.push('postgres');
else console.log('BENCH_DATABASE_URL unset: PGlite only');
console.log(`${CLAIMS} claims per backlog, ${ORGANIZATIONS} organizations, mail jobs (the short queues)`);
console.log('| database | due jobs | claim p50 (ms) | claim p95 (ms) |\n|---|---|---|---|');
for (const kind of kinds) {
  for (const size of SIZES) {
    const { p50, p95 } = await withDatabase(kind, async (handle) => {
      await fillBacklog(handle, size);
      return timeClaims(handle);
    });
    console.log(`| ${kind} | ${size.toLocaleString('en')} | ${p50.toFixed(1)} | ${p95.toFixed(1)} |`);
  }
}
