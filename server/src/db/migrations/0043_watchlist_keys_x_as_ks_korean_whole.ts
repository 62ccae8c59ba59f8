import type { Kysely } from 'kysely';
import { recomputeWatchlistKeys } from '../watchlist-keys.ts';

// Changes to how names are compared and looked up, so the keys of the watch-list entries they touch are
// computed again:
// - "x" is written "ks" (Alexander/Aleksandr, Maxim/Maksim: the transliterations of one Russian or Greek
//   name differ on it): entries with an "x" in a name or an alias, or a Greek xi, which transliterates to it;
// - Chinese, Japanese and Korean names are found in pages by their letters: Korean syllables and voiced
//   kana stay whole when names are folded, and a name of several words is keyed whole too.
export async function up(db: Kysely<unknown>): Promise<void> {
  await recomputeWatchlistKeys(db, '[xXξΞ\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]');
}

export async function down(): Promise<void> {
  // The new keys are still keys: a lookup under the previous rules misses them only where it missed before.
}
