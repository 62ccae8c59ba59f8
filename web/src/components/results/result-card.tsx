import type { SearchResult } from '@osint/contract/search';
import { useId, useState, type ReactNode } from 'react';
import {
  matchBand,
  matchBandLabel,
  matchScoreDetail,
  similarityFigure,
  similarityText,
} from '@osint/contract/match-score';
import { hostOf, samePhotoLabel, type ResultGroup } from './result-grouping.ts';
import { formatDate } from '@osint/contract/dates';

/** What a result entry can do, shared by the search page (remove) and saved results (select). */
export interface ResultActions<T extends SearchResult> {
  /** Original sources are for subscribers: links open the Access Restricted modal instead. */
  restricted: boolean;
  onRestricted: () => void;
  onRemove?: ((result: T) => void) | undefined;
  /** Opens the result in the viewer (the thumbnail becomes a button). */
  onOpen?: ((result: T) => void) | undefined;
  selection?:
    | {
        isSelected: (id: number) => boolean;
        toggle: (id: number) => void;
        /** What ticking means, read before the result's name (default "Select"). */
        label?: string;
        /** Shown beside the box when ticking means something the page does not say elsewhere. */
        visibleLabel?: string;
      }
    | undefined;
}

const PLACEHOLDER =
  'data:image/svg+xml;utf8,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="#eef1f7"/>' +
      '<circle cx="50" cy="40" r="16" fill="#cbd5e1"/><path d="M22 84c4-16 16-24 28-24s24 8 28 24" fill="#cbd5e1"/></svg>',
  );

/** The face thumbnail; a broken image shows a placeholder (spec 001 §8). */
export function ResultThumbnail({ src, alt }: { src: string; alt: string }) {
  const [broken, setBroken] = useState(false);
  return (
    <img
      className="result-thumb"
      src={broken || !src ? PLACEHOLDER : src}
      alt={alt}
      loading="lazy"
      onError={() => setBroken(true)}
    />
  );
}

/**
 * The matched face's box drawn over its image. The SVG spans the same box as the image and maps the
 * image's pixels onto it the way `object-fit: contain` does (xMidYMid meet), so the rectangle sits on the
 * face whatever size the image is shown at.
 */
export function FaceBoxOverlay({ result }: { result: SearchResult }) {
  const { faceBox, imageSize } = result;
  if (!faceBox || !imageSize) return null;
  return (
    <svg
      className="face-box-overlay"
      viewBox={`0 0 ${imageSize.width} ${imageSize.height}`}
      preserveAspectRatio="xMidYMid meet"
      aria-hidden="true"
      focusable="false"
    >
      <rect
        className="face-box-overlay__box"
        x={faceBox.x}
        y={faceBox.y}
        width={faceBox.width}
        height={faceBox.height}
        vectorEffect="non-scaling-stroke"
      />
    </svg>
  );
}

export function placeOf(result: SearchResult): string {
  return hostOf(result.sourceUrl) ?? (result.sourceTitle || 'the web');
}

/**
 * How a result is told apart from the others by assistive technology: its number in the list, its page
 * and its score as the card prints it — "result 3: The Riverton Courier, similarity 0.96".
 */
export function resultName(result: SearchResult, number: number, noun = 'result'): string {
  return `${noun} ${number}: ${result.sourceTitle || placeOf(result)}, ${similarityText(result.similarity)}`;
}

/** The 1-based number of each result in the list as sorted, for `resultName`. */
export type ResultNumbering<T extends SearchResult> = (result: T) => number;

