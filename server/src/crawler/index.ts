// Public surface of the crawler for the server (jobs, CLI) and the database-backed frontier store.
export {
  Crawler,
  type CrawledImage,
  type CrawledPage,
  type CrawlErrorEvent,
  type CrawlerCallbacks,
  type CrawlerInit,
  type CrawlProgress,
  type CrawlSummary,
  type ImageOccurrence,
} from './crawler.ts';
export {
  DEFAULT_CRAWL_OPTIONS,
  PRODUCT_TOKEN,
  crawlOptionsFromConfig,
  crawlerUserAgent,
  type CrawlOptions,
} from './crawl-options.ts';
export {
  InMemoryFrontierStore,
  type CrawlFrontierStore,
  type DueHost,
  type FrontierCounts,
  type FrontierEntry,
  type FrontierItem,
  type FrontierKind,
  type FrontierState,
} from './frontier.ts';
export { analyzeImage, sha256Hex, type ImageAnalysis } from './image-process.ts';
export {
  NEAR_DUPLICATE_MAX_DISTANCE,
  hammingDistance,
  isNearDuplicate,
  perceptualHash,
} from './perceptual-hash.ts';
export { extractPage, type ExtractedPage, type PageImage } from './html-extract.ts';
export { FetchError, safeFetch, type FetchResult, type SafeFetchOptions } from './safe-fetch.ts';
export { blockedAddressReason, isBlockedAddress } from './ip-guard.ts';
export { normalizeUrl } from './url-normalize.ts';
