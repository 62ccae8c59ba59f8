import type { FastifyBaseLogger } from 'fastify';
import type { RobotsOutageEvent } from '../crawler/crawler.ts';
import type { CrawlFrontierRepository, CrawlRepository } from '../repositories/crawl-frontier.repository.ts';

/**
 * Starts a crawl's last_error while the crawl waits for a robots.txt: only a message starting so is cleared
 * when the wait ends, never an error of another kind.
 */
export const ROBOTS_WAIT_PREFIX = 'Waiting for robots.txt';
/** Hosts named in the message; a crawl of many sites may wait for more at once. */
const MAX_HOSTS_SHOWN = 5;

export interface RobotsWait {
  host: string;
  since: Date;
  /** What robots.txt last answered, when this run has seen it. */
  status?: number;
}

/** What the admin reads in the crawl's last error while it waits for the robots.txt of these hosts. */
export function robotsWaitMessage(waits: readonly RobotsWait[], maxWaitMs: number): string {
  const shown = waits.slice(0, MAX_HOSTS_SHOWN).map((wait) => {
    const answer = wait.status === undefined ? 'unavailable' : `HTTP ${wait.status}`;
    const giveUp = new Date(wait.since.getTime() + maxWaitMs).toISOString();
    return `${wait.host} (${answer} since ${wait.since.toISOString()}; waited for until ${giveUp})`;
  });
  const more = waits.length - shown.length;
  const hosts = more > 0 ? `${shown.join(', ')} and ${more} more hosts` : shown.join(', ');
  const one = waits.length === 1;
  return (
    `${ROBOTS_WAIT_PREFIX} of ${hosts}: the crawl fetches nothing from ${one ? 'that host' : 'those hosts'} ` +
    `meanwhile and reads robots.txt again; a host's URLs fail if it still cannot be read by then.`
  );
}

/**
 * Keeps the crawl's last_error saying which robots.txt it waits for while it does, for one run of the
 * crawl: its URLs wait without failing, so nothing else would tell the admin why the crawl seems idle.
 * The hosts come from crawl_robots_outages (kept across the crawl's runs), so that a message written by an
 * earlier slice is corrected or cleared by the first change this run sees.
 */
export class RobotsWaitNotice {
  private readonly statuses = new Map<string, number>();
  /** One write at a time, each from the outages as they are then: the last one written is the latest. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly crawls: CrawlRepository,
    private readonly frontier: CrawlFrontierRepository,
    private readonly crawlId: number,
    private readonly publicId: string,
    /** The crawler's maxRobotsWaitMs: an outage older than this is no longer waited for. */
    private readonly maxWaitMs: number,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
  ) {}

  /** For the crawler's onRobotsOutage. Never rejects: a status message is not worth stopping the crawl. */
  update(event: RobotsOutageEvent): Promise<void> {
    if (event.waiting) this.statuses.set(event.host, event.status);
    else this.statuses.delete(event.host);
    this.writing = this.writing
      .then(() => this.write())
      .catch((error: unknown) => {
        this.log.warn({ err: error, crawlId: this.crawlId }, 'robots.txt wait not shown');
      });
    return this.writing;
  }

  private async write(): Promise<void> {
    const now = Date.now();
    const waits = (await this.frontier.findRobotsOutages(this.publicId))
      .filter((outage) => now - outage.since.getTime() < this.maxWaitMs)
      .map((outage) => ({ ...outage, status: this.statuses.get(outage.host) }));
    if (waits.length === 0) await this.crawls.clearLastErrorStartingWith(this.crawlId, ROBOTS_WAIT_PREFIX);
    else await this.crawls.setLastError(this.crawlId, robotsWaitMessage(waits, this.maxWaitMs));
  }
}
