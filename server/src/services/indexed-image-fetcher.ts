import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import {
  crawlOptionsFromConfig,
  DEFAULT_CRAWL_OPTIONS,
  type CrawlOptions,
} from '../crawler/crawl-options.ts';
import { headerRobots } from '../crawler/crawler.ts';
import { sha256Hex } from '../crawler/image-process.ts';
import { robotsFromStatus, type RobotsPolicy } from '../crawler/robots.ts';
import { FetchError, safeFetch, type SafeFetchOptions } from '../crawler/safe-fetch.ts';
import { hostKey } from '../crawler/url-normalize.ts';
import type { CrawlRepository } from '../repositories/crawl-frontier.repository.ts';
import type { ImageToReindex } from '../repositories/face-model.repository.ts';
import { pinnedResolver, type StoredCrawlOptions } from './crawl.service.ts';

/**
 * The bytes of an indexed image, to analyse them again: undefined when they cannot be had any more (every
 * address answers 404, 410 or other bytes); ImageUnreachableError when a site did not answer for now.
 */
export interface ImageBytesSource {
  bytesOf(image: ImageToReindex, signal?: AbortSignal): Promise<Buffer | undefined>;
}

/** No address gave the image's bytes, and at least one failed in a way that may pass (as the crawler retries). */
export class ImageUnreachableError extends Error {
  constructor(readonly imageId: number) {
    super(`image ${imageId}: its site did not answer for now`);
    this.name = 'ImageUnreachableError';
  }
}

/** What one address gave: the bytes, nothing for good, or nothing for now. */
type FetchOutcome = Buffer | 'gone' | 'unreachable';

/** The crawler's rule: 5xx and 429 answers, time-outs, network and DNS failures may pass. */
const isTransientStatus = (status: number) => status >= 500 || status === 429;

interface CrawlSettings {
  isDemo: boolean;
  options: StoredCrawlOptions;
}

const isRasterImage = (mime: string) => mime.startsWith('image/') && mime !== 'image/svg+xml';

/**
 * Gets the bytes of an indexed image again, for a reindex. The index keeps only a 256-px thumbnail of
 * each image (too small to find 40-px faces in), never the image itself, so:
 *
 * 1. the bundled demo photos are rendered here (no server needs to run) and matched by content hash;
 * 2. otherwise each address the image was seen at is fetched again, latest first, through the crawler's
 *    SSRF-safe fetch with the crawler's limits (size, timeouts, redirects, content type) and a polite
 *    pause per host. Only bytes with the image's SHA-256 are used: an address that now serves other
 *    bytes shows another image, which a crawl indexes as such.
 *
 * The SSRF guard opens exactly as wide as for the crawl that found the image: the trusted addresses of
 * the configuration, the ports admins wrote in seeds, and the host names a crawl pinned to an address
 * (the demo) only with that crawl's settings.
 */
export class IndexedImageFetcher implements ImageBytesSource {
  private crawls: Promise<CrawlSettings[]> | undefined;
  private demoPhotos: Promise<Map<string, Buffer>> | undefined;
  private readonly lastFetchAt = new Map<string, number>();
  /**
   * robots.txt per origin ('unreachable': it could not be read for now), kept as the crawler keeps it: a
   * day, or a minute when it could not be read (the retry pass at the end of a run asks again).
   */
  private readonly robots = new Map<
    string,
    { policy: Promise<RobotsPolicy | 'unreachable'>; expiresAt: number }
  >();

  /** The crawler's options under this configuration: its limits, user agent and robots.txt timings. */
  private readonly crawlDefaults: CrawlOptions;

  constructor(
    private readonly config: Config,
    private readonly crawlRepository: Pick<CrawlRepository, 'findAllOptions'>,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    /** The demo photos by file name (demo-site.ts renderDemoPhotos); a parameter so tests can leave it out. */
    private readonly renderDemoPhotos?: () => Promise<Map<string, Buffer>>,
  ) {
    this.crawlDefaults = { ...DEFAULT_CRAWL_OPTIONS, ...crawlOptionsFromConfig(config) };
  }

