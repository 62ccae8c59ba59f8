import { formatDay } from '@osint/contract/dates';
import type { FaceAlert, FaceAlertStatus, FaceWatch } from '@osint/contract/face-alerts';
import { searchResultsPath, type SearchResult } from '@osint/contract/search';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useAccessRestrictedModal } from '../../components/access-restricted-modal.tsx';
import { Button } from '../../components/button.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { StateMessage } from '../../components/data-table.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { ResultsGrid } from '../../components/results/results-grid.tsx';
import { ResultViewer } from '../../components/results/result-viewer.tsx';
import { WorkAccessNotice } from '../../components/work-access-notice.tsx';
import { errorText } from '../../lib/api-client.ts';
import { useSession } from '../../lib/session.tsx';
import {
  endWatch,
  FACE_ALERT_KEYS,
  fetchAlerts,
  fetchWatches,
  markAlertsSeen,
  removeAlert,
  searchWatchedFace,
  updateWatch,
} from './face-alerts-api.ts';
import './face-alerts.css';
import { nextStepState, type ResultsNextStep } from '../../lib/results-next-step.ts';

const ALERTS_PAGE_SIZE = 100;
type StatusFilter = FaceAlertStatus | 'ALL';
const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: 'ALL', label: 'All' },
  { value: 'NEW', label: 'New' },
  { value: 'SEEN', label: 'Seen' },
];

/** An alert (or a copy of its photo) as the result grid and viewer show results; copies share its group. */
type AlertResult = SearchResult & { alertId: number; isNew: boolean };

function asResults(alerts: FaceAlert[]): AlertResult[] {
  return alerts.flatMap((alert) => [
    {
      id: alert.id,
      alertId: alert.id,
      isNew: alert.status === 'NEW',
      hash: String(alert.id),
      group: `alert-${alert.id}`,
      thumbnailUrl: alert.thumbnailUrl,
      imageUrl: alert.imageUrl,
      sourceUrl: alert.sourceUrl,
      sourceTitle: alert.sourceTitle,
      crawledAt: alert.createdAt,
      similarity: alert.similarity,
      scoreModel: alert.scoreModel,
      faceBox: alert.faceBox,
      imageSize: alert.imageSize,
    },
    ...alert.copies.map((copy, i) => ({
      // Copies have no id of their own: a negative one that cannot collide with an alert's.
      id: -(alert.id * 1000 + i + 1),
      alertId: alert.id,
      isNew: alert.status === 'NEW',
      hash: `${alert.id}-${i}`,
      group: `alert-${alert.id}`,
      thumbnailUrl: copy.thumbnailUrl,
      imageUrl: copy.imageUrl,
      sourceUrl: copy.sourceUrl,
      sourceTitle: alert.sourceTitle,
      crawledAt: alert.createdAt,
      similarity: alert.similarity,
      scoreModel: alert.scoreModel,
      faceBox: null,
      imageSize: null,
    })),
  ]);
}

/**
 * /alerts and /alerts/:watchId: the organization's watched faces and the alerts they raised, newest
 * first, in the result grid and viewer of a search. Opening an alert marks it seen.
 */
