import { useId, useState, type ReactNode } from 'react';
import { ApiError } from '../lib/api-client.ts';
import type { PagedList } from '../lib/use-paged-list.ts';
import { useLoadOnScroll } from '../lib/use-paged-list.ts';
import { Button } from './button.tsx';
import { ConfirmDeleteModal } from './confirm-delete-modal.tsx';
import { LoadingPlaceholder } from './loading-placeholder.tsx';
import { ResultThumbnail } from './results/result-card.tsx';
import './item-list.css';
import { formatDateTime, formatTime } from '@osint/contract/dates';

interface Identified {
  id: string | number;
}

/** The "In progress" section of a paged list (spec 001 §2): shown only while something is pending. */
export function PendingSection<T extends Identified>({
  list,
  render,
}: {
  list: PagedList<T>;
  render: (item: T) => ReactNode;
}) {
  const titleId = useId();
  if (list.total === 0) return null;
  return (
    <section className="item-section" aria-labelledby={titleId}>
      <h2 className="item-section__title" id={titleId}>
        In progress
      </h2>
      <ul className="item-list">
        {list.items.map((item) => (
          <li key={item.id}>{render(item)}</li>
        ))}
      </ul>
      {list.hasMore && (
        <Button variant="secondary" onClick={list.loadMore} loading={list.loading}>
          SHOW MORE
        </Button>
      )}
    </section>
  );
}

/** The "Done" section (spec 001 §2): a search box, the items, lazy loading on scroll and SHOW MORE. */
export function DoneSection<T extends Identified>({
  list,
  search,
  onSearch,
  searchLabel,
  placeholder,
  emptyText,
  render,
}: {
  list: PagedList<T>;
  search: string;
  onSearch: (search: string) => void;
  searchLabel: string;
  placeholder: string;
  emptyText: string;
  render: (item: T) => ReactNode;
}) {
  const titleId = useId();
  const searchId = useId();
  const sentinel = useLoadOnScroll(list.hasMore, list.loading, list.loadMore);
  return (
    <section className="item-section" aria-labelledby={titleId}>
      <div className="item-section__head">
        <h2 className="item-section__title" id={titleId}>
          Done
        </h2>
        <div className="item-search-box">
          <label htmlFor={searchId} className="visually-hidden">
            {searchLabel}
          </label>
          <input
            id={searchId}
            className="input"
            type="search"
            placeholder={placeholder}
            value={search}
            onChange={(event) => onSearch(event.target.value)}
          />
        </div>
      </div>
      {list.items.length === 0 && list.loading ? (
        // A search (or a cleared one) being answered: the spinner stays in this section, the box keeps focus.
        <LoadingPlaceholder />
      ) : list.items.length === 0 ? (
        <p className="item-section__empty">{emptyText}</p>
      ) : (
        <ul className="item-list">
          {list.items.map((item) => (
            <li key={item.id}>{render(item)}</li>
          ))}
        </ul>
      )}
      {list.hasMore && (
        <div ref={sentinel} className="item-section__more">
          <Button variant="secondary" onClick={list.loadMore} loading={list.loading}>
            SHOW MORE
          </Button>
        </div>
      )}
    </section>
  );
}

/**
 * One card of such a list: the searched face, the name (with badges and an edit button), whatever the
 * feature adds below it, and either a spinner (pending) or the actions.
 */
