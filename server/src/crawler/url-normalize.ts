/**
 * URL normalisation for the frontier: two spellings of the same resource must dedupe to one key,
 * without changing what the server would return (query order is kept, only known tracking
 * parameters are dropped).
 */

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmkt|igshid)$/i;

/** Absolute, normalised http(s) URL, or null for anything the crawler cannot fetch (mailto:, data:, junk). */
export function normalizeUrl(input: string, base?: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null; // credentials in links are never followed
  if (!url.hostname) return null;
  url.hash = '';
  // WHATWG URL already lowercases the host, drops default ports and resolves dot segments.
  url.hostname = url.hostname.replace(/\.$/, '');
  // Tracking parameters are cut out of the query as written: decoded and encoded again, the others
  // would change ("%E9" became "%EF%BF%BD", "flag" became "flag=", "%20" became "+").
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '' && !TRACKING_PARAMS.test(queryKeyOf(part)));
  url.search = kept.length ? `?${kept.join('&')}` : '';
  return url.href;
}

/** The key of a query part as written ("utm_source" of "utm_source=x"), decoded where it can be. */
function queryKeyOf(part: string): string {
  const key = part.split('=', 1)[0]!;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

/** Key for per-host politeness: host plus explicit port (one connection per key). */
export function hostKey(url: string | URL): string {
  return new URL(url).host;
}

/** Hostname without a leading `www.`, so `example.com` and `www.example.com` count as one site. */
export function siteName(hostname: string): string {
  return hostname.toLowerCase().replace(/^www\./, '');
}