export function AlertsPage() {
  const { session } = useSession();
  const { watchId: watchParam } = useParams();
  const namedWatch = watchParam && /^\d{1,15}$/.test(watchParam) ? Number(watchParam) : undefined;
  const [status, setStatus] = useState<StatusFilter>('ALL');
  const [viewing, setViewing] = useState<number>();
  const { openRestricted, restrictedModal } = useAccessRestrictedModal();
  const [ending, setEnding] = useState<FaceWatch>();
  const [endBusy, setEndBusy] = useState(false);
  const [endError, setEndError] = useState<string>();
  const [busyWatch, setBusyWatch] = useState<number>();
  // The change under way (a watch muted, alerts marked as seen…): its button shows it and takes no second click.
  const [changing, setChanging] = useState<string>();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { showBanner } = useBanner();
  const access = Boolean(session?.user.access);
  const watches = useQuery({ queryKey: FACE_ALERT_KEYS.watches, queryFn: fetchWatches, enabled: access });
  // An address naming no watch of the organization's (another's, ended and gone, not a number) shows all
  // alerts, saying so, rather than an empty list under the wrong heading.
  const unknownWatch =
    watchParam !== undefined &&
    (namedWatch === undefined ||
      (watches.isSuccess && !watches.data.results.some((watch) => watch.id === namedWatch)));
  const watchId = unknownWatch ? undefined : namedWatch;
  // Pages of 100, more on request: an invalidation (a removal, "mark as seen") refetches every page shown.
  const alerts = useInfiniteQuery({
    queryKey: [...FACE_ALERT_KEYS.alerts, watchId ?? 'all', status],
    queryFn: ({ pageParam }) =>
      fetchAlerts({
        pageNumber: pageParam,
        pageSize: ALERTS_PAGE_SIZE,
        watchId,
        status: status === 'ALL' ? undefined : status,
      }),
    initialPageParam: 1,
    getNextPageParam: (last, pages) =>
      pages.reduce((shown, page) => shown + page.results.length, 0) < last.totalResultCount
        ? pages.length + 1
        : undefined,
    enabled: access,
  });
  const totalAlerts = alerts.data?.pages.at(-1)?.totalResultCount ?? 0;

  if (!session) return null;
  if (!session.user.access) return <WorkAccessNotice />;
  const restricted = session.user.restricted;
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: FACE_ALERT_KEYS.watches }),
      queryClient.invalidateQueries({ queryKey: FACE_ALERT_KEYS.alerts }),
    ]);
  const results = asResults(alerts.data?.pages.flatMap((page) => page.results) ?? []);
  const watchList = watches.data?.results ?? [];
  const current = watchList.find((watch) => watch.id === watchId);
  const newIds = [...new Set(results.filter((r) => r.isNew).map((r) => r.alertId))];

  /** A change of the watches or alerts, then the lists again; a failure is said in a banner. */
  const change = async (key: string, work: () => Promise<unknown>, failure: string) => {
    if (changing) return;
    setChanging(key);
    try {
      await work();
    } catch (error) {
      console.error(failure, error);
      showBanner({
        type: 'danger',
        message: failure,
        additionalMessage: errorText(error, 'Please check your connection and try again.'),
      });
    } finally {
      setChanging(undefined);
    }
    await refresh();
  };

  const open = (index: number) => {
    setViewing(index);
    const result = results[index];
    if (result?.isNew) void markAlertsSeen([result.alertId]).then(refresh);
  };
  const closeEnding = () => {
    if (endBusy) return;
    setEnding(undefined);
    setEndError(undefined);
  };
  const confirmEnd = async (watch: FaceWatch) => {
    if (endBusy) return;
    setEndBusy(true);
    setEndError(undefined);
    try {
      await endWatch(watch.id);
    } catch (error) {
      console.error('Ending the watch failed', error);
      setEndError(errorText(error, 'The watch could not be ended. Please try again.'));
      return;
    } finally {
      setEndBusy(false);
    }
    setEnding(undefined);
    void refresh();
  };
  /** Searches the watched face now and opens its results with the dialog of the next step. */
  const searchNow = async (watch: FaceWatch, nextStep: ResultsNextStep) => {
    setBusyWatch(watch.id);
    try {
      const { searchHash } = await searchWatchedFace(watch.id);
      void navigate(searchResultsPath(searchHash), { state: nextStepState(nextStep) });
    } catch (error) {
      console.error('Searching the watched face failed', error);
      showBanner({ type: 'danger', message: 'The face could not be searched. Please try again.' });
    } finally {
      setBusyWatch(undefined);
    }
  };

  return (
    <section className="container page face-alerts" aria-labelledby="alerts-title">
      <header className="face-alerts__header">
        <div>
          <h1 className="page__title" id="alerts-title">
            {current ? (
              <>
                Alerts: <bdi>{current.name}</bdi>
              </>
            ) : (
              'Alerts'
            )}
          </h1>
          <p className="page__lead">
            New images of the faces your organization watches, found as the web index grows. Open an alert to
            see the face in the image; it is then marked as seen.
          </p>
        </div>
        {(current || unknownWatch) && (
          <Link className="btn btn-secondary" to="/alerts">
            All alerts
          </Link>
        )}
      </header>
      {unknownWatch && (
        <StateMessage
          className="card"
          role="status"
          state={{
            title: 'Watch not found',
            text: 'This watch does not exist or is not one of your organization’s. Your organization’s watched faces and all their alerts are listed below.',
          }}
        />
      )}

      <h2 className="face-alerts__section-title">Watched faces</h2>
      {watches.isLoading ? (
        <LoadingPlaceholder />
      ) : watches.isError ? (
        <StateMessage
          className="card"
          role="alert"
          state={{ title: 'The watched faces could not be loaded.' }}
        >
          <Button variant="secondary" onClick={() => void watches.refetch()}>
            Try again
          </Button>
        </StateMessage>
      ) : watchList.length === 0 ? (
        <div className="card saved-empty" role="status">
          <p>
            No face is watched yet. On a search’s results, choose “Watch this face” to be told when it appears
            somewhere new.
          </p>
        </div>
      ) : (
        <ul className="face-watch-list" aria-label="Watched faces">
          {watchList.map((watch) => (
            <li
              key={watch.id}
              className={`card face-watch${watch.id === watchId ? ' face-watch--current' : ''}`}
            >
              {watch.image ? (
                <img
                  className="face-watch__face"
                  src={watch.image}
                  alt={`Watched face: \u2068${watch.name}\u2069`}
                />
              ) : (
                <span className="face-watch__face face-watch__face--none" aria-hidden="true" />
              )}
              <div className="face-watch__body">
                <Link className="face-watch__name" to={`/alerts/${watch.id}`}>
                  <bdi>{watch.name}</bdi>
                </Link>
                <p className="face-watch__meta">
                  {watch.alertCount} {watch.alertCount === 1 ? 'alert' : 'alerts'}
                  {watch.newAlertCount > 0 && <strong> · {watch.newAlertCount} new</strong>}
                  {' · '}
                  {watch.endedAt
                    ? `ended ${formatDay(watch.endedAt)}`
                    : `${watch.muted ? 'muted, ' : ''}until ${formatDay(watch.endsAt)}`}
                </p>
                {watch.note && (
                  <p className="face-watch__note" dir="auto">
                    {watch.note}
                  </p>
                )}
              </div>
              {!watch.endedAt && (
                <div className="face-watch__actions">
                  <Button
                    variant="secondary"
                    loading={busyWatch === watch.id}
                    onClick={() => void searchNow(watch, 'save')}
                  >
                    Save as search
                  </Button>
                  <Button
                    variant="secondary"
                    loading={busyWatch === watch.id}
                    onClick={() => void searchNow(watch, 'extract')}
                  >
                    Extract data
                  </Button>
                  <Button
                    variant="ghost"
                    loading={changing === `mute:${watch.id}`}
                    onClick={() =>
                      void change(
                        `mute:${watch.id}`,
                        () => updateWatch(watch.id, { muted: !watch.muted }),
                        watch.muted ? 'The watch could not be unmuted.' : 'The watch could not be muted.',
                      )
                    }
                  >
                    {watch.muted ? 'Unmute' : 'Mute'}
                  </Button>
                  <Button variant="ghost" onClick={() => setEnding(watch)}>
                    End watch
                  </Button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}

      <div className="face-alerts__toolbar">
        <h2 className="face-alerts__section-title">{current ? 'Alerts of this watch' : 'All alerts'}</h2>
        <div className="face-alerts__filters" role="group" aria-label="Show alerts">
          {FILTERS.map((filter) => (
            <button
              key={filter.value}
              type="button"
              className={`face-alerts__filter${status === filter.value ? ' face-alerts__filter--on' : ''}`}
              aria-pressed={status === filter.value}
              onClick={() => setStatus(filter.value)}
            >
              {filter.label}
            </button>
          ))}
        </div>
        {newIds.length > 0 && (
          <Button
            variant="secondary"
            loading={changing === 'seen'}
            onClick={() =>
              void change('seen', () => markAlertsSeen(newIds), 'The alerts could not be marked as seen.')
            }
          >
            Mark all as seen
          </Button>
        )}
      </div>
      {alerts.isLoading ? (
        <LoadingPlaceholder />
      ) : alerts.isError ? (
        <StateMessage className="card" role="alert" state={{ title: 'The alerts could not be loaded.' }}>
          <Button variant="secondary" onClick={() => void alerts.refetch()}>
            Try again
          </Button>
        </StateMessage>
      ) : results.length === 0 ? (
        <div className="card saved-empty" role="status">
          <p>No alerts here yet. You are told by e-mail as soon as a watched face appears on a new page.</p>
        </div>
      ) : (
        <>
          <p className="face-alerts__count" role="status">
            {totalAlerts} {totalAlerts === 1 ? 'alert' : 'alerts'}
            {newIds.length > 0 && `, ${newIds.length} new`}
          </p>
          <ResultsGrid
            results={results}
            grouping
            resetKey={`${watchId ?? 'all'}:${status}`}
            restricted={restricted}
            onRestricted={openRestricted}
            onRemove={(result) =>
              void change(
                `remove:${result.alertId}`,
                () => removeAlert(result.alertId),
                'The alert could not be removed.',
              )
            }
            onOpen={(result) => open(results.findIndex((r) => r.id === result.id))}
            serverMore={{
              hasMore: alerts.hasNextPage,
              loading: alerts.isFetchingNextPage,
              loadMore: () => void alerts.fetchNextPage(),
            }}
          />
        </>
      )}
      {viewing !== undefined && viewing >= 0 && results.length > 0 && (
        <ResultViewer
          results={results}
          index={Math.min(viewing, results.length - 1)}
          actions={{ restricted, onRestricted: openRestricted }}
          onIndex={open}
          onClose={() => setViewing(undefined)}
        />
      )}
      {restrictedModal}
      {ending && (
        <ConfirmDeleteModal
          title="End this watch?"
          text="Newly indexed faces are no longer compared with it and its face descriptor is deleted. Its alerts stay."
          confirmLabel="End watch"
          busy={endBusy}
          error={endError}
          onConfirm={() => void confirmEnd(ending)}
          onClose={closeEnding}
        />
      )}
    </section>
  );
}