export function ItemCard({
  name,
  image,
  pending = false,
  highlight = false,
  badges,
  onEdit,
  editTitle,
  actions,
  children,
}: {
  name: string;
  image: string;
  pending?: boolean;
  /** A new item, not yet opened. */
  highlight?: boolean;
  badges?: ReactNode;
  onEdit?: () => void;
  editTitle?: string;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const modifiers = `${pending ? ' item-card--pending' : ''}${highlight ? ' item-card--new' : ''}`;
  return (
    <article className={`item-card${modifiers}`} aria-label={name}>
      <div className="item-card__image">
        <ResultThumbnail src={image} alt={`Searched face of ${name}`} />
      </div>
      <div className="item-card__body">
        <div className="item-card__title-row">
          <p className="item-card__name" dir="auto">
            {name}
          </p>
          {badges}
          {onEdit && (
            <button
              type="button"
              className="item-card__edit"
              onClick={onEdit}
              aria-label={`Edit ${name}`}
              title={editTitle}
            >
              <svg viewBox="0 0 24 24" aria-hidden="true" width="18" height="18">
                <path
                  d="M4 20h4L19 9l-4-4L4 16v4Zm11-15 4 4"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2"
                  strokeLinejoin="round"
                />
              </svg>
            </button>
          )}
        </div>
        {children}
      </div>
      {pending ? (
        <span className="spinner item-card__spinner" aria-hidden="true" />
      ) : (
        actions && <div className="item-card__actions">{actions}</div>
      )}
    </article>
  );
}

/** On the admin's lists of every organization's items: whose item it is. */
export function ItemOrganization({ name }: { name: string | undefined }) {
  if (!name) return null;
  return (
    <span className="item-card__organization">
      <span className="visually-hidden">Organization: </span>
      <bdi>{name}</bdi>
    </span>
  );
}

export function ItemDescription({ text }: { text: string | null | undefined }) {
  return text ? (
    <p className="item-card__description" dir="auto">
      {text}
    </p>
  ) : null;
}

/** "PENDING Stand by · <what>" and "Started hh:mm · estimated end hh:mm" of a pending card. */
export function PendingStatus({
  what,
  createdAt,
  estimateMs,
}: {
  what: string;
  createdAt: string;
  estimateMs: number;
}) {
  const start = new Date(createdAt);
  const end = new Date(start.getTime() + estimateMs);
  return (
    <>
      <p className="item-card__status">
        <span className="badge badge--warning">PENDING</span> <strong>Stand by</strong> · {what}
      </p>
      <p className="item-card__meta">
        Started <time dateTime={start.toISOString()}>{formatTime(start)}</time> · estimated end{' '}
        <time dateTime={end.toISOString()}>{formatTime(end)}</time>
      </p>
    </>
  );
}

/** "<date> · N results" of a done card, with what the feature adds after it. */
export function DoneMeta({
  createdAt,
  resultCount,
  children,
}: {
  createdAt: string;
  resultCount: number;
  children?: ReactNode;
}) {
  return (
    <p className="item-card__meta">
      <time dateTime={createdAt}>{formatDateTime(createdAt)}</time> · {resultCount}{' '}
      {resultCount === 1 ? 'result' : 'results'}
      {children}
    </p>
  );
}

type Loaded = Pick<PagedList<unknown>, 'items' | 'total' | 'loading' | 'answered'>;

/**
 * Whether both sections are still loading for the first time, and whether there is nothing at all. Once a
 * list has answered, a new Done search (or the search box cleared) loads inside the Done section: the page
 * is not swapped for the placeholder, which would take the focused box away.
 */
export function listState(pending: Loaded, done: Loaded, search: string, debounced: string) {
  const firstAnswer = (list: Loaded) => !list.answered && list.loading && list.items.length === 0;
  const firstLoad = firstAnswer(pending) || firstAnswer(done);
  // Not while a list is asked again (the search box just cleared): its total is not known yet.
  const empty =
    !firstLoad &&
    !pending.loading &&
    !done.loading &&
    pending.total === 0 &&
    done.total === 0 &&
    !debounced &&
    !search;
  return { firstLoad, empty };
}

/**
 * The delete confirmation of a card: a failure is logged only (spec 001 §8); either way the modal closes
 * and `onFinished` runs (the lists are reloaded). With `explainRefusal` (pages the specification does not
 * cover), a refusal the server explains (409: the item is still needed) is shown in the modal instead,
 * which stays open.
 */
export function ConfirmDeleteItem({
  title,
  text,
  remove,
  failureLog,
  explainRefusal = false,
  onFinished,
  onClose,
}: {
  title: string;
  text: ReactNode;
  remove: () => Promise<unknown>;
  failureLog: string;
  explainRefusal?: boolean;
  onFinished: () => void;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string>();
  const confirm = async () => {
    setBusy(true);
    setRefusal(undefined);
    try {
      await remove();
    } catch (error) {
      if (explainRefusal && error instanceof ApiError && error.status === 409) {
        setRefusal(error.message);
        setBusy(false);
        return;
      }
      console.error(failureLog, error);
    }
    setBusy(false);
    onFinished();
  };
  return (
    <ConfirmDeleteModal
      title={title}
      text={text}
      busy={busy}
      error={refusal}
      onConfirm={() => void confirm()}
      onClose={onClose}
    />
  );
}
