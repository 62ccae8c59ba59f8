import { IMAGE_URL_MESSAGES, SEARCH_MESSAGES } from '@osint/contract/search';
import type { Config } from '../config.ts';
import { crawlOptionsFromConfig, DEFAULT_CRAWL_OPTIONS } from '../crawler/crawl-options.ts';
import { FetchError, safeFetch, type FetchErrorCode } from '../crawler/safe-fetch.ts';
import { badRequest, HttpError } from '../lib/http-error.ts';
import type { CrawlRepository } from '../repositories/crawl-frontier.repository.ts';
import { pinnedResolver, type StoredCrawlOptions } from './crawl.service.ts';
import { storedCrawlOptionsOf } from './indexed-image-fetcher.ts';

/** The bytes of a photo named by its address, for a search by image URL; never stored. */
export interface ImageUrlSource {
  /** Throws an HttpError saying what is wrong (400, or 413 for a photo over the upload limit). */
  bytesOf(url: string): Promise<Buffer>;
}

/** The query photo types of an upload (spec 001 §1: JPG, PNG, BMP, TIFF). */
const QUERY_IMAGE_TYPES = new Set([
  'image/jpeg',
  'image/jpg',
  'image/pjpeg',
  'image/png',
  'image/bmp',
  'image/x-ms-bmp',
  'image/tiff',
]);

/** A photo from a URL has the limits of an uploaded one, and a shorter deadline than a crawl's. */
const TOTAL_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;

const FETCH_MESSAGES: Record<FetchErrorCode, string> = {
  'bad-url': IMAGE_URL_MESSAGES.invalidUrl,
  scheme: IMAGE_URL_MESSAGES.invalidUrl,
  port: IMAGE_URL_MESSAGES.refused,
  blocked: IMAGE_URL_MESSAGES.refused,
  'redirect-refused': IMAGE_URL_MESSAGES.refused,
  dns: IMAGE_URL_MESSAGES.unreachable,
  network: IMAGE_URL_MESSAGES.unreachable,
  tls: IMAGE_URL_MESSAGES.unreachable,
  timeout: IMAGE_URL_MESSAGES.unreachable,
  aborted: IMAGE_URL_MESSAGES.unreachable,
  'too-many-redirects': IMAGE_URL_MESSAGES.unreachable,
  'too-large': SEARCH_MESSAGES.tooBig,
  'content-type': SEARCH_MESSAGES.unsupportedFile,
};

/**
 * Fetches a query photo on the server, through the crawler's SSRF-safe fetch: private and loopback
 * addresses are refused unless CRAWL_ALLOW_PRIVATE lifts it (as for crawls), the body is capped at the
 * upload limit, and only the upload's image types are read. The port of the address given is allowed
 * (the address guard, not the port, keeps internal services out); redirects may not change it.
 *
 * A host name a crawl pinned to an address (the demo sites) is reached as that crawl reached it, with
 * that crawl's trusted addresses and ports, and only for that host: an image of a result can then be
 * searched by its address, as the result viewer offers.
 */
export class ImageUrlFetcher implements ImageUrlSource {
  constructor(
    private readonly config: Pick<Config, 'publicUrl' | 'crawlAllowPrivate'>,
    private readonly crawls: Pick<CrawlRepository, 'findAllOptions'>,
    private readonly maxBytes: number,
  ) {}

  async bytesOf(url: string): Promise<Buffer> {
    let parsed: URL;
    try {
      parsed = new URL(url.trim());
    } catch {
      throw badRequest(IMAGE_URL_MESSAGES.invalidUrl);
    }
    const base = { ...DEFAULT_CRAWL_OPTIONS, ...crawlOptionsFromConfig(this.config) };
    const ports = parsed.port ? [Number(parsed.port)] : [];
    const port = ports[0] ?? (parsed.protocol === 'https:' ? 443 : 80);
    const pinning = await this.pinningCrawlOf(parsed.hostname);
    const pinnedPorts = pinning?.allowedPorts ?? [];
    // A host a crawl pinned to an address is reached as that crawl reached it, on its ports only (80 and
    // 443 too only when the crawl used them): the user's own port would turn the pinned, often loopback,
    // address into a port scanner. Any other address leads to public servers only. The operator's trusted
    // addresses (CRAWL_TRUSTED_ADDRESSES) open the guard for the operator's own crawls, never for an
    // address a user types, on whatever port: they are internal servers.
    const guard =
      pinning && pinnedPorts.includes(port)
        ? {
            trustedAddresses: pinning.trustedAddresses ?? [],
            allowedPorts: pinnedPorts,
            resolveHost: pinnedResolver(pinning.hostAddresses!),
          }
        : { trustedAddresses: [], allowedPorts: ports };
    let result;
    try {
      result = await safeFetch(parsed, {
        userAgent: base.userAgent,
        allowPrivate: base.allowPrivate,
        ...guard,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        totalTimeoutMs: TOTAL_TIMEOUT_MS,
        maxRedirects: base.maxRedirects,
        maxBytes: this.maxBytes,
        accept: 'image/jpeg,image/png,image/bmp,image/tiff;q=0.9,image/*;q=0.5',
        acceptContentType: (mime) => QUERY_IMAGE_TYPES.has(mime),
      });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      const message = FETCH_MESSAGES[error.code];
      throw new HttpError(error.code === 'too-large' ? 413 : 400, message);
    }
    if (result.status < 200 || result.status >= 300) throw badRequest(IMAGE_URL_MESSAGES.notFound);
    if (result.body.length === 0) throw badRequest(SEARCH_MESSAGES.unsupportedFile);
    return result.body;
  }

  private async pinningCrawlOf(hostname: string): Promise<StoredCrawlOptions | undefined> {
    const host = hostname.toLowerCase();
    return (await this.crawls.findAllOptions())
      .map(storedCrawlOptionsOf)
      .find((options) => options.hostAddresses?.[host] !== undefined);
  }
}
