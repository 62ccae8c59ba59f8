import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_FASTSPRING_API_URL, type FastSpringApiConfig } from './billing/fastspring-api.ts';
import type { ObjectStoreConfig } from './lib/s3-blob-store.ts';

/** Every setting of the server in one typed object: environment variables over embedded defaults. */
export interface Config {
  port: number;
  host: string;
  /**
   * This machine's local state. Embedded (no DATABASE_URL): the PGlite database, face index snapshots and
   * the mail outbox. Production mode (DATABASE_URL): machine-local scratch only (face index snapshots this
   * process may rebuild from the database); nothing in it is shared with another process or machine.
   */
  dataDir: string;
  /** The product's own origin, used in e-mail links and for the Origin check on state-changing calls. */
  publicUrl: string;
  /** PostgreSQL server instead of the embedded PGlite database. */
  databaseUrl: string | undefined;
  /**
   * Which face index searches use (FACE_INDEX): 'usearch' (default; HNSW in every process's memory, snapshots
   * under DATA_DIR) or 'pgvector' (HNSW inside PostgreSQL; needs DATABASE_URL and the vector extension).
   */
  faceIndex: FaceIndexEngine;
  /**
   * Publish usearch snapshots in the database (FACE_INDEX_PUBLISH; default on with DATABASE_URL): the writer
   * uploads each snapshot it saves, and a process whose DATA_DIR has none (a machine of its own) downloads
   * it instead of building its index from every vector. Off in the embedded mode, where one process
   * and one DATA_DIR hold everything.
   */
  faceIndexPublish: boolean;
  /**
   * Thumbnails in an S3-compatible object store (OBJECT_STORE_URL, OBJECT_STORE_REGION) instead of the
   * database; unset: the database. Face-index snapshot publications stay in the database either way.
   */
  objectStore: ObjectStoreConfig | undefined;
  /** smtp://host:port; unset writes every message as an .eml file to DATA_DIR/outbox (embedded mode). */
  mailUrl: string | undefined;
  /**
   * MAIL_OUTBOX=1: keep the .eml outbox in production mode although DATA_DIR is not shared (one machine
   * only: trials, tests, benchmarks). Without it production mode refuses to start without MAIL_URL.
   */
  mailOutboxInProduction: boolean;
  mailFrom: string;
  supportEmail: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /** Run job handlers in this process (false for API-only processes). */
  runWorkers: boolean;
  /** Seed a demo organization and a demo site on first start. */
  demoData: boolean;
  /** Lift the crawler's refusal of private and loopback addresses (local testing only). */
  crawlAllowPrivate: boolean;
  crawl: {
    /** Pause between two requests to one host (CRAWL_DELAY_MS). */
    politenessDelayMs: number;
    /** Exact private IPs the SSRF guard lets through, e.g. an on-premises site (CRAWL_TRUSTED_ADDRESSES, comma-separated). */
    trustedAddresses: string[];
    /** A crawl job hands over to a fresh job after this long, so the queue never takes it for a dead worker's. */
    jobSliceMs: number;
    /** How soon an unavailable robots.txt is read again; unset: the crawler's default (a minute). Tests shorten it. */
    robotsRetryMs?: number;
  };
  /**
   * Face engine worker threads (FACE_THREADS). Unset: cores − 1 in a process that serves the API, every
   * core in one that only indexes (npm run crawl, npm run worker); at most 4 either way.
   */
  faceThreads: number | undefined;
  /**
   * PDF reports are drawn in worker threads, off the thread that answers requests. `workers`
   * (REPORT_WORKERS): default 1, at most cores − 1; `renderTimeoutMs` (REPORT_TIMEOUT_MS, default 120 s)
   * and `workerHeapMb` (REPORT_WORKER_HEAP_MB, default 512) bound one report: beyond them it fails alone.
   */
  reports: { workers: number; renderTimeoutMs: number; workerHeapMb: number };
  /** Port of the bundled demo site on 127.0.0.1 (DEMO_SITE_PORT; default PORT + 1). */
  demoSitePort: number;
  webDistDir: string;
  session: { idleMinutes: number; absoluteHours: number };
  rateLimit: { enabled: boolean };
  logLevel: string;
  /**
   * Secret that seals the face tokens of uploads (QUERY_FACE_KEY); unset: a key generated once and kept in
   * the database, which every process over that database shares.
   */
  queryFaceKey: string | undefined;
  /** Bearer token a Prometheus scraper sends to GET /api/metrics (METRICS_TOKEN); unset: admins only. */
  metricsToken: string | undefined;
  /** First retry delay of a failed job (JOB_RETRY_BASE_MS, default 5 s); each retry waits four times longer. */
  jobRetryBaseMs: number;
  /**
   * A running job without a heartbeat this long belonged to a dead worker and runs again elsewhere
   * (JOB_STALE_AFTER_MS, default 2 minutes; running jobs renew it every quarter of that).
   */
  jobStaleAfterMs: number;
  /** Hosts whose pages count as social media: SOCIAL_MEDIA_SEARCH searches only these, OSINT the rest. */
  socialMediaHosts: string[];
  /**
   * Wikipedia REST API of the data extractor (WIKIPEDIA_URL; "off" disables). Unset: https://en.wikipedia.org,
   * or the demo site's own small wiki when DEMO_DATA is on (main.ts), so that the demo stays on this machine.
   */
  wikipediaUrl: string | undefined;
  /** Optional OpenAI-compatible server for the data extractor (LLM_URL, LLM_MODEL, LLM_API_KEY); unset: no LLM. */
  llm: { url: string | undefined; model: string; apiKey: string | undefined };
  billing: BillingConfig;
}

