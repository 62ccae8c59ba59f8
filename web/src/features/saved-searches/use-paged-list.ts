import type { SavedSearch, SavedSearchStatus } from '@osint/contract/search';
import { useCallback, useEffect, useRef, useState } from 'react';
import { fetchSavedSearches } from './saved-searches-api.ts';

export interface PagedList {
  items: SavedSearch[];
  total: number;
  loading: boolean;
  hasMore: boolean;
  /** The next page (page numbers grow from 1). */
  loadMore: () => void;
  /** Every page loaded so far, again, in one request. */
  reload: () => Promise<void>;
}

interface Loaded {
  key: string;
  items: SavedSearch[];
  total: number;
  pages: number;
}

/**
 * One section of the saved-search list (spec 001 §7 paging): pages of `pageSize`, more on request, and a
 * refetch that reloads what is shown in one call. A failed fetch is logged and shows an empty list.
 */
export function usePagedList(status: SavedSearchStatus, pageSize: number, search: string): PagedList {
  const key = `${status}|${pageSize}|${search}`;
  const [loaded, setLoaded] = useState<Loaded>({ key: '', items: [], total: 0, pages: 0 });
  const [loadingMore, setLoadingMore] = useState(false);
  const pagesRef = useRef(1);
  const request = useRef(0);

  const load = useCallback(
    async (pageNumber: number, size: number, append: boolean) => {
      const id = ++request.current;
      let answer;
      try {
        answer = await fetchSavedSearches({
          status,
          pageNumber,
          pageSize: size,
          search: search || undefined,
        });
      } catch (error) {
        console.error('Saved searches could not be loaded', error);
        answer = { results: [], totalResultCount: 0 };
      }
      // An older answer arriving after a newer request is dropped.
      if (id !== request.current) return;
      const pages = append ? pageNumber : Math.max(1, Math.ceil(size / pageSize));
      pagesRef.current = pages;
      setLoaded((current) => ({
        key: `${status}|${pageSize}|${search}`,
        items: append ? [...current.items, ...answer.results] : answer.results,
        total: answer.totalResultCount,
        pages,
      }));
      setLoadingMore(false);
    },
    [status, search, pageSize],
  );

  useEffect(() => {
    pagesRef.current = 1;
    void load(1, pageSize, false);
  }, [load, pageSize]);

  const reload = useCallback(
    () => load(1, pageSize * Math.max(1, pagesRef.current), false),
    [load, pageSize],
  );
  const loadMore = useCallback(() => {
    if (loadingMore || loaded.key !== key) return;
    setLoadingMore(true);
    void load(loaded.pages + 1, pageSize, true);
  }, [load, pageSize, loadingMore, loaded.key, loaded.pages, key]);

  const current = loaded.key === key;
  return {
    items: current ? loaded.items : [],
    total: current ? loaded.total : 0,
    loading: !current || loadingMore,
    hasMore: current && loaded.items.length < loaded.total,
    loadMore,
    reload,
  };
}
