import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import {
  IMAGE_NOT_PAGE,
  type CrawlFrontierStore,
  type DueHost,
  type FrontierCounts,
  type FrontierEntry,
  type FrontierItem,
  type FrontierKind,
  type FrontierState,
} from '../crawler/frontier.ts';
import { hostKey } from '../crawler/url-normalize.ts';
import type { Db } from '../db/database.ts';
import type { CrawlFrontierTable, Database } from '../db/schema.ts';
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
 * process. One run at a time works a crawl's frontier (the crawl's lease, CrawlRepository.acquireLease):
 * a run starts by putting back what was left claimed, which must be the claims of a run that is gone.
 */
export class CrawlFrontierRepository implements CrawlFrontierStore {
  constructor(
    private readonly db: Db,
    /** The run whose lease fences this frontier's claims (see `heldBy`). */
    private readonly leaseOwner?: string,
  ) {}

  /**
   * The frontier as the run holding the crawl's lease works it: a claim is made only while the crawl's
   * lease is still this run's, in the claim's own statement. A run that lost its lease (silent past its
   * end, another run took over) then claims nothing more, instead of fetching what the new run also
   * fetches until its next renewal tells it to stop. The lease row is read `for share`, so a takeover
   * waits for a claim under way to commit, and the new run's requeue of claimed URLs sees it.
   *
   * The run's other writes of a URL's state (done, skipped, failed, released) are fenced the same way: the
   * new run has put the old run's claims back in the queue, and an outcome the old run records after that
   * would overwrite the new run's state of the URL (marked done while queued, or queued while claimed).
   */
  heldBy(leaseOwner: string): CrawlFrontierRepository {
    return new CrawlFrontierRepository(this.db, leaseOwner);
  }

  async enqueue(crawlId: string, items: readonly FrontierItem[], now = Date.now()): Promise<string[]> {
    // The same URL twice in one batch is one row; the first occurrence (its depth, its data) wins, except
    // that an image wins over a page (imageTakesOver: a page linking the photo it shows).
    const unique = new Map<string, FrontierItem>();
    for (const item of items) {
      const first = unique.get(item.url);
      if (!first || (first.kind === 'page' && item.kind === 'image')) unique.set(item.url, item);
    }
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
    const fresh = new Set(added);
    added.push(
      ...(await this.imagesTakeOver(
        crawlId,
        rows.filter((row) => row.kind === 'image' && !fresh.has(row.url)),
        now,
      )),
    );
    return added;
  }

