import { useEffect, useRef } from 'react';
import type { PagedList } from './use-paged-list.ts';

/**
 * An "In progress" / "Done" pair of paged lists (spec 001 §2, §4): while anything is pending, the pending
 * list is refetched every `intervalMs`; when the pending count changes (a run finished, one was deleted),
 * Done is refetched and `onPendingChange` runs.
 */
export function usePendingRefresh<P, D>(
  pending: PagedList<P>,
  done: PagedList<D>,
  intervalMs: number,
  onPendingChange?: () => void,
) {
  const { reload: reloadPending, total, loading } = pending;
  const { reload: reloadDone } = done;
  const onChange = useRef(onPendingChange);
  useEffect(() => {
    onChange.current = onPendingChange;
  });

  useEffect(() => {
    if (total === 0) return;
    const timer = setInterval(() => void reloadPending(), intervalMs);
    return () => clearInterval(timer);
  }, [total, reloadPending, intervalMs]);

  const lastPending = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (loading) return;
    if (lastPending.current !== undefined && lastPending.current !== total) {
      void reloadDone();
      onChange.current?.();
    }
    lastPending.current = total;
  }, [total, loading, reloadDone]);
}
