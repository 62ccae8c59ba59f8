import { matchBandLabel, matchScoreDetail, similarityFigure } from '@osint/contract/match-score';
import type {
  ExtractedResult,
  ExtractionFlag,
  SeenWithConnection,
  WikipediaResult,
} from '@osint/contract/data-extractor';
import { EVIDENCE_SOURCE_LABELS } from '@osint/contract/data-extractor';
import { Fragment, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { ResultThumbnail } from '../../components/results/result-card.tsx';
import { fetchConnections, type ExtractorContext } from './data-extractor-api.ts';
import { formatDate } from '@osint/contract/dates';

export const FLAG_LABELS: Record<ExtractionFlag, string> = {
  politician: 'Politician',
  sanctions: 'Sanctions',
  criminal: 'Criminal',
};
const FLAG_TONES: Record<ExtractionFlag, string> = {
  politician: 'info',
  sanctions: 'warning',
  criminal: 'danger',
};
const FLAGS: ExtractionFlag[] = ['politician', 'sanctions', 'criminal'];

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export function FlagBadges({
  flags,
  seenWith,
}: {
  flags: Pick<ExtractedResult, ExtractionFlag>;
  seenWith?: boolean;
}) {
  const on = FLAGS.filter((flag) => flags[flag]);
  if (on.length === 0 && !seenWith) return null;
  return (
    <ul className="extractor-flags" aria-label="Flags">
      {on.map((flag) => (
        <li key={flag} className={`badge badge--${FLAG_TONES[flag]}`}>
          {FLAG_LABELS[flag]}
        </li>
      ))}
      {seenWith && <li className="badge extractor-badge--seen">Seen with</li>}
    </ul>
  );
}

/**
 * Why each flag was raised: every flag shows its evidence (expandable), on a result, the Wikipedia result
 * and a connection alike.
 */
function Evidence({ subject }: { subject: Pick<ExtractedResult, ExtractionFlag | 'evidence'> }) {
  const flagged = FLAGS.filter((flag) => subject[flag]);
  if (flagged.length === 0) return null;
  return (
    <details className="extractor-evidence">
      <summary>Why flagged ({subject.evidence.length})</summary>
      <ul className="extractor-evidence__list">
        {flagged.map((flag) => {
          const items = subject.evidence.filter((e) => e.flag === flag);
          return (
            <li key={flag} className="extractor-evidence__flag">
              <span className={`badge badge--${FLAG_TONES[flag]}`}>{FLAG_LABELS[flag]}</span>
              {items.length === 0 ? (
                <p className="extractor-evidence__text">No evidence was recorded for this flag.</p>
              ) : (
                <ul className="extractor-evidence__items">
                  {items.map((item, index) => (
                    <li key={index}>
                      <p className="extractor-evidence__text">
                        <span className="extractor-evidence__source">
                          {EVIDENCE_SOURCE_LABELS[item.source]}
                        </span>
                        {item.source === 'page' ? (
                          <>
                            “<bdi>{item.text}</bdi>”
                          </>
                        ) : (
                          <bdi>{item.text}</bdi>
                        )}
                      </p>
                      <p className="extractor-evidence__meta">
                        {item.listName && <span>List {item.listName}</span>}
                        {item.score !== undefined && <span>match {Math.round(item.score * 100)}%</span>}
                        {item.url && (
                          <a href={item.url} target="_blank" rel="noreferrer noopener">
                            {hostOf(item.url) ?? item.url}
                          </a>
                        )}
                      </p>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

function Connections({ context, result }: { context: ExtractorContext; result: ExtractedResult }) {
  const [state, setState] = useState<
    | { phase: 'closed' }
    | { phase: 'loading' }
    | { phase: 'open'; list: SeenWithConnection[] }
    | { phase: 'error' }
  >({ phase: 'closed' });
  if (result.seenWithNames.length === 0) return null;
  const open = async () => {
    if (state.phase === 'open') {
      setState({ phase: 'closed' });
      return;
    }
    setState({ phase: 'loading' });
    try {
      setState({ phase: 'open', list: await fetchConnections(context, result.hashedId) });
    } catch (error) {
      console.error('Connections could not be loaded', error);
      setState({ phase: 'error' });
    }
  };
  return (
    <div className="extractor-connections">
      <p className="extractor-connections__names">
        <strong>Seen with:</strong>{' '}
        {result.seenWithNames.map((seen, index) => (
          <Fragment key={index}>
            {index > 0 && ', '}
            <bdi>{seen}</bdi>
          </Fragment>
        ))}
      </p>
      <button
        type="button"
        className="extractor-link-button"
        aria-expanded={state.phase === 'open'}
        onClick={() => void open()}
      >
        {state.phase === 'open' ? 'Hide connections' : 'Show connections'}
      </button>
      {state.phase === 'loading' && <span className="spinner" aria-label="Loading connections" />}
      {state.phase === 'error' && (
        <p className="extractor-connections__error" role="alert">
          The connections could not be loaded.
        </p>
      )}
      {state.phase === 'open' && (
        <ul className="extractor-connections__list" aria-label={`Connections of ${result.personName}`}>
          {state.list.map((connection) => (
            <li key={connection.id} className="extractor-connection">
              {connection.imgUrl && (
                <img className="extractor-connection__img" src={connection.imgUrl} alt="" loading="lazy" />
              )}
              <span className="extractor-connection__name" dir="auto">
                {connection.aboutUrl ? (
                  <a href={connection.aboutUrl} target="_blank" rel="noreferrer noopener">
                    {connection.name}
                  </a>
                ) : (
                  connection.name
                )}
              </span>
              <FlagBadges flags={connection} />
              <Evidence subject={connection} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function CheckedSwitch({
  checked,
  label,
  readOnly,
  onCheck,
}: {
  checked: boolean;
  label: string;
  readOnly: boolean;
  onCheck: () => void;
}) {
  if (readOnly) {
    return (
      <span className={`extractor-checked${checked ? ' extractor-checked--on' : ''}`}>
        {checked ? 'Checked' : 'Unchecked'}
      </span>
    );
  }
  // Unchecked to checked only (spec 001 §4): a checked result's switch stays on.
  return (
    <div className="switch-field extractor-checked-switch">
      <button
        type="button"
        role="switch"
        aria-checked={checked}
        aria-label={label}
        aria-disabled={checked || undefined}
        className={`switch${checked ? ' switch--on' : ''}`}
        onClick={() => {
          if (!checked) onCheck();
        }}
      >
        <span className="switch__knob" aria-hidden="true" />
      </button>
      <span className="switch-field__label" aria-hidden="true">
        {checked ? 'Checked' : 'Unchecked'}
      </span>
    </div>
  );
}

export interface ResultCardProps {
  context: ExtractorContext;
  result: ExtractedResult;
  selected: boolean;
  restricted: boolean;
  onToggle: () => void;
  onRestricted: () => void;
  onCheck: () => void;
  onEdit: () => void;
  onDelete: () => void;
}

/** One extracted result: who the page says the person is, the flags with their evidence, links, actions. */
export function ExtractedResultCard({
  context,
  result,
  selected,
  restricted,
  onToggle,
  onRestricted,
  onCheck,
  onEdit,
  onDelete,
}: ResultCardProps) {
  const admin = context === 'admin';
  const place = hostOf(result.sourceUrl) ?? result.sourceTitle ?? 'the web';
  const links = [
    { label: 'Image', href: result.imageUrl },
    { label: 'Source', href: result.sourceUrl },
  ];
  const name = result.personName || 'Unknown name';
  return (
    <article
      className={`extractor-result${result.checked ? ' extractor-result--checked' : ''}`}
      aria-label={name}
    >
      <label className="extractor-result__select">
        <input type="checkbox" checked={selected} onChange={onToggle} />
        <span className="visually-hidden">Select {name}</span>
      </label>
      <div className="extractor-result__thumb">
        <ResultThumbnail src={result.thumbnailUrl} alt={`Face on ${place}`} />
      </div>
      <div className="extractor-result__body">
        <div className="extractor-result__head">
          <h3 className="extractor-result__name" dir="auto">
            {name}
          </h3>
          <FlagBadges flags={result} seenWith={result.seenWith} />
        </div>
        {result.personDesc && (
          <p className="extractor-result__desc" dir="auto">
            {result.personDesc}
          </p>
        )}
        <p className="extractor-result__meta">
          {result.sourceTitle && <span dir="auto">{result.sourceTitle}</span>}
          <span title={matchScoreDetail(result.similarity, result.scoreModel)}>
            {matchBandLabel(result.similarity, result.scoreModel)} ({similarityFigure(result.similarity)})
          </span>
          <span>
            crawled <time dateTime={result.crawledAt}>{formatDate(result.crawledAt)}</time>
          </span>
        </p>
        <Evidence subject={result} />
        <Connections context={context} result={result} />
      </div>
      <div className="extractor-result__side">
        <div className="extractor-result__links">
          {links.map(({ label, href }) =>
            restricted || !href ? (
              <button
                key={label}
                type="button"
                className="btn btn-secondary btn-sm"
                onClick={onRestricted}
                aria-label={`${label} on ${place} (subscribers only)`}
              >
                🔒 {label}
              </button>
            ) : (
              <a
                key={label}
                className="btn btn-secondary btn-sm"
                href={href}
                target="_blank"
                rel="noreferrer noopener"
                aria-label={`Open ${label.toLowerCase()} on ${place}`}
                onClick={() => {
                  // Opening a link checks the result (spec 001 §4).
                  if (!admin && !result.checked) onCheck();
                }}
              >
                {label}
              </a>
            ),
          )}
        </div>
        <CheckedSwitch
          checked={result.checked}
          readOnly={admin}
          label={`Checked: ${name}`}
          onCheck={onCheck}
        />
        {!admin && (
          <div className="extractor-result__actions">
            <Button variant="ghost" className="btn-sm" onClick={onEdit} aria-label={`Edit ${name}`}>
              Edit
            </Button>
            <Button variant="ghost" className="btn-sm" onClick={onDelete} aria-label={`Delete ${name}`}>
              Delete
            </Button>
          </div>
        )}
      </div>
    </article>
  );
}

/** The single Wikipedia-type result of an extraction, with its own checked switch. */
export function WikipediaCard({
  result,
  admin,
  selected,
  onToggle,
  onCheck,
  onRestricted,
}: {
  result: WikipediaResult;
  admin: boolean;
  selected: boolean;
  onToggle: () => void;
  onCheck: () => void;
  /** The article's address is withheld (trial plans): the button explains why. */
  onRestricted: () => void;
}) {
  return (
    <article
      className="extractor-result extractor-result--wikipedia"
      aria-label={`Wikipedia: ${result.name}`}
    >
      <label className="extractor-result__select">
        <input type="checkbox" checked={selected} onChange={onToggle} />
        <span className="visually-hidden">Select the Wikipedia result</span>
      </label>
      <div className="extractor-result__thumb extractor-result__thumb--wiki" aria-hidden="true">
        W
      </div>
      <div className="extractor-result__body">
        <div className="extractor-result__head">
          <h3 className="extractor-result__name" dir="auto">
            {result.name}
          </h3>
          <span className="badge">Wikipedia</span>
          <FlagBadges flags={result} />
        </div>
        {result.personDescription && (
          <p className="extractor-result__desc" dir="auto">
            {result.personDescription}
          </p>
        )}
        <Evidence subject={result} />
      </div>
      <div className="extractor-result__side">
        <div className="extractor-result__links">
          {result.url === null ? (
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              onClick={onRestricted}
              aria-label="Wikipedia article (subscribers only)"
            >
              🔒 Wikipedia
            </button>
          ) : (
            <a
              className="btn btn-secondary btn-sm"
              href={result.url}
              target="_blank"
              rel="noreferrer noopener"
              onClick={() => {
                if (!admin && !result.checked) onCheck();
              }}
            >
              Wikipedia
            </a>
          )}
        </div>
        <CheckedSwitch
          checked={result.checked}
          readOnly={admin}
          label={`Checked: Wikipedia ${result.name}`}
          onCheck={onCheck}
        />
      </div>
    </article>
  );
}