  async bytesOf(image: ImageToReindex, signal?: AbortSignal): Promise<Buffer | undefined> {
    const demo = (await this.demoPhotosByHash()).get(image.contentHash);
    if (demo) return demo;
    let unreachable = false;
    for (const url of image.urls) {
      const outcome = await this.fetch(url, signal);
      if (outcome === 'unreachable') unreachable = true;
      else if (outcome !== 'gone' && sha256Hex(outcome) === image.contentHash) return outcome;
    }
    if (unreachable) throw new ImageUnreachableError(image.id);
    return undefined;
  }

  /**
   * One address, as the crawler would fetch it now: a site's robots.txt that no longer allows the image, or
   * an X-Robots-Tag noindex on it, makes it gone; a robots.txt that cannot be read makes it unreachable
   * for now (RFC 9309: no crawling then).
   */
  private async fetch(url: string, signal: AbortSignal | undefined): Promise<FetchOutcome> {
    const options = await this.fetchOptionsFor(url, signal);
    if (!options) return 'gone';
    const robots = await this.robotsOf(url, options, signal);
    if (robots === 'unreachable') return 'unreachable';
    if (!robots.isAllowed(url)) return 'gone';
    const delayMs = Math.max(
      options.delayMs,
      Math.min(robots.crawlDelayMs ?? 0, this.crawlDefaults.maxCrawlDelayMs),
    );
    await this.politePause(url, delayMs, signal);
    try {
      const result = await safeFetch(url, options.fetch);
      if (headerRobots(result.headersDistinct['x-robots-tag'], this.crawlDefaults.productToken).noindex)
        return 'gone';
      if (result.status >= 200 && result.status < 300) return result.body;
      return isTransientStatus(result.status) ? 'unreachable' : 'gone';
    } catch (error) {
      if (signal?.aborted) throw error;
      this.log.warn({ url, err: error }, 'image not fetched again for the reindex');
      return error instanceof FetchError && error.retryable ? 'unreachable' : 'gone';
    }
  }

  private robotsOf(
    url: string,
    options: { fetch: SafeFetchOptions; delayMs: number },
    signal: AbortSignal | undefined,
  ): Promise<RobotsPolicy | 'unreachable'> {
    const robotsUrl = `${new URL(url).origin}/robots.txt`;
    const cached = this.robots.get(robotsUrl);
    if (cached && cached.expiresAt > Date.now()) return cached.policy;
    const entry = { policy: this.readRobots(robotsUrl, options, signal), expiresAt: Infinity };
    this.robots.set(robotsUrl, entry);
    entry.policy.then(
      (read) => {
        const { robotsRetryMs, robotsCacheTtlMs } = this.crawlDefaults;
        entry.expiresAt = Date.now() + (read === 'unreachable' ? robotsRetryMs : robotsCacheTtlMs);
      },
      // A stopped run's fetch is asked again by the next one.
      () => this.robots.delete(robotsUrl),
    );
    return entry.policy;
  }

  private async readRobots(
    robotsUrl: string,
    options: { fetch: SafeFetchOptions; delayMs: number },
    signal: AbortSignal | undefined,
  ): Promise<RobotsPolicy | 'unreachable'> {
    await this.politePause(robotsUrl, options.delayMs, signal);
    try {
      const result = await safeFetch(robotsUrl, {
        ...options.fetch,
        accept: 'text/plain,*/*;q=0.1',
        acceptContentType: () => true,
        maxBytes: this.crawlDefaults.maxRobotsBytes,
        truncate: true,
      });
      if (isTransientStatus(result.status)) return 'unreachable';
      const { productToken } = this.crawlDefaults;
      return robotsFromStatus(result.status, result.body.toString('utf8'), productToken, robotsUrl);
    } catch (error) {
      if (signal?.aborted) throw error;
      // Refusals (the SSRF guard, a port no crawl allowed) refuse the image's own fetch too.
      return error instanceof FetchError && !error.retryable ? robotsFromStatus(404, '', '') : 'unreachable';
    }
  }

