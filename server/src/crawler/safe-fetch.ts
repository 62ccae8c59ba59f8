import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { blockedAddressReason } from './ip-guard.ts';

/**
 * One GET with every guard the crawler needs against hostile or broken servers: SSRF refusal after
 * DNS resolution (and again on every redirect), a pinned connection to the address that was checked,
 * scheme/port allow-lists, connect and total timeouts, a byte cap on the decoded body, a redirect cap
 * and a content-type check before the body is read.
 */

export type FetchErrorCode =
  | 'bad-url'
  | 'scheme'
  | 'port'
  | 'blocked'
  | 'dns'
  | 'timeout'
  | 'network'
  | 'tls'
  | 'too-large'
  | 'content-type'
  | 'too-many-redirects'
  | 'redirect-refused'
  | 'aborted';

const RETRYABLE: ReadonlySet<FetchErrorCode> = new Set(['dns', 'timeout', 'network']);

export class FetchError extends Error {
  readonly code: FetchErrorCode;
  readonly url: string;
  readonly retryable: boolean;

  constructor(
    code: FetchErrorCode,
    message: string,
    url: string,
    options?: { cause?: unknown; retryable?: boolean },
  ) {
    super(message, options);
    this.name = 'FetchError';
    this.code = code;
    this.url = url;
    this.retryable = options?.retryable ?? RETRYABLE.has(code);
  }
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface SafeFetchOptions {
  userAgent: string;
  /** Lift the private/loopback refusal (local testing only; the server maps CRAWL_ALLOW_PRIVATE=1). */
  allowPrivate?: boolean;
  /** Exact IP addresses allowed even though they are private (a known on-premises host, a test server). */
  trustedAddresses?: readonly string[];
  /** Ports allowed besides 80 and 443. */
  allowedPorts?: readonly number[];
  connectTimeoutMs: number;
  /** Deadline for the whole fetch, redirects and body included. */
  totalTimeoutMs: number;
  /** Cap on the decoded body; larger bodies are refused, not truncated. */
  maxBytes: number;
  /** Keep the first maxBytes instead of refusing a larger body (robots.txt: RFC 9309 parses a prefix). */
  truncate?: boolean;
  maxRedirects: number;
  /** Accept header sent, e.g. `text/html` for pages. */
  accept?: string;
  /** Judges the media type (lowercase, no parameters) of a 2xx response before its body is read. */
  acceptContentType?: (mimeType: string) => boolean;
  /** Called for the first URL and every redirect target; return false to refuse (e.g. robots.txt). */
  allowUrl?: (url: URL) => boolean | Promise<boolean>;
  signal?: AbortSignal;
  /** DNS resolution; replaceable so tests can make any hostname resolve anywhere. */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface FetchResult {
  /** URL of the last hop (after redirects). */
  url: string;
  status: number;
  headers: http.IncomingHttpHeaders;
  /**
   * Each header's lines as sent, not joined with commas: X-Robots-Tag lines addressed to different robots
   * cannot be told apart once joined ("otherbot: noindex" and "noimageindex").
   */
  headersDistinct: NodeJS.Dict<string[]>;
  /** Media type without parameters, lowercase; '' when absent. */
  mimeType: string;
  /** Decoded body for 2xx responses; empty for every other status (not read). */
  body: Buffer;
  /** Every URL that redirected, in order. */
  redirects: string[];
  /** The IP address actually connected to. */
  remoteAddress: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function mimeTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

async function defaultResolve(hostname: string): Promise<ResolvedAddress[]> {
  return dns.promises.lookup(hostname, { all: true, verbatim: true });
}

/** Checks scheme, port and the resolved addresses of one hop; returns the address to connect to. */
async function vetHop(url: URL, options: SafeFetchOptions): Promise<ResolvedAddress> {
  const href = url.href;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError('scheme', `scheme ${url.protocol} is not allowed`, href);
  }
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (port !== 80 && port !== 443 && !options.allowedPorts?.includes(port)) {
    throw new FetchError('port', `port ${port} is not allowed`, href);
  }
  if (url.username || url.password) throw new FetchError('bad-url', 'credentials in URL', href);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  const literal = net.isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await (options.resolveHost ?? defaultResolve)(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A name that does not exist will not appear on retry; a failing resolver might recover.
      const retryable = code !== 'ENOTFOUND' && code !== 'ENODATA';
      throw new FetchError('dns', `cannot resolve ${host}: ${code ?? String(error)}`, href, {
        cause: error,
        retryable,
      });
    }
  }
  if (addresses.length === 0) throw new FetchError('dns', `no address for ${host}`, href);
  if (!options.allowPrivate) {
    // Refuse when any address is non-public: a name mixing public and private answers is a rebinding trick.
    for (const { address } of addresses) {
      if (options.trustedAddresses?.includes(address)) continue;
      const reason = blockedAddressReason(address);
      if (reason) throw new FetchError('blocked', `${host} resolves to ${address}: ${reason}`, href);
    }
  }
  return addresses[0]!;
}

function classifyNetworkError(error: unknown, href: string): FetchError {
  if (error instanceof FetchError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (/CERT|SSL|TLS|SELF_SIGNED|HOSTNAME_MISMATCH/i.test(code)) {
    return new FetchError('tls', `TLS error: ${message}`, href, { cause: error });
  }
  return new FetchError('network', `network error: ${code || message}`, href, { cause: error });
}

interface HopResponse {
  res: http.IncomingMessage;
  address: string;
}

/** Sends one GET pinned to `target`; rejects on connect timeout or abort. */
function requestHop(
  url: URL,
  target: ResolvedAddress,
  options: SafeFetchOptions,
  signal: AbortSignal,
): Promise<HopResponse> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'GET',
      agent: false, // no pooled sockets: a reused socket could have been opened under other guard settings
      signal,
      headers: {
        'user-agent': options.userAgent,
        accept: options.accept ?? '*/*',
        'accept-encoding': 'gzip, deflate, br',
      },
      // The connection goes to the address vetted above, never to a second DNS answer (no rebinding window).
      lookup: (_hostname, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [target]);
        } else {
          callback(null, target.address, target.family);
        }
      },
    });
    const connectTimer = setTimeout(() => {
      req.destroy(
        new FetchError('timeout', `connect timeout after ${options.connectTimeoutMs} ms`, url.href),
      );
    }, options.connectTimeoutMs);
    req.on('socket', (socket) => {
      const connectedEvent = url.protocol === 'https:' ? 'secureConnect' : 'connect';
      if (!socket.connecting && url.protocol === 'http:') clearTimeout(connectTimer);
      socket.once(connectedEvent, () => clearTimeout(connectTimer));
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      // Errors surface through the body iteration; a response destroyed while nobody reads it
      // (a redirect being drained when the deadline hits) must not become an uncaught 'error' event.
      res.on('error', () => {});
      resolve({ res, address: res.socket?.remoteAddress ?? target.address });
    });
    req.on('error', (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
    req.end();
  });
}

