import type { Kysely } from 'kysely';
import { recomputeWatchlistKeys } from '../watchlist-keys.ts';

// Names are now compared and looked up with "x" written "ks" (Alexander/Aleksandr, Maxim/Maksim: the
// transliterations of one Russian or Greek name differ on it), so the keys of watch-list entries with an
// "x" in a name or an alias (or a Greek xi, which transliterates to it) are computed again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await recomputeWatchlistKeys(db, '[xXξΞ]');
}

export async function down(): Promise<void> {
  // Keys with "ks" are still keys: a lookup under the previous rule misses them only where it missed before.
}
