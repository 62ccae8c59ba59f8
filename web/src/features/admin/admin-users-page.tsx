import type { AdminUserRow, UserStatus } from '@osint/contract/api-types';
import { ORGANIZATION_TYPES, isOrganizationType } from '@osint/contract/organization';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { PREFERENCE_KEYS, readChoice, writeChoice } from '../../lib/preferences.ts';
import { Link } from 'react-router';
import { Button } from '../../components/button.tsx';
import {
  DataTable,
  SearchFilter,
  SelectFilter,
  type DataTableColumn,
  type DataTableState,
} from '../../components/data-table.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { api, ApiError } from '../../lib/api-client.ts';
import { useDebounced } from '../../lib/use-paged-list.ts';
import { EmailText, UserStatusBadge, When } from './admin-ui.tsx';
import './admin.css';

const PAGE_SIZE = 25;
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
  const search = useDebounced(searchInput.trim());
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
        <DataTable
          caption="Users, pending approval first"
          columns={userColumns}
          rows={users.data}
          rowKey={(user) => user.id}
          rowClassName={(user) => (user.status === 'PENDING_APPROVAL' ? 'admin-row--pending' : undefined)}
          actions={(user) =>
            user.status === 'PENDING_APPROVAL' && (
              <>
                <Button
                  className="btn-sm"
                  loading={approvingId === user.id}
                  disabled={busy}
                  onClick={() => approve.mutate(user)}
                  aria-label={`Approve ${user.email}`}
                >
                  Approve
                </Button>
                <Button
                  variant="secondary"
                  className="btn-sm admin-reject"
                  disabled={busy}
                  onClick={() => setRejecting(user)}
                  aria-label={`Reject ${user.email}`}
                >
                  Reject
                </Button>
              </>
            )
          }
          loading={users.isPending}
          stale={users.isPlaceholderData}
          error={
            users.isError && {
              title: 'The users could not be loaded.',
              text: users.error instanceof ApiError ? users.error.message : 'Please check your connection.',
              onRetry: () => void users.refetch(),
            }
          }
          empty={emptyState(status, search)}
          paging={{ page, hasNext, onPageChange: goTo }}
          filters={
            <>
              <SearchFilter
                placeholder="E-mail or organization name"
                value={searchInput}
                onChange={setSearchInput}
              />
              <SelectFilter label="Status" options={STATUS_FILTERS} value={status} onChange={setStatus} />
            </>
          }
        />
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
            in. You can still approve the account later from its page.
          </p>
        </Modal>
      )}
    </section>
  );
}

function emptyState(status: '' | UserStatus, search: string): DataTableState {
  const [title, text] =
    status === 'PENDING_APPROVAL' && !search
      ? [
          'No registrations are waiting for approval.',
          'New ones appear here once their e-mail address is confirmed.',
        ]
      : status || search
        ? ['No users match these filters.', 'Change the status or the search to see more.']
        : ['No users yet.', 'Registrations will appear here.'];
  return { title, text };
}

const userColumns: DataTableColumn<AdminUserRow>[] = [
  {
    header: 'User',
    cell: (user) => (
      <span className="admin-user">
        <Link className="admin-user-link admin-email" to={`/admin/users/${user.id}`}>
          <EmailText email={user.email} />
        </Link>
        {user.admin && <span className="badge badge--info admin-inline-badge">Admin</span>}
      </span>
    ),
  },
  {
    header: 'Organization',
    cell: (user) => (
      <span className="admin-org">
        <Link className="admin-org-name" to={`/admin/organizations/${user.organization.id}`}>
          {user.organization.name}
        </Link>
        <span className="admin-org-type">
          {isOrganizationType(user.organization.type)
            ? ORGANIZATION_TYPES[user.organization.type]
            : user.organization.type}
        </span>
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
    ),
  },
  { header: 'Status', cell: (user) => <UserStatusBadge status={user.status} /> },
  { header: 'Role', cell: (user) => (user.role === 'OWNER' ? 'Owner' : 'User') },
  { header: 'Registered', cell: (user) => <When iso={user.createdAt} /> },
  {
    header: 'E-mail verified',
    cell: (user) =>
      user.emailVerifiedAt ? (
        <When iso={user.emailVerifiedAt} />
      ) : (
        <span className="admin-muted">Not verified</span>
      ),
  },
  {
    header: 'Last activity',
    cell: (user) =>
      user.lastActiveAt ? <When iso={user.lastActiveAt} /> : <span className="admin-muted">Never</span>,
  },
];
