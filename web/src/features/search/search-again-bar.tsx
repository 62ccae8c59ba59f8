import { MAX_ADDED_RESULT_FACES, SEARCH_MESSAGES } from '@osint/contract/search';
import { Button } from '../../components/button.tsx';
import { MessageBanner } from '../../components/message-banner.tsx';
import { ApiError } from '../../lib/api-client.ts';

interface SearchAgainBarProps {
  /** Results selected as showing the searched person. */
  count: number;
  pending: boolean;
  error: unknown;
  onSearch: () => void;
  onClear: () => void;
}

/** What to say when searching again failed: the server's own words for what the analyst can act on. */
function failureText(error: unknown): string {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401
    ? error.message
    : SEARCH_MESSAGES.searchFailure;
}

/**
 * Above the results: the analyst selects results that surely show the searched person and searches again
 * with their faces too. Several photos of a person find more of their other photos than one does, without
 * more strangers; the engine never adds a result to the query by itself, the analyst decides.
 */
export function SearchAgainBar({ count, pending, error, onSearch, onClear }: SearchAgainBarProps) {
  const tooMany = count > MAX_ADDED_RESULT_FACES;
  return (
    <div className="search-again card" role="group" aria-label="Search again with selected results">
      {count === 0 ? (
        <p className="search-again__hint">
          Sure that some results show this person? Select them to search again with their faces too: several
          photos of a person find more of their other photos.
        </p>
      ) : (
        <>
          <p className="search-again__count" aria-live="polite">
            <strong>{count}</strong> {count === 1 ? 'result' : 'results'} selected as this person
            {tooMany && ` (at most ${MAX_ADDED_RESULT_FACES} can be added)`}
          </p>
          <div className="search-again__actions">
            <Button variant="secondary" onClick={onClear} disabled={pending}>
              Clear selection
            </Button>
            <Button onClick={onSearch} loading={pending} disabled={tooMany}>
              Search again with {count === 1 ? 'this face' : 'these faces'}
            </Button>
          </div>
        </>
      )}
      {error !== null && error !== undefined && !pending && (
        <MessageBanner message={{ message: failureText(error), type: 'danger' }} />
      )}
    </div>
  );
}
