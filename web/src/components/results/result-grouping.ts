import type { SearchResult } from '@osint/contract/search';

export type ResultSort = 'default' | 'date';

/** Spec 001 §3 "Grouped result": copies of one photo shown as one entry. */
export interface ResultGroup<T extends SearchResult = SearchResult> {
  groupId: string;
  items: T[];
  numberOfItems: number;
  displayedItemId: number;
  displayedThumbnail: string;
}

/** Default keeps the server's order (best match first); Date sorts by first-indexed date, oldest first. */
export function sortResults<T extends SearchResult>(results: readonly T[], sort: ResultSort): T[] {
  if (sort === 'default') return [...results];
  // Array.prototype.sort is stable: results indexed at the same moment keep their rank order.
  return [...results].sort((a, b) => Date.parse(a.crawledAt) - Date.parse(b.crawledAt));
}

/**
 * Groups results by photo, in order of each group's first result. A group shrinks as its items are
 * removed (the caller simply passes fewer results): with one item left it is shown as a plain result,
 * with none it no longer exists.
 */
export function groupResults<T extends SearchResult>(results: readonly T[]): ResultGroup<T>[] {
  const groups = new Map<string, T[]>();
  for (const result of results) {
    const items = groups.get(result.group);
    if (items) items.push(result);
    else groups.set(result.group, [result]);
  }
  return [...groups].map(([groupId, items]) => ({
    groupId,
    items,
    numberOfItems: items.length,
    displayedItemId: items[0]!.id,
    displayedThumbnail: items[0]!.thumbnailUrl,
  }));
}

/** The label of a group of copies; a group of one is a plain result and has none. */
export function samePhotoLabel(group: ResultGroup): string | undefined {
  return group.numberOfItems > 1 ? `Same photo results: ${group.numberOfItems}` : undefined;
}

/** Host of a source page without "www.", for compact display. */
export function hostOf(url: string | null): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}
