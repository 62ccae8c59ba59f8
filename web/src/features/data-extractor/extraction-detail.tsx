import {
  EXTRACTION_DETAIL_STEP,
  EXTRACTOR_MESSAGES,
  type ExtractedResult,
  type ExtractionSort,
  type NameStatistic,
  type WikipediaResult,
} from '@osint/contract/data-extractor';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAccessRestrictedModal } from '../../components/access-restricted-modal.tsx';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { RemovalInfoModal } from '../../components/removal-info-modal.tsx';
import { ReportModal } from '../../components/report-modal.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { PREFERENCE_KEYS, readFlag, writeFlag, type PreferenceKey } from '../../lib/preferences.ts';
import { useSession } from '../../lib/session.tsx';
import { useLoadOnScroll, usePagedList } from '../../lib/use-paged-list.ts';
import {
  checkResult,
  checkWikipedia,
  deleteResult,
  EXTRACTOR_KEYS,
  fetchDetails,
  fetchSummary,
  generateExtractionReport,
  updateResult,
  type DetailFilters,
  type ExtractorContext,
} from './data-extractor-api.ts';
import { ExtractedResultCard, FLAG_LABELS, WikipediaCard } from './extracted-result-card.tsx';
import { EditResultModal } from './extraction-modals.tsx';

const SORT_OPTIONS: { value: ExtractionSort; label: string }[] = [
  { value: 'smart', label: 'Smart' },
  { value: 'date', label: 'Date' },
  { value: 'similarity', label: 'Similarity' },
];
const SHOW_OPTIONS: { value: DetailFilters['show']; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'checked', label: 'Checked' },
  { value: 'unchecked', label: 'Unchecked' },
];
const NONE = '';

/**
 * Extracted Data (spec 001 §2): the names summary, filters, results with their flags and evidence,
 * selection and GENERATE REPORT. Admins see it read-only (no banners, checked switches, edit or delete).
 */
export function ExtractionDetail({ context, id }: { context: ExtractorContext; id: string }) {
  const admin = context === 'admin';
  const listPath = admin ? '/admin/data-extractor' : '/data-extractor';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { session } = useSession();
  const restricted = !admin && (session?.user.restricted ?? false);
  const summaryKey = EXTRACTOR_KEYS.summary(context, id);
  const summary = useQuery({
    queryKey: summaryKey,
    queryFn: () => fetchSummary(context, id),
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });

  // Opening a done extraction marks it CHECKED: the menu alert may go.
  useEffect(() => {
    if (!admin && summary.data) void queryClient.invalidateQueries({ queryKey: EXTRACTOR_KEYS.alert });
  }, [admin, summary.data, queryClient]);

  if (summary.isPending) return <LoadingPlaceholder />;
  if (summary.isError || !summary.data) {
    const missing = summary.error instanceof ApiError && summary.error.status === 404;
    return (
      <section className={admin ? 'extractor extractor--admin' : 'container page extractor'}>
        <div className="card extractor-empty" role="alert">
          <h1 className="extractor-empty__title">
            {missing ? 'Extraction not found' : 'Something went wrong'}
          </h1>
          <p>
            {missing
              ? 'It may have been deleted, or it belongs to another organization.'
              : 'The extracted data could not be loaded. Please try again later.'}
          </p>
          <Link className="btn btn-primary" to={listPath}>
            Back to AI Data Extractor
          </Link>
        </div>
      </section>
    );
  }
  return (
    <DetailView
      key={id}
      context={context}
      id={id}
      summary={summary.data}
      restricted={restricted}
      listPath={listPath}
      onChanged={() => void queryClient.invalidateQueries({ queryKey: summaryKey })}
      onLeave={() => navigate(listPath)}
    />
  );
}

