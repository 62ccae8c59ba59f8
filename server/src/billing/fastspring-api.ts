/**
 * A client of FastSpring's server API (`https://api.fastspring.com`, HTTP Basic with the store's API
 * credentials), for what webhooks cannot do: cancelling a card subscription. `DELETE /subscriptions/{id}`
 * cancels at the next billing date; with `billingPeriod=0` at once, which is what ending a plan needs (no
 * further charge, and the `subscription.deactivated` webhook follows). The answer is
 * `{ subscriptions: [{ subscription, action: "subscription.cancel", result: "success" | "error", error? }] }`.
 */

export const DEFAULT_FASTSPRING_API_URL = 'https://api.fastspring.com';

/** FastSpring's API refuses requests without a User-Agent. */
const USER_AGENT = 'OSINT-Platform-Billing/1.0';

export interface FastSpringApiConfig {
  url: string;
  username: string;
  password: string;
  timeoutMs?: number;
}

/** A refusal that another attempt will not change (the subscription is unknown, credentials refused…). */
export class FastSpringApiRefusal extends Error {}

interface CancelAnswer {
  subscriptions?: { subscription?: string; result?: string; error?: Record<string, string> }[];
}

export class FastSpringApi {
  constructor(private readonly config: FastSpringApiConfig) {}

  /**
   * Cancels the subscription now. Throws FastSpringApiRefusal when FastSpring refuses (the message says
   * why), any other error when it could not be asked (network, timeout, 5xx): worth another attempt.
   */
  async cancelSubscription(subscriptionId: string): Promise<void> {
    const url = new URL(`/subscriptions/${encodeURIComponent(subscriptionId)}`, this.config.url);
    url.searchParams.set('billingPeriod', '0');
    const credentials = Buffer.from(`${this.config.username}:${this.config.password}`).toString('base64');
    const response = await fetch(url, {
      method: 'DELETE',
      headers: {
        authorization: `Basic ${credentials}`,
        'user-agent': USER_AGENT,
        accept: 'application/json',
      },
      signal: AbortSignal.timeout(this.config.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    if (response.status === 401 || response.status === 403)
      throw new FastSpringApiRefusal(`FastSpring refused the API credentials (HTTP ${response.status}).`);
    if (response.status >= 500 || response.status === 429)
      throw new Error(`FastSpring answered HTTP ${response.status}; another attempt follows.`);
    const entry = parseAnswer(text)?.subscriptions?.find((s) => s.subscription === subscriptionId);
    if (response.ok && entry?.result === 'success') return;
    const reason = entry?.error ? Object.values(entry.error).join('; ') : text.slice(0, 200) || 'no answer';
    throw new FastSpringApiRefusal(
      `FastSpring did not cancel subscription ${subscriptionId} (HTTP ${response.status}): ${reason}`,
    );
  }
}

function parseAnswer(text: string): CancelAnswer | undefined {
  try {
    return JSON.parse(text) as CancelAnswer;
  } catch {
    return undefined;
  }
}
