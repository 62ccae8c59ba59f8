import type { BillingConfig } from '../config.ts';

/**
 * Origins the Store Builder needs in the Content-Security-Policy: its script (FASTSPRING_SCRIPT_URL) and
 * the FastSpring storefront whose checkout it opens in a frame.
 */
export function checkoutCspSources(billing: BillingConfig): string[] {
  const sources = new Set<string>(['https://*.onfastspring.com']);
  try {
    sources.add(new URL(billing.fastspring.scriptUrl).origin);
  } catch {
    // An invalid script URL loads nothing; the page says card checkout is unavailable.
  }
  if (billing.fastspring.storefront) {
    const host = billing.fastspring.storefront.split('/')[0];
    if (host) sources.add(`https://${host}`);
  }
  return [...sources];
}
