import type { Config } from '../config.ts';
import { MAX_IMAGE_PIXELS } from '../face/image-decode.ts';
import type { ResolvedAddress } from './safe-fetch.ts';

/** Product token matched against robots.txt User-agent lines and `<meta name="...">`. */
export const PRODUCT_TOKEN = 'OSINTPlatformBot';

/** `OSINTPlatformBot/1.0 (+https://example.org/about-us)`: tells site owners who we are and where to read why. */
export function crawlerUserAgent(publicUrl: string): string {
  return `${PRODUCT_TOKEN}/1.0 (+${publicUrl.replace(/\/+$/, '')}/about-us)`;
}

export interface CrawlOptions {
  userAgent: string;
  productToken: string;
  /** Lift the SSRF refusal of private/loopback/link-local addresses. Local testing only. */
  allowPrivate: boolean;
  /** Exact private IPs allowed while the guard is on (an on-premises host; tests). */
  trustedAddresses: string[];
  /** Ports allowed besides 80 and 443. */
  allowedPorts: number[];
  /** Replaces DNS resolution (tests, split-horizon setups); the SSRF check still applies to its answers. */
  resolveHost: ((hostname: string) => Promise<ResolvedAddress[]>) | undefined;

  /** Link distance from a seed beyond which pages are not enqueued. */
  maxDepth: number;
  /** Pages fetched over the whole crawl (across restarts). */
  maxPages: number;
  /** Images fetched over this run. */
  maxImages: number;
  /** Follow links to hosts other than the seeds' (and their www. twins). */
  followExternalLinks: boolean;
  /** More hosts whose pages are in scope. */
  allowedHosts: string[];
  /** Fetch images wherever they are hosted (CDNs); when false only in-scope hosts. */
  fetchExternalImages: boolean;
  /** Read robots.txt Sitemap: lines and /sitemap.xml of each seed host. */
  useSitemaps: boolean;
  /** Hosts fetched at the same time (each host still gets one connection at a time). */
  concurrency: number;
  /**
   * Entries handled at once, all hosts together. A fetched image leaves its host to the next fetch while
   * it is analysed and indexed, so several images of one site are in the face engine's hands at once
   * (every face worker busy); this bounds them, and the image bytes held in memory.
   */
  maxInFlight: number;

  /** Minimum pause between two requests to one host. */
  politenessDelayMs: number;
  /** Robots Crawl-delay is honoured up to this; beyond it the crawl would stall. */
  maxCrawlDelayMs: number;
  robotsCacheTtlMs: number;
  /** How long an unreachable robots.txt (5xx, timeout) blocks the host before it is tried again. */
  robotsRetryMs: number;
  /**
   * How long a host is waited for while its robots.txt cannot be read (counted across runs). Its URLs go
   * back to the queue without using up their retries meanwhile; after this they fail as after any other
   * retryable error, so a host that never answers does not keep the crawl from ending.
   */
  maxRobotsWaitMs: number;

  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  maxHtmlBytes: number;
  maxImageBytes: number;
  maxSitemapBytes: number;
  maxRobotsBytes: number;

  /** Attempts after the first for 5xx, 429, timeouts and network errors. */
  maxRetries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;

  maxTextChars: number;
  maxNearbyChars: number;
  maxLinksPerPage: number;
  maxImagesPerPage: number;
  thumbnailSize: number;
  maxImagePixels: number;
}

export const DEFAULT_CRAWL_OPTIONS: CrawlOptions = {
  userAgent: crawlerUserAgent('http://localhost:3000'),
  productToken: PRODUCT_TOKEN,
  allowPrivate: false,
  trustedAddresses: [],
  allowedPorts: [],
  resolveHost: undefined,

  maxDepth: 5,
  maxPages: 10_000,
  maxImages: 50_000,
  followExternalLinks: false,
  allowedHosts: [],
  fetchExternalImages: true,
  useSitemaps: true,
  concurrency: 4,
  maxInFlight: 8,

  politenessDelayMs: 1_000,
  maxCrawlDelayMs: 30_000,
  robotsCacheTtlMs: 24 * 3600_000,
  robotsRetryMs: 60_000,
  maxRobotsWaitMs: 30 * 60_000,

  connectTimeoutMs: 10_000,
  totalTimeoutMs: 30_000,
  maxRedirects: 5,
  maxHtmlBytes: 5 * 1024 * 1024,
  maxImageBytes: 20 * 1024 * 1024,
  // The sitemap protocol allows 50 MB uncompressed per file.
  maxSitemapBytes: 50 * 1024 * 1024,
  // RFC 9309 asks crawlers to parse at least 500 KiB.
  maxRobotsBytes: 512 * 1024,

  maxRetries: 3,
  retryBaseDelayMs: 2_000,
  maxRetryDelayMs: 10 * 60_000,

  maxTextChars: 100_000,
  maxNearbyChars: 500,
  maxLinksPerPage: 2_000,
  maxImagesPerPage: 500,
  thumbnailSize: 256,
  maxImagePixels: MAX_IMAGE_PIXELS,
};

/** The part of the crawl options that comes from the server settings. */
export function crawlOptionsFromConfig(
  config: Pick<Config, 'publicUrl' | 'crawlAllowPrivate'>,
): Partial<CrawlOptions> {
  return { userAgent: crawlerUserAgent(config.publicUrl), allowPrivate: config.crawlAllowPrivate };
}
