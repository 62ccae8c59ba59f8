import { MAX_QUERY_FACES, SEARCH_MESSAGES, searchedWithSummary } from '@osint/contract/search';
import { Button } from '../../components/button.tsx';
import { MessageBanner } from '../../components/message-banner.tsx';
import { ApiError } from '../../lib/api-client.ts';

interface SearchAgainBarProps {
  /** Results selected as showing the searched person. */
  count: number;
  /** Results of earlier searches that this search already searched with its face. */
  addedBefore: number;
  /** Other uploaded faces of the person this search was searched with (other photos). */
  otherFaces: number;
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
  otherFaces,
  pending,
  error,
  onSearch,
  onClear,
}: SearchAgainBarProps) {
  // The search's own faces count too: one search takes at most MAX_QUERY_FACES.
  const room = MAX_QUERY_FACES - 1 - otherFaces - addedBefore;
  const tooMany = count > room;
  const summary = searchedWithSummary(
    { otherFaceCount: otherFaces, addedFaceCount: addedBefore },
    { face: 'the face above', results: 'selected before' },
  );
  const before = summary ? `Searched with ${summary}. ` : '';
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
            {tooMany &&
              ` (at most ${results(Math.max(room, 0))} more can be searched with this search's faces)`}
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