async function readBody(
  res: http.IncomingMessage,
  href: string,
  maxBytes: number,
  truncate: boolean,
): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!truncate && !encoding && Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new FetchError('too-large', `body of ${declared} bytes exceeds ${maxBytes}`, href);
  }
  let stream: Readable = res;
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (decoder) stream = pipeline(res, decoder, () => {});
  const chunks: Buffer[] = [];
  let total = 0;
  // The cap applies to decoded bytes so a small compressed bomb cannot expand past it.
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    if (total + buffer.length > maxBytes) {
      res.destroy();
      stream.destroy();
      if (!truncate) throw new FetchError('too-large', `body exceeds ${maxBytes} bytes`, href);
      chunks.push(buffer.subarray(0, maxBytes - total));
      total = maxBytes;
      break;
    }
    total += buffer.length;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/** Fetches `input` with every guard applied; resolves for any final status, throws FetchError otherwise. */
export async function safeFetch(input: string | URL, options: SafeFetchOptions): Promise<FetchResult> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchError('bad-url', `invalid URL: ${String(input)}`, String(input));
  }
  const controller = new AbortController();
  let deadlineError: FetchError | undefined;
  const deadline = setTimeout(() => {
    deadlineError = new FetchError('timeout', `total timeout after ${options.totalTimeoutMs} ms`, url.href);
    controller.abort(deadlineError);
  }, options.totalTimeoutMs);
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let current: http.IncomingMessage | undefined;
  const destroyCurrent = () => current?.destroy(deadlineError ?? new Error('aborted'));
  controller.signal.addEventListener('abort', destroyCurrent, { once: true });

  const failure = (error: unknown): FetchError => {
    if (deadlineError) return deadlineError;
    if (options.signal?.aborted)
      return new FetchError('aborted', 'fetch aborted', url.href, { cause: error });
    return classifyNetworkError(error, url.href);
  };

  try {
    const redirects: string[] = [];
    for (;;) {
      if (controller.signal.aborted) throw failure(controller.signal.reason);
      // The hop's policy check (a robots.txt to read) and its name lookup count against the total
      // timeout too: a resolver or a robots.txt that never answers must not hold the fetch past it.
      if (
        options.allowUrl &&
        !(await untilAborted(Promise.resolve(options.allowUrl(url)), controller.signal, failure))
      ) {
        throw new FetchError(
          redirects.length ? 'redirect-refused' : 'bad-url',
          `refused by policy: ${url.href}`,
          url.href,
        );
      }
      const target = await untilAborted(vetHop(url, options), controller.signal, failure);
      let hop: HopResponse;
      try {
        hop = await requestHop(url, target, options, controller.signal);
      } catch (error) {
        throw failure(error);
      }
      current = hop.res;
      const { res } = hop;
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        // The body of a redirect is never read: the connection is closed at once. (Drained instead, a
        // server that kept writing it held the socket, downloading, long after the fetch had ended.)
        res.destroy();
        current = undefined;
        if (redirects.length >= options.maxRedirects) {
          throw new FetchError('too-many-redirects', `more than ${options.maxRedirects} redirects`, url.href);
        }
        redirects.push(url.href);
        try {
          url = new URL(location, url);
        } catch {
          throw new FetchError('bad-url', `invalid redirect target: ${location}`, url.href);
        }
        continue;
      }
      const mimeType = mimeTypeOf(res.headers['content-type']);
      const base = {
        url: url.href,
        status,
        headers: res.headers,
        headersDistinct: res.headersDistinct,
        mimeType,
        redirects,
        remoteAddress: hop.address,
      };
      if (status < 200 || status >= 300) {
        res.destroy();
        return { ...base, body: Buffer.alloc(0) };
      }
      if (options.acceptContentType && !options.acceptContentType(mimeType)) {
        res.destroy();
        throw new FetchError('content-type', `unexpected content type "${mimeType || 'none'}"`, url.href);
      }
      try {
        return { ...base, body: await readBody(res, url.href, options.maxBytes, options.truncate ?? false) };
      } catch (error) {
        if (error instanceof FetchError && !deadlineError) throw error;
        throw failure(error);
      }
    }
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onOuterAbort);
    controller.signal.removeEventListener('abort', destroyCurrent);
  }
}

/**
 * `work`, or the fetch's failure as soon as `signal` aborts (the work itself is left to finish on its
 * own: a DNS lookup cannot be cancelled).
 */
function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  failure: (reason: unknown) => FetchError,
): Promise<T> {
  if (signal.aborted) return Promise.reject(failure(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(failure(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Milliseconds a Retry-After header asks to wait (seconds or HTTP date); undefined when absent/invalid. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
