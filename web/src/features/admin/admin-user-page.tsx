import { canApproveUser, type AdminUserDetail } from '@osint/contract/admin';
import { ORGANIZATION_TYPES, isOrganizationType } from '@osint/contract/organization';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
import { AuditTable } from './admin-audit-table.tsx';
import { AdminHeader, EmailText, errorText, Fact, QueryState, UserStatusBadge, When } from './admin-ui.tsx';
import './admin.css';

/**
 * /admin/users/{id}: one account, its organization, live sessions and latest activity; block or unblock,
 * approve a registration (also one rejected earlier, as the users list's reject dialog promises).
 */
export function AdminUserPage() {
  const { id = '' } = useParams();
  const user = useQuery({ queryKey: ADMIN_KEYS.user(id), queryFn: () => adminApi.user(id) });
  return (
    <section className="admin-page" aria-labelledby="admin-user-title">
      {user.data ? (
        <UserDetail user={user.data} />
      ) : (
        <>
          <AdminHeader eyebrow="User" title={<span id="admin-user-title">User</span>} back={BACK} />
          <QueryState query={user} notFoundText="This user does not exist." />
        </>
      )}
    </section>
  );
}

const BACK = { to: '/admin/users', label: 'Users' };

const sessionColumns: DataTableColumn<AdminUserDetail['sessions'][number]>[] = [
  { header: 'Signed in', cell: (session) => <When iso={session.createdAt} withTime /> },
  { header: 'Last seen', cell: (session) => <When iso={session.lastSeenAt} withTime /> },
  { header: 'Expires', cell: (session) => <When iso={session.expiresAt} withTime /> },
  { header: 'IP', className: 'admin-code', cell: (session) => session.ip ?? '—' },
  { header: 'Browser', className: 'admin-break admin-muted', cell: (session) => session.userAgent ?? '—' },
];

