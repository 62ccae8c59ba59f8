import type { AdminUserRow, UserStatus } from '@osint/contract/api-types';
import { ORGANIZATION_TYPES, isOrganizationType } from '@osint/contract/organization';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { PREFERENCE_KEYS, readChoice, writeChoice } from '../../lib/preferences.ts';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import './admin.css';
import { formatDate, formatDateTime } from '@osint/contract/dates';

const PAGE_SIZE = 25;
const SEARCH_DEBOUNCE_MS = 300;
const USERS_KEY = ['admin-users'] as const;

const STATUS_FILTERS: { value: '' | UserStatus; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'PENDING_APPROVAL', label: 'Pending approval' },
  { value: 'ACTIVE', label: 'Active' },
  { value: 'REJECTED', label: 'Rejected' },
  { value: 'BLOCKED', label: 'Blocked' },
  { value: 'EMAIL_UNVERIFIED', label: 'E-mail unverified' },
  { value: 'INVITED', label: 'Invited' },
];

const STATUS_BADGES: Record<UserStatus, { label: string; tone: string }> = {
  PENDING_APPROVAL: { label: 'Pending approval', tone: 'warning' },
  ACTIVE: { label: 'Active', tone: 'success' },
  REJECTED: { label: 'Rejected', tone: 'danger' },
  BLOCKED: { label: 'Blocked', tone: 'danger' },
  EMAIL_UNVERIFIED: { label: 'E-mail unverified', tone: 'neutral' },
  INVITED: { label: 'Invited', tone: 'info' },
};

// The day fits the column; the exact time is one hover away.

function DateCell({ iso }: { iso: string }) {
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={formatDateTime(date)}>
      {formatDate(date)}
    </time>
  );
}

interface UsersFilter {
  status: '' | UserStatus;
  search: string;
  page: number;
}

function fetchUsers({ status, search, page }: UsersFilter): Promise<AdminUserRow[]> {
  return api<AdminUserRow[]>('/admin/users', {
    query: { status: status || undefined, search: search || undefined, page, pageSize: PAGE_SIZE },
  });
}

/** Organizations type their own link: "example.org" must still open as a web address. */
function externalHref(link: string): string {
  return /^https?:\/\//i.test(link) ? link : `https://${link}`;
}

function displayHost(link: string): string {
  try {
    return new URL(externalHref(link)).host.replace(/^www\./, '');
  } catch {
    return link;
  }
}

