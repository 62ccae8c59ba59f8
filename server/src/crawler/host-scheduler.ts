import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Politeness per host: one request at a time, and a pause between the end of one request and the
 * start of the next (the larger of our default delay and the site's Crawl-delay, or a Retry-After
 * backoff). Measuring from the end, not the start, keeps a slow server from being hit back-to-back.
 */

interface HostState {
  /** Settles when the request currently holding the host finishes. */
  tail: Promise<void>;
  busy: boolean;
  /** When the last request ended (0 when never contacted). */
  lastEnd: number;
  nextAt: number;
  delayMs: number;
}

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly defaultDelayMs: number) {}

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) {
      state = { tail: Promise.resolve(), busy: false, lastEnd: 0, nextAt: 0, delayMs: this.defaultDelayMs };
      this.hosts.set(host, state);
    }
    return state;
  }

  /** Epoch ms from which the host may be contacted again (0 when never contacted). */
  readyAt(host: string): number {
    return this.hosts.get(host)?.nextAt ?? 0;
  }

  isBusy(host: string): boolean {
    return this.hosts.get(host)?.busy ?? false;
  }

  /** Sets the pause for this host (never below the default); it applies from the last request already made. */
  setDelay(host: string, delayMs: number): void {
    const state = this.state(host);
    state.delayMs = Math.max(this.defaultDelayMs, delayMs);
    // The Crawl-delay is learnt from the robots.txt response itself: the pause after it counts too.
    if (state.lastEnd) state.nextAt = Math.max(state.nextAt, state.lastEnd + state.delayMs);
  }

  delayOf(host: string): number {
    return this.hosts.get(host)?.delayMs ?? this.defaultDelayMs;
  }

  /** Keeps the host idle until `until` (429/503 with Retry-After). */
  backoff(host: string, until: number): void {
    const state = this.state(host);
    state.nextAt = Math.max(state.nextAt, until);
  }

  /** Records a request made to the host outside its queue (a redirect's hop): the pause counts from now. */
  contacted(host: string): void {
    const state = this.state(host);
    state.lastEnd = Date.now();
    state.nextAt = Math.max(state.nextAt, state.lastEnd + state.delayMs);
  }

  /** Runs `task` as the host's only request once its turn and its pause have come. */
  async run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const state = this.state(host);
    const previous = state.tail;
    let release!: () => void;
    state.tail = new Promise<void>((resolve) => (release = resolve));
    let contacted = false;
    try {
      await previous;
      state.busy = true;
      const wait = state.nextAt - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      contacted = true;
      return await task();
    } finally {
      if (contacted) {
        state.lastEnd = Date.now();
        state.nextAt = Math.max(state.nextAt, state.lastEnd + state.delayMs);
      }
      state.busy = false;
      release();
    }
  }
}
