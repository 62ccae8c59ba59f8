import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Infinite scroll: how many entries to render, growing by `step` whenever the sentinel element comes
 * within a screen of the viewport. `resetKey` changing (sort, grouping, a new result set) starts over.
 */
export function useProgressiveCount(total: number, step: number, resetKey: string) {
  const [state, setState] = useState({ key: resetKey, count: step });
  // A new key resets the count during render, so the first paint of a new list is already short.
  const current = state.key === resetKey ? state : { key: resetKey, count: step };
  if (current !== state) setState(current);
  const count = Math.min(total, Math.max(current.count, step));

  const showMore = useCallback(() => setState((s) => ({ key: s.key, count: s.count + step })), [step]);

  const observer = useRef<IntersectionObserver | null>(null);
  const hasMore = count < total;
  const sentinel = useCallback(
    (element: HTMLElement | null) => {
      observer.current?.disconnect();
      observer.current = null;
      if (!element || !hasMore || typeof IntersectionObserver === 'undefined') return;
      observer.current = new IntersectionObserver(
        (entries) => {
          if (entries.some((entry) => entry.isIntersecting)) showMore();
        },
        { rootMargin: '0px 0px 100% 0px' },
      );
      observer.current.observe(element);
    },
    // A new count re-observes, so a sentinel still in view after a step asks for the next one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [hasMore, showMore, count],
  );
  useEffect(() => () => observer.current?.disconnect(), []);

  return { count, hasMore, showMore, sentinel };
}

const COLUMN_QUERIES: [string, number][] = [
  ['(min-width: 1200px)', 5],
  ['(min-width: 900px)', 4],
  ['(min-width: 600px)', 3],
  ['(min-width: 480px)', 2],
];

function columnsNow(): number {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return 5;
  return COLUMN_QUERIES.find(([query]) => window.matchMedia(query).matches)?.[1] ?? 1;
}

/** Columns that fit the window width (5 on a desktop: "4 rows of 5"; 1 on a narrow phone). */
export function useColumnCount(): number {
  const [columns, setColumns] = useState(columnsNow);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const lists = COLUMN_QUERIES.map(([query]) => window.matchMedia(query));
    const update = () => setColumns(columnsNow());
    lists.forEach((list) => list.addEventListener('change', update));
    return () => lists.forEach((list) => list.removeEventListener('change', update));
  }, []);
  return columns;
}