function useDebounced<T>(value: T, delay: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

/** /admin/users: the provider's review of registrations, pending approval first (the server orders them). */
export function AdminUsersPage() {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  // The table last visited (spec 001 §3 preferences) opens again.
  const [status, setStatusState] = useState<'' | UserStatus>(() =>
    readChoice(
      PREFERENCE_KEYS.lastUsersTable,
      STATUS_FILTERS.map((f) => f.value),
      '',
    ),
  );
  const setStatus = (value: '' | UserStatus) => {
    writeChoice(PREFERENCE_KEYS.lastUsersTable, value);
    setStatusState(value);
  };
  const [searchInput, setSearchInput] = useState('');
  const search = useDebounced(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const [pageState, setPageState] = useState({ page: 1, status, search });
  // A new filter or search starts again at page 1.
  const page = pageState.status === status && pageState.search === search ? pageState.page : 1;
  const goTo = (next: number) => setPageState({ page: next, status, search });
  const [rejecting, setRejecting] = useState<AdminUserRow>();

  const filter: UsersFilter = { status, search, page };
  const users = useQuery({
    queryKey: [...USERS_KEY, filter],
    queryFn: () => fetchUsers(filter),
    placeholderData: keepPreviousData,
  });
  const rows = users.data ?? [];
  // The list carries no total; asking for the next page tells whether "Next" leads anywhere (and preloads it).
  const nextPage = useQuery({
    queryKey: [...USERS_KEY, { ...filter, page: page + 1 }],
    queryFn: () => fetchUsers({ ...filter, page: page + 1 }),
    enabled: rows.length === PAGE_SIZE && !users.isPlaceholderData,
  });
  const pending = useQuery({
    queryKey: [...USERS_KEY, 'pending-count'],
    queryFn: () =>
      api<AdminUserRow[]>('/admin/users', { query: { status: 'PENDING_APPROVAL', page: 1, pageSize: 200 } }),
  });
  const hasNext = (nextPage.data?.length ?? 0) > 0;

  const onDone = (verb: string) => async (_data: unknown, user: AdminUserRow) => {
    await queryClient.invalidateQueries({ queryKey: USERS_KEY });
    showBanner({
      message: `${user.email} has been ${verb}.`,
      additionalMessage: 'The user was notified by e-mail.',
      type: 'success',
    });
  };
  const onFailed = (verb: string) => (error: unknown, user: AdminUserRow) => {
    showBanner({
      message: `Could not ${verb} ${user.email}.`,
      additionalMessage:
        error instanceof ApiError ? error.message : 'Please check your connection and try again.',
      type: 'danger',
    });
  };
  const approve = useMutation({
    mutationFn: (user: AdminUserRow) => api(`/admin/users/${user.id}/approve`, { method: 'POST' }),
    onSuccess: onDone('approved'),
    onError: onFailed('approve'),
  });
  const reject = useMutation({
    mutationFn: (user: AdminUserRow) => api(`/admin/users/${user.id}/reject`, { method: 'POST' }),
    onSuccess: async (data, user) => {
      setRejecting(undefined);
      await onDone('rejected')(data, user);
    },
    onError: (error, user) => {
      setRejecting(undefined);
      onFailed('reject')(error, user);
    },
  });
  // One decision at a time: while one is on its way, the other rows' buttons wait.
  const approvingId = approve.isPending ? approve.variables.id : undefined;
  const busy = approve.isPending || reject.isPending;

  const pendingCount = pending.data?.length;

  return (
    <section className="admin-page" aria-labelledby="admin-users-title">
      <header className="admin-page-header">
        <div>
          <p className="page__eyebrow">Administration</p>
          <h1 className="page__title" id="admin-users-title">
            Users
          </h1>
          <p className="page__lead">
            Review registrations and decide who may use the platform. Approving an organization owner starts
            the organization’s trial; the user is told by e-mail either way.
          </p>
        </div>
        {pendingCount !== undefined && (
          <button
            type="button"
            className={`admin-pending-chip${pendingCount > 0 ? ' admin-pending-chip--alert' : ''}`}
            onClick={() => setStatus('PENDING_APPROVAL')}
          >
            <strong>{pendingCount >= 200 ? '200+' : pendingCount}</strong> pending approval
          </button>
        )}
      </header>

      <div className="card admin-panel">
        <div className="admin-toolbar">
          <div className="admin-toolbar-search">
            <TextInput
              label="Search"
              type="search"
              placeholder="E-mail or organization name"
              value={searchInput}
              onChange={(event) => setSearchInput(event.target.value)}
            />
          </div>
          <div className="admin-toolbar-status">
            <Dropdown
              label="Status"
              options={STATUS_FILTERS}
              value={status}
              onChange={(value) => setStatus(value as '' | UserStatus)}
            />
          </div>
        </div>

        {users.isPending ? (
          <LoadingPlaceholder />
        ) : users.isError ? (
          <div className="admin-empty" role="alert">
            <p className="admin-empty-title">The users could not be loaded.</p>
            <p>{users.error instanceof ApiError ? users.error.message : 'Please check your connection.'}</p>
            <Button variant="secondary" onClick={() => void users.refetch()}>
              Try again
            </Button>
          </div>
        ) : rows.length === 0 ? (
          <EmptyState status={status} search={search} />
        ) : (
          <div className={`admin-table-wrap${users.isPlaceholderData ? ' admin-table-wrap--stale' : ''}`}>
            <table className="admin-table">
              <caption className="visually-hidden">Users, pending approval first</caption>
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Organization</th>
                  <th scope="col">Status</th>
                  <th scope="col">Role</th>
                  <th scope="col">Registered</th>
                  <th scope="col">E-mail verified</th>
                  <th scope="col">Last activity</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((user) => (
                  <UserRow
                    key={user.id}
                    user={user}
                    approving={approvingId === user.id}
                    disabled={busy}
                    onApprove={() => approve.mutate(user)}
                    onReject={() => setRejecting(user)}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}

        {(page > 1 || hasNext) && (
          <nav className="admin-pager" aria-label="Pages">
            <Button
              variant="secondary"
              className="btn-sm"
              disabled={page <= 1}
              onClick={() => goTo(page - 1)}
            >
              Previous
            </Button>
            <span className="admin-pager-label" aria-live="polite">
              Page {page}
            </span>
            <Button variant="secondary" className="btn-sm" disabled={!hasNext} onClick={() => goTo(page + 1)}>
              Next
            </Button>
          </nav>
        )}
      </div>

      {rejecting && (
        <Modal
          title="Reject this registration?"
          size="sm"
          onClose={() => !reject.isPending && setRejecting(undefined)}
          actions={
            <>
              <Button variant="secondary" disabled={reject.isPending} onClick={() => setRejecting(undefined)}>
                Cancel
              </Button>
              <Button variant="danger" loading={reject.isPending} onClick={() => reject.mutate(rejecting)}>
                Reject registration
              </Button>
            </>
          }
        >
          <p className="modal__lead admin-break">
            {rejecting.email} · {rejecting.organization.name}
          </p>
          <p>
            The user will be told by e-mail that the access request was declined and will not be able to log
            in. You can still approve the account later.
          </p>
        </Modal>
      )}
    </section>
  );
}

function EmptyState({ status, search }: { status: '' | UserStatus; search: string }) {
  const [title, text] =
    status === 'PENDING_APPROVAL' && !search
      ? [
          'No registrations are waiting for approval.',
          'New ones appear here once their e-mail address is confirmed.',
        ]
      : status || search
        ? ['No users match these filters.', 'Change the status or the search to see more.']
        : ['No users yet.', 'Registrations will appear here.'];
  return (
    <div className="admin-empty">
      <p className="admin-empty-title">{title}</p>
      <p>{text}</p>
    </div>
  );
}

/** Breaks a long address before the @ only, never in the middle of a name. */
function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  return (
    <span className="admin-email">
      {at > 0 ? (
        <>
          {email.slice(0, at)}
          <wbr />
          {email.slice(at)}
        </>
      ) : (
        email
      )}
    </span>
  );
}

interface UserRowProps {
  user: AdminUserRow;
  approving: boolean;
  disabled: boolean;
  onApprove: () => void;
  onReject: () => void;
}

function UserRow({ user, approving, disabled, onApprove, onReject }: UserRowProps) {
  const badge = STATUS_BADGES[user.status] ?? { label: user.status, tone: 'neutral' };
  const typeLabel = isOrganizationType(user.organization.type)
    ? ORGANIZATION_TYPES[user.organization.type]
    : user.organization.type;
  const pendingApproval = user.status === 'PENDING_APPROVAL';
  return (
    <tr className={pendingApproval ? 'admin-row--pending' : undefined}>
      <td data-label="User">
        <span className="admin-user">
          <Link className="admin-user-link" to={`/admin/users/${user.id}`}>
            <EmailAddress email={user.email} />
          </Link>
          {user.admin && <span className="badge badge--info admin-inline-badge">Admin</span>}
        </span>
      </td>
      <td data-label="Organization">
        <span className="admin-org">
          <Link className="admin-org-name" to={`/admin/organizations/${user.organization.id}`}>
            {user.organization.name}
          </Link>
          <span className="admin-org-type">{typeLabel}</span>
          {user.organization.link && (
            <a
              className="admin-org-link"
              href={externalHref(user.organization.link)}
              target="_blank"
              rel="noopener noreferrer"
            >
              {displayHost(user.organization.link)}
            </a>
          )}
        </span>
      </td>
      <td data-label="Status">
        <span className={`badge badge--${badge.tone}`}>{badge.label}</span>
      </td>
      <td data-label="Role">{user.role === 'OWNER' ? 'Owner' : 'User'}</td>
      <td data-label="Registered">
        <DateCell iso={user.createdAt} />
      </td>
      <td data-label="E-mail verified">
        {user.emailVerifiedAt ? (
          <DateCell iso={user.emailVerifiedAt} />
        ) : (
          <span className="admin-muted">Not verified</span>
        )}
      </td>
      <td data-label="Last activity">
        {user.lastActiveAt ? (
          <DateCell iso={user.lastActiveAt} />
        ) : (
          <span className="admin-muted">Never</span>
        )}
      </td>
      <td className="admin-actions-cell">
        {pendingApproval && (
          <div className="admin-actions">
            <Button
              className="btn-sm"
              loading={approving}
              disabled={disabled}
              onClick={onApprove}
              aria-label={`Approve ${user.email}`}
            >
              Approve
            </Button>
            <Button
              variant="secondary"
              className="btn-sm admin-reject"
              disabled={disabled}
              onClick={onReject}
              aria-label={`Reject ${user.email}`}
            >
              Reject
            </Button>
          </div>
        )}
      </td>
    </tr>
  );
}
