import type { Kysely } from 'kysely';
import { recomputeWatchlistKeys } from '../watchlist-keys.ts';

// Two changes to how names are compared and looked up, so the keys of the watch-list entries they touch are
// computed again:
// - "x" is written "ks" (Alexander/Aleksandr, Maxim/Maksim: the transliterations of one Russian or Greek
//   name differ on it): entries with an "x" in a name or an alias, or a Greek xi, which transliterates to it;
// - Korean syllables stay whole (accent folding had split them into their letters, so a four-letter key
//   prefix cut a syllable): entries written in Hangul.
export async function up(db: Kysely<unknown>): Promise<void> {
  await recomputeWatchlistKeys(db, '[xXξΞ\uAC00-\uD7A3]');
}

export async function down(): Promise<void> {
  // The new keys are still keys: a lookup under the previous rules misses them only where it missed before.
}
