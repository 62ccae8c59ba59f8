import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CRAWL_OPTIONS, type CrawlOptions } from './crawl-options.ts';
import {
  IMAGE_NOT_PAGE,
  type CrawlFrontierStore,
  type FrontierCounts,
  type FrontierEntry,
  type FrontierItem,
  type FrontierKind,
} from './frontier.ts';
import { HostScheduler } from './host-scheduler.ts';
import { decodeHtml, extractPage, type PageImage, type RobotsMeta } from './html-extract.ts';
import { analyzeImage, sha256Hex, type ImageAnalysis } from './image-process.ts';
import { ALLOW_ALL, robotsFromStatus, type RobotsPolicy } from './robots.ts';
import {
  FetchError,
  retryAfterMs,
  safeFetch,
  type FetchResult,
  type SafeFetchOptions,
} from './safe-fetch.ts';
import { MAX_SITEMAP_URLS, readSitemap } from './sitemap.ts';
import { hostKey, normalizeUrl, siteName } from './url-normalize.ts';

/**
 * The crawl loop: takes due entries from the frontier host by host, fetches them politely through
 * the SSRF-guarded client, extracts pages, fetches and analyses their images, and hands results to
 * the callbacks. All progress lives in the frontier store, so stop() + run() (or a crash + run())
 * resumes without refetching what is done.
 */

export interface CrawledPage {
  /** URL as queued (normalised). */
  url: string;
  /** URL after redirects (normalised). */
  finalUrl: string;
  status: number;
  depth: number;
  referrer: string | undefined;
  fetchedAt: Date;
  /** sha256 of the HTML bytes, to notice unchanged pages on a recrawl. */
  contentHash: string;
  title: string;
  text: string;
  lang: string | undefined;
  description: string | undefined;
  canonical: string | undefined;
  links: string[];
  /** Every image shown, with its context; the authoritative page↔image link for the indexer. */
  images: PageImage[];
}

/** One place an image was seen. */
export interface ImageOccurrence {
  pageUrl: string;
  alt: string;
  caption: string;
  nearbyText: string;
  source: PageImage['source'];
}

export interface CrawledImage {
  url: string;
  finalUrl: string;
  mimeType: string;
  byteLength: number;
  /** sha256 of the bytes, hex. */
  sha256: string;
  fetchedAt: Date;
  /** The bytes as served, for face detection. */
  bytes: Buffer;
  /**
   * null when these bytes were already analysed (seen earlier in this run, or isKnownContentHash said
   * so): the indexer links this URL and its pages to the image it already has under `sha256`.
   */
  analysis: ImageAnalysis | null;
}

export interface CrawlProgress {
  /** Counts for this run. */
  pages: number;
  images: number;
  sitemaps: number;
  /** Failures for good (after retries), plus refused fetches. */
  errors: number;
  /** Failed attempts that will be tried again. */
  retries: number;
  /** Not fetched on purpose: robots.txt, noindex, duplicates, out of scope. */
  skipped: number;
  inFlight: number;
}

export interface CrawlErrorEvent {
  url: string;
  kind: FrontierKind;
  message: string;
  /** FetchError code, `http` for an HTTP error status, `callback`, `analysis`, `robots`. */
  code: string;
  status?: number;
  willRetry: boolean;
}

export interface CrawlSummary extends CrawlProgress {
  reason: 'done' | 'stopped' | 'limit';
  frontier: FrontierCounts;
}

/**
 * How the wait for a host's robots.txt changes. While it answers 5xx or 429 the host's URLs wait for it
 * (see Crawler.waitForRobots); the wait ends when it is read again, or when it has lasted maxRobotsWaitMs
 * and the host's URLs fail instead.
 */
export type RobotsOutageEvent =
  | {
      host: string;
      waiting: true;
      /** What robots.txt answered. */
      status: number;
      /** Epoch ms since when it has not been readable (across runs). */
      since: number;
      /** Epoch ms when it is read again. */
      retryAt: number;
      /** Epoch ms after which the host's URLs fail instead of waiting. */
      giveUpAt: number;
    }
  | { host: string; waiting: false; reason: 'read' | 'given-up' };

export interface CrawlerCallbacks {
  /** A page to index; throwing makes the page retry later (e.g. the database is down). */
  onPage?: (page: CrawledPage) => void | Promise<void>;
  /**
   * A page that answered 404 or 410, says noindex, or robots.txt now disallows: what the index holds of it
   * must go (it may have been indexed by an earlier crawl). Called with the URL as queued and, for a noindex
   * page that redirected, the URL it ended at. Not called for failures that may pass (5xx, time-outs).
   * Throwing makes the page retry later, as for onPage.
   */
  onPageGone?: (url: string) => void | Promise<void>;
  /** An image and the places it was seen (those known to this run; onPage lists them all). */
  onImage?: (image: CrawledImage, pages: ImageOccurrence[]) => void | Promise<void>;
  onProgress?: (progress: CrawlProgress) => void;
  onError?: (event: CrawlErrorEvent) => void;
  /** True when these bytes were analysed before (in an earlier crawl): skips the sharp analysis. */
  isKnownContentHash?: (sha256: string) => boolean | Promise<boolean>;
  /**
   * An image URL this crawl will never hand to onImage: skipped (robots.txt, noindex) or failed for good
   * (HTTP error, not an image, too large, refused address, undecodable, retries used up). Called once its
   * frontier entry says so. A throw stops the run as a frontier failure does, so handle errors inside.
   */
  onImageDropped?: (url: string) => void | Promise<void>;
  /** The wait for a host's robots.txt began, went on or ended. Same rule for throwing as onImageDropped. */
  onRobotsOutage?: (event: RobotsOutageEvent) => void | Promise<void>;
}

