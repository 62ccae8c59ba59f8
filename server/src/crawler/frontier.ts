import { hostKey } from './url-normalize.ts';

/**
 * The crawl frontier: every URL a crawl has discovered, with its state, so a stopped or crashed crawl
 * resumes where it was. The crawler only talks to this interface; a database-backed store implements
 * it with one row per (crawlId, url) — a unique key on that pair gives the dedupe.
 */

export type FrontierKind = 'page' | 'image' | 'sitemap';
export type FrontierState = 'queued' | 'claimed' | 'done' | 'failed' | 'skipped';

/**
 * Why a page entry was skipped when its URL answered with a photo (a lightbox links the photo it shows).
 * An image item of the same URL takes such an entry over (see CrawlFrontierStore.enqueue).
 */
export const IMAGE_NOT_PAGE = 'an image, not a page';

/**
 * True when an image item takes over the page entry already stored for its URL: one not fetched yet, or
 * one that answered with a photo. Pages link the photos they show (`<a href="/pic/1"><img src="/pic/1">`),
 * and such a URL fetched as a page would lose the photo and where it was seen.
 */
export function imageTakesOver(
  existing: Pick<FrontierEntry, 'kind' | 'state' | 'lastError'>,
  item: Pick<FrontierItem, 'kind'>,
): boolean {
  return (
    item.kind === 'image' &&
    existing.kind === 'page' &&
    (existing.state === 'queued' || (existing.state === 'skipped' && existing.lastError === IMAGE_NOT_PAGE))
  );
}

export interface FrontierItem {
  /** Normalised absolute URL (normalizeUrl): the dedupe key within one crawl. */
  url: string;
  kind: FrontierKind;
  /** Link distance from a seed (pages); nesting level (sitemaps); depth of the showing page (images). */
  depth: number;
  /** Page (or sitemap) where the URL was found. */
  referrer?: string;
  /** Small JSON-serialisable payload carried to the fetch (for images: the alt/caption context). */
  data?: Record<string, string>;
}

export interface FrontierEntry extends FrontierItem {
  crawlId: string;
  /** host[:port] of the URL: the unit of politeness. */
  host: string;
  state: FrontierState;
  /** Failed attempts so far. */
  attempts: number;
  /** Epoch ms before which the entry is not fetched (retry backoff). */
  dueAt: number;
  lastError?: string;
}

export type StateCounts = Record<FrontierState, number>;
export type FrontierCounts = Record<FrontierKind, StateCounts>;

export interface DueHost {
  host: string;
  /** Earliest dueAt among the host's queued entries. */
  dueAt: number;
}

export interface CrawlFrontierStore {
  /**
   * Adds the items whose URL this crawl has never seen, in any state (so a finished URL is not
   * fetched again after a restart), and image items whose URL is a page entry an image takes over
   * (imageTakesOver: it becomes a queued image entry). Within one batch an image item wins over a page
   * item of the same URL, otherwise the first item wins. Returns the URLs that were new or taken over.
   */
  enqueue(crawlId: string, items: readonly FrontierItem[], now?: number): Promise<string[]>;
  /** Hosts that have queued entries of the given kinds, with their earliest due time. */
  dueHosts(crawlId: string, kinds?: readonly FrontierKind[]): Promise<DueHost[]>;
  /**
   * Atomically moves the next due entry of `host` (lowest depth first, then oldest) to `claimed`
   * and returns it; null when the host has nothing due at `now`.
   */
  claimNext(
    crawlId: string,
    host: string,
    now: number,
    kinds?: readonly FrontierKind[],
  ): Promise<FrontierEntry | null>;
  markDone(crawlId: string, url: string): Promise<void>;
  /** Not fetched on purpose (robots.txt, duplicate, out of scope); not an error. */
  markSkipped(crawlId: string, url: string, reason: string): Promise<void>;
  /**
   * A failed attempt. With `retryAt` the entry goes back to `queued`, due then, attempts + 1;
   * with null it is `failed` for good.
   */
  markFailed(crawlId: string, url: string, error: string, retryAt: number | null): Promise<void>;
  /**
   * Puts a claimed entry back to `queued` without counting an attempt: unchanged (the crawl was stopped
   * mid-fetch), or due at `dueAt` (its host cannot be fetched before then).
   */
  release(crawlId: string, url: string, dueAt?: number): Promise<void>;
  /**
   * The host asked to be left alone until `until` (429/503 with Retry-After): its queued entries are not
   * due before then, and the time is kept for every later run of the crawl (a slice, a resume).
   */
  postponeHost(crawlId: string, host: string, until: number): Promise<void>;
  /** The hosts still asking to be left alone at `now` (postponeHost), with until when. */
  hostPauses(crawlId: string, now: number): Promise<Map<string, number>>;
  /** Returns entries a crashed run left `claimed` to `queued`; call before a run starts. Returns how many. */
  requeueClaimed(crawlId: string): Promise<number>;
  counts(crawlId: string): Promise<FrontierCounts>;
  /** One entry as stored, or undefined when the crawl has never seen the URL. */
  findOne(crawlId: string, url: string): Promise<FrontierEntry | undefined>;
  /** The URLs of the crawl's depth-0 pages: its seeds and the addresses they redirected to. */
  seedPages(crawlId: string): Promise<string[]>;
  /**
   * The host's robots.txt could not be read at `now`. Returns since when it has not been: the first such
   * time since it was last read (markRobotsReachable), kept across runs.
   */
  markRobotsUnreachable(crawlId: string, host: string, now: number): Promise<number>;
  /**
   * The host's robots.txt was read: a later outage is counted from its own start. True when this ended an
   * outage that was recorded.
   */
  markRobotsReachable(crawlId: string, host: string): Promise<boolean>;
}

