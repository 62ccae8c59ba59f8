import { ApiError } from '../../lib/api-client.ts';

/**
 * The server's own sentence when it says something the generic message of the spec cannot: a rate limit
 * (429) or a refused request (400, e.g. an expired link). Shown as the banner's second line.
 */
export function serverDetail(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.status !== 429 && error.status !== 400) return undefined;
  return error.message || undefined;
}