function DetailView({
  context,
  id,
  summary,
  restricted,
  listPath,
  onChanged,
  onLeave,
}: {
  context: ExtractorContext;
  id: string;
  summary: NonNullable<Awaited<ReturnType<typeof fetchSummary>>>;
  restricted: boolean;
  listPath: string;
  onChanged: () => void;
  onLeave: () => void;
}) {
  const admin = context === 'admin';
  const queryClient = useQueryClient();
  const seenWithId = useId();
  // One name only: it is preselected and ALL RESULTS is off (spec 001 §4).
  const onlyName = summary.nameList.length === 1 ? summary.nameList[0]!.name : undefined;
  const [filters, setFilters] = useState<DetailFilters>({
    show: 'all',
    sortBy: 'smart',
    politician: false,
    sanctions: false,
    criminal: false,
    name: onlyName,
    seenWith: undefined,
  });
  const [filtersOpen, setFiltersOpen] = useState(() => readFlag(PREFERENCE_KEYS.showDataExtractorFilters));
  const [dismissed, setDismissed] = useState(() => ({
    criminals: readFlag(PREFERENCE_KEYS.dismissedCriminalsInfo),
    names: readFlag(PREFERENCE_KEYS.dismissedNamesInfo),
  }));
  // Results start selected (spec 001 §3 isSelected); kept as the unselected ones, reset by new filters.
  const [unselected, setUnselected] = useState<ReadonlySet<string>>(new Set());
  const [wikiSelected, setWikiSelected] = useState(true);
  const { openRestricted, restrictedModal } = useAccessRestrictedModal();
  const [editing, setEditing] = useState<ExtractedResult>();
  const [removing, setRemoving] = useState<ExtractedResult>();
  const [report, setReport] = useState<{ ids: string[]; wikipedia: boolean }>();

  // Pages of 25, more at the bottom; a reload asks for every page shown in one request (spec 001 §7).
  const listKey = `${context}|${id}|${JSON.stringify(filters)}`;
  const [wikipediaAnswer, setWikipediaAnswer] = useState<{ key: string; result: WikipediaResult | null }>();
  // The server answers the Wikipedia result only under filters it matches: one answered for other
  // filters is neither shown nor chosen for a report while the new answer is awaited, or when it fails.
  const wikipedia = wikipediaAnswer?.key === listKey ? wikipediaAnswer.result : null;
  const details = usePagedList<ExtractedResult>(listKey, EXTRACTION_DETAIL_STEP, async (pageNumber, size) => {
    const answer = await fetchDetails(context, id, filters, pageNumber, size);
    if (pageNumber === 1) setWikipediaAnswer({ key: listKey, result: answer.wikipediaResult });
    return { items: answer.responses, total: answer.totalResultCount };
  });
  const results = details.items;
  const total = details.total;
  const firstLoad = details.loading && results.length === 0;
  const sentinel = useLoadOnScroll(details.hasMore, details.loading, details.loadMore);

  const change = (next: Partial<DetailFilters>) => {
    setFilters((current) => ({ ...current, ...next }));
    // Changing filters, sort, show or name reloads and re-selects everything (spec 001 §4).
    setUnselected(new Set());
    setWikiSelected(true);
  };
  const toggleFilters = () => {
    writeFlag(PREFERENCE_KEYS.showDataExtractorFilters, !filtersOpen);
    setFiltersOpen(!filtersOpen);
  };
  const dismiss = (which: 'criminals' | 'names', key: PreferenceKey) => {
    writeFlag(key, true);
    setDismissed((current) => ({ ...current, [which]: true }));
  };

  const patchResults = (update: (list: ExtractedResult[]) => ExtractedResult[], countDelta = 0) =>
    details.patch((page) => ({ items: update(page.items), total: page.total + countDelta }));

  const check = (result: ExtractedResult) => {
    // Under Unchecked a result that becomes checked no longer matches and leaves the list.
    const leaves = filters.show === 'unchecked';
    patchResults(
      (list) =>
        leaves
          ? list.filter((r) => r.hashedId !== result.hashedId)
          : list.map((r) => (r.hashedId === result.hashedId ? { ...r, checked: true } : r)),
      leaves ? -1 : 0,
    );
    checkResult(result.hashedId).catch((error: unknown) => console.error('Checking failed', error));
  };
  const checkWiki = () => {
    // Under Unchecked the checked Wikipedia result no longer matches either.
    const leaves = filters.show === 'unchecked';
    setWikipediaAnswer(
      (current) =>
        current && {
          ...current,
          result: current.result && !leaves ? { ...current.result, checked: true } : null,
        },
    );
    checkWikipedia(id).catch((error: unknown) => console.error('Checking failed', error));
  };

  const remove = async (result: ExtractedResult) => {
    const lastLink = summary.nameStatistic.linkCount <= 1;
    patchResults((list) => list.filter((r) => r.hashedId !== result.hashedId), -1);
    try {
      await deleteResult(result.hashedId);
    } catch (error) {
      // Spec 001 §8: logged only.
      console.error('Deleting the result failed', error);
    }
    if (lastLink) {
      // The extraction had only this link: back to the list (spec 001 §4).
      await queryClient.invalidateQueries({ queryKey: ['data-extractor'] });
      onLeave();
      return;
    }
    onChanged();
  };
  const askRemove = (result: ExtractedResult) => {
    if (readFlag(PREFERENCE_KEYS.dismissedResultRemovalInfo)) void remove(result);
    else setRemoving(result);
  };

  const selectedIds = results.filter((r) => !unselected.has(r.hashedId)).map((r) => r.hashedId);
  const wikiChosen = wikipedia !== null && wikiSelected;
  const selectedCount = selectedIds.length + (wikiChosen ? 1 : 0);
  const allSelected =
    results.length > 0 && selectedIds.length === results.length && (!wikipedia || wikiSelected);
  const toggle = (hashedId: string) =>
    setUnselected((current) => {
      const next = new Set(current);
      if (next.has(hashedId)) next.delete(hashedId);
      else next.add(hashedId);
      return next;
    });

  const stats = filters.name
    ? (summary.nameList.find((n) => n.name === filters.name) ?? summary.nameStatistic)
    : summary.nameStatistic;
  const showCriminalsInfo = !admin && !dismissed.criminals && summary.nameStatistic.criminalCount > 0;
  const showNamesInfo = !admin && !dismissed.names && summary.namesFound > 1;
  const seenWithOptions = [
    { value: NONE, label: 'None' },
    ...summary.seenWithNames.map((name) => ({ value: name, label: name })),
  ];

  return (
    <section
      className={
        admin ? 'extractor extractor--admin extractor-detail' : 'container page extractor extractor-detail'
      }
      aria-labelledby="extracted-title"
    >
      <header className="extractor-detail__header">
        <Link className="btn btn-secondary btn-sm" to={listPath}>
          ← Back
        </Link>
        <div className="extractor-detail__titles">
          <h1 className="page__title" id="extracted-title">
            Extracted Data
          </h1>
          <p className="extractor-detail__sub">
            <span className="extractor-detail__name" dir="auto">
              {summary.name}
            </span>
            {summary.description && (
              <span>
                {' '}
                · <bdi>{summary.description}</bdi>
              </span>
            )}
          </p>
        </div>
        <p className="extractor-detail__count" aria-label="Result count" aria-busy={firstLoad || undefined}>
          {firstLoad ? '…' : `${total} ${total === 1 ? 'result' : 'results'}`}
        </p>
      </header>

      {summary.state === 'PENDING' && (
        <div className="card extractor-info" role="status">
          <p>This extraction is still running; results appear here as they are analysed.</p>
        </div>
      )}

      <nav className="card extractor-names" aria-label="Names found">
        <NameButton
          label="ALL RESULTS"
          stat={summary.nameStatistic}
          pressed={filters.name === undefined}
          onClick={() => change({ name: undefined })}
        />
        {summary.nameList.map((entry) => (
          <NameButton
            key={entry.name}
            label={entry.name}
            stat={entry}
            best={entry.name === summary.bestName}
            pressed={filters.name === entry.name}
            onClick={() => change({ name: entry.name })}
          />
        ))}
      </nav>

      <ul className="extractor-stats" aria-label="Counts">
        <li className="badge badge--info">Politician: {stats.politicianCount}</li>
        <li className="badge badge--warning">Sanctions: {stats.sanctionsCount}</li>
        <li className="badge badge--danger">Criminal: {stats.criminalCount}</li>
        <li className="badge extractor-badge--seen">Seen with: {stats.seenWithCount}</li>
        <li className="badge">Names found: {summary.namesFound}</li>
      </ul>

      {showCriminalsInfo && (
        <InfoBanner
          title="Criminal information"
          onDismiss={() => dismiss('criminals', PREFERENCE_KEYS.dismissedCriminalsInfo)}
        >
          Some results are flagged as criminal because a watch-list or a page links this name to a crime. A
          flag is a lead, not a finding: open “Why flagged” and check the sources before you rely on it.
        </InfoBanner>
      )}
      {showNamesInfo && (
        <InfoBanner
          title="Several names found"
          onDismiss={() => dismiss('names', PREFERENCE_KEYS.dismissedNamesInfo)}
        >
          The pages give {summary.namesFound} different names for this face. They may be different people who
          look alike, or one person under several names: choose a name above to see its results only.
        </InfoBanner>
      )}

      <div className="extractor-toolbar">
        <Button
          variant="secondary"
          aria-expanded={filtersOpen}
          aria-controls="extractor-filters"
          onClick={toggleFilters}
        >
          Filters
        </Button>
        <label className="checkbox extractor-toolbar__all">
          <input
            type="checkbox"
            checked={allSelected}
            disabled={results.length === 0}
            onChange={() => {
              if (allSelected) {
                setUnselected(new Set(results.map((r) => r.hashedId)));
                setWikiSelected(false);
              } else {
                setUnselected(new Set());
                setWikiSelected(true);
              }
            }}
          />
          <span>Select All</span>
        </label>
        <Button
          className="extractor-toolbar__report"
          disabled={selectedCount === 0}
          onClick={() => setReport({ ids: selectedIds, wikipedia: wikiChosen })}
        >
          GENERATE REPORT ({selectedCount})
        </Button>
      </div>

      {filtersOpen && (
        <div className="card extractor-filters" id="extractor-filters" role="group" aria-label="Filters">
          <fieldset className="extractor-filters__group">
            <legend className="field__label">Show</legend>
            <div className="extractor-segmented">
              {SHOW_OPTIONS.map((option) => (
                <label
                  key={option.value}
                  className={`extractor-segmented__option${filters.show === option.value ? ' extractor-segmented__option--on' : ''}`}
                >
                  <input
                    type="radio"
                    name={`${seenWithId}-show`}
                    className="visually-hidden"
                    checked={filters.show === option.value}
                    onChange={() => change({ show: option.value })}
                  />
                  {option.label}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="extractor-filters__sort">
            <Dropdown
              label="Sort"
              options={SORT_OPTIONS}
              value={filters.sortBy}
              onChange={(value) => change({ sortBy: value as ExtractionSort })}
            />
          </div>
          <fieldset className="extractor-filters__group">
            <legend className="field__label">Flags</legend>
            <div className="extractor-filters__checks">
              {(['politician', 'sanctions', 'criminal'] as const).map((flag) => (
                <label key={flag} className="checkbox">
                  <input
                    type="checkbox"
                    checked={filters[flag]}
                    onChange={(event) => change({ [flag]: event.target.checked })}
                  />
                  <span>{FLAG_LABELS[flag]}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="extractor-filters__seen">
            <Dropdown
              label="Seen with"
              options={seenWithOptions}
              value={filters.seenWith ?? NONE}
              onChange={(value) => change({ seenWith: value === NONE ? undefined : value })}
            />
          </div>
        </div>
      )}

      {firstLoad ? (
        <LoadingPlaceholder />
      ) : results.length === 0 && !wikipedia ? (
        <div className="card extractor-empty" role="status">
          <p className="extractor-empty__title">{EXTRACTOR_MESSAGES.noFilteredResults}</p>
        </div>
      ) : (
        <ul className="extractor-results" aria-label="Extracted results">
          {wikipedia && (
            <li>
              <WikipediaCard
                result={wikipedia}
                admin={admin}
                selected={wikiSelected}
                onToggle={() => setWikiSelected(!wikiSelected)}
                onCheck={checkWiki}
                onRestricted={openRestricted}
              />
            </li>
          )}
          {results.map((result) => (
            <li key={result.hashedId}>
              <ExtractedResultCard
                context={context}
                result={result}
                selected={!unselected.has(result.hashedId)}
                restricted={restricted}
                onToggle={() => toggle(result.hashedId)}
                onRestricted={openRestricted}
                onCheck={() => check(result)}
                onEdit={() => setEditing(result)}
                onDelete={() => askRemove(result)}
              />
            </li>
          ))}
        </ul>
      )}
      {details.hasMore && (
        <div ref={sentinel} className="extractor-section__more">
          <Button variant="secondary" loading={details.loading} onClick={details.loadMore}>
            Show more results
          </Button>
        </div>
      )}

      {restrictedModal}
      {editing && (
        <EditResultModal
          currentName={editing.personName}
          currentDescription={editing.personDesc}
          alternativeNames={editing.alternativeNames}
          onClose={() => setEditing(undefined)}
          onSave={async (name, description) => {
            try {
              await updateResult(editing.hashedId, { name, description });
            } catch (error) {
              console.error('Updating the result failed', error);
            }
            setEditing(undefined);
            // The list is reloaded: under a name filter a renamed result leaves it (spec 001 §4).
            await details.reload();
            onChanged();
          }}
        />
      )}
      {removing && (
        <RemovalInfoModal
          lead="The result will be removed from this extraction."
          onCancel={() => setRemoving(undefined)}
          onConfirm={(dontShowAgain) => {
            if (dontShowAgain) writeFlag(PREFERENCE_KEYS.dismissedResultRemovalInfo, true);
            const result = removing;
            setRemoving(undefined);
            void remove(result);
          }}
        >
          <p>
            It no longer counts in this extraction and is left out of its reports. The page itself stays in
            our index.
          </p>
        </RemovalInfoModal>
      )}
      {report && (
        <ReportModal
          count={report.ids.length + (report.wikipedia ? 1 : 0)}
          generate={() => generateExtractionReport(context, id, report.ids, report.wikipedia)}
          failure={{ message: EXTRACTOR_MESSAGES.reportFailure, hint: EXTRACTOR_MESSAGES.reportFailureHint }}
          onClose={() => setReport(undefined)}
        />
      )}
    </section>
  );
}

function NameButton({
  label,
  stat,
  pressed,
  best,
  onClick,
}: {
  label: string;
  stat: NameStatistic;
  pressed: boolean;
  best?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`extractor-name${pressed ? ' extractor-name--on' : ''}`}
      aria-pressed={pressed}
      onClick={onClick}
    >
      <span className="extractor-name__label" dir="auto">
        {label}
      </span>
      <span className="extractor-name__count">
        {stat.linkCount} {stat.linkCount === 1 ? 'link' : 'links'}
      </span>
      {best && <span className="extractor-name__best">Best match</span>}
    </button>
  );
}

function InfoBanner({
  title,
  children,
  onDismiss,
}: {
  title: string;
  children: React.ReactNode;
  onDismiss: () => void;
}) {
  return (
    <div className="extractor-banner" role="note" aria-label={title}>
      <div>
        <p className="extractor-banner__title">{title}</p>
        <p className="extractor-banner__text">{children}</p>
      </div>
      <button
        type="button"
        className="extractor-banner__close"
        onClick={onDismiss}
        aria-label={`Dismiss ${title}`}
      >
        ×
      </button>
    </div>
  );
}