export interface CrawlerInit {
  /** Frontier partition: run() again with the same id to resume. */
  crawlId: string;
  seeds: readonly string[];
  /** Sitemap URLs given explicitly (besides robots.txt Sitemap: lines and /sitemap.xml). */
  sitemaps?: readonly string[];
  store: CrawlFrontierStore;
  options?: Partial<CrawlOptions>;
  callbacks?: CrawlerCallbacks;
}

interface RobotsEntry {
  policy: RobotsPolicy;
  /** robots.txt could not be read (5xx, timeout): the host is off-limits until it can. */
  unreachable: boolean;
  /**
   * The 5xx or 429 robots.txt was answered with: the server is up and says it is unavailable for now, an
   * outage worth waiting for (see waitForRobots). The URLs of a host that cannot be reached at all fail
   * as their own fetches would.
   */
  unavailableStatus?: number;
  expiresAt: number;
}

class RetryableError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The host answers robots.txt with 5xx or 429 for now; it is read again at `retryAt`. */
class RobotsUnavailableError extends RetryableError {
  constructor(
    readonly httpStatus: number,
    readonly retryAt: number,
  ) {
    super(
      `robots.txt unavailable (HTTP ${httpStatus})`,
      'robots',
      httpStatus,
      Math.max(0, retryAt - Date.now()),
    );
  }
}

class PermanentError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const isHtml = (mime: string) => HTML_TYPES.has(mime);
// SVG is refused: it is a document (scripts, external references), not a photo.
const isRasterImage = (mime: string) => mime.startsWith('image/') && mime !== 'image/svg+xml';
const ALL_KINDS: FrontierKind[] = ['sitemap', 'page', 'image'];
const MAX_SITEMAP_NESTING = 3;
/**
 * Sitemaps read per host in one crawl (robots.txt's, /sitemap.xml and those their indexes list): a real
 * site's few index levels fit, and a hostile index of thousands of huge files costs no more than this.
 */
export const MAX_SITEMAPS_PER_HOST = 50;
/** URLs handled between two pauses for the event loop while a sitemap's URLs are queued. */
const SITEMAP_URLS_PER_TURN = 2_000;
// Links that are plainly not pages; skipping them saves a politeness slot per link.
const NOT_HTML_PATH =
  /\.(pdf|zip|gz|tgz|rar|7z|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4a|wav|ogg|webm|mov|avi|docx?|xlsx?|pptx?|odt|exe|dmg|iso|apk|css|js|json|xml|woff2?|ttf|eot)$/i;

/** X-Robots-Tag directives addressed to us or to every robot. */
export function headerRobots(header: string | string[] | undefined, productToken: string): RobotsMeta {
  const directives = new Set<string>();
  for (const value of [header ?? []].flat()) {
    // "otherbot: noindex" applies to otherbot only; "noindex, nofollow" to all.
    const match = /^\s*([\w-]+)\s*:\s*(.*)$/.exec(value);
    const scoped = match && !/^(unavailable_after|max-[\w-]+)$/i.test(match[1]!);
    if (scoped && match[1]!.toLowerCase() !== productToken.toLowerCase()) continue;
    for (const d of (scoped ? match[2]! : value).toLowerCase().split(/[\s,]+/)) directives.add(d);
  }
  return {
    noindex: directives.has('noindex') || directives.has('none'),
    nofollow: directives.has('nofollow') || directives.has('none'),
    noimageindex: directives.has('noimageindex'),
  };
}

export class Crawler {
  readonly crawlId: string;
  private readonly options: CrawlOptions;
  private readonly store: CrawlFrontierStore;
  private readonly callbacks: CrawlerCallbacks;
  private readonly seeds: string[];
  private readonly extraSitemaps: string[];
  private readonly sitemapsPerHost = new Map<string, number>();
  private readonly scheduler: HostScheduler;
  private readonly scope = new Set<string>();
  private readonly robotsCache = new Map<string, RobotsEntry>();
  private readonly robotsLoading = new Map<string, Promise<RobotsEntry>>();
  /** Hosts whose robots.txt this run has read, and told the frontier so (see waitForRobots). */
  private readonly robotsReadHosts = new Set<string>();
  /** Hosts whose robots.txt wait this run has given up (onRobotsOutage is told once, not per URL). */
  private readonly robotsGivenUp = new Set<string>();
  /** Occurrences of images not yet processed in this run, merged from every page that shows them. */
  private readonly occurrences = new Map<string, ImageOccurrence[]>();
  private readonly processedImages = new Set<string>();
  /** Per image URL, the tail of the queue of tasks taking their turn with it (see lockImages). */
  private readonly imageTurns = new Map<string, Promise<void>>();
  /** Content hashes analysed in this run; the promise says whether the analysis succeeded (no data kept). */
  private readonly analysedHashes = new Map<string, Promise<boolean>>();
  private progressState: CrawlProgress = this.zeroProgress();
  private pagesUsed = 0;
  /** Images claimed and not finished yet: they count against maxImages already. */
  private imagesInFlight = 0;
  private abort = new AbortController();
  private stopping = false;
  /** What stopped this run because the frontier could not be worked (the first such error). */
  private failure: { error: unknown } | undefined;
  private running: Promise<CrawlSummary> | undefined;
  private wake: (() => void) | undefined;
  /** Bumped by every finished task, so the loop notices work that was queued while it was looking. */
  private completions = 0;

