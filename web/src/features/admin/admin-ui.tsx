import type { UserStatus } from '@osint/contract/api-types';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { StateMessage } from '../../components/data-table.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { formatDate, formatDateTime, formatDay } from '@osint/contract/dates';

/**
 * A day in the table; the exact time one hover away. Empty values show a dash. `planDay`: a plan's or an
 * order's start or end, written as the calendar day (UTC) the owner's pages and the invoices show, whatever
 * the admin's own time zone.
 */
export function When({
  iso,
  withTime = false,
  planDay = false,
}: {
  iso: string | null | undefined;
  withTime?: boolean;
  planDay?: boolean;
}) {
  if (!iso) return <span className="admin-muted">—</span>;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={formatDateTime(date)}>
      {planDay ? formatDay(iso) : withTime ? formatDateTime(date) : formatDate(date)}
    </time>
  );
}

export const USER_STATUS_BADGES: Record<UserStatus, { label: string; tone: string }> = {
  PENDING_APPROVAL: { label: 'Pending approval', tone: 'warning' },
  ACTIVE: { label: 'Active', tone: 'success' },
  REJECTED: { label: 'Rejected', tone: 'danger' },
  BLOCKED: { label: 'Blocked', tone: 'danger' },
  EMAIL_UNVERIFIED: { label: 'E-mail unverified', tone: 'neutral' },
  INVITED: { label: 'Invited', tone: 'info' },
};

export function UserStatusBadge({ status }: { status: UserStatus }) {
  const badge = USER_STATUS_BADGES[status] ?? { label: status, tone: 'neutral' };
  return <span className={`badge badge--${badge.tone}`}>{badge.label}</span>;
}

export function AdminHeader({
  eyebrow,
  title,
  lead,
  back,
  actions,
}: {
  eyebrow: string;
  title: ReactNode;
  lead?: ReactNode;
  back?: { to: string; label: string };
  actions?: ReactNode;
}) {
  return (
    <header className="admin-page-header">
      <div className="admin-header-text">
        {back && (
          <Link className="admin-back" to={back.to}>
            ← {back.label}
          </Link>
        )}
        <p className="page__eyebrow">{eyebrow}</p>
        <h1 className="page__title admin-break">{title}</h1>
        {lead && <p className="page__lead">{lead}</p>}
      </div>
      {actions && <div className="admin-header-actions">{actions}</div>}
    </header>
  );
}

/** Loading, not found and failure states of a detail page, in one place. */
export function QueryState({
  query,
  notFoundText,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };
  notFoundText: string;
}) {
  if (query.isPending) return <LoadingPlaceholder />;
  const missing = query.error instanceof ApiError && query.error.status === 404;
  if (missing) return <StateMessage className="card" role="alert" state={{ title: notFoundText }} />;
  return (
    <StateMessage
      className="card"
      role="alert"
      state={{
        title: 'This page could not be loaded.',
        text: query.error instanceof ApiError ? query.error.message : 'Please check your connection.',
      }}
    >
      <Button variant="secondary" onClick={() => void query.refetch()}>
        Try again
      </Button>
    </StateMessage>
  );
}

/** An address that breaks before the @ on narrow screens, never in the middle of its name first. */
export function EmailText({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at <= 0) return <>{email}</>;
  return (
    <>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </>
  );
}

export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="admin-fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export { errorText } from '../../lib/api-client.ts';
