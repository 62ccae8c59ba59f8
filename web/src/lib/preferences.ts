/** Preferences kept in this browser (spec 001 §3 "Local persisted preferences"). */
export const PREFERENCE_KEYS = {
  dismissedResultRemovalInfo: 'osint.dismissedResultRemovalInfo',
  /** The AI data extractor's filters panel is open. */
  showDataExtractorFilters: 'osint.showDataExtractorFilters',
  /** The extractor's criminal-information and multiple-names banners were dismissed. */
  dismissedCriminalsInfo: 'osint.dismissedCriminalsInfo',
  dismissedNamesInfo: 'osint.dismissedNamesInfo',
  /** The admin users table last looked at (its status filter: pending approval, active, …). */
  lastUsersTable: 'osint.lastUsersTable',
  /** "Show access-restricted modal", kept inverted: set once "Don't show this again" was ticked. */
  hideAccessRestrictedModal: 'osint.hideAccessRestrictedModal',
} as const;

export type PreferenceKey = (typeof PREFERENCE_KEYS)[keyof typeof PREFERENCE_KEYS];

export function readFlag(key: PreferenceKey): boolean {
  try {
    return localStorage.getItem(key) === 'true';
  } catch {
    // Storage blocked (private mode, policy): behave as if never set.
    return false;
  }
}

export function writeFlag(key: PreferenceKey, value: boolean): void {
  try {
    if (value) localStorage.setItem(key, 'true');
    else localStorage.removeItem(key);
  } catch {
    // Not remembered; the question comes back next time, which is harmless.
  }
}

/** A remembered choice among `allowed` values; `fallback` when none (or no longer a valid one) is kept. */
export function readChoice<T extends string>(key: PreferenceKey, allowed: readonly T[], fallback: T): T {
  try {
    const value = localStorage.getItem(key);
    return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
  } catch {
    return fallback;
  }
}

export function writeChoice(key: PreferenceKey, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not remembered: the default table shows next time.
  }
}