function emptyCounts(): FrontierCounts {
  const states = (): StateCounts => ({ queued: 0, claimed: 0, done: 0, failed: 0, skipped: 0 });
  return { page: states(), image: states(), sitemap: states() };
}

interface StoredEntry extends FrontierEntry {
  seq: number;
}

interface CrawlState {
  entries: Map<string, StoredEntry>;
  /** Queued URLs per host, so claiming does not scan the whole crawl. */
  queuedByHost: Map<string, Set<string>>;
  /** Per host whose robots.txt cannot be read, since when. */
  robotsOutages: Map<string, number>;
  /** Per host that asked to be left alone (Retry-After), until when. */
  hostPauses: Map<string, number>;
  seq: number;
}

/** Plain JSON form of an in-memory frontier, to simulate a process restart in tests. */
export type FrontierSnapshot = Record<string, Array<FrontierEntry & { seq: number }>>;

/** Frontier in process memory: for tests and one-off crawls. It survives stop()/run() but not a restart. */
export class InMemoryFrontierStore implements CrawlFrontierStore {
  private readonly crawls = new Map<string, CrawlState>();

  private crawl(crawlId: string): CrawlState {
    let state = this.crawls.get(crawlId);
    if (!state) {
      state = {
        entries: new Map(),
        queuedByHost: new Map(),
        robotsOutages: new Map(),
        hostPauses: new Map(),
        seq: 0,
      };
      this.crawls.set(crawlId, state);
    }
    return state;
  }

  private setState(crawl: CrawlState, entry: StoredEntry, state: FrontierState): void {
    const queued = crawl.queuedByHost.get(entry.host) ?? new Set<string>();
    if (state === 'queued') queued.add(entry.url);
    else queued.delete(entry.url);
    if (queued.size) crawl.queuedByHost.set(entry.host, queued);
    else crawl.queuedByHost.delete(entry.host);
    entry.state = state;
  }

  private entry(crawlId: string, url: string): { crawl: CrawlState; entry: StoredEntry } {
    const crawl = this.crawl(crawlId);
    const entry = crawl.entries.get(url);
    if (!entry) throw new Error(`frontier has no ${url} in crawl ${crawlId}`);
    return { crawl, entry };
  }

  async enqueue(crawlId: string, items: readonly FrontierItem[], now = Date.now()): Promise<string[]> {
    const crawl = this.crawl(crawlId);
    const added: string[] = [];
    for (const item of items) {
      const existing = crawl.entries.get(item.url);
      if (existing && !imageTakesOver(existing, item)) continue;
      const entry: StoredEntry = {
        ...item,
        crawlId,
        host: hostKey(item.url),
        state: 'queued',
        attempts: 0,
        dueAt: now,
        seq: existing?.seq ?? crawl.seq++,
      };
      crawl.entries.set(item.url, entry);
      this.setState(crawl, entry, 'queued');
      added.push(item.url);
    }
    return added;
  }

  async dueHosts(crawlId: string, kinds?: readonly FrontierKind[]): Promise<DueHost[]> {
    const crawl = this.crawl(crawlId);
    const hosts: DueHost[] = [];
    for (const [host, urls] of crawl.queuedByHost) {
      let dueAt = Infinity;
      for (const url of urls) {
        const entry = crawl.entries.get(url)!;
        if (!kinds || kinds.includes(entry.kind)) dueAt = Math.min(dueAt, entry.dueAt);
      }
      if (dueAt !== Infinity) hosts.push({ host, dueAt });
    }
    return hosts.sort((a, b) => a.dueAt - b.dueAt);
  }

