import type { RateLimiter } from '../lib/rate-limiter.ts';

/**
 * The PDF reports (and admin invoice copies) one person may ask for per minute: far above what anyone
 * clicks, while each one renders a PDF.
 */
export function limitReports(rateLimiter: RateLimiter, userId: number): Promise<void> {
  return rateLimiter.hit([`report:user:${userId}`], 20, 60_000);
}