  private async fetchOptionsFor(
    url: string,
    signal: AbortSignal | undefined,
  ): Promise<{ fetch: SafeFetchOptions; delayMs: number } | undefined> {
    let hostname: string;
    try {
      hostname = new URL(url).hostname.toLowerCase();
    } catch {
      return undefined;
    }
    const crawls = await this.crawlSettings();
    const base = this.crawlDefaults;
    const common = {
      userAgent: base.userAgent,
      allowPrivate: base.allowPrivate,
      connectTimeoutMs: base.connectTimeoutMs,
      totalTimeoutMs: base.totalTimeoutMs,
      maxRedirects: base.maxRedirects,
      maxBytes: base.maxImageBytes,
      accept: 'image/avif,image/webp,image/jpeg,image/png,image/*;q=0.8',
      acceptContentType: isRasterImage,
      ...(signal ? { signal } : {}),
    };
    // A host a crawl pinned to an address (the demo): that crawl's settings, and only for that host.
    const pinning = crawls.find((crawl) => crawl.options.hostAddresses?.[hostname] !== undefined);
    if (pinning) {
      const { options } = pinning;
      return {
        fetch: {
          ...common,
          trustedAddresses: [...this.config.crawl.trustedAddresses, ...(options.trustedAddresses ?? [])],
          allowedPorts: options.allowedPorts ?? [],
          resolveHost: pinnedResolver(options.hostAddresses!),
        },
        delayMs: options.politenessDelayMs ?? this.config.crawl.politenessDelayMs,
      };
    }
    const ports = new Set(
      crawls
        .filter((crawl) => !crawl.options.hostAddresses)
        .flatMap((crawl) => crawl.options.allowedPorts ?? []),
    );
    return {
      fetch: { ...common, trustedAddresses: this.config.crawl.trustedAddresses, allowedPorts: [...ports] },
      delayMs: this.config.crawl.politenessDelayMs,
    };
  }

  /**
   * One request per host and politeness delay, as the crawler keeps. Each fetch takes the next free slot
   * of its host before it waits, so fetches started together (several images at once) queue up.
   */
  private async politePause(url: string, delayMs: number, signal: AbortSignal | undefined): Promise<void> {
    const host = hostKey(url);
    const now = Date.now();
    const slot = Math.max(now, (this.lastFetchAt.get(host) ?? -Infinity) + delayMs);
    this.lastFetchAt.set(host, slot);
    if (slot > now) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, slot - now);
        signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  private crawlSettings(): Promise<CrawlSettings[]> {
    this.crawls ??= this.crawlRepository
      .findAllOptions()
      .then((rows) => rows.map((row) => ({ isDemo: row.is_demo, options: storedCrawlOptionsOf(row) })));
    return this.crawls;
  }

  private async demoPhotosByHash(): Promise<Map<string, Buffer>> {
    this.demoPhotos ??= (async () => {
      const demoCrawled = (await this.crawlSettings()).some((crawl) => crawl.isDemo);
      if (!demoCrawled || !this.renderDemoPhotos) return new Map<string, Buffer>();
      const photos = await this.renderDemoPhotos();
      return new Map([...photos.values()].map((bytes) => [sha256Hex(bytes), bytes]));
    })();
    return this.demoPhotos;
  }
}

/** A crawls row's stored options, pinned host names in lower case. */
export function storedCrawlOptionsOf(row: { options: unknown }): StoredCrawlOptions {
  return normaliseHosts(
    (typeof row.options === 'string' ? JSON.parse(row.options) : row.options) as StoredCrawlOptions,
  );
}

function normaliseHosts(options: StoredCrawlOptions): StoredCrawlOptions {
  if (!options.hostAddresses) return options;
  return {
    ...options,
    hostAddresses: Object.fromEntries(
      Object.entries(options.hostAddresses).map(([host, address]) => [host.toLowerCase(), address]),
    ),
  };
}
