/**
 * A client of FastSpring's server API (`https://api.fastspring.com`, HTTP Basic with the store's API
 * credentials), for what webhooks cannot do: cancelling a card subscription. `DELETE /subscriptions/{id}`
 * cancels at the next billing date; with `billingPeriod=0` at once, which is what ending a plan needs (no
 * further charge, and the `subscription.deactivated` webhook follows). The answer is
 * `{ subscriptions: [{ subscription, action: "subscription.cancel", result: "success" | "error", error? }] }`;
 * `GET /subscriptions/{id}` answers the subscription with its `state` (active, canceled, deactivated…).
 */

export const DEFAULT_FASTSPRING_API_URL = 'https://api.fastspring.com';

/** FastSpring's API refuses requests without a User-Agent. */
const USER_AGENT = 'OSINT-Platform-Billing/1.0';

export interface FastSpringApiConfig {
  /** The API's base address, without credentials in it (they go in `username` and `password`). */
  url: string;
  username: string;
  password: string;
  timeoutMs?: number;
}

interface CancelAnswer {
  subscriptions?: { subscription?: string; result?: string; error?: Record<string, string> }[];
}

export class FastSpringApi {
  private readonly base: string;

  constructor(private readonly config: FastSpringApiConfig) {
    this.base = config.url.replace(/\/+$/, '');
  }

  /**
   * Cancels the subscription now; a subscription FastSpring already deactivated counts as cancelled (a
   * second attempt after an answer that was lost). Throws with FastSpring's reason otherwise.
   */
  async cancelSubscription(subscriptionId: string): Promise<void> {
    const response = await this.call('DELETE', subscriptionId, '?billingPeriod=0');
    const entry = parse<CancelAnswer>(response.text)?.subscriptions?.find(
      (s) => s.subscription === subscriptionId,
    );
    if (response.ok && entry?.result === 'success') return;
    if (response.status < 500 && (await this.stateOf(subscriptionId)) === 'deactivated') return;
    const reason = entry?.error ? Object.values(entry.error).join('; ') : response.text.slice(0, 200);
    throw new Error(
      `FastSpring did not cancel subscription ${subscriptionId} (HTTP ${response.status}): ${reason || 'no answer'}`,
    );
  }

  /** The subscription's state as FastSpring has it; undefined when it cannot tell. */
  private async stateOf(subscriptionId: string): Promise<string | undefined> {
    const response = await this.call('GET', subscriptionId, '');
    return response.ok ? parse<{ state?: string }>(response.text)?.state : undefined;
  }

  private async call(method: 'GET' | 'DELETE', subscriptionId: string, query: string) {
    const credentials = Buffer.from(`${this.config.username}:${this.config.password}`).toString('base64');
    // The address is built from the configured base, which holds no credentials (config.ts refuses them),
    // so an error quoting it reveals nothing.
    const response = await fetch(`${this.base}/subscriptions/${encodeURIComponent(subscriptionId)}${query}`, {
      method,
      headers: {
        authorization: `Basic ${credentials}`,
        'user-agent': USER_AGENT,
        accept: 'application/json',
      },
      signal: AbortSignal.timeout(this.config.timeoutMs ?? 15_000),
    });
    return { ok: response.ok, status: response.status, text: await response.text() };
  }
}

function parse<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
