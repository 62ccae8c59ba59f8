import { MAX_RELOAD_PAGE_SIZE } from '@osint/contract/constants';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface PagedList<T> {
  items: T[];
  total: number;
  loading: boolean;
  /** Whether any answer has come yet (for any key): later loads show inside the list, not over the page. */
  answered: boolean;
  hasMore: boolean;
  /** The next page (page numbers grow from 1). */
  loadMore: () => void;
  /** Every page loaded so far, again, in one request. */
  reload: () => Promise<void>;
  /** Changes what is shown without asking the server (a result checked or removed here). */
  patch: (update: (page: Page<T>) => Page<T>) => void;
}

/** One page of a list as the server answers it. */
export interface Page<T> {
  items: T[];
  total: number;
}

export type PageFetcher<T> = (pageNumber: number, pageSize: number) => Promise<Page<T>>;

interface Loaded<T> {
  key: string;
  items: T[];
  total: number;
  pages: number;
  answered: boolean;
}

/**
 * One paged section of a list (spec 001 §7 paging: saved searches and extractions): pages of `pageSize`,
 * more on request, and a refetch that reloads what is shown in one call. A failed fetch is logged and
 * shows an empty list (spec 001 §8). `key` names what is listed (status, search…): a new key starts over
 * at page 1; `fetchPage` is read when a request is made, so it need not be stable.
 */
export function usePagedList<T>(
  key: string,
  pageSize: number,
  fetchPage: PageFetcher<T>,
  /** What tells two items apart: a next page repeats an item shown when the list grew at its top meanwhile. */
  keyOf: (item: T) => unknown = (item) => item,
): PagedList<T> {
  const fullKey = `${key}|${pageSize}`;
  const [loaded, setLoaded] = useState<Loaded<T>>({
    key: '',
    items: [],
    total: 0,
    pages: 0,
    answered: false,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const pagesRef = useRef(1);
  const request = useRef(0);
  const fetcher = useRef(fetchPage);
  const keyOfItem = useRef(keyOf);
  useLayoutEffect(() => {
    fetcher.current = fetchPage;
    keyOfItem.current = keyOf;
  });

  const load = useCallback(
    async (pageNumber: number, size: number, append: boolean) => {
      const id = ++request.current;
      let answer: Page<T>;
      try {
        answer = await fetcher.current(pageNumber, size);
      } catch (error) {
        console.error('A list could not be loaded', error);
        answer = { items: [], total: 0 };
      }
      // An older answer arriving after a newer request is dropped.
      if (id !== request.current) return;
      const pages = append ? pageNumber : Math.max(1, Math.ceil(size / pageSize));
      pagesRef.current = pages;
      setLoaded((current) => ({
        key: fullKey,
        items: append ? appendNew(current.items, answer.items, keyOfItem.current) : answer.items,
        total: answer.total,
        pages,
        answered: true,
      }));
      setLoadingMore(false);
    },
    [fullKey, pageSize],
  );

  useEffect(() => {
    pagesRef.current = 1;
    void load(1, pageSize, false);
  }, [load, pageSize]);

  // Whole pages, no more than the server answers at once: past that a reload keeps the first ones.
  const reload = useCallback(() => {
    const pages = Math.min(pagesRef.current, Math.max(1, Math.floor(MAX_RELOAD_PAGE_SIZE / pageSize)));
    return load(1, pageSize * Math.max(1, pages), false);
  }, [load, pageSize]);
  const loadMore = useCallback(() => {
    if (loadingMore || loaded.key !== fullKey) return;
    setLoadingMore(true);
    const size = pageSize * (loaded.pages + 1);
    // Items removed here (patch) shifted the server's list: the next page by number would skip as many
    // items. Then what is shown and one more page come again in one request, while that fits in one.
    if (loaded.items.length < pageSize * loaded.pages && size <= MAX_RELOAD_PAGE_SIZE)
      void load(1, size, false);
    else void load(loaded.pages + 1, pageSize, true);
  }, [load, pageSize, loadingMore, loaded.key, loaded.pages, loaded.items.length, fullKey]);

  const patch = useCallback((update: (page: Page<T>) => Page<T>) => {
    setLoaded((current) => {
      const next = update({ items: current.items, total: current.total });
      return { ...current, items: next.items, total: next.total };
    });
  }, []);

  const current = loaded.key === fullKey;
  return {
    patch,
    items: current ? loaded.items : [],
    total: current ? loaded.total : 0,
    loading: !current || loadingMore,
    answered: loaded.answered,
    hasMore: current && loaded.items.length < loaded.total,
    loadMore,
    reload,
  };
}

/** Calls `loadMore` when the returned element scrolls into view (lazy loading; SHOW MORE stays for keyboards). */
export function useLoadOnScroll(hasMore: boolean, loading: boolean, loadMore: () => void) {
  const observer = useRef<IntersectionObserver | null>(null);
  return useCallback(
    (element: HTMLElement | null) => {
      observer.current?.disconnect();
      if (!element || !hasMore || loading || typeof IntersectionObserver === 'undefined') return;
      observer.current = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) loadMore();
      });
      observer.current.observe(element);
    },
    [hasMore, loadMore, loading],
  );
}

const SEARCH_DEBOUNCE_MS = 300;

/** The value, once it has not changed for 300 ms (search boxes). */
export function useDebounced(value: string, delay = SEARCH_DEBOUNCE_MS): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

/** `items` followed by those of `more` not among them (by `keyOf`). */
function appendNew<T>(items: readonly T[], more: readonly T[], keyOf: (item: T) => unknown): T[] {
  const shown = new Set(items.map(keyOf));
  return [...items, ...more.filter((item) => !shown.has(keyOf(item)))];
}
