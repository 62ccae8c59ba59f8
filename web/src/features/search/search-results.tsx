import { useMutation } from '@tanstack/react-query';
import {
  SEARCH_MESSAGES,
  SEARCH_TYPE_LABELS,
  searchResultsPath,
  type SearchResponse,
  type SearchResult,
  type SearchType,
} from '@osint/contract/search';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAccessRestrictedModal } from '../../components/access-restricted-modal.tsx';
import { Button } from '../../components/button.tsx';
import { sortResults, type ResultSort } from '../../components/results/result-grouping.ts';
import { ResultsEmpty } from '../../components/results/results-empty.tsx';
import { ResultsGrid } from '../../components/results/results-grid.tsx';
import { ResultsToolbar } from '../../components/results/results-toolbar.tsx';
import { ResultViewer } from '../../components/results/result-viewer.tsx';
import { RemovalInfoModal } from '../../components/removal-info-modal.tsx';
import { ReportModal } from '../../components/report-modal.tsx';
import { PREFERENCE_KEYS, readFlag, writeFlag } from '../../lib/preferences.ts';
import { WatchFaceModal } from '../face-alerts/watch-face-modal.tsx';
import { SaveSearchModal } from './save-search-modal.tsx';
import { SearchAgainBar } from './search-again-bar.tsx';
import { generateSearchReport, removeRecords, searchWithResults } from './search-api.ts';
import { useResultsNextStep } from '../../lib/results-next-step.ts';

interface SearchResultsProps {
  response: SearchResponse;
  /** The results still shown (removed ones are gone), in the server's order. */
  results: SearchResult[];
  searchType: SearchType;
  /** The searched face (base64 JPEG), sent when the search is saved or extracted; '' until loaded. */
  image: string;
  /** URL of the searched face, shown in the header (null: the search was run without it). */
  imageUrl: string | null;
  /** Results of earlier searches searched together with that face (search again). */
  addedFaceCount: number;
  /** Other uploaded faces of the person searched together with that face (other photos). */
  otherFaceCount: number;
  sort: ResultSort;
  grouping: boolean;
  restricted: boolean;
  onSort: (sort: ResultSort) => void;
  onGrouping: (grouping: boolean) => void;
  onRemoved: (id: number) => void;
  onNewSearch: () => void;
  extractorCard: ReactNode;
}

