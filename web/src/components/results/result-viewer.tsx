import { searchImagePath, type SearchResult } from '@osint/contract/search';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { Button } from '../button.tsx';
import { Modal } from '../modal.tsx';
import {
  FaceBoxOverlay,
  ResultFacts,
  ResultThumbnail,
  SourceLinks,
  placeOf,
  type ResultActions,
} from './result-card.tsx';
import { hostOf } from './result-grouping.ts';

/**
 * A result looked at closely: the whole image with the matched face's box, the page's full title and
 * address, similarity and first-indexed date. Arrow keys move through the results in the order shown;
 * Escape (or the close button) closes it and focus returns to the card of the result shown last.
 */
export function ResultViewer<T extends SearchResult>({
  results,
  index,
  actions,
  onIndex,
  onClose,
}: {
  /** The results in the order the grid shows them. */
  results: readonly T[];
  index: number;
  actions: Pick<ResultActions<T>, 'restricted' | 'onRestricted'>;
  onIndex: (index: number) => void;
  onClose: () => void;
}) {
  const result = results[index];
  const last = results.length - 1;
  const shown = useRef(result?.id);
  useEffect(() => {
    shown.current = result?.id;
  }, [result?.id]);
  useEffect(
    () => () => {
      // The dialog gives focus back to the card that opened it; after the arrows moved on, the user is at
      // the result shown last (its own card, or the card of its copies). Runs after the dialog's own.
      const id = shown.current;
      setTimeout(() => document.querySelector<HTMLElement>(`[data-result-ids~="${id}"]`)?.focus());
    },
    [],
  );
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // Arrows that edit text or move within a control are left alone.
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      if (event.key === 'ArrowRight' && index < last) onIndex(index + 1);
      else if (event.key === 'ArrowLeft' && index > 0) onIndex(index - 1);
      else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [index, last, onIndex]);
  if (!result) return null;
  const host = hostOf(result.sourceUrl);
  return (
    <Modal
      title={`Result ${index + 1} of ${results.length}`}
      size="lg"
      onClose={onClose}
      actions={
        <div className="result-viewer__nav">
          <Button variant="secondary" onClick={() => onIndex(index - 1)} disabled={index === 0}>
            ← Previous
          </Button>
          <span className="result-viewer__hint">Arrow keys move, Esc closes</span>
          <Button variant="secondary" onClick={() => onIndex(index + 1)} disabled={index === last}>
            Next →
          </Button>
        </div>
      }
    >
      <div className="result-viewer" aria-live="polite">
        <div className="result-viewer__media">
          <ResultThumbnail
            key={result.id}
            src={result.thumbnailUrl}
            alt={`Image found on ${placeOf(result)}, the matched face outlined`}
          />
          <FaceBoxOverlay result={result} />
        </div>
        <div className="result-viewer__facts">
          <p className="result-viewer__title" dir="auto">
            {result.sourceTitle || 'Untitled page'}
          </p>
          {result.sourceUrl ? (
            <a
              className="result-viewer__url"
              href={result.sourceUrl}
              target="_blank"
              rel="noopener noreferrer"
            >
              {result.sourceUrl}
            </a>
          ) : (
            host && <p className="result-viewer__url">{host}</p>
          )}
          <ResultFacts result={result} />
          <SourceLinks result={result} actions={actions} />
          {result.imageUrl && !actions.restricted && (
            // The server fetches the image from its page and finds its faces, as for a pasted address.
            <Link
              className="btn btn-secondary btn-sm result-viewer__search"
              to={searchImagePath(result.imageUrl)}
            >
              Search this image
            </Link>
          )}
        </div>
      </div>
    </Modal>
  );
}