  /**
   * Images whose URL the crawl already has as a page take that entry over as imageTakesOver says (a page
   * linking the photo it shows). A separate update, not the insert's ON CONFLICT DO UPDATE: that locks
   * every conflicting row, and the links a page repeats (menus, footers) would have two pages' enqueues
   * lock rows in different orders. This locks only the entries it changes, in URL order.
   */
  private async imagesTakeOver(
    crawlId: string,
    images: readonly FrontierItem[],
    now: number,
  ): Promise<string[]> {
    if (images.length === 0) return [];
    const values = [...images]
      .sort((a, b) => (a.url < b.url ? -1 : 1))
      .map(
        (item) =>
          sql`(${item.url}, ${item.depth}::int, ${item.referrer ?? null}::text, ${item.data ? JSON.stringify(item.data) : null}::jsonb)`,
      );
    const result = await sql<{ url: string }>`
      update crawl_frontier as entry
      set kind = 'image', depth = taken.depth, referrer = taken.referrer, data = taken.data, state = 'queued',
          attempts = 0, due_at = ${new Date(now)}, last_error = null
      from (values ${sql.join(values)}) as taken (url, depth, referrer, data)
      where entry.crawl_id = ${crawlId} and entry.url = taken.url and entry.kind = 'page'
        and (entry.state = 'queued' or (entry.state = 'skipped' and entry.last_error = ${IMAGE_NOT_PAGE}))
      returning entry.url`.execute(this.db);
    return result.rows.map((row) => row.url);
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
      )${
        this.leaseOwner === undefined
          ? sql``
          : sql` and exists (
        select 1 from crawls where public_id = ${crawlId} and lease_owner = ${this.leaseOwner}
        for share)`
      }
      returning *`.execute(this.db);
    const row = result.rows[0];
    return row ? toEntry({ ...row, due_at: new Date(row.due_at) }) : null;
  }

  /** Always true without a lease owner; otherwise true while the crawl's lease is this run's (see heldBy). */
  private leaseHeld(crawlId: string) {
    const owner = this.leaseOwner;
    return (eb: ExpressionBuilder<Database, 'crawl_frontier'>) =>
      owner === undefined
        ? sql<boolean>`true`
        : eb.exists(
            eb
              .selectFrom('crawls')
              .select(sql`1`.as('held'))
              .where('public_id', '=', crawlId)
              .where('lease_owner', '=', owner)
              .forShare(),
          );
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
      .where(this.leaseHeld(crawlId))
      .execute();
  }

  async release(crawlId: string, url: string, dueAt?: number): Promise<void> {
    await this.db
      .updateTable('crawl_frontier')
      .set({ state: 'queued', ...(dueAt !== undefined ? { due_at: new Date(dueAt) } : {}) })
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .where('state', '=', 'claimed')
      .where(this.leaseHeld(crawlId))
      .execute();
  }

  async postponeHost(crawlId: string, host: string, until: number): Promise<void> {
    await this.db
      .insertInto('crawl_host_pauses')
      .values({ crawl_id: crawlId, host, until: new Date(until) })
      .onConflict((oc) =>
        oc.columns(['crawl_id', 'host']).doUpdateSet({
          until: sql`greatest(crawl_host_pauses.until, excluded.until)`,
        }),
      )
      .execute();
    await this.db
      .updateTable('crawl_frontier')
      .set({ due_at: sql`greatest(due_at, ${new Date(until)})` })
      .where('crawl_id', '=', crawlId)
      .where('host', '=', host)
      .where('state', '=', 'queued')
      .where(this.leaseHeld(crawlId))
      .execute();
  }

  async hostPauses(crawlId: string, now: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('crawl_host_pauses')
      .select(['host', 'until'])
      .where('crawl_id', '=', crawlId)
      .where('until', '>', new Date(now))
      .execute();
    return new Map(rows.map((row) => [row.host, row.until.getTime()]));
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

  async markRobotsUnreachable(crawlId: string, host: string, now: number): Promise<number> {
    // The no-op update makes the existing row come back too (`do nothing` returns no row).
    const row = await this.db
      .insertInto('crawl_robots_outages')
      .values({ crawl_id: crawlId, host, since: new Date(now) })
      .onConflict((oc) =>
        oc.columns(['crawl_id', 'host']).doUpdateSet({ since: (eb) => eb.ref('crawl_robots_outages.since') }),
      )
      .returning('since')
      .executeTakeFirstOrThrow();
    return new Date(row.since).getTime();
  }

  async markRobotsReachable(crawlId: string, host: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('crawl_robots_outages')
      .where('crawl_id', '=', crawlId)
      .where('host', '=', host)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The hosts whose robots.txt the crawl could not read last time it tried, with since when, oldest first. */
  async findRobotsOutages(crawlId: string): Promise<Array<{ host: string; since: Date }>> {
    const rows = await this.db
      .selectFrom('crawl_robots_outages')
      .select(['host', 'since'])
      .where('crawl_id', '=', crawlId)
      .orderBy('since')
      .orderBy('host')
      .execute();
    return rows.map((row) => ({ host: row.host, since: new Date(row.since) }));
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

  async findOne(crawlId: string, url: string): Promise<FrontierEntry | undefined> {
    const row = await this.db
      .selectFrom('crawl_frontier')
      .selectAll()
      .where('crawl_id', '=', crawlId)
      .where('url', '=', url)
      .executeTakeFirst();
    return row && toEntry(row);
  }

  async seedPages(crawlId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('crawl_frontier')
      .select('url')
      .where('crawl_id', '=', crawlId)
      .where('kind', '=', 'page')
      .where('depth', '=', 0)
      .execute();
    return rows.map((row) => row.url);
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
      .where(this.leaseHeld(crawlId))
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

  /**
   * Takes the crawl for one run: QUEUED (or an interrupted RUNNING) → RUNNING, with `owner`'s lease until
   * `leaseMs` from now. Only when no other run holds a live lease (or `replacing` names the holder, a run
   * known to be gone): false when the crawl has ended or another run holds it. The database's clock decides,
   * so processes on machines whose clocks differ agree on whether a lease has run out.
   */
  async acquireLease(id: number, owner: string, leaseMs: number, replacing?: string): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set((eb) => ({
        status: 'RUNNING',
        started_at: eb.fn.coalesce('started_at', sql<Date>`now()`),
        lease_owner: owner,
        lease_expires_at: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`,
      }))
      .where('id', '=', id)
      .where('status', 'in', ['QUEUED', 'RUNNING'])
      .where((eb) =>
        eb.or([
          eb('lease_owner', 'is', null),
          eb('lease_expires_at', '<=', sql<Date>`now()`),
          ...(replacing !== undefined ? [eb('lease_owner', '=', replacing)] : []),
        ]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Renews a run's lease; false when the run no longer holds it (another took the crawl over). */
  async renewLease(id: number, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set({ lease_expires_at: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})` })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Gives the lease back at the end of a run, and with `end` ends the crawl in the same statement (no other
   * run can take it in between). Nothing changes when the run no longer holds the lease: false.
   */
  async releaseLease(id: number, owner: string, end?: 'DONE' | 'STOPPED'): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set({
        lease_owner: null,
        lease_expires_at: null,
        ...(end ? { status: end, finished_at: new Date() } : {}),
      })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Who holds the crawl and until when, with the database's time now; undefined for an unknown crawl. */
  findLease(id: number) {
    return this.db
      .selectFrom('crawls')
      .select(['status', 'lease_owner', 'lease_expires_at', sql<Date>`now()`.as('now')])
      .where('id', '=', id)
      .executeTakeFirst();
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

  /** Clears last_error when it starts with `prefix` (a status message that no longer holds), not another. */
  async clearLastErrorStartingWith(id: number, prefix: string): Promise<void> {
    await this.db
      .updateTable('crawls')
      .set({ last_error: null })
      .where('id', '=', id)
      .where(sql<boolean>`starts_with(last_error, ${prefix})`)
      .execute();
  }

  /**
   * Ends a crawl no run holds (a run ends its own through releaseLease): nothing changes while another
   * run holds a live lease on it, which carries the crawl on. False then.
   */
  async finish(id: number, status: 'DONE' | 'STOPPED' | 'FAILED', lastError?: string): Promise<boolean> {
    const result = await this.db
      .updateTable('crawls')
      .set({
        status,
        finished_at: new Date(),
        lease_owner: null,
        lease_expires_at: null,
        ...(lastError !== undefined ? { last_error: lastError } : {}),
      })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<=', sql<Date>`now()`)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  private withRequester() {
    return this.db
      .selectFrom('crawls')
      .leftJoin('users', 'users.id', 'crawls.requested_by')
      .selectAll('crawls')
      .select('users.email as requested_by_email');
  }
}
