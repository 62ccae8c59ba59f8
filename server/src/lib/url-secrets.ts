/**
 * Paths whose next segment is a one-time secret: the API calls that confirm or release an e-mail address
 * and the web pages the confirmation mail links to. Matched on the decoded path, case-insensitively, so no
 * spelling of the same address slips through.
 */
const SECRET_PATH_PREFIXES = [
  '/api/user/validate/',
  '/api/user/release/',
  '/verify-email/',
  '/release-email/',
];

/** Query parameters that carry secrets (reset and set-password links, metrics tokens, keys, hashes). */
const SECRET_PARAMETER = /token|hash|key|secret|signature|password|code/i;

const REDACTED = '[redacted]';

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

/**
 * A URL as logs may keep it: the secret of every token-bearing path and query parameter replaced, so a
 * log line never holds a working link.
 */
export function maskUrlSecrets(url: string): string {
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQuery = queryAt === -1 ? undefined : url.slice(queryAt + 1);
  const lowerPath = decoded(rawPath).toLowerCase();
  const prefix = SECRET_PATH_PREFIXES.find((p) => lowerPath.startsWith(p));
  const path = prefix ? `${prefix}${REDACTED}` : rawPath;
  if (rawQuery === undefined) return path;
  const query = rawQuery
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return equals !== -1 && SECRET_PARAMETER.test(decoded(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}
