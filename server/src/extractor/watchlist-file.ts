import fs from 'node:fs';
import path from 'node:path';
import type { WatchlistImportResult } from '@osint/contract/watchlist';
import type { WatchlistService } from '../services/watchlist.service.ts';

/** The fictional demo watch-list (both formats ship; the FollowTheMoney one is imported). */
export const DEMO_WATCHLIST_DIR = path.join(import.meta.dirname, '../demo/watchlist');
export const DEMO_WATCHLIST_FTM = path.join(DEMO_WATCHLIST_DIR, 'demo-watchlist.ftm.json');
export const DEMO_WATCHLIST_CSV = path.join(DEMO_WATCHLIST_DIR, 'demo-watchlist.simple.csv');
export const DEMO_WATCHLIST_NAME = 'demo';

/** Streams a file from disk into the list `listName` (replacing it): `npm run watchlist:import`. */
export function importWatchlistFile(
  watchlists: WatchlistService,
  file: string,
  listName: string,
  importedBy: number | null = null,
): Promise<WatchlistImportResult> {
  const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  return watchlists.importFile({ listName, source: stream, importedBy }).finally(() => stream.destroy());
}

/** First start with DEMO_DATA: imports the demo list when no watch-list exists yet (else does nothing). */
export async function importDemoWatchlistIfNone(
  watchlists: WatchlistService,
): Promise<WatchlistImportResult | undefined> {
  if (await watchlists.hasAnyList()) return undefined;
  return importWatchlistFile(watchlists, DEMO_WATCHLIST_FTM, DEMO_WATCHLIST_NAME);
}
