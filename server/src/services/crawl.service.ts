import dns from 'node:dns';
import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import {
  crawlOptionsFromConfig,
  DEFAULT_CRAWL_OPTIONS,
  type CrawlOptions,
} from '../crawler/crawl-options.ts';
import { Crawler, type CrawlSummary } from '../crawler/crawler.ts';
import type { FrontierCounts } from '../crawler/frontier.ts';
import type { ResolvedAddress } from '../crawler/safe-fetch.ts';
import { normalizeUrl } from '../crawler/url-normalize.ts';
import type { CrawlStatus } from '../db/schema.ts';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import { localPidOf, newWorkerId } from '../jobs/job-runner.ts';
import { isProcessAlive } from '../lib/data-dir-lock.ts';
import { badRequest, conflict, notFound } from '../lib/http-error.ts';
import { newPublicId } from '../lib/secure-token.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type {
  CrawlCountDeltas,
  CrawlFrontierRepository,
  CrawlRepository,
} from '../repositories/crawl-frontier.repository.ts';
import { ROBOTS_WAIT_PREFIX, RobotsWaitNotice } from './crawl-robots-notice.ts';
import type { IndexerService } from './indexer.service.ts';

export const MAX_SEED_URLS = 100;
const MAX_URL_LENGTH = 2048;
/** A crawl job that fails this many times in a row (database trouble) marks its crawl FAILED. */
const MAX_CONSECUTIVE_FAILURES = 3;
/**
 * Another crawl's job looks again this long after this process turned it away, busy with a crawl; the end
 * of that crawl's slice gives it its turn at once (CrawlService.enqueueNextSlice).
 */
const BUSY_RETRY_MS = 15_000;
const FAILURE_RETRY_MS = 30_000;
/** Counts reach the crawls row at most this often (the admin page polls it). */
const COUNT_FLUSH_MS = 500;
/** A job that found its crawl held by another run looks again this long after that run's lease ends. */
const LEASE_MARGIN_MS = 1_000;

/** The bundled demo site: the only address (and port) the demo crawl may reach past the SSRF guard. */
export interface DemoCrawlTarget {
  /** Home pages of the demo sites. */
  urls: string[];
  /** Loopback address the demo site listens on. */
  address: string;
  port: number;
  /** Host names of the demo sites; they resolve to `address` without asking DNS. */
  hostnames: string[];
}

/**
 * Per-crawl settings kept in crawls.options. Only this service writes them (never a request body):
 * they can open the SSRF guard for one address, as the demo crawl needs.
 */
export interface StoredCrawlOptions {
  allowedPorts?: number[];
  trustedAddresses?: string[];
  /** Host name → IP address, instead of DNS. */
  hostAddresses?: Record<string, string>;
  politenessDelayMs?: number;
}

export interface CrawlJobPayload {
  crawlId: number;
  /** Consecutive failed runs so far. */
  failures?: number;
}

export interface CrawlCounts {
  pages: number;
  images: number;
  faces: number;
  errors: number;
}