function UserDetail({ user }: { user: AdminUserDetail }) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [confirming, setConfirming] = useState<'block' | 'unblock'>();
  const change = useMutation({
    mutationFn: (action: 'block' | 'unblock' | 'approve') =>
      action === 'block'
        ? adminApi.block(user.id)
        : action === 'unblock'
          ? adminApi.unblock(user.id)
          : adminApi.approve(user.id),
    onSuccess: async (_data, action) => {
      setConfirming(undefined);
      const verb = { block: 'blocked', unblock: 'unblocked', approve: 'approved' }[action];
      showBanner({ message: `${user.email} has been ${verb}.`, type: 'success' });
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.user(String(user.id)) });
      await queryClient.invalidateQueries({ queryKey: ['admin-users'] });
    },
    onError: (error, action) => {
      setConfirming(undefined);
      showBanner({
        message: `Could not ${action} ${user.email}.`,
        additionalMessage: errorText(error, 'Please try again.'),
        type: 'danger',
      });
    },
  });
  const blockable = !user.admin && (user.status === 'ACTIVE' || user.status === 'INVITED');
  const typeLabel = isOrganizationType(user.organization.type)
    ? ORGANIZATION_TYPES[user.organization.type]
    : user.organization.type;

  return (
    <>
      <AdminHeader
        eyebrow={user.admin ? 'Administrator' : user.role === 'OWNER' ? 'Organization owner' : 'User'}
        title={
          <span id="admin-user-title">
            <EmailText email={user.email} />
          </span>
        }
        back={BACK}
        lead={
          <span className="admin-inline-list">
            <UserStatusBadge status={user.status} />
            <span className={`badge badge--${user.access ? 'success' : 'neutral'}`}>
              {user.access ? 'Has access' : 'No access'}
            </span>
            {user.admin && <span className="badge badge--info">Admin</span>}
          </span>
        }
        actions={
          <>
            {canApproveUser(user) && (
              <Button loading={change.isPending} onClick={() => change.mutate('approve')}>
                Approve
              </Button>
            )}
            {blockable && (
              <Button variant="danger" disabled={change.isPending} onClick={() => setConfirming('block')}>
                Block user
              </Button>
            )}
            {user.status === 'BLOCKED' && (
              <Button
                variant="secondary"
                disabled={change.isPending}
                onClick={() => setConfirming('unblock')}
              >
                Unblock user
              </Button>
            )}
            <Link className="btn btn-secondary" to={`/admin/audit?userId=${user.id}`}>
              Activity log
            </Link>
          </>
        }
      />

      <div className="admin-detail-grid">
        <div className="card admin-panel-padded">
          <h2 className="admin-section-title">Account</h2>
          <dl className="admin-facts">
            <Fact label="Role">{user.role === 'OWNER' ? 'Owner' : 'User'}</Fact>
            <Fact label="Registered">
              <When iso={user.createdAt} withTime />
            </Fact>
            <Fact label="E-mail verified">
              <When iso={user.emailVerifiedAt} />
            </Fact>
            <Fact label="Approved">
              <When iso={user.approvedAt} />
            </Fact>
            <Fact label="Last activity">
              <When iso={user.lastActiveAt} withTime />
            </Fact>
            <Fact label="Password changed">
              <When iso={user.passwordChangedAt} />
            </Fact>
            {user.blockedAt && (
              <Fact label="Blocked">
                <When iso={user.blockedAt} withTime />
              </Fact>
            )}
            <Fact label="Searches">{user.searchCount}</Fact>
            <Fact label="Newsletter">{user.newsletter ? 'Subscribed' : 'No'}</Fact>
          </dl>
        </div>
        <div className="card admin-panel-padded">
          <h2 className="admin-section-title">Organization</h2>
          <dl className="admin-facts">
            <Fact label="Name">
              <Link to={`/admin/organizations/${user.organization.id}`}>{user.organization.name}</Link>
            </Fact>
            <Fact label="Type">{typeLabel}</Fact>
            <Fact label="Website">
              <a
                href={user.organization.link}
                target="_blank"
                rel="noopener noreferrer"
                className="admin-break"
              >
                {user.organization.link}
              </a>
            </Fact>
          </dl>
        </div>
      </div>

      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Live sessions</h2>
        <DataTable
          caption="Live sessions"
          columns={sessionColumns}
          rows={user.sessions}
          rowKey={(session) => session.createdAt + session.lastSeenAt}
          empty={{ title: 'No live sessions.' }}
        />
      </div>

      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Recent activity</h2>
        <AuditTable entries={user.recentActivity} caption="Recent activity of this user" />
      </div>

      {confirming && (
        <Modal
          title={confirming === 'block' ? 'Block this user?' : 'Unblock this user?'}
          size="sm"
          onClose={() => !change.isPending && setConfirming(undefined)}
          actions={
            <>
              <Button
                variant="secondary"
                disabled={change.isPending}
                onClick={() => setConfirming(undefined)}
              >
                Cancel
              </Button>
              <Button
                variant={confirming === 'block' ? 'danger' : 'primary'}
                loading={change.isPending}
                onClick={() => change.mutate(confirming)}
              >
                {confirming === 'block' ? 'Block user' : 'Unblock user'}
              </Button>
            </>
          }
        >
          <p className="modal__lead admin-break">{user.email}</p>
          <p>
            {confirming === 'block'
              ? 'The user is signed out at once, cannot sign in again and loses their seat. You can unblock them later; the owner then decides about access again.'
              : 'The user can sign in again. Access to search has to be given again by the organization owner.'}
          </p>
          {user.role === 'OWNER' && (
            <p>
              {confirming === 'block'
                ? 'This is the organization’s owner: blocking them suspends the whole organization. Its members keep their seats but cannot search or open saved searches and reports, and its face watches raise no alerts, until the owner is unblocked.'
                : 'Unblocking the owner lifts the suspension of the organization: its members with a seat can work again.'}
            </p>
          )}
        </Modal>
      )}
    </>
  );
}