  constructor(init: CrawlerInit) {
    this.crawlId = init.crawlId;
    this.store = init.store;
    this.callbacks = init.callbacks ?? {};
    this.options = { ...DEFAULT_CRAWL_OPTIONS, ...init.options };
    this.scheduler = new HostScheduler(this.options.politenessDelayMs);
    this.seeds = init.seeds.map((s) => normalizeUrl(s)).filter((s): s is string => s !== null);
    this.extraSitemaps = (init.sitemaps ?? [])
      .map((s) => normalizeUrl(s))
      .filter((s): s is string => s !== null);
    for (const seed of this.seeds) this.scope.add(siteName(new URL(seed).hostname));
    for (const host of this.options.allowedHosts) this.scope.add(siteName(host));
  }

  get progress(): CrawlProgress {
    return { ...this.progressState };
  }

  /** Crawls until the frontier has nothing due for this crawl, a limit is reached, or stop() is called. */
  run(): Promise<CrawlSummary> {
    if (this.running) throw new Error('crawl is already running');
    this.stopping = false;
    this.failure = undefined;
    this.abort = new AbortController();
    this.progressState = this.zeroProgress();
    this.running = this.loop().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Asks the crawl to stop: in-flight fetches are aborted and their entries go back to the queue.
   * Resolves when run() has returned. Do not await it inside a callback (run() awaits the callback).
   */
  async stop(): Promise<void> {
    this.halt();
    await this.running?.catch(() => undefined);
  }

  /** Stops taking entries and aborts the fetches under way; run() resolves (or rejects) once they settle. */
  private halt(): void {
    this.stopping = true;
    this.abort.abort(new Error('crawl stopped'));
    this.wake?.();
  }

  /**
   * The frontier failed outside an entry's own handling (the database is down): its outcome cannot be
   * recorded, so the run stops and run() rejects with the first such error once every task has settled.
   */
  private fail(error: unknown): void {
    this.failure ??= { error };
    this.halt();
  }

  private zeroProgress(): CrawlProgress {
    return { pages: 0, images: 0, sitemaps: 0, errors: 0, retries: 0, skipped: 0, inFlight: 0 };
  }

  private emitProgress(): void {
    this.callbacks.onProgress?.(this.progress);
  }

  private inScope(url: string): boolean {
    if (this.options.followExternalLinks) return true;
    return this.scope.has(siteName(new URL(url).hostname));
  }

  private async loop(): Promise<CrawlSummary> {
    const { store, crawlId } = this;
    // Entries left claimed belong to a run that is gone (a crash, a kill): fetched again. Only true when no
    // other run works this crawl's frontier now, which the caller ensures (CrawlService holds the crawl's
    // lease while its crawler runs); otherwise the other run's claims would be fetched a second time.
    await store.requeueClaimed(crawlId);
    // A seed that redirected to another site in an earlier run (or slice) widened the scope to it: the
    // target is in the frontier as a page of depth 0.
    for (const url of await store.seedPages(crawlId)) this.scope.add(siteName(new URL(url).hostname));
    // Hosts that asked an earlier run to leave them alone for a while (Retry-After) are left alone here too.
    for (const [host, until] of await store.hostPauses(crawlId, Date.now()))
      this.scheduler.backoff(host, until);
    const before = await store.counts(crawlId);
    this.pagesUsed = before.page.done + before.page.failed;
    await store.enqueue(
      crawlId,
      this.seeds.map((url) => ({ url, kind: 'page', depth: 0 })),
    );
    try {
      await this.enqueueSitemapSources();
    } catch (error) {
      if (!this.stopping) throw error; // stop() during start-up aborts the robots.txt fetches
    }

    const tasks = new Set<Promise<void>>();
    /** Hosts with a fetch under way (or a page or sitemap being handled): one entry per host at a time. */
    const busyHosts = new Set<string>();
    try {
      await this.work(tasks, busyHosts);
    } catch (error) {
      this.fail(error);
    } finally {
      // Never leave a task running (and possibly failing) after run() has returned.
      await Promise.allSettled(tasks);
    }
    if (this.failure) throw this.failure.error;
    this.progressState.inFlight = 0;
    const frontier = await store.counts(crawlId);
    const reason = this.stopping ? 'stopped' : this.workLeft(frontier) ? 'limit' : 'done';
    return { ...this.progress, reason, frontier };
  }

  /** Claims due entries and starts their tasks (into `tasks`) until nothing is left to take, or stop(). */
  private async work(tasks: Set<Promise<void>>, busyHosts: Set<string>): Promise<void> {
    const { store, crawlId } = this;
    while (!this.stopping) {
      const kinds = this.allowedKinds();
      if (kinds.length === 0) break;
      const now = Date.now();
      const completionsBefore = this.completions;
      let nextWake = Infinity;
      let started = 0;
      for (const { host, dueAt } of await store.dueHosts(crawlId, kinds)) {
        if (busyHosts.size >= this.options.concurrency || tasks.size >= this.options.maxInFlight) break;
        if (busyHosts.has(host)) continue;
        const readyAt = Math.max(dueAt, this.scheduler.readyAt(host));
        if (readyAt > now) {
          nextWake = Math.min(nextWake, readyAt);
          continue;
        }
        // Re-check per claim: the page or image budget may have run out within this round.
        const entry = await store.claimNext(crawlId, host, now, this.allowedKinds());
        if (!entry) continue;
        if (entry.kind === 'page') this.pagesUsed++;
        if (entry.kind === 'image') this.imagesInFlight++;
        busyHosts.add(host);
        let holdsHost = true;
        const freeHost = () => {
          if (!holdsHost) return;
          holdsHost = false;
          busyHosts.delete(host);
          this.completions++;
          this.wake?.();
        };
        const task = this.process(entry, freeHost)
          .catch((error: unknown) => this.fail(error))
          .finally(() => {
            freeHost();
            tasks.delete(task);
            if (entry.kind === 'image') this.imagesInFlight--;
            this.completions++;
            this.progressState.inFlight = tasks.size;
            this.emitProgress();
            this.wake?.();
          });
        tasks.add(task);
        this.progressState.inFlight = tasks.size;
        started++;
      }
      // A task that finished during the look-up may have queued work the look-up did not see.
      if (started > 0 || this.completions !== completionsBefore) continue;
      if (tasks.size === 0 && nextWake === Infinity) break; // nothing queued that we may take
      await this.sleepUntil(nextWake);
    }
  }

  private workLeft(counts: FrontierCounts): boolean {
    return counts.page.queued > 0 || counts.image.queued > 0;
  }

  private allowedKinds(): FrontierKind[] {
    const pagesOk = this.pagesUsed < this.options.maxPages;
    const imagesOk = this.progressState.images + this.imagesInFlight < this.options.maxImages;
    // Once the page budget is spent, sitemaps would only queue pages we will not fetch.
    return ALL_KINDS.filter((k) => (k === 'image' ? imagesOk : pagesOk));
  }

  /** Waits for a task to finish, the next host to become due, or stop(). */
  private async sleepUntil(when: number): Promise<void> {
    const delay = when === Infinity ? 60_000 : Math.max(0, when - Date.now());
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }

  /**
   * Counts a sitemap against its host's MAX_SITEMAPS_PER_HOST; false once the host has had its share.
   * (Kept in memory: a resumed crawl starts counting again, which is at most one more share.)
   */
  private takeSitemapTurn(url: string): boolean {
    const host = hostKey(url);
    const taken = this.sitemapsPerHost.get(host) ?? 0;
    if (taken >= MAX_SITEMAPS_PER_HOST) return false;
    this.sitemapsPerHost.set(host, taken + 1);
    return true;
  }

  private async enqueueSitemapSources(): Promise<void> {
    const items: FrontierItem[] = this.extraSitemaps.map((url) => ({ url, kind: 'sitemap', depth: 0 }));
    if (this.options.useSitemaps) {
      const origins = new Set(this.seeds.map((seed) => new URL(seed).origin));
      for (const origin of origins) {
        if (this.stopping) return;
        const robots = await this.robotsFor(`${origin}/`);
        const found = [...robots.policy.sitemaps, `${origin}/sitemap.xml`];
        for (const url of found) {
          const normalized = normalizeUrl(url);
          if (normalized && this.takeSitemapTurn(normalized))
            items.push({ url: normalized, kind: 'sitemap', depth: 0, referrer: `${origin}/robots.txt` });
        }
      }
    }
    if (items.length) await this.store.enqueue(this.crawlId, items);
  }

  private fetchOptions(overrides: Partial<SafeFetchOptions>): SafeFetchOptions {
    const o = this.options;
    return {
      userAgent: o.userAgent,
      allowPrivate: o.allowPrivate,
      trustedAddresses: o.trustedAddresses,
      allowedPorts: o.allowedPorts,
      connectTimeoutMs: o.connectTimeoutMs,
      totalTimeoutMs: o.totalTimeoutMs,
      maxRedirects: o.maxRedirects,
      maxBytes: o.maxHtmlBytes,
      signal: this.abort.signal,
      resolveHost: o.resolveHost,
      ...overrides,
    };
  }

  /**
   * A redirect from `fromHost` to another host is that host's request too: it waits for the host's pause
   * (a CDN that several sites redirect to is not hit faster than its own pages would be), reserves the
   * host's next turn, and leaves a host that is backing off for later. The host queue itself is not
   * taken: waiting for its turn while holding `fromHost` could deadlock two hosts redirecting to each other.
   */
  private async politeHop(url: URL, fromHost: string): Promise<true> {
    const host = hostKey(url);
    if (host === fromHost) return true;
    // Again after each wait: another hop to the host may have taken the turn meanwhile.
    for (let wait = this.scheduler.readyAt(host) - Date.now(); wait > 0;) {
      // Longer than a pause, or than the fetch may take: the host is backing off (Retry-After); later.
      if (wait > Math.min(this.scheduler.delayOf(host), this.options.totalTimeoutMs / 2))
        throw new RetryableError(`redirect target ${host} is backing off`, 'http', undefined, wait);
      await sleep(wait, undefined, { signal: this.abort.signal });
      wait = this.scheduler.readyAt(host) - Date.now();
    }
    this.scheduler.contacted(host);
    return true;
  }

  private async robotsAllowsHop(url: URL): Promise<boolean> {
    const cached = this.robotsCache.get(url.origin);
    // A redirect to a host we have not met yet: read its robots.txt outside the host queue, since
    // waiting for that host's turn while holding this one could deadlock two hosts redirecting to each other.
    const entry = cached && cached.expiresAt > Date.now() ? cached : await this.loadRobots(url.origin, false);
    // The target's robots.txt cannot be read for now: the URL is tried again later, as a URL of that host
    // fetched directly would be (refused for good, a photo behind a CDN with a short outage was lost).
    if (entry.unreachable)
      throw new RetryableError(
        'robots.txt of a redirect target unreachable',
        'robots',
        entry.unavailableStatus,
        this.options.robotsRetryMs,
      );
    return entry.policy.isAllowed(url);
  }

  /** robots.txt of the URL's origin, fetched at most once at a time and cached. */
  private async robotsFor(url: string): Promise<RobotsEntry> {
    const origin = new URL(url).origin;
    const cached = this.robotsCache.get(origin);
    if (cached && cached.expiresAt > Date.now()) return cached;
    return this.loadRobots(origin, true);
  }

  private loadRobots(origin: string, polite: boolean): Promise<RobotsEntry> {
    let loading = this.robotsLoading.get(origin);
    if (!loading) {
      loading = this.fetchRobots(origin, polite).finally(() => this.robotsLoading.delete(origin));
      this.robotsLoading.set(origin, loading);
    }
    return loading;
  }

  private async fetchRobots(origin: string, polite: boolean): Promise<RobotsEntry> {
    const url = `${origin}/robots.txt`;
    const fetchIt = () =>
      safeFetch(url, this.fetchOptions({ maxBytes: this.options.maxRobotsBytes, truncate: true }));
    let entry: RobotsEntry;
    try {
      const result = polite
        ? await this.scheduler.run(hostKey(url), fetchIt, this.abort.signal)
        : await fetchIt();
      const policy = robotsFromStatus(
        result.status,
        result.body.toString('utf8'),
        this.options.productToken,
        url,
      );
      const unreachable = result.status >= 500 || result.status === 429;
      entry = {
        policy,
        unreachable,
        ...(unreachable ? { unavailableStatus: result.status } : {}),
        expiresAt: Date.now() + (unreachable ? this.options.robotsRetryMs : this.options.robotsCacheTtlMs),
      };
    } catch (error) {
      if (this.stopping) throw error;
      // Refusals (SSRF guard, bad port, unknown host) will refuse the page fetch too, with a clearer
      // error; only transient failures make the host off-limits for a while.
      const transient = error instanceof FetchError ? error.retryable : true;
      entry = transient
        ? {
            policy: robotsFromStatus(undefined, '', ''),
            unreachable: true,
            expiresAt: Date.now() + this.options.robotsRetryMs,
          }
        : {
            policy: ALLOW_ALL,
            unreachable: false,
            expiresAt: Date.now() + this.options.robotsCacheTtlMs,
          };
    }
    this.robotsCache.set(origin, entry);
    const host = hostKey(url);
    const delay = entry.policy.crawlDelayMs;
    if (delay !== undefined) this.scheduler.setDelay(host, Math.min(delay, this.options.maxCrawlDelayMs));
    return entry;
  }

  /** Fetches through the host queue after the robots.txt check; non-2xx statuses become errors. */
  private async politeFetch(
    entry: FrontierEntry,
    overrides: Partial<SafeFetchOptions>,
  ): Promise<FetchResult | 'skip'> {
    const robots = await this.robotsFor(entry.url);
    if (robots.unavailableStatus !== undefined)
      throw new RobotsUnavailableError(robots.unavailableStatus, robots.expiresAt);
    if (robots.unreachable)
      throw new RetryableError('robots.txt unreachable', 'robots', undefined, this.options.robotsRetryMs);
    if (!this.robotsReadHosts.has(entry.host)) {
      // Ends an outage an earlier run may have recorded: the next one is counted from its own start.
      const ended = await this.store.markRobotsReachable(this.crawlId, entry.host);
      this.robotsReadHosts.add(entry.host);
      this.robotsGivenUp.delete(entry.host);
      if (ended) await this.callbacks.onRobotsOutage?.({ host: entry.host, waiting: false, reason: 'read' });
    }
    if (!robots.policy.isAllowed(entry.url)) return 'skip';
    const result = await this.scheduler.run(
      entry.host,
      () =>
        safeFetch(
          entry.url,
          this.fetchOptions({
            // Every redirect hop must be allowed by its own host's robots.txt, and keep that host's pause.
            allowUrl: async (url) =>
              (await this.robotsAllowsHop(url)) && (await this.politeHop(url, entry.host)),
            ...overrides,
          }),
        ),
      this.abort.signal,
    );
    // The pause of a redirect's final host counts from the end of the request, as for its own pages.
    if (hostKey(result.url) !== entry.host) this.scheduler.contacted(hostKey(result.url));
    const { status } = result;
    if (status >= 200 && status < 300) return result;
    const message = `HTTP ${status}`;
    if (status === 429 || status >= 500) {
      const wait = retryAfterMs(result.headers['retry-after']);
      // The whole host waits out a 429/503, not only this URL: here, and in the frontier for later runs.
      if (wait !== undefined) {
        const until = Date.now() + Math.min(wait, this.options.maxRetryDelayMs);
        this.scheduler.backoff(entry.host, until);
        await this.store.postponeHost(this.crawlId, entry.host, until);
      }
      throw new RetryableError(message, 'http', status, wait);
    }
    throw new PermanentError(message, 'http', status);
  }

  /**
   * Handles one claimed entry. `freeHost` lets the loop claim the host's next entry: an image frees it
   * as soon as its bytes are fetched, so that its analysis and indexing (the slow part: sharp, the face
   * engine, the database) overlap with the next fetches; pages and sitemaps hold it to the end.
   */
  private async process(entry: FrontierEntry, freeHost: () => void): Promise<void> {
    try {
      if (entry.kind === 'page') await this.processPage(entry);
      else if (entry.kind === 'image') await this.processImage(entry, freeHost);
      else await this.processSitemap(entry);
    } catch (error) {
      // A link to a PDF or a video is not a broken page: it is simply not ours to index.
      if (entry.kind === 'page' && error instanceof FetchError && error.code === 'content-type') {
        await this.skip(entry, error.message);
        return;
      }
      await this.handleFailure(entry, error);
    }
  }

  private async skip(entry: FrontierEntry, reason: string): Promise<void> {
    await this.store.markSkipped(this.crawlId, entry.url, reason);
    if (entry.kind === 'page') this.pagesUsed--; // the budget counts pages actually fetched
    if (entry.kind === 'image') await this.callbacks.onImageDropped?.(entry.url);
    this.progressState.skipped++;
  }

  private async handleFailure(entry: FrontierEntry, error: unknown): Promise<void> {
    const { store, crawlId } = this;
    if (
      this.stopping &&
      (this.abort.signal.aborted || (error instanceof FetchError && error.code === 'aborted'))
    ) {
      // Stopped mid-fetch: no verdict, the entry is fetched on the next run.
      await store.release(crawlId, entry.url);
      if (entry.kind === 'page') this.pagesUsed--;
      return;
    }
    if (error instanceof RobotsUnavailableError && (await this.waitForRobots(entry, error))) return;
    let code: string;
    let status: number | undefined;
    let retryable = false;
    let retryAfter: number | undefined;
    if (error instanceof FetchError) {
      code = error.code;
      retryable = error.retryable;
    } else if (error instanceof RetryableError) {
      ({ code, status, retryAfter } = error);
      retryable = true;
    } else if (error instanceof PermanentError) {
      ({ code, status } = error);
    } else {
      code = 'callback';
      retryable = true; // the indexer failed (e.g. database down): try the entry again later
    }
    const message = error instanceof Error ? error.message : String(error);
    const willRetry = retryable && entry.attempts < this.options.maxRetries;
    let retryAt: number | null = null;
    if (willRetry) {
      const o = this.options;
      const backoff = o.retryBaseDelayMs * 2 ** entry.attempts * (1 + Math.random() * 0.25);
      retryAt = Date.now() + Math.min(retryAfter ?? backoff, o.maxRetryDelayMs);
      this.progressState.retries++;
      if (entry.kind === 'page') this.pagesUsed--; // it will be claimed (and counted) again
    } else {
      this.progressState.errors++;
    }
    await store.markFailed(crawlId, entry.url, message, retryAt);
    this.callbacks.onError?.({ url: entry.url, kind: entry.kind, message, code, status, willRetry });
    // After markFailed: the indexer checks that no crawl still has the URL queued.
    if (entry.kind === 'image' && !willRetry) await this.callbacks.onImageDropped?.(entry.url);
  }

  /**
   * While a host answers robots.txt with 5xx or 429, its URLs wait for the next read without using up
   * their retries: otherwise an outage of a few minutes would fail every URL of the site. The whole host
   * waits, not only this URL. The wait is counted from the outage's start across runs; false once it
   * exceeds maxRobotsWaitMs (the URL then fails as after any other retryable error).
   */
  private async waitForRobots(entry: FrontierEntry, error: RobotsUnavailableError): Promise<boolean> {
    const { retryAt } = error;
    const now = Date.now();
    this.robotsReadHosts.delete(entry.host);
    const since = await this.store.markRobotsUnreachable(this.crawlId, entry.host, now);
    const giveUpAt = since + this.options.maxRobotsWaitMs;
    if (now >= giveUpAt) {
      if (!this.robotsGivenUp.has(entry.host)) {
        this.robotsGivenUp.add(entry.host);
        await this.callbacks.onRobotsOutage?.({ host: entry.host, waiting: false, reason: 'given-up' });
      }
      return false;
    }
    this.scheduler.backoff(entry.host, retryAt);
    await this.store.release(this.crawlId, entry.url, retryAt);
    if (entry.kind === 'page') this.pagesUsed--; // it will be claimed (and counted) again
    this.progressState.retries++;
    this.callbacks.onError?.({
      url: entry.url,
      kind: entry.kind,
      message: error.message,
      code: 'robots',
      status: error.status,
      willRetry: true,
    });
    // Nothing else shows why the crawl seems idle: its URLs wait without failing.
    await this.callbacks.onRobotsOutage?.({
      host: entry.host,
      waiting: true,
      status: error.httpStatus,
      since,
      retryAt,
      giveUpAt,
    });
    return true;
  }

  private async processPage(entry: FrontierEntry): Promise<void> {
    let answered = '';
    let result: FetchResult | 'skip';
    try {
      result = await this.politeFetch(entry, {
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
        acceptContentType: (mime) => {
          answered = mime;
          return isHtml(mime);
        },
        maxBytes: this.options.maxHtmlBytes,
      });
    } catch (error) {
      if (error instanceof FetchError && error.code === 'content-type' && isRasterImage(answered))
        return this.pageIsImage(entry);
      // Taken down: the index forgets the page. A failure that may pass (5xx, time-out) keeps it.
      if (error instanceof PermanentError && (error.status === 404 || error.status === 410))
        await this.callbacks.onPageGone?.(entry.url);
      throw error;
    }
    if (result === 'skip') {
      await this.callbacks.onPageGone?.(entry.url);
      return this.skip(entry, 'disallowed by robots.txt');
    }
    const finalUrl = normalizeUrl(result.url) ?? entry.url;
    if (finalUrl !== entry.url) {
      if (entry.depth === 0) {
        // A seed that moved (http→https, bare→www, new domain): the site now lives there.
        this.scope.add(siteName(new URL(finalUrl).hostname));
      } else if (!this.inScope(finalUrl)) {
        return this.skip(entry, `redirected out of scope to ${finalUrl}`);
      }
      // Record the target so the same page is not fetched again under its own URL.
      const fetchedAs = `fetched as ${entry.url}`;
      const fresh = await this.store.enqueue(this.crawlId, [
        { url: finalUrl, kind: 'page', depth: entry.depth },
      ]);
      if (fresh.length > 0) {
        await this.store.markSkipped(this.crawlId, finalUrl, fetchedAs);
      } else {
        // Recorded by an earlier attempt at this page (whose indexing failed, or whose run ended): the
        // target waits for this page to be indexed, so carry on. Otherwise the target is a page of its own.
        const target = await this.store.findOne(this.crawlId, finalUrl);
        if (target?.state !== 'skipped' || target.lastError !== fetchedAs)
          return this.skip(entry, `duplicate of ${finalUrl}`);
      }
    }

    const html = decodeHtml(result.body, result.headers['content-type'] as string | undefined);
    const extracted = extractPage(html, finalUrl, {
      maxTextChars: this.options.maxTextChars,
      maxNearbyChars: this.options.maxNearbyChars,
      maxLinks: this.options.maxLinksPerPage,
      maxImages: this.options.maxImagesPerPage,
      productToken: this.options.productToken,
    });
    const header = headerRobots(result.headersDistinct['x-robots-tag'], this.options.productToken);
    const noindex = extracted.robots.noindex || header.noindex;
    const nofollow = extracted.robots.nofollow || header.nofollow;
    const noimageindex = noindex || extracted.robots.noimageindex || header.noimageindex;

    const page: CrawledPage = {
      url: entry.url,
      finalUrl,
      status: result.status,
      depth: entry.depth,
      referrer: entry.referrer,
      fetchedAt: new Date(),
      contentHash: sha256Hex(result.body),
      title: extracted.title,
      text: extracted.text,
      lang: extracted.lang,
      description: extracted.description,
      canonical: extracted.canonical,
      links: extracted.links,
      images: noimageindex ? [] : extracted.images,
    };
    // Enqueue before marking done: a crash in between refetches the page instead of losing its links.
    const items: FrontierItem[] = [];
    if (!nofollow && entry.depth < this.options.maxDepth) {
      for (const link of extracted.links) {
        if (this.inScope(link) && !NOT_HTML_PATH.test(new URL(link).pathname))
          items.push({ url: link, kind: 'page', depth: entry.depth + 1, referrer: finalUrl });
      }
    }
    // The page links the images already stored (onPage), and hands its occurrences of the others to their
    // indexing (the list below). An image of this run must not be handed to the indexer in between, or
    // this occurrence would reach neither; images are indexed while the next pages are handled.
    const release = await this.lockImages(
      page.images.map((image) => image.url).filter((url) => !this.processedImages.has(url)),
    );
    try {
      if (noindex) {
        // Opted out of the index now: what an earlier crawl indexed of it goes.
        for (const url of new Set([entry.url, finalUrl])) await this.callbacks.onPageGone?.(url);
      } else {
        await this.callbacks.onPage?.(page);
      }
      for (const image of page.images) {
        if (!this.options.fetchExternalImages && !this.inScope(image.url)) continue;
        const occurrence: ImageOccurrence = {
          pageUrl: finalUrl,
          alt: image.alt,
          caption: image.caption,
          nearbyText: image.nearbyText,
          source: image.source,
        };
        if (!this.processedImages.has(image.url)) {
          const list = this.occurrences.get(image.url) ?? [];
          list.push(occurrence);
          this.occurrences.set(image.url, list);
        }
        items.push({
          url: image.url,
          kind: 'image',
          depth: entry.depth,
          referrer: finalUrl,
          data: { ...occurrence },
        });
      }
    } finally {
      release();
    }
    if (items.length) await this.store.enqueue(this.crawlId, items);
    await this.store.markDone(this.crawlId, entry.url);
    if (noindex) this.progressState.skipped++;
    else this.progressState.pages++;
  }

  /**
   * A page entry whose URL answered with a photo: pages link the photos they show (a lightbox), and the
   * link was queued before the image. Skipped as IMAGE_NOT_PAGE, which the image item of a page showing it
   * takes over (see imageTakesOver); queued as an image at once when a page of this run showed it while it
   * was fetched (that page's image item found the entry claimed). A photo no page shows is not indexed.
   */
  private async pageIsImage(entry: FrontierEntry): Promise<void> {
    await this.skip(entry, IMAGE_NOT_PAGE);
    const seen = this.occurrences.get(entry.url)?.[0];
    if (seen) {
      await this.store.enqueue(this.crawlId, [
        { url: entry.url, kind: 'image', depth: entry.depth, referrer: seen.pageUrl, data: { ...seen } },
      ]);
    }
  }

  private async processImage(entry: FrontierEntry, freeHost: () => void): Promise<void> {
    let result: FetchResult | 'skip';
    try {
      result = await this.politeFetch(entry, {
        accept: 'image/avif,image/webp,image/jpeg,image/png,image/*;q=0.8',
        acceptContentType: isRasterImage,
        maxBytes: this.options.maxImageBytes,
      });
    } finally {
      freeHost();
    }
    if (result === 'skip') return this.skip(entry, 'disallowed by robots.txt');
    if (headerRobots(result.headersDistinct['x-robots-tag'], this.options.productToken).noindex) {
      return this.skip(entry, 'X-Robots-Tag: noindex');
    }
    const sha256 = sha256Hex(result.body);
    const { analysis, stored } = await this.analyseOnce(sha256, result.body);
    const image: CrawledImage = {
      url: entry.url,
      finalUrl: normalizeUrl(result.url) ?? entry.url,
      mimeType: result.mimeType,
      byteLength: result.body.length,
      sha256,
      fetchedAt: new Date(),
      bytes: result.body,
      analysis,
    };
    // Pages showing this image wait while it is indexed (see processPage).
    const release = await this.lockImages([entry.url]);
    try {
      await this.indexImage(entry, image);
      stored(true);
    } catch (error) {
      stored(false);
      throw error;
    } finally {
      release();
    }
    await this.store.markDone(this.crawlId, entry.url);
    this.progressState.images++;
  }

  private async indexImage(entry: FrontierEntry, image: CrawledImage): Promise<void> {
    const pages = [...(this.occurrences.get(entry.url) ?? [])];
    const d = entry.data;
    if (d?.pageUrl && !pages.some((page) => page.pageUrl === d.pageUrl)) {
      // The occurrence stored with the entry: after a restart the only one known from before it (pages
      // handled since then add theirs to the list, and may be handled before the image).
      pages.push({
        pageUrl: d.pageUrl!,
        alt: d.alt ?? '',
        caption: d.caption ?? '',
        nearbyText: d.nearbyText ?? '',
        source: (d.source as ImageOccurrence['source']) ?? 'img',
      });
    }
    await this.callbacks.onImage?.(image, pages);
    this.occurrences.delete(entry.url);
    this.processedImages.add(entry.url);
  }

  /**
   * Waits for the turn of each URL (in a fixed order, so two pages never wait for each other) and returns
   * the function that ends the turns. A page takes the images it shows while it records where they were
   * seen; an image takes its own while it is handed to the indexer.
   */
  private async lockImages(urls: readonly string[]): Promise<() => void> {
    const releases: Array<() => void> = [];
    for (const url of [...new Set(urls)].sort()) {
      const previous = this.imageTurns.get(url) ?? Promise.resolve();
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => turn);
      this.imageTurns.set(url, tail);
      await previous;
      releases.push(() => {
        release();
        if (this.imageTurns.get(url) === tail) this.imageTurns.delete(url);
      });
    }
    return () => {
      for (const release of releases) release();
    };
  }

