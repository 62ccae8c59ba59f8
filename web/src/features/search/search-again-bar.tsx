import { MAX_ADDED_RESULT_FACES, SEARCH_MESSAGES } from '@osint/contract/search';
import { Button } from '../../components/button.tsx';
import { MessageBanner } from '../../components/message-banner.tsx';
import { ApiError } from '../../lib/api-client.ts';

interface SearchAgainBarProps {
  /** Results selected as showing the searched person. */
  count: number;
  /** Results of earlier searches that this search already searched with its face. */
  addedBefore: number;
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

const results = (count: number) => `${count} ${count === 1 ? 'result' : 'results'}`;

/**
 * Above the results: the analyst selects results that surely show the searched person and searches again
 * with their faces too. Several photos of a person find more of their other photos than one does, without
 * more strangers; the engine never adds a result to the query by itself, the analyst decides.
 */
export function SearchAgainBar({
  count,
  addedBefore,
  pending,
  error,
  onSearch,
  onClear,
}: SearchAgainBarProps) {
  const tooMany = count + addedBefore > MAX_ADDED_RESULT_FACES;
  const before =
    addedBefore > 0 ? `Searched with the face above and ${results(addedBefore)} selected before. ` : '';
  return (
    <div className="search-again card" role="group" aria-label="Search again with selected results">
      {/* One live region, always present, so that each change of the selection is read out. */}
      <p className="search-again__status" aria-live="polite">
        {count === 0 ? (
          <>
            {before}Sure that some results show this person? Select them to search again with their faces too:
            several photos of a person find more of their other photos.
          </>
        ) : (
          <>
            {before}
            <strong>{results(count)}</strong> selected as this person
            {tooMany && ` (at most ${MAX_ADDED_RESULT_FACES} in all can be searched with the face)`}
          </>
        )}
      </p>
      {count > 0 && (
        <div className="search-again__actions">
          <Button variant="secondary" onClick={onClear} disabled={pending}>
            Clear selection
          </Button>
          <Button onClick={onSearch} loading={pending} disabled={tooMany}>
            Search again with {count === 1 ? 'this face' : 'these faces'}
          </Button>
        </div>
      )}
      {error !== null && error !== undefined && !pending && (
        <MessageBanner message={{ message: failureText(error), type: 'danger' }} />
      )}
    </div>
  );
}
