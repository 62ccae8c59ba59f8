import type { Kysely } from 'kysely';
import { recomputeWatchlistKeys } from '../watchlist-keys.ts';

// Changes to how names are compared and looked up, so the keys of the watch-list entries they touch are
// computed again:
// - a "y" before an opening "e" or "o" is not written in the keys (Yevgeny/Evgeny, Yelena/Elena);
// - a Cyrillic word with a letter only Ukrainian writes (і, ї, є, ґ) is transliterated as Ukrainian;
// - a Cyrillic е or ё after a vowel is written "ye" or "yo" (Mirziyoyev).
export async function up(db: Kysely<unknown>): Promise<void> {
  await recomputeWatchlistKeys(db, '[Yy][EeOo]|[іїєґІЇЄҐ]|[аеёиоуыэюяіїєъьАЕЁИОУЫЭЮЯІЇЄ][еёЕЁ]');
}

export async function down(): Promise<void> {
  // The new keys are still keys: a lookup under the previous rules misses them only where it missed before.
}
