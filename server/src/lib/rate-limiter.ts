import { HttpError } from './http-error.ts';
import { RATE_LIMITED_MESSAGE } from '@osint/contract/constants';
import type { RateLimitRepository } from '../repositories/rate-limit.repository.ts';

/** How often one process clears ended windows from the shared table. */
const SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * Fixed-window rate limits kept in the database (rate_limit_windows), so that they hold across every
 * API process: N processes behind a load balancer do not give N times the attempts. One UPSERT per
 * counted request; a limited route costs one short statement, which is small next to the session
 * lookup every signed-in request already makes.
 */
export class RateLimiter {
  private lastSweep = Date.now();

  constructor(
    private readonly enabled: boolean,
    private readonly store: Pick<RateLimitRepository, 'hit' | 'deleteEnded'>,
  ) {}

  /** Counts one attempt for each key; throws 429 when any of them is over its limit. */
  async hit(keys: string[], limit: number, windowMs: number): Promise<void> {
    const refusal = await this.count(keys, limit, windowMs);
    if (refusal) throw refusal;
  }

  /**
   * Counts one attempt for each key and returns the 429 to answer when any of them is over its limit,
   * for a caller that may still let some attempts through (a sign-in from a known device).
   */
  async count(keys: string[], limit: number, windowMs: number): Promise<HttpError | undefined> {
    if (!this.enabled || keys.length === 0) return undefined;
    const windows = await this.store.hit([...new Set(keys)], windowMs);
    this.sweepNowAndThen();
    let retryAfterMs = 0;
    for (const window of windows) {
      if (window.count > limit) retryAfterMs = Math.max(retryAfterMs, window.resetInMs);
    }
    if (retryAfterMs === 0) return undefined;
    const error = new HttpError(429, RATE_LIMITED_MESSAGE);
    Object.assign(error, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
    return error;
  }

  private sweepNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    // Best effort: a failed sweep only leaves ended windows for the next one.
    this.store.deleteEnded().catch(() => undefined);
  }
}
