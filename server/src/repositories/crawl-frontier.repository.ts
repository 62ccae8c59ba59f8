import { sql, type Selectable } from 'kysely';
import type {
  CrawlFrontierStore,
  DueHost,
  FrontierCounts,
  FrontierEntry,
  FrontierItem,
  FrontierKind,
  FrontierState,
} from '../crawler/frontier.ts';
import { hostKey } from '../crawler/url-normalize.ts';
import type { Db } from '../db/database.ts';
import type { CrawlFrontierTable } from '../db/schema.ts';
import { insertWithJob, type NewJob } from './job.repository.ts';

type FrontierRow = Selectable<CrawlFrontierTable>;

const ALL_KINDS: readonly FrontierKind[] = ['page', 'image', 'sitemap'];
// Eight parameters a row: 500 rows stay far below PostgreSQL's 65,535 bind parameters.
const ROWS_PER_INSERT = 500;

function emptyCounts(): FrontierCounts {
  const states = (): Record<FrontierState, number> => ({
    queued: 0,
    claimed: 0,
    done: 0,
    failed: 0,
    skipped: 0,
  });
  return { page: states(), image: states(), sitemap: states() };
}

function toEntry(row: FrontierRow): FrontierEntry {
  return {
    crawlId: row.crawl_id,
    url: row.url,
    kind: row.kind,
    host: row.host,
    depth: row.depth,
    ...(row.referrer !== null ? { referrer: row.referrer } : {}),
    ...(row.data !== null ? { data: row.data } : {}),
    state: row.state,
    attempts: row.attempts,
    dueAt: row.due_at.getTime(),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  };
}

/**
 * The crawl frontier in `crawl_frontier`, one row per (crawl, URL): a crawl survives a restart of the
 * process, and several workers could share one crawl since claiming skips rows another has locked.
 */
export class CrawlFrontierRepository implements CrawlFrontierStore {
  constructor(private readonly db: Db) {}

  async enqueue(crawlId: string, items: readonly FrontierItem[], now = Date.now()): Promise<string[]> {
    // The same URL twice in one batch is one row; the first occurrence (its depth, its data) wins.
    const unique = new Map<string, FrontierItem>();
    for (const item of items) if (!unique.has(item.url)) unique.set(item.url, item);
    const rows = [...unique.values()];
    const added: string[] = [];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const inserted = await this.db
        .insertInto('crawl_frontier')
        .values(
          rows.slice(start, start + ROWS_PER_INSERT).map((item) => ({
            crawl_id: crawlId,
            url: item.url,
            kind: item.kind,
            host: hostKey(item.url),
            depth: item.depth,
            referrer: item.referrer ?? null,
            data: item.data ? JSON.stringify(item.data) : null,
            state: 'queued' as const,
            due_at: new Date(now),
          })),
        )
        .onConflict((oc) => oc.columns(['crawl_id', 'url']).doNothing())
        .returning('url')
        .execute();
      for (const row of inserted) added.push(row.url);
    }
    return added;
  }

  async dueHosts(crawlId: string, kinds: readonly FrontierKind[] = ALL_KINDS): Promise<DueHost[]> {
    if (kinds.length === 0) return [];
    const rows = await this.db
      .selectFrom('crawl_frontier')
      .select(['host', (eb) => eb.fn.min('due_at').as('due_at')])
      .where('crawl_id', '=', crawlId)
      .where('state', '=', 'queued')
      .where('kind', 'in', [...kinds])
      .groupBy('host')
      .orderBy('due_at')
      .execute();
    return rows.map((row) => ({ host: row.host, dueAt: new Date(row.due_at).getTime() }));
  }

  async claimNext(
    crawlId: string,
    host: string,
    now: number,
    kinds: readonly FrontierKind[] = ALL_KINDS,
  ): Promise<FrontierEntry | null> {
    if (kinds.length === 0) return null;
    // One statement: the row is chosen and moved to `claimed` atomically; SKIP LOCKED lets a second
    // worker take the next row instead of waiting for (and then losing) this one.
    const result = await sql<FrontierRow>`
      update crawl_frontier set state = 'claimed'
      where crawl_id = ${crawlId} and url = (
        select url from crawl_frontier
        where crawl_id = ${crawlId} and host = ${host} and state = 'queued'
          and due_at <= ${new Date(now)} and kind = any(${[...kinds]}::text[])
        order by depth, seq
        limit 1
        for update skip locked
      )
      returning *`.execute(this.db);
    const row = result.rows[0];
    return row ? toEntry({ ...row, due_at: new Date(row.due_at) }) : null;
  }

  async markDone(crawlId: string, url: string): Promise<void> {
    await this.setState(crawlId, url, { state: 'done' });
  }

  async markSkipped(crawlId: string, url: string, reason: string): Promise<void> {
    await this.setState(crawlId, url, { state: 'skipped', last_error: reason });
  }

  async markFailed(crawlId: string, url: string, error: string, retryAt: number | null): Promise<void> {
    await this.db
      .updateTable('crawl_frontier')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        last_error: error,
        ...(retryAt === null
          ? { state: 'failed' as const }
          : { state: 'queued' as const, due_at: new Date(retryAt) }),
      }))
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .execute();
  }

  async release(crawlId: string, url: string): Promise<void> {
    await this.db
      .updateTable('crawl_frontier')
      .set({ state: 'queued' })
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .where('state', '=', 'claimed')
      .execute();
  }

  async requeueClaimed(crawlId: string): Promise<number> {
    const result = await this.db
      .updateTable('crawl_frontier')
      .set({ state: 'queued' })
      .where('crawl_id', '=', crawlId)
      .where('state', '=', 'claimed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async counts(crawlId: string): Promise<FrontierCounts> {
    const rows = await this.db
      .selectFrom('crawl_frontier')
      .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('count')])
      .where('crawl_id', '=', crawlId)
      .groupBy(['kind', 'state'])
      .execute();
    const counts = emptyCounts();
    for (const row of rows) counts[row.kind][row.state] = Number(row.count);
    return counts;
  }

  /** One entry as stored, for inspection (tests, the admin view of a failing URL). */
  async findOne(crawlId: string, url: string): Promise<FrontierEntry | undefined> {
    const row = await this.db
      .selectFrom('crawl_frontier')
      .selectAll()
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .executeTakeFirst();
    return row && toEntry(row);
  }

  /** Entries that failed for good, newest attempts last, for the admin view of a crawl. */
  findFailed(crawlId: string, limit: number) {
    return this.db
      .selectFrom('crawl_frontier')
      .select(['url', 'kind', 'attempts', 'last_error'])
      .where('crawl_id', '=', crawlId)
      .where('state', '=', 'failed')
      .orderBy('seq')
      .limit(limit)
      .execute();
  }

  private async setState(
    crawlId: string,
    url: string,
    changes: { state: FrontierState; last_error?: string },
  ): Promise<void> {
    await this.db
      .updateTable('crawl_frontier')
      .set(changes)
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .execute();
  }
}