  /**
   * Analyses each distinct content once: `analysis` is null when it was analysed before (here or in an
   * earlier crawl). Call `stored` once the indexer has stored this copy, or failed to: other URLs with the
   * same bytes wait until then, since the indexer links them to the image this copy stores (linked before
   * it is stored, they would fail, and after their retries lose where they were seen). On a failure they
   * analyse again themselves, as does this copy's retry.
   */
  private async analyseOnce(
    sha256: string,
    bytes: Buffer,
  ): Promise<{ analysis: ImageAnalysis | null; stored: (ok: boolean) => void }> {
    const nothingToTell = () => {};
    // Same bytes under another URL being analysed and stored right now: wait for it instead of doing it twice.
    for (let pending = this.analysedHashes.get(sha256); pending; pending = this.analysedHashes.get(sha256)) {
      if (await pending) return { analysis: null, stored: nothingToTell };
    }
    let settle!: (stored: boolean) => void;
    this.analysedHashes.set(sha256, new Promise<boolean>((resolve) => (settle = resolve)));
    const stored = (ok: boolean) => {
      if (!ok) this.analysedHashes.delete(sha256); // let another copy (or the retry) do it
      settle(ok);
    };
    let known: boolean;
    try {
      known = (await this.callbacks.isKnownContentHash?.(sha256)) ?? false;
    } catch (error) {
      stored(false);
      throw error; // the indexer's lookup failed: a callback error, retried later
    }
    if (known) {
      settle(true);
      return { analysis: null, stored: nothingToTell };
    }
    try {
      const analysis = await analyzeImage(bytes, {
        thumbnailSize: this.options.thumbnailSize,
        maxPixels: this.options.maxImagePixels,
      });
      return { analysis, stored };
    } catch (error) {
      stored(false);
      throw new PermanentError(`cannot decode image: ${(error as Error).message}`, 'analysis');
    }
  }