/** "Results": the summary chip, New search, Save result, sort, grouping and the grid. */
export function SearchResults({
  response,
  results,
  searchType,
  image,
  imageUrl,
  addedFaceCount,
  otherFaceCount,
  sort,
  grouping,
  restricted,
  onSort,
  onGrouping,
  onRemoved,
  onNewSearch,
  extractorCard,
}: SearchResultsProps) {
  const { openRestricted, restrictedModal } = useAccessRestrictedModal();
  const [pendingRemoval, setPendingRemoval] = useState<SearchResult>();
  const [saveOpen, setSaveOpen] = useState(false);
  // Opened from an alert's "Save as search": the save dialog opens once the searched face is loaded.
  const saveDue = useResultsNextStep('save', results.length > 0 && Boolean(image));
  const [saveDueTaken, setSaveDueTaken] = useState(false);
  if (saveDue && !saveDueTaken) {
    setSaveDueTaken(true);
    setSaveOpen(true);
  }
  const [reportOpen, setReportOpen] = useState(false);
  const [watchOpen, setWatchOpen] = useState(false);
  const [viewing, setViewing] = useState<number>();
  // The results are new content that replaced the search form: focus starts at their heading, so a
  // screen reader reads it and the next Tab goes on from there (WCAG 2.4.3).
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [response.searchHash]);
  const sorted = sortResults(results, sort);
  const count = results.length;
  // Results the analyst selected as showing the searched person, to search again with their faces too.
  const navigate = useNavigate();
  // The page is mounted afresh for each search (keyed by its hash), so a selection never outlives it.
  const [sameFace, setSameFace] = useState<ReadonlySet<number>>(new Set());
  const selected = results.filter((result) => sameFace.has(result.id));
  const searchAgain = useMutation({
    mutationFn: () =>
      searchWithResults(
        response.searchHash,
        selected.map((result) => result.hash),
      ),
  });
  // Per call, not on the mutation: an analyst who left the page meanwhile is not pulled back to the answer.
  const runSearchAgain = () =>
    searchAgain.mutate(undefined, { onSuccess: (answer) => navigate(searchResultsPath(answer.searchHash)) });
  const toggleSameFace = (id: number) => {
    searchAgain.reset();
    setSameFace((ids) => {
      const next = new Set(ids);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  };

  const remove = (result: SearchResult) => {
    onRemoved(result.id);
    // The server is told; a failure is logged only (spec 001 §8).
    removeRecords(response.searchHash, [result.hash]).catch((error: unknown) =>
      console.error('Removing a result failed', error),
    );
  };
  const askRemove = (result: SearchResult) => {
    if (readFlag(PREFERENCE_KEYS.dismissedResultRemovalInfo)) remove(result);
    else setPendingRemoval(result);
  };

  return (
    <section className="container page search-results" aria-labelledby="results-title">
      <header className="search-results__header">
        <div className="search-results__title-row">
          {imageUrl && <img className="search-results__face" src={imageUrl} alt="Searched face" />}
          <h1 className="page__title" id="results-title" ref={heading} tabIndex={-1}>
            Results
          </h1>
          <p className="summary-chip" aria-label="Search summary">
            <span>{SEARCH_TYPE_LABELS[searchType]}</span>
            <span aria-hidden="true">·</span>
            <span>
              {count} {count === 1 ? 'result' : 'results'}
            </span>
            <span aria-hidden="true">·</span>
            <span>{(response.time / 1000).toFixed(2)} s</span>
          </p>
        </div>
        <div className="search-results__actions">
          <Link className="btn btn-secondary" to="/search/history">
            Search history
          </Link>
          <Button variant="secondary" onClick={onNewSearch}>
            New search
          </Button>
          {/* The watch is made from the searched face the search kept. */}
          {imageUrl && (
            <Button variant="secondary" onClick={() => setWatchOpen(true)}>
              Watch this face
            </Button>
          )}
          {count > 0 && (
            <Button variant="secondary" onClick={() => setReportOpen(true)}>
              Generate report
            </Button>
          )}
          {count > 0 && (
            <Button onClick={() => setSaveOpen(true)} disabled={!image}>
              Save result
            </Button>
          )}
        </div>
      </header>
      {count > 0 && (
        <ResultsToolbar sort={sort} onSort={onSort} grouping={grouping} onGrouping={onGrouping} />
      )}
      {/* Searching again needs the searched face the search kept. */}
      {count > 0 && imageUrl && (
        <SearchAgainBar
          count={selected.length}
          addedBefore={addedFaceCount}
          otherFaces={otherFaceCount}
          pending={searchAgain.isPending}
          error={searchAgain.error}
          onSearch={runSearchAgain}
          onClear={() => {
            setSameFace(new Set());
            searchAgain.reset();
          }}
        />
      )}
      {/* Slot for the AI data extractor card (spec 001 §2), rendered by the data-extractor feature. */}
      {count > 0 && extractorCard}
      {count > 0 ? (
        <ResultsGrid
          results={sorted}
          grouping={grouping}
          resetKey={`${response.searchHash}:${sort}`}
          restricted={restricted}
          onRestricted={openRestricted}
          onRemove={askRemove}
          onOpen={(result) => setViewing(sorted.findIndex((r) => r.id === result.id))}
          selection={
            imageUrl
              ? {
                  isSelected: (id) => sameFace.has(id),
                  toggle: toggleSameFace,
                  label: 'Same person:',
                  visibleLabel: 'Same person',
                }
              : undefined
          }
        />
      ) : (
        <ResultsEmpty>
          <p>
            We found no public page with this face. The image may not be public, or not suitable for a face
            search: try a different, sharper photo where the face is straight and well lit.
          </p>
          <Button onClick={onNewSearch}>New search</Button>
        </ResultsEmpty>
      )}
      {restrictedModal}
      {pendingRemoval && (
        <RemovalInfoModal
          onCancel={() => setPendingRemoval(undefined)}
          onConfirm={(dontShowAgain) => {
            if (dontShowAgain) writeFlag(PREFERENCE_KEYS.dismissedResultRemovalInfo, true);
            remove(pendingRemoval);
            setPendingRemoval(undefined);
          }}
        />
      )}
      {viewing !== undefined && viewing >= 0 && (
        <ResultViewer
          results={sorted}
          index={Math.min(viewing, sorted.length - 1)}
          actions={{ restricted, onRestricted: openRestricted }}
          onIndex={setViewing}
          onClose={() => setViewing(undefined)}
        />
      )}
      {reportOpen && (
        <ReportModal
          count={count}
          generate={() => generateSearchReport(response.searchHash)}
          failure={{ message: SEARCH_MESSAGES.reportFailure, hint: SEARCH_MESSAGES.reportFailureHint }}
          onClose={() => setReportOpen(false)}
        />
      )}
      {watchOpen && <WatchFaceModal searchHash={response.searchHash} onClose={() => setWatchOpen(false)} />}
      {saveOpen && (
        <SaveSearchModal searchHash={response.searchHash} image={image} onClose={() => setSaveOpen(false)} />
      )}
    </section>
  );
}
