import { AUDIT_AREAS, auditActionLabel, auditDetailText, type AuditEntryView } from '@osint/contract/audit';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ACTIVITY_PAGE_SIZE, useOrganizationActivity } from './account-api.ts';
import { formatDateTime } from '@osint/contract/dates';

const AREA_OPTIONS = [
  { value: '', label: 'All activity' },
  ...Object.entries(AUDIT_AREAS)
    .filter(([area]) => !['crawl', 'face'].includes(area))
    .map(([value, label]) => ({ value, label })),
];

/** A short, human description of what an entry's detail says (never more than the log holds). */
export function describeEntry(entry: AuditEntryView): string {
  const d = entry.detail;
  if (entry.action === 'search.performed') {
    return `${String(d.results ?? 0)} results · ${d.type === 'SOCIAL_MEDIA_SEARCH' ? 'social media' : 'standard'} search`;
  }
  return auditDetailText(d);
}

/** The owner's view of the organization's audit log (spec: owners see their organization's log). */
export function ActivityPanel() {
  const [action, setAction] = useState('');
  const [page, setPage] = useState(1);
  const activity = useOrganizationActivity({ action, page }, true);
  const total = activity.data?.totalResultCount ?? 0;
  const pages = Math.max(1, Math.ceil(total / ACTIVITY_PAGE_SIZE));

  return (
    <section className="card account-panel" aria-labelledby="account-activity-title">
      <header className="account-panel__header">
        <div>
          <h2 id="account-activity-title" className="account-panel__title">
            Activity
          </h2>
          <p className="account-panel__lead">
            Sign-ins, access changes, invitations and searches of your organization. Photos are never logged.
          </p>
        </div>
        <div className="account-activity__filter">
          <Dropdown
            label="Show"
            hideLabel
            options={AREA_OPTIONS}
            value={action}
            onChange={(value) => {
              setAction(value);
              setPage(1);
            }}
          />
        </div>
      </header>
      {activity.isPending ? (
        <LoadingPlaceholder />
      ) : activity.isError ? (
        <div className="account-empty" role="alert">
          <p>The activity could not be loaded.</p>
          <Button variant="secondary" onClick={() => void activity.refetch()}>
            Try again
          </Button>
        </div>
      ) : activity.data.entries.length === 0 ? (
        <div className="account-empty">
          <p>No activity recorded{action ? ' of this kind' : ''} yet.</p>
        </div>
      ) : (
        <>
          <ol className={`account-activity${activity.isPlaceholderData ? ' account-activity--stale' : ''}`}>
            {activity.data.entries.map((entry) => (
              <li key={entry.id} className="account-activity__item">
                <time dateTime={entry.at} className="account-activity__time">
                  {formatDateTime(entry.at)}
                </time>
                <span className="account-activity__what">
                  <strong>{auditActionLabel(entry.action)}</strong>
                  <span className="account-activity__detail account-break">{describeEntry(entry)}</span>
                </span>
                <span className="account-activity__who account-break">
                  by {entry.actor?.email ?? 'unknown'}
                </span>
              </li>
            ))}
          </ol>
          {pages > 1 && (
            <nav className="account-pager" aria-label="Activity pages">
              <Button
                variant="secondary"
                className="btn-sm"
                disabled={page <= 1}
                onClick={() => setPage(page - 1)}
              >
                Newer
              </Button>
              <span aria-live="polite">
                Page {page} of {pages}
              </span>
              <Button
                variant="secondary"
                className="btn-sm"
                disabled={page >= pages}
                onClick={() => setPage(page + 1)}
              >
                Older
              </Button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
