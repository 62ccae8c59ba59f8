import type { SearchResult } from '@osint/contract/search';
import { RESULT_GRID_STEP } from '@osint/contract/search';
import { useMemo } from 'react';
import { ResultCard, ResultGroupCard, type ResultActions, type ResultNumbering } from './result-card.tsx';
import { groupResults } from './result-grouping.ts';
import { useColumnCount, useProgressiveCount } from './use-progressive-count.ts';
import { Button } from '../button.tsx';
import './results.css';

interface ResultsGridProps<T extends SearchResult> extends ResultActions<T> {
  /** Already sorted. */
  results: readonly T[];
  grouping: boolean;
  /** Changes (a new search, sort or grouping) start the infinite scroll over. */
  resetKey: string;
  /**
   * Results the server holds beyond `results` (a list fetched page by page, as alerts): once every given
   * result is shown, "Show more results" fetches the next page.
   */
  serverMore?: { hasMore: boolean; loading: boolean; loadMore: () => void } | undefined;
}

/**
 * The results grid of spec 001 §2: 20 results (4 rows of 5) at a time, or in the grouped view 4 rows of
 * groups, with more loaded as the end of the grid scrolls into view (or by the button, for keyboards).
 */
export function ResultsGrid<T extends SearchResult>({
  results,
  grouping,
  resetKey,
  serverMore,
  ...actions
}: ResultsGridProps<T>) {
  // Single results are small enough for two columns on a phone; groups with their list of pages are not.
  const fitting = useColumnCount();
  const columns = grouping ? fitting : Math.max(2, fitting);
  const groups = useMemo(() => (grouping ? groupResults(results) : []), [grouping, results]);
  // Numbers follow the sorted list, grouped or not, so "result 3" is the same result in both views.
  const numberOf = useMemo<ResultNumbering<T>>(() => {
    const numbers = new Map(results.map((result, index) => [result.id, index + 1]));
    return (result) => numbers.get(result.id) ?? 0;
  }, [results]);
  const total = grouping ? groups.length : results.length;
  const step = grouping ? 4 * columns : RESULT_GRID_STEP;
  const { count, hasMore, showMore, sentinel } = useProgressiveCount(
    total,
    step,
    `${resetKey}:${grouping ? 'g' : 'l'}`,
  );
  const style = { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` };

  return (
    <div className="results-grid-wrap">
      <ul className="results-grid" style={style} aria-label="Search results">
        {grouping
          ? groups.slice(0, count).map((group) => (
              <li key={group.groupId}>
                <ResultGroupCard group={group} actions={actions} numberOf={numberOf} />
              </li>
            ))
          : results.slice(0, count).map((result) => (
              <li key={result.id}>
                <ResultCard result={result} actions={actions} numberOf={numberOf} />
              </li>
            ))}
      </ul>
      {(hasMore || serverMore?.hasMore) && (
        <div className="results-grid__more" ref={hasMore ? sentinel : undefined}>
          <Button
            variant="secondary"
            loading={!hasMore && Boolean(serverMore?.loading)}
            onClick={() => {
              // The next page is fetched and its first cards shown as it arrives.
              if (!hasMore) serverMore?.loadMore();
              showMore();
            }}
          >
            Show more results
          </Button>
        </div>
      )}
    </div>
  );
}