/** The seller and bank printed on proforma invoices, and the FastSpring store (README: Configuration). */
export interface BillingConfig {
  seller: { name: string; address: string; taxId: string; email: string };
  bank: { accountName: string; accountNumber: string; bankName: string; swift: string; address: string };
  fastspring: {
    /** Store Builder storefront, e.g. "yourstore.test.onfastspring.com/popup-yourstore". */
    storefront: string;
    accessKey: string;
    scriptUrl: string;
    /** Shared secret of the webhook's X-FS-Signature; without it every webhook call is refused. */
    webhookSecret: string | undefined;
    /** PEM RSA private key for secure payloads; without it sessions are sent in plain JSON (test stores). */
    privateKey: string | undefined;
    /**
     * Apply test-mode events (`"live": false`, test orders of a test storefront) as if they were paid.
     * Off by default: a test order must never grant a real plan. Only for test storefronts and tests.
     */
    acceptTestEvents: boolean;
    /**
     * FastSpring's server API (FASTSPRING_API_USERNAME, FASTSPRING_API_PASSWORD, FASTSPRING_API_URL), used
     * to cancel the card subscription of a plan an admin ends; without it the admin is told to cancel it in
     * FastSpring's app.
     */
    api: FastSpringApiConfig | undefined;
  };
}

export type FaceIndexEngine = 'usearch' | 'pgvector';

/** FACE_INDEX; the schema migration reads it too (it creates pgvector's extension only when selected). */
export function faceIndexEngine(value: string | undefined): FaceIndexEngine {
  if (value === undefined || value === '' || value === 'usearch') return 'usearch';
  if (value === 'pgvector') return 'pgvector';
  throw new Error(`FACE_INDEX must be usearch or pgvector, not ${value}`);
}

const OBJECT_STORE_URL_FORM = 'http(s)://ACCESS_KEY:SECRET@host:port/bucket';
/** S3's bucket naming rules: 3–63 lower-case letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * OBJECT_STORE_URL (http(s)://ACCESS_KEY:SECRET@host:port/bucket, credentials URL-encoded) and
 * OBJECT_STORE_REGION (default us-east-1). Errors name the setting and what is wrong, never the URL
 * itself: it holds the secret.
 */