export interface CrawlCountDeltas {
  pages?: number;
  images?: number;
  faces?: number;
  errors?: number;
}

/** The `crawls` table: one row per requested crawl, with its status and running counts. */
export class CrawlRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a QUEUED crawl; with `jobOf`, also the job it makes of the row, in the same transaction. */
  insert(
    crawl: {
      publicId: string;
      seeds: string[];
      options: Record<string, unknown>;
      isDemo: boolean;
      requestedBy: number | null;
    },
    jobOf?: (row: { id: number }) => NewJob,
  ) {
    const insertRow = (db: Db) =>
      db
        .insertInto('crawls')
        .values({
          public_id: crawl.publicId,
          seeds: JSON.stringify(crawl.seeds),
          options: JSON.stringify(crawl.options),
          is_demo: crawl.isDemo,
          requested_by: crawl.requestedBy,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    return jobOf ? insertWithJob(this.db, insertRow, jobOf) : insertRow(this.db);
  }

  findById(id: number) {
    return this.db.selectFrom('crawls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A crawl with the e-mail of the admin who asked for it. */
  findByPublicId(publicId: string) {
    return this.withRequester().where('crawls.public_id', '=', publicId).executeTakeFirst();
  }

  /** Newest first. */
  findAll(page: { limit: number; offset: number }) {
    return this.withRequester()
      .orderBy('crawls.created_at', 'desc')
      .orderBy('crawls.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }

  /** The settings every crawl was run with (crawls.options), and whether it was the demo's. */
  findAllOptions() {
    return this.db.selectFrom('crawls').select(['id', 'is_demo', 'options']).orderBy('id').execute();
  }

  async existsDemo(): Promise<boolean> {
    const row = await this.db
      .selectFrom('crawls')
      .select('id')
      .where('is_demo', '=', true)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** QUEUED (or an interrupted RUNNING) → RUNNING; false when the crawl has already ended. */
  async markRunning(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set((eb) => ({ status: 'RUNNING', started_at: eb.fn.coalesce('started_at', sql<Date>`now()`) }))
      .where('id', '=', id)
      .where('status', 'in', ['QUEUED', 'RUNNING'])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** A stopped or failed crawl becomes runnable again (it resumes from its frontier). */
  async requeue(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set({ status: 'QUEUED', finished_at: null })
      .where('id', '=', id)
      .where('status', 'in', ['STOPPED', 'FAILED'])
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Adds to the running counts in one statement, so concurrent updates never lose an increment. */
  async addCounts(id: number, deltas: CrawlCountDeltas): Promise<void> {
    await this.db
      .updateTable('crawls')
      .set((eb) => ({
        pages: eb('pages', '+', deltas.pages ?? 0),
        images: eb('images', '+', deltas.images ?? 0),
        faces: eb('faces', '+', deltas.faces ?? 0),
        errors: eb('errors', '+', deltas.errors ?? 0),
      }))
      .where('id', '=', id)
      .execute();
  }

  async setLastError(id: number, message: string | null): Promise<void> {
    await this.db.updateTable('crawls').set({ last_error: message }).where('id', '=', id).execute();
  }

  async finish(id: number, status: 'DONE' | 'STOPPED' | 'FAILED', lastError?: string): Promise<void> {
    await this.db
      .updateTable('crawls')
      .set({ status, finished_at: new Date(), ...(lastError !== undefined ? { last_error: lastError } : {}) })
      .where('id', '=', id)
      .execute();
  }

  private withRequester() {
    return this.db
      .selectFrom('crawls')
      .leftJoin('users', 'users.id', 'crawls.requested_by')
      .selectAll('crawls')
      .select('users.email as requested_by_email');
  }
}