  private async processSitemap(entry: FrontierEntry): Promise<void> {
    let result: FetchResult | 'skip';
    try {
      result = await this.politeFetch(entry, {
        accept: 'application/xml,text/xml,text/plain,*/*;q=0.5',
        maxBytes: this.options.maxSitemapBytes,
      });
    } catch (error) {
      // Probing /sitemap.xml on a site without one is normal, not an error.
      if (error instanceof PermanentError && error.status !== undefined && error.status < 500) {
        return this.skip(entry, error.message);
      }
      throw error;
    }
    if (result === 'skip') return this.skip(entry, 'disallowed by robots.txt');
    let parsed;
    try {
      // No more URLs than the page budget can use (an index lists far fewer sitemaps than that).
      parsed = await readSitemap(result.body, {
        maxBytes: this.options.maxSitemapBytes,
        maxUrls: Math.min(MAX_SITEMAP_URLS, Math.max(this.options.maxPages, MAX_SITEMAPS_PER_HOST)),
      });
    } catch (error) {
      throw new PermanentError(`unreadable sitemap: ${(error as Error).message}`, 'sitemap');
    }
    const items: FrontierItem[] = [];
    for (const [i, loc] of parsed.urls.entries()) {
      if (i > 0 && i % SITEMAP_URLS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      const url = normalizeUrl(loc);
      if (!url) continue;
      if (parsed.kind === 'index') {
        // Only sitemaps of the crawl's own sites, or of the index's own host (a site's robots.txt may name
        // an index on a sitemap host): a hostile index could send the crawler to thousands of other hosts
        // (a robots.txt and a sitemap request each), whose pages would all be out of scope.
        const listable = this.inScope(url) || hostKey(url) === hostKey(entry.url);
        if (entry.depth < MAX_SITEMAP_NESTING && listable && this.takeSitemapTurn(url))
          items.push({ url, kind: 'sitemap', depth: entry.depth + 1, referrer: entry.url });
      } else if (this.inScope(url) && this.options.maxDepth >= 1) {
        // Listed pages count as one link away from the seed: their own links are followed further.
        items.push({ url, kind: 'page', depth: 1, referrer: entry.url });
      }
    }
    if (items.length) await this.store.enqueue(this.crawlId, items);
    await this.store.markDone(this.crawlId, entry.url);
    this.progressState.sitemaps++;
  }
}