export function SourceLinks<T extends SearchResult>({
  result,
  actions,
}: {
  result: T;
  actions: ResultActions<T>;
}) {
  const place = placeOf(result);
  const links: { label: string; href: string | null }[] = [
    { label: 'Image', href: result.imageUrl },
    { label: 'Source', href: result.sourceUrl },
  ];
  return (
    <div className="result-links">
      {links.map(({ label, href }) =>
        actions.restricted || !href ? (
          <button
            key={label}
            type="button"
            className="result-link result-link--locked"
            onClick={actions.onRestricted}
            aria-label={`${label} on ${place} (subscribers only)`}
          >
            <LockIcon />
            {label}
          </button>
        ) : (
          <a
            key={label}
            className="result-link"
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open ${label.toLowerCase()} on ${place}`}
          >
            {label}
            <ExternalIcon />
          </a>
        ),
      )}
    </div>
  );
}

/**
 * The page's title (two lines, then the whole title as a tooltip) and host (the host alone for restricted
 * users, whose URLs are withheld).
 */
function SourceLine({ result }: { result: SearchResult }) {
  const host = hostOf(result.sourceUrl);
  return (
    <p className="result-card__source" title={result.sourceTitle || undefined}>
      {result.sourceTitle && (
        <span className="result-card__title" dir="auto">
          {result.sourceTitle}
        </span>
      )}
      {host && <span className="result-card__host">{host}</span>}
    </p>
  );
}

export function ResultFacts({ result }: { result: SearchResult }) {
  return (
    <dl className="result-facts">
      <div className="result-facts__match">
        <dt>Match</dt>
        <dd>
          <span
            className={`result-score result-score--${matchBand(result.similarity, result.scoreModel)}`}
            title={matchScoreDetail(result.similarity, result.scoreModel)}
          >
            {matchBandLabel(result.similarity, result.scoreModel)}{' '}
            <span className="result-score__value">({similarityFigure(result.similarity)})</span>
          </span>
        </dd>
      </div>
      <div>
        <dt>First indexed</dt>
        <dd>
          <time dateTime={result.crawledAt}>{formatDate(result.crawledAt)}</time>
        </dd>
      </div>
    </dl>
  );
}

/** What a result card and its controls are given. */
interface ResultItemProps<T extends SearchResult> {
  result: T;
  actions: ResultActions<T>;
  numberOf: ResultNumbering<T>;
}

function ItemControls<T extends SearchResult>({ result, actions, numberOf }: ResultItemProps<T>) {
  const name = resultName(result, numberOf(result));
  return (
    <>
      {actions.selection && (
        <label
          className={
            actions.selection.visibleLabel ? 'result-select result-select--labelled' : 'result-select'
          }
        >
          <input
            type="checkbox"
            checked={actions.selection.isSelected(result.id)}
            onChange={() => actions.selection!.toggle(result.id)}
          />
          {/* The accessible name below starts with the same words. */}
          {actions.selection.visibleLabel && <span aria-hidden="true">{actions.selection.visibleLabel}</span>}
          <span className="visually-hidden">
            {actions.selection.label ?? 'Select'} {name}
          </span>
        </label>
      )}
      {actions.onRemove && (
        <button
          type="button"
          className="result-remove"
          onClick={() => actions.onRemove!(result)}
          aria-label={`Remove ${name}`}
          title="Remove result"
        >
          <TrashIcon />
        </button>
      )}
    </>
  );
}

/** One result: thumbnail, similarity, first-indexed date, the source and its links. */
export function ResultCard<T extends SearchResult>({ result, actions, numberOf }: ResultItemProps<T>) {
  const place = placeOf(result);
  const name = resultName(result, numberOf(result));
  return (
    <article className="result-card" aria-label={resultName(result, numberOf(result), 'Result')}>
      <div className="result-card__media">
        {actions.onOpen ? (
          <button
            type="button"
            className="result-card__open"
            onClick={() => actions.onOpen!(result)}
            aria-label={`View ${name}`}
            data-result-ids={result.id}
          >
            <ResultThumbnail src={result.thumbnailUrl} alt="" />
            <FaceBoxOverlay result={result} />
          </button>
        ) : (
          <>
            <ResultThumbnail src={result.thumbnailUrl} alt={`Face found on ${place}`} />
            <FaceBoxOverlay result={result} />
          </>
        )}
        <ItemControls result={result} actions={actions} numberOf={numberOf} />
      </div>
      <div className="result-card__body">
        <ResultFacts result={result} />
        <SourceLine result={result} />
        <SourceLinks result={result} actions={actions} />
      </div>
    </article>
  );
}

/** Sightings of a group shown before "Show all": the card stays the height of its neighbours. */
const GROUP_ITEMS_SHOWN = 2;

/**
 * Copies of one photo on several pages: one thumbnail, "Same photo results: N", the first sightings, and
 * the rest behind "Show all N" (no scroll area inside the card, whose hidden part nobody would notice).
 */
export function ResultGroupCard<T extends SearchResult>({
  group,
  actions,
  numberOf,
}: {
  group: ResultGroup<T>;
  actions: ResultActions<T>;
  numberOf: ResultNumbering<T>;
}) {
  const label = samePhotoLabel(group);
  const [expanded, setExpanded] = useState(false);
  const listId = useId();
  if (!label) return <ResultCard result={group.items[0]!} actions={actions} numberOf={numberOf} />;
  const best = group.items[0]!;
  const hidden = group.items.length - GROUP_ITEMS_SHOWN;
  const shown = expanded || hidden <= 0 ? group.items : group.items.slice(0, GROUP_ITEMS_SHOWN);
  return (
    <article className="result-card result-card--group" aria-label={label}>
      <div className="result-card__media">
        {actions.onOpen ? (
          <button
            type="button"
            className="result-card__open"
            onClick={() => actions.onOpen!(best)}
            aria-label={`View ${resultName(best, numberOf(best))}`}
            data-result-ids={group.items.map((item) => item.id).join(' ')}
          >
            <ResultThumbnail src={group.displayedThumbnail} alt="" />
            <FaceBoxOverlay result={best} />
          </button>
        ) : (
          <>
            <ResultThumbnail src={group.displayedThumbnail} alt={`Face found on ${placeOf(best)}`} />
            <FaceBoxOverlay result={best} />
          </>
        )}
        <span className="result-card__badge">{label}</span>
      </div>
      <ul className="result-group__items" id={listId}>
        {shown.map((item) => (
          <li key={item.id} className="result-group__item">
            {/* The controls on a row of their own: beside them, a narrow card left the title a few letters. */}
            <div className="result-group__controls">
              <ItemControls result={item} actions={actions} numberOf={numberOf} />
            </div>
            <SourceLine result={item} />
            <ResultFacts result={item} />
            <SourceLinks result={item} actions={actions} />
          </li>
        ))}
      </ul>
      {hidden > 0 && (
        <button
          type="button"
          className="result-group__toggle"
          aria-expanded={expanded}
          aria-controls={listId}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? 'Show fewer' : `Show all ${group.items.length}`}
        </button>
      )}
    </article>
  );
}

function Icon({ children }: { children: ReactNode }) {
  return (
    <svg className="result-icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

function TrashIcon() {
  return (
    <Icon>
      <path
        d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </Icon>
  );
}

function ExternalIcon() {
  return (
    <Icon>
      <path
        d="M14 4h6v6M20 4l-9 9M18 14v6H4V6h6"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </Icon>
  );
}

function LockIcon() {
  return (
    <Icon>
      <path
        d="M6 11h12v9H6zM8 11V8a4 4 0 0 1 8 0v3"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      />
    </Icon>
  );
}
