import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../lib/http-error.ts';

export const NON_CANONICAL_PATH_MESSAGE = 'The request path is not in canonical form.';

/** A percent-encoded unreserved character (RFC 3986 §2.3): a client has no reason to encode it. */
const ENCODED_UNRESERVED = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2[de]|5f|7e)/i;

/**
 * Whether a request path is written the one way clients write it: no percent-encoded letters, digits or
 * `-._~`, no empty (`//`), `.` or `..` segments, no backslash. Security decisions look at paths; a second
 * spelling of the same route (`/%61pi/user/logout`) is how they get bypassed.
 */
export function isCanonicalPath(rawPath: string): boolean {
  if (ENCODED_UNRESERVED.test(rawPath) || rawPath.includes('\\') || /%5c/i.test(rawPath)) return false;
  return !rawPath
    .slice(1)
    .split('/')
    .some((segment, i, all) => segment === '.' || segment === '..' || (segment === '' && i < all.length - 1));
}

function decodedPath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return rawPath;
  }
}

/**
 * The path the router matched the request to (its route pattern, e.g. `/api/user/logout`), or the decoded
 * path when no route matched. Hooks decide on this, never on the raw URL: the router decodes, so the raw
 * URL may spell the same route differently.
 */
export function routedPath(request: FastifyRequest): string {
  return request.routeOptions.url ?? decodedPath(request.url.split('?')[0] ?? '');
}

/** Refuses non-canonical paths with 400 before any other hook or handler runs. */
export function registerCanonicalPath(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (!isCanonicalPath(request.url.split('?')[0] ?? '')) throw badRequest(NON_CANONICAL_PATH_MESSAGE);
  });
}