export interface CrawlView extends CrawlCounts {
  id: string;
  status: CrawlStatus;
  demo: boolean;
  seeds: string[];
  lastError: string | null;
  requestedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface CrawlDetail extends CrawlView {
  /** URLs known to the crawl by kind and state (queued, done, failed, skipped…). */
  frontier: FrontierCounts;
  /** The first URLs that failed for good. */
  failures: Array<{ url: string; kind: string; attempts: number; error: string | null }>;
}

export type CrawlRunOutcome =
  /** Nothing left to fetch (or a limit reached): the crawl is DONE. */
  | 'done'
  /** The time slice ended with work left. */
  | 'sliced'
  /** stop() or shutdown interrupted it; it resumes from its frontier on the next run. */
  | 'stopped'
  /** The crawl had already ended, or is running in this process already. */
  | 'skipped'
  /**
   * Another process runs the crawl (it holds a live lease): this run did not start, or stopped when it
   * found its lease taken over. The holder carries the crawl on.
   */
  | 'busy';

export interface CrawlRunOptions {
  /** Stop after this long (the frontier keeps the rest). */
  sliceMs?: number;
  /**
   * Stopped by stop() (the CLI's Ctrl-C): the crawl ends STOPPED in the statement that gives up the
   * lease, so no other process takes it over in between. Otherwise it stays RUNNING for its next job.
   */
  endStopped?: boolean;
  /** Totals of the crawl (earlier runs included) each time they change. */
  onProgress?: (counts: CrawlCounts) => void;
}

type CrawlRow = NonNullable<Awaited<ReturnType<CrawlRepository['findByPublicId']>>>;

function toView(row: CrawlRow): CrawlView {
  return {
    id: row.public_id,
    status: row.status,
    demo: row.is_demo,
    seeds: row.seeds,
    pages: row.pages,
    images: row.images,
    faces: row.faces,
    errors: row.errors,
    lastError: row.last_error,
    requestedBy: row.requested_by_email,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/** Host names in the map resolve to their pinned address; everything else goes to DNS. */
export function pinnedResolver(hostAddresses: Record<string, string>) {
  return async (hostname: string): Promise<ResolvedAddress[]> => {
    const pinned = hostAddresses[hostname.toLowerCase()];
    if (pinned) return [{ address: pinned, family: net.isIP(pinned) }];
    return dns.promises.lookup(hostname, { all: true, verbatim: true });
  };
}

/** Adds up counts in memory and writes them to the crawls row at most every COUNT_FLUSH_MS. */
class CrawlCounter {
  private pending: Required<CrawlCountDeltas> = { pages: 0, images: 0, faces: 0, errors: 0 };
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly crawls: CrawlRepository,
    private readonly crawlId: number,
    readonly totals: CrawlCounts,
    private readonly onChange: ((counts: CrawlCounts) => void) | undefined,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  add(deltas: CrawlCountDeltas): void {
    for (const key of ['pages', 'images', 'faces', 'errors'] as const) {
      this.pending[key] += deltas[key] ?? 0;
      this.totals[key] += deltas[key] ?? 0;
    }
    this.onChange?.({ ...this.totals });
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, COUNT_FLUSH_MS);
  }

  /** Writes what is pending; resolves when every earlier write has finished too. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(async () => {
      const deltas = this.pending;
      if (!deltas.pages && !deltas.images && !deltas.faces && !deltas.errors) return;
      this.pending = { pages: 0, images: 0, faces: 0, errors: 0 };
      try {
        await this.crawls.addCounts(this.crawlId, deltas);
      } catch (error) {
        // Keep them for the next write rather than lose them.
        for (const key of ['pages', 'images', 'faces', 'errors'] as const) this.pending[key] += deltas[key];
        this.log.warn({ err: error, crawlId: this.crawlId }, 'crawl counts not saved yet');
      }
    });
    return this.writing;
  }
}

/**
 * Crawls as the product runs them: requested by an admin (or the CLI, or the first start's demo), kept
 * in `crawls`, run by the `crawl.run` job over the database frontier, indexed as they go.
 *
 * A job runs one slice of a crawl (config.crawl.jobSliceMs) and queues the next: the job queue would
 * otherwise take a crawl running for hours for the job of a dead worker and start it a second time,
 * and crawls queued together take turns. A process runs one crawl at a time (the crawl itself fetches
 * from several hosts at once), so long crawls never hold every job loop and e-mail keeps flowing.
 *
 * A crawl is run by one process at a time: a run takes the crawl's lease (crawls.lease_owner and
 * lease_expires_at) and renews it like the job queue's heartbeat, every quarter of JOB_STALE_AFTER_MS
 * (the lease's length). A second run — `npm run crawl -- --resume` while a worker runs the crawl, or a
 * duplicated job chain — is refused while the lease is live; only once it has run out (or its holder,
 * a process of this machine, has died) does a run take the crawl and requeue what the other had claimed.
 */
export class CrawlService {
  private readonly running = new Map<number, Crawler>();
  /**
   * The crawl whose job holds this process's turn, from the job's start: two jobs claimed together must not
   * both find the process free while their crawls' leases are being taken.
   */
  private readonly turn = new Set<number>();
  /** Crawls whose job this process turned away (or that gave up their turn), with since when they wait. */
  private readonly waiting = new Map<number, number>();
  private shuttingDown = false;

  constructor(
    private readonly config: Config,
    private readonly crawls: CrawlRepository,
    private readonly frontier: CrawlFrontierRepository,
    private readonly indexer: IndexerService,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'error' | 'info'>,
  ) {}

  /** Checks seed URLs: http or https, absolute, at most MAX_SEED_URLS. Returns them normalised, deduplicated. */
  validateSeeds(urls: readonly string[]): string[] {
    if (urls.length === 0) throw badRequest('Give at least one URL to crawl.');
    if (urls.length > MAX_SEED_URLS) throw badRequest(`At most ${MAX_SEED_URLS} URLs per crawl.`);
    const seeds = new Set<string>();
    const invalid: string[] = [];
    for (const url of urls) {
      const normalized = url.length <= MAX_URL_LENGTH ? normalizeUrl(url) : null;
      if (normalized) seeds.add(normalized);
      else invalid.push(url);
    }
    if (invalid.length > 0) {
      const shown = invalid.slice(0, 3).map((u) => JSON.stringify(u.slice(0, 100)));
      throw badRequest(
        `Not an absolute http or https URL: ${shown.join(', ')}${invalid.length > 3 ? ', …' : ''}`,
      );
    }
    return [...seeds];
  }

  /** Creates the crawl row without queueing it (the CLI runs it itself). */
  async create(request: { urls: readonly string[]; requestedBy: number | null; demo?: DemoCrawlTarget }) {
    return this.crawls.insert(this.newCrawl(request));
  }

  /** The row of a requested crawl: its seeds checked, its stored options. */
  private newCrawl(request: { urls: readonly string[]; requestedBy: number | null; demo?: DemoCrawlTarget }) {
    const seeds = this.validateSeeds(request.urls);
    const options: StoredCrawlOptions = {};
    // A port written in a seed is the admin's explicit choice; other odd ports stay refused.
    const ports = new Set(
      seeds
        .map((s) => new URL(s).port)
        .filter(Boolean)
        .map(Number),
    );
    if (ports.size > 0) options.allowedPorts = [...ports];
    const { demo } = request;
    if (demo) {
      options.allowedPorts = [demo.port];
      options.trustedAddresses = [demo.address];
      options.hostAddresses = Object.fromEntries(demo.hostnames.map((h) => [h.toLowerCase(), demo.address]));
      // Our own server on loopback: no need to be gentle.
      options.politenessDelayMs = 50;
    }
    return {
      publicId: newPublicId(),
      seeds,
      options: { ...options },
      isDemo: demo !== undefined,
      requestedBy: request.requestedBy,
    };
  }

  /** Creates a crawl and queues its job, in one transaction; returns its public id. */
  async startCrawl(request: {
    urls: readonly string[];
    requestedBy: number | null;
    demo?: DemoCrawlTarget;
    ip?: string | null;
  }): Promise<{ id: string }> {
    // The job in the row's transaction: a crawl is never left QUEUED without one.
    const crawl = await this.crawls.insert(this.newCrawl(request), ({ id }) => ({
      queue: QUEUES.runCrawl,
      payload: { crawlId: id } satisfies CrawlJobPayload,
    }));
    this.queue.wake();
    if (request.requestedBy !== null) {
      await this.audit.insert({
        actorUserId: request.requestedBy,
        organizationId: null,
        action: 'crawl.start',
        target: crawl.public_id,
        detail: { seeds: crawl.seeds.length },
        ip: request.ip ?? null,
      });
    }
    return { id: crawl.public_id };
  }

  /**
   * The first start's demo crawl: queued when the index holds no face and no demo crawl was ever
   * queued (a later start resumes that one through its job, and an emptied index stays empty).
   */
  async startDemoCrawlIfIndexEmpty(target: DemoCrawlTarget): Promise<string | undefined> {
    if (await this.crawls.existsDemo()) return undefined;
    if (!(await this.indexer.isIndexEmpty())) return undefined;
    const { id } = await this.startCrawl({ urls: target.urls, requestedBy: null, demo: target });
    return id;
  }

  async list(page: { page: number; pageSize: number }): Promise<CrawlView[]> {
    const rows = await this.crawls.findAll({ limit: page.pageSize, offset: (page.page - 1) * page.pageSize });
    return rows.map(toView);
  }

  async get(publicId: string): Promise<CrawlDetail> {
    const row = await this.crawls.findByPublicId(publicId);
    if (!row) throw notFound('Crawl not found.');
    const [frontier, failed] = await Promise.all([
      this.frontier.counts(row.public_id),
      this.frontier.findFailed(row.public_id, 20),
    ]);
    return {
      ...toView(row),
      frontier,
      failures: failed.map((f) => ({ url: f.url, kind: f.kind, attempts: f.attempts, error: f.last_error })),
    };
  }

  /**
   * Makes a stopped or failed crawl runnable again; the caller then runs it. Refused (409) while another
   * process runs the crawl: its run would be taken for an interrupted one and its claimed URLs requeued.
   */
  async resume(publicId: string): Promise<number> {
    const row = await this.crawls.findByPublicId(publicId);
    if (!row) throw notFound('Crawl not found.');
    const busy = await this.runningElsewhere(row.id);
    if (busy) throw conflict(busy);
    await this.crawls.requeue(row.id);
    return row.id;
  }

  /**
   * Why the crawl cannot be run here now — another process holds a live lease on it, and when that lease
   * ends unless renewed — or undefined when it is free (or ended).
   */
  async runningElsewhere(crawlId: number): Promise<string | undefined> {
    const lease = await this.crawls.findLease(crawlId);
    if (!lease?.lease_owner || !lease.lease_expires_at || lease.lease_expires_at <= lease.now)
      return undefined;
    if (this.heldByDeadProcess(lease.lease_owner)) return undefined;
    const row = await this.crawls.findById(crawlId);
    const seconds = Math.ceil((lease.lease_expires_at.getTime() - lease.now.getTime()) / 1000);
    return (
      `Crawl ${row?.public_id ?? crawlId} is running in another process (${lease.lease_owner}). Its lease ` +
      `expires at ${lease.lease_expires_at.toISOString()} (in ${seconds} s) unless that process renews it: ` +
      `stop it there, or resume once it has stopped.`
    );
  }

  /** A run of a process of this machine that no longer exists: it will never renew its lease. */
  private heldByDeadProcess(owner: string): boolean {
    const pid = localPidOf(owner);
    return pid !== undefined && pid !== process.pid && !isProcessAlive(pid);
  }

  /** The lease's length: the job queue's limit for taking a silent worker for dead (JOB_STALE_AFTER_MS). */
  private get leaseMs(): number {
    return this.config.jobStaleAfterMs;
  }

  /** Takes the crawl's lease for a run of this process: 'ended', 'busy' (another run holds it) or 'taken'. */
  private async takeLease(crawlId: number, owner: string): Promise<'taken' | 'ended' | 'busy'> {
    if (await this.crawls.acquireLease(crawlId, owner, this.leaseMs)) return 'taken';
    const lease = await this.crawls.findLease(crawlId);
    if (!lease || (lease.status !== 'QUEUED' && lease.status !== 'RUNNING')) return 'ended';
    const holder = lease.lease_owner;
    if (holder && this.heldByDeadProcess(holder)) {
      if (await this.crawls.acquireLease(crawlId, owner, this.leaseMs, holder)) {
        this.log.warn({ crawlId, holder }, 'crawl of a dead process taken over');
        return 'taken';
      }
    }
    return 'busy';
  }

  /** How long a job that found the crawl busy waits: until the holder's lease would end, and a little. */
  private async busyRetryMs(crawlId: number): Promise<number> {
    const lease = await this.crawls.findLease(crawlId);
    const left = lease?.lease_expires_at ? lease.lease_expires_at.getTime() - lease.now.getTime() : 0;
    return Math.max(0, left) + LEASE_MARGIN_MS;
  }

  /** The `crawl.run` job: one slice of a crawl, then the next slice queued (or the crawl finished). */
  async runJob(payload: unknown): Promise<void> {
    const { crawlId, failures = 0 } = payload as CrawlJobPayload;
    if (this.shuttingDown) {
      // Claimed between shutdown() and the job runner's stop: leave it to the next start.
      await this.enqueueRun({ crawlId, failures }, 1_000);
      return;
    }
    if ([...this.turn, ...this.running.keys()].some((id) => id !== crawlId)) {
      if (!this.waiting.has(crawlId)) this.waiting.set(crawlId, Date.now());
      await this.enqueueRun({ crawlId, failures }, BUSY_RETRY_MS);
      return;
    }
    this.waiting.delete(crawlId);
    let outcome: CrawlRunOutcome;
    try {
      outcome = await this.runTurn(crawlId);
    } catch (error) {
      await this.passTurn();
      const message = error instanceof Error ? error.message : String(error);
      this.log.error({ err: error, crawlId }, 'crawl run failed');
      if (failures + 1 >= MAX_CONSECUTIVE_FAILURES) {
        // Not while a lease is live: another process took the crawl over (that run carries it on), or this
        // run's own lease could not be given back. Either way, looked at again once the lease has run out.
        if (!(await this.crawls.finish(crawlId, 'FAILED', message))) {
          await this.enqueueRun({ crawlId, failures }, await this.busyRetryMs(crawlId));
        } else {
          await this.afterEnd(crawlId);
        }
      } else {
        await this.crawls.setLastError(crawlId, message);
        await this.enqueueRun({ crawlId, failures: failures + 1 }, FAILURE_RETRY_MS);
      }
      return;
    }
    // Queued by time alone, a running crawl's next slice (due now) would always come before the job of a
    // crawl turned away meanwhile (due BUSY_RETRY_MS later), until the running crawl ended.
    const passed = await this.passTurn();
    if (outcome === 'sliced') {
      if (passed) this.waiting.set(crawlId, Date.now()); // its turn comes back when that slice ends
      await this.enqueueRun({ crawlId }, passed ? BUSY_RETRY_MS : 0);
    }
    // Interrupted by a shutdown: the next start (or another worker) carries on from the frontier.
    if (outcome === 'stopped') await this.enqueueRun({ crawlId });
    // Another process runs it. Looking again once its lease would have run out keeps the crawl going if
    // that process dies without queueing a job (a CLI killed, a worker whose job was taken for dead a
    // moment before its lease ran out); while it runs, this job just looks again later, and ends once
    // the crawl has ended.
    if (outcome === 'busy') await this.enqueueRun({ crawlId, failures }, await this.busyRetryMs(crawlId));
  }

  /** One slice of a crawl, holding this process's turn (given up once the slice has ended). */
  private async runTurn(crawlId: number): Promise<CrawlRunOutcome> {
    this.turn.add(crawlId);
    try {
      return await this.run(crawlId, { sliceMs: this.config.crawl.jobSliceMs });
    } finally {
      this.turn.delete(crawlId);
    }
  }

  /**
   * Gives this process's turn, just given up, to the crawl that has waited longest for it: its queued job
   * becomes due now. False when no crawl waits (then the crawl whose slice ended goes on at once).
   */
  private async passTurn(): Promise<boolean> {
    const longestWaiting = [...this.waiting].sort((a, b) => a[1] - b[1]).map(([id]) => id);
    for (const next of longestWaiting) {
      if ((await this.queue.runNow(QUEUES.runCrawl, 'crawlId', next)) > 0) return true;
      // No job of it is queued any more (its crawl ended, or another process runs it): it waits no longer.
      this.waiting.delete(next);
    }
    return false;
  }

  /**
   * Runs a crawl in this process until its frontier is exhausted, the slice ends or stop() is called.
   * A crawl interrupted any way (even a crash) continues from its frontier on the next run.
   */
  async run(crawlId: number, options: CrawlRunOptions = {}): Promise<CrawlRunOutcome> {
    if (this.shuttingDown) return 'stopped';
    if (this.running.has(crawlId)) return 'skipped';
    // Before the crawler starts (and requeues what was left claimed): the claims must be a gone run's.
    // In the job runner's worker id form: another process of this machine reads the pid in it
    // (localPidOf) and takes over at once from a run that died.
    const owner = newWorkerId();
    const lease = await this.takeLease(crawlId, owner);
    if (lease !== 'taken') return lease === 'ended' ? 'skipped' : 'busy';
    const row = (await this.crawls.findById(crawlId))!;
    const crawlOptions = this.crawlOptions(row.options as StoredCrawlOptions);
    const robotsNotice = new RobotsWaitNotice(
      this.crawls,
      this.frontier,
      crawlId,
      row.public_id,
      crawlOptions.maxRobotsWaitMs ?? DEFAULT_CRAWL_OPTIONS.maxRobotsWaitMs,
      this.log,
    );
    const counter = new CrawlCounter(
      this.crawls,
      crawlId,
      { pages: row.pages, images: row.images, faces: row.faces, errors: row.errors },
      options.onProgress,
      this.log,
    );
    const crawler = new Crawler({
      crawlId: row.public_id,
      seeds: row.seeds,
      // Claims stop as soon as another run holds the lease, not only at this run's next renewal.
      store: this.frontier.heldBy(owner),
      options: crawlOptions,
      callbacks: {
        isKnownContentHash: (sha256) => this.indexer.isKnownContentHash(sha256),
        onPage: async (page) => {
          await this.indexer.indexPage(page, row.public_id);
          counter.add({ pages: 1 });
        },
        onPageGone: (url) => this.indexer.forgetPage(url),
        onImageDropped: async (url) => {
          // A clean-up: if it fails, the crawl's end tries again (afterEnd), so the crawl goes on.
          await this.indexer.forgetUnfetchedImages(row.public_id, url).catch((error: unknown) => {
            this.log.warn({ err: error, crawlId, url }, 'pending occurrences of a dropped image kept');
          });
        },
        onRobotsOutage: (event) => robotsNotice.update(event),
        onImage: async (image, pages) => {
          const indexed = await this.indexer.indexImage(image, pages);
          counter.add({ images: 1, faces: indexed.newFaces });
        },
        onError: (event) => {
          if (!event.willRetry) counter.add({ errors: 1 });
          if (event.code === 'callback')
            this.log.warn({ crawlId, url: event.url, err: event.message }, 'indexing failed');
        },
      },
    });
    this.running.set(crawlId, crawler);
    let sliced = false;
    const timer =
      options.sliceMs === undefined
        ? undefined
        : setTimeout(() => {
            sliced = true;
            void crawler.stop();
          }, options.sliceMs);
    // The lease renewed as the job runner renews a running job; a renewal that finds the lease taken
    // over (this process was silent past its end, e.g. the database was unreachable) stops this run.
    let lost = false;
    const heartbeat = setInterval(() => {
      this.crawls.renewLease(crawlId, owner, this.leaseMs).then(
        (held) => {
          if (held || lost) return;
          lost = true;
          this.log.warn({ crawlId }, 'crawl taken over by another process; this run stops');
          void crawler.stop();
        },
        (error: unknown) => this.log.warn({ err: error, crawlId }, 'crawl lease not renewed'),
      );
    }, this.leaseMs / 4);
    heartbeat.unref();
    const endRun = async () => {
      clearTimeout(timer);
      clearInterval(heartbeat);
      this.running.delete(crawlId);
      await counter.flush();
    };
    let summary: CrawlSummary;
    try {
      summary = await crawler.run();
    } catch (error) {
      await endRun();
      // Given back at once, so that the next job need not wait for the lease to run out.
      await this.crawls.releaseLease(crawlId, owner).catch((releaseError: unknown) => {
        this.log.warn({ err: releaseError, crawlId }, 'crawl lease not given back');
      });
      throw error;
    }
    await endRun();
    const outcome: CrawlRunOutcome =
      summary.reason !== 'stopped' ? 'done' : sliced && !this.shuttingDown ? 'sliced' : 'stopped';
    const end =
      outcome === 'done' ? 'DONE' : outcome === 'stopped' && options.endStopped ? 'STOPPED' : undefined;
    // Taken over (after this run's last renewal, or as the heartbeat found): the other run has the crawl
    // and decides its end.
    if (!(await this.crawls.releaseLease(crawlId, owner, end))) return 'busy';
    if (end) await this.afterEnd(crawlId);
    return outcome;
  }

  /**
   * Once a crawl has ended: the occurrences its pages recorded of images it did not store go (unless another
   * crawl, or this one once resumed, may still fetch them), and it waits for no robots.txt any more. Failures
   * are logged only: the crawl has ended either way (what is left goes when the crawl, resumed, ends again).
   */
  private async afterEnd(crawlId: number): Promise<void> {
    try {
      const row = await this.crawls.findById(crawlId);
      if (!row) return;
      await this.indexer.forgetUnfetchedImages(row.public_id);
      await this.crawls.clearLastErrorStartingWith(crawlId, ROBOTS_WAIT_PREFIX);
    } catch (error) {
      this.log.warn({ err: error, crawlId }, 'clean-up after the crawl ended failed');
    }
  }

  /** Stops a crawl running in this process; it stays resumable. Used by the CLI on Ctrl-C. */
  async stop(crawlId: number): Promise<void> {
    await this.running.get(crawlId)?.stop();
  }

  /** At process shutdown: stops the running crawls (their jobs queue the rest) before the job runner stops. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.running.values()].map((crawler) => crawler.stop()));
  }

  private async enqueueRun(payload: CrawlJobPayload, delayMs = 0): Promise<void> {
    await this.queue.enqueue(
      QUEUES.runCrawl,
      payload,
      delayMs > 0 ? { runAt: new Date(Date.now() + delayMs) } : {},
    );
  }

  private crawlOptions(stored: StoredCrawlOptions): Partial<CrawlOptions> {
    return {
      ...crawlOptionsFromConfig(this.config),
      politenessDelayMs: stored.politenessDelayMs ?? this.config.crawl.politenessDelayMs,
      trustedAddresses: [...this.config.crawl.trustedAddresses, ...(stored.trustedAddresses ?? [])],
      allowedPorts: stored.allowedPorts ?? [],
      ...(stored.hostAddresses ? { resolveHost: pinnedResolver(stored.hostAddresses) } : {}),
      ...(this.config.crawl.robotsRetryMs !== undefined
        ? { robotsRetryMs: this.config.crawl.robotsRetryMs }
        : {}),
    };
  }
}