  async claimNext(
    crawlId: string,
    host: string,
    now: number,
    kinds?: readonly FrontierKind[],
  ): Promise<FrontierEntry | null> {
    const crawl = this.crawl(crawlId);
    let best: StoredEntry | undefined;
    for (const url of crawl.queuedByHost.get(host) ?? []) {
      const entry = crawl.entries.get(url)!;
      if (entry.dueAt > now || (kinds && !kinds.includes(entry.kind))) continue;
      if (!best || entry.depth < best.depth || (entry.depth === best.depth && entry.seq < best.seq))
        best = entry;
    }
    if (!best) return null;
    this.setState(crawl, best, 'claimed');
    return this.copy(best);
  }

  async markDone(crawlId: string, url: string): Promise<void> {
    const { crawl, entry } = this.entry(crawlId, url);
    this.setState(crawl, entry, 'done');
  }

  async markSkipped(crawlId: string, url: string, reason: string): Promise<void> {
    const { crawl, entry } = this.entry(crawlId, url);
    entry.lastError = reason;
    this.setState(crawl, entry, 'skipped');
  }

  async markFailed(crawlId: string, url: string, error: string, retryAt: number | null): Promise<void> {
    const { crawl, entry } = this.entry(crawlId, url);
    entry.attempts++;
    entry.lastError = error;
    if (retryAt === null) {
      this.setState(crawl, entry, 'failed');
    } else {
      entry.dueAt = retryAt;
      this.setState(crawl, entry, 'queued');
    }
  }

  async release(crawlId: string, url: string, dueAt?: number): Promise<void> {
    const { crawl, entry } = this.entry(crawlId, url);
    if (entry.state !== 'claimed') return;
    if (dueAt !== undefined) entry.dueAt = dueAt;
    this.setState(crawl, entry, 'queued');
  }

  async postponeHost(crawlId: string, host: string, until: number): Promise<void> {
    const crawl = this.crawl(crawlId);
    crawl.hostPauses.set(host, Math.max(crawl.hostPauses.get(host) ?? 0, until));
    for (const url of crawl.queuedByHost.get(host) ?? []) {
      const entry = crawl.entries.get(url)!;
      entry.dueAt = Math.max(entry.dueAt, until);
    }
  }

  async hostPauses(crawlId: string, now: number): Promise<Map<string, number>> {
    return new Map([...this.crawl(crawlId).hostPauses].filter(([, until]) => until > now));
  }

  async requeueClaimed(crawlId: string): Promise<number> {
    const crawl = this.crawl(crawlId);
    let count = 0;
    for (const entry of crawl.entries.values()) {
      if (entry.state !== 'claimed') continue;
      this.setState(crawl, entry, 'queued');
      count++;
    }
    return count;
  }

  async counts(crawlId: string): Promise<FrontierCounts> {
    const counts = emptyCounts();
    for (const entry of this.crawl(crawlId).entries.values()) counts[entry.kind][entry.state]++;
    return counts;
  }

  async markRobotsUnreachable(crawlId: string, host: string, now: number): Promise<number> {
    const outages = this.crawl(crawlId).robotsOutages;
    if (!outages.has(host)) outages.set(host, now);
    return outages.get(host)!;
  }

  async markRobotsReachable(crawlId: string, host: string): Promise<boolean> {
    return this.crawl(crawlId).robotsOutages.delete(host);
  }

  async findOne(crawlId: string, url: string): Promise<FrontierEntry | undefined> {
    const entry = this.crawls.get(crawlId)?.entries.get(url);
    return entry && this.copy(entry);
  }

  async seedPages(crawlId: string): Promise<string[]> {
    const entries = [...(this.crawls.get(crawlId)?.entries.values() ?? [])];
    return entries.filter((entry) => entry.kind === 'page' && entry.depth === 0).map((entry) => entry.url);
  }

  snapshot(): FrontierSnapshot {
    return JSON.parse(
      JSON.stringify(
        Object.fromEntries([...this.crawls].map(([id, crawl]) => [id, [...crawl.entries.values()]])),
      ),
    ) as FrontierSnapshot;
  }

  static fromSnapshot(snapshot: FrontierSnapshot): InMemoryFrontierStore {
    const store = new InMemoryFrontierStore();
    for (const [crawlId, entries] of Object.entries(snapshot)) {
      const crawl = store.crawl(crawlId);
      for (const stored of entries) {
        const entry: StoredEntry = { ...stored };
        crawl.entries.set(entry.url, entry);
        crawl.seq = Math.max(crawl.seq, entry.seq + 1);
        store.setState(crawl, entry, entry.state);
      }
    }
    return store;
  }

  private copy(entry: StoredEntry): FrontierEntry {
    const { seq: _seq, ...rest } = entry;
    return { ...rest, data: rest.data && { ...rest.data } };
  }
}
