import { HttpError } from './http-error.ts';
import { RATE_LIMITED_MESSAGE } from '@osint/contract/constants';

/**
 * Fixed-window counters kept in memory. Each process limits on its own, which is enough to stop
 * password guessing and form flooding through one process.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly enabled: boolean) {}

  /** Counts one attempt for each key; throws 429 when any of them is over its limit. */
  hit(keys: string[], limit: number, windowMs: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (this.windows.size > 50_000) this.sweep(now);
    let retryAfterMs = 0;
    for (const key of keys) {
      let window = this.windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + windowMs };
        this.windows.set(key, window);
      }
      window.count += 1;
      if (window.count > limit) retryAfterMs = Math.max(retryAfterMs, window.resetAt - now);
    }
    if (retryAfterMs > 0) {
      const error = new HttpError(429, RATE_LIMITED_MESSAGE);
      Object.assign(error, { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) });
      throw error;
    }
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