export function objectStoreConfig(
  value: string | undefined,
  region: string | undefined,
): ObjectStoreConfig | undefined {
  if (value === undefined || value === '') return undefined;
  const problem = (what: string) => new Error(`OBJECT_STORE_URL ${what} (form: ${OBJECT_STORE_URL_FORM})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw problem('must start with http:// or https://');
  }
  if (!url.username || !url.password) throw problem('needs the access key and the secret before the host');
  if (url.search || url.hash) throw problem('takes no query or fragment');
  const segments = url.pathname.split('/').filter(Boolean);
  if (segments.length !== 1) throw problem('needs exactly one path segment, the bucket');
  const bucket = segments[0]!;
  if (!BUCKET_NAME.test(bucket)) {
    throw problem(`names the bucket "${bucket}", which is not a valid bucket name`);
  }
  const objectRegion = region === undefined || region === '' ? 'us-east-1' : region;
  if (!/^[a-z0-9-]{1,64}$/.test(objectRegion)) {
    throw new Error(`OBJECT_STORE_REGION must be a region name like us-east-1, not ${objectRegion}`);
  }
  let accessKeyId: string;
  let secretAccessKey: string;
  try {
    accessKeyId = decodeURIComponent(url.username);
    secretAccessKey = decodeURIComponent(url.password);
  } catch {
    throw problem('has a badly percent-encoded access key or secret');
  }
  return { endpoint: url.origin, bucket, accessKeyId, secretAccessKey, region: objectRegion };
}

export const DEFAULT_SOCIAL_MEDIA_HOSTS = [
  'facebook.com',
  'instagram.com',
  'twitter.com',
  'x.com',
  'linkedin.com',
  'tiktok.com',
  'youtube.com',
  'reddit.com',
  'pinterest.com',
  'vk.com',
  'ok.ru',
  'threads.net',
  'snapchat.com',
  'tumblr.com',
  'flickr.com',
];

/**
 * Report worker threads: 1 unless REPORT_WORKERS asks for more, never more than cores − 1 (the thread that
 * answers requests keeps a core) nor fewer than 1.
 */
function reportWorkers(value: string | undefined): number {
  const most = Math.max(1, os.availableParallelism() - 1);
  const asked = Math.floor(Number(value || 1)) || 1;
  return Math.min(most, Math.max(1, asked));
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  if (faceIndexEngine(env.FACE_INDEX) === 'pgvector' && !env.DATABASE_URL) {
    throw new Error('FACE_INDEX=pgvector needs a PostgreSQL server (DATABASE_URL)');
  }
  const port = Number(env.PORT ?? 3000);
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    publicUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    faceIndex: faceIndexEngine(env.FACE_INDEX),
    faceIndexPublish: flag(env.FACE_INDEX_PUBLISH, Boolean(env.DATABASE_URL)),
    objectStore: objectStoreConfig(env.OBJECT_STORE_URL, env.OBJECT_STORE_REGION),
    mailUrl: env.MAIL_URL || undefined,
    mailOutboxInProduction: flag(env.MAIL_OUTBOX, false),
    mailFrom: env.MAIL_FROM ?? 'OSINT Platform <no-reply@osint.localhost>',
    supportEmail: env.SUPPORT_EMAIL ?? 'support@osint.localhost',
    adminEmail: env.ADMIN_EMAIL || undefined,
    adminPassword: env.ADMIN_PASSWORD || undefined,
    runWorkers: env.WORKERS !== '0',
    demoData: flag(env.DEMO_DATA, true),
    crawlAllowPrivate: flag(env.CRAWL_ALLOW_PRIVATE, false),
    crawl: {
      politenessDelayMs: Number(env.CRAWL_DELAY_MS ?? 1000),
      trustedAddresses: (env.CRAWL_TRUSTED_ADDRESSES ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
      jobSliceMs: 5 * 60_000,
    },
    faceThreads: env.FACE_THREADS
      ? Math.max(1, Math.floor(Number(env.FACE_THREADS))) || undefined
      : undefined,
    reports: {
      workers: reportWorkers(env.REPORT_WORKERS),
      renderTimeoutMs: Number(env.REPORT_TIMEOUT_MS ?? 120_000),
      workerHeapMb: Number(env.REPORT_WORKER_HEAP_MB ?? 512),
    },
    demoSitePort: Number(env.DEMO_SITE_PORT ?? port + 1),
    webDistDir: path.resolve(env.WEB_DIST_DIR ?? path.join(import.meta.dirname, '../../web/dist')),
    session: {
      idleMinutes: Number(env.SESSION_IDLE_MINUTES ?? 120),
      absoluteHours: Number(env.SESSION_ABSOLUTE_HOURS ?? 24),
    },
    rateLimit: { enabled: flag(env.RATE_LIMIT, true) },
    logLevel: env.LOG_LEVEL ?? 'info',
    queryFaceKey: env.QUERY_FACE_KEY || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    jobRetryBaseMs: Number(env.JOB_RETRY_BASE_MS ?? 5_000),
    jobStaleAfterMs: Number(env.JOB_STALE_AFTER_MS ?? 120_000),
    socialMediaHosts: env.SOCIAL_MEDIA_HOSTS
      ? env.SOCIAL_MEDIA_HOSTS.split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean)
      : DEFAULT_SOCIAL_MEDIA_HOSTS,
    wikipediaUrl: env.WIKIPEDIA_URL || undefined,
    llm: {
      url: env.LLM_URL || undefined,
      model: env.LLM_MODEL || 'gpt-4o-mini',
      apiKey: env.LLM_API_KEY || undefined,
    },
    billing: loadBillingConfig(env),
    ...overrides,
  };
}

/**
 * Why this configuration cannot start, or undefined. Production mode (DATABASE_URL: several processes,
 * possibly on several machines) sends mail through SMTP: an outbox in one process's machine-local DATA_DIR
 * would be read by nobody.
 */
export function productionModeProblem(config: Config): string | undefined {
  if (config.databaseUrl && !config.mailUrl && !config.mailOutboxInProduction) {
    return (
      'Production mode (DATABASE_URL is set) sends e-mail through SMTP: set MAIL_URL=smtp://host:port ' +
      '(DATA_DIR is machine-local, so an outbox there would reach nobody).'
    );
  }
  return undefined;
}

/** FASTSPRING_API_URL: an http(s) address without credentials (those would end up in error messages). */
function fastspringApiUrl(value: string): string {
  const url = new URL(value);
  if (!/^https?:$/.test(url.protocol) || url.username || url.password)
    throw new Error(
      'FASTSPRING_API_URL must be an http(s) address without credentials (set FASTSPRING_API_USERNAME and FASTSPRING_API_PASSWORD)',
    );
  return value;
}

function loadBillingConfig(env: NodeJS.ProcessEnv): BillingConfig {
  const privateKeyFile = env.FASTSPRING_PRIVATE_KEY_FILE;
  return {
    seller: {
      name: env.SELLER_NAME ?? 'OSINT Platform Ltd.',
      address: env.SELLER_ADDRESS ?? '1 Example Street, Tel Aviv, Israel',
      taxId: env.SELLER_TAX_ID ?? 'IL000000000',
      email: env.SELLER_EMAIL ?? env.SUPPORT_EMAIL ?? 'support@osint.localhost',
    },
    bank: {
      accountName: env.BANK_ACCOUNT_NAME ?? 'OSINT Platform Ltd.',
      accountNumber: env.BANK_ACCOUNT_NUMBER ?? 'IL00 0000 0000 0000 0000 000',
      bankName: env.BANK_NAME ?? 'Example Bank',
      swift: env.BANK_SWIFT ?? 'EXAMPLXXXXX',
      address: env.BANK_ADDRESS ?? '1 Example Street, Tel Aviv, Israel',
    },
    fastspring: {
      storefront: env.FASTSPRING_STOREFRONT ?? '',
      accessKey: env.FASTSPRING_ACCESS_KEY ?? '',
      scriptUrl:
        env.FASTSPRING_SCRIPT_URL ?? 'https://sbl.onfastspring.com/sbl/1.0.3/fastspring-builder.min.js',
      webhookSecret: env.FASTSPRING_WEBHOOK_SECRET || undefined,
      privateKey:
        env.FASTSPRING_PRIVATE_KEY ||
        (privateKeyFile ? fs.readFileSync(privateKeyFile, 'utf8') : undefined) ||
        undefined,
      acceptTestEvents: env.FASTSPRING_ACCEPT_TEST_EVENTS === '1',
      api:
        env.FASTSPRING_API_USERNAME && env.FASTSPRING_API_PASSWORD
          ? {
              url: fastspringApiUrl(env.FASTSPRING_API_URL || DEFAULT_FASTSPRING_API_URL),
              username: env.FASTSPRING_API_USERNAME,
              password: env.FASTSPRING_API_PASSWORD,
            }
          : undefined,
    },
  };
}
