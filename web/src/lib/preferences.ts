/** Preferences kept in this browser (spec 001 §3 "Local persisted preferences"). */
export const PREFERENCE_KEYS = {
  dismissedResultRemovalInfo: 'osint.dismissedResultRemovalInfo',
  /** The AI data extractor's filters panel is open. */
  showDataExtractorFilters: 'osint.showDataExtractorFilters',
  /** The extractor's criminal-information and multiple-names banners were dismissed. */
  dismissedCriminalsInfo: 'osint.dismissedCriminalsInfo',
  dismissedNamesInfo: 'osint.dismissedNamesInfo',
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
