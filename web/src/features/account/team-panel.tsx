import {
  canDeleteUser,
  INVITE_MESSAGES,
  seatActionOf,
  TEAM_MESSAGES,
  validateInvite,
  type OrganizationUser,
} from '@osint/contract/team';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { ConfirmDeleteModal } from '../../components/confirm-delete-modal.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { ApiError, violationsByField } from '../../lib/api-client.ts';
import { ACCOUNT_KEYS, team, useOrganizationUsers } from './account-api.ts';

interface TeamPanelProps {
  currentHashedId: string;
  organizationId: number;
  /** Seats of the plan in force; 0 without a plan. */
  seatLimit: number;
  /** The signed-in owner's own access changed: user data must be fetched again. */
  onOwnAccessChanged: () => Promise<void>;
}

const STATUS_LABELS: Record<OrganizationUser['status'], { label: string; tone: string }> = {
  ACTIVE: { label: 'Active', tone: 'success' },
  PENDING: { label: 'Pending', tone: 'warning' },
  BLOCKED: { label: 'Blocked', tone: 'danger' },
};

function seatsUsedOf(users: OrganizationUser[] | undefined): number | undefined {
  return users?.filter((u) => u.access && u.status !== 'BLOCKED').length;
}

/** Spec 000 §2: the owner's users list with seat usage, invitations, access and deletion. */
export function TeamPanel({
  currentHashedId,
  organizationId,
  seatLimit,
  onOwnAccessChanged,
}: TeamPanelProps) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const users = useOrganizationUsers(true);
  const [deleting, setDeleting] = useState<OrganizationUser>();
  const [withdrawing, setWithdrawing] = useState<OrganizationUser>();
  const [confirmingSelf, setConfirmingSelf] = useState(false);
  const used = seatsUsedOf(users.data) ?? 0;
  const seatsLeft = Math.max(0, seatLimit - used);

  // The list and the activity log both change with every action of this panel.
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ACCOUNT_KEYS.users });
    await queryClient.invalidateQueries({ queryKey: ACCOUNT_KEYS.activity });
  };
  const afterChange = async (user: OrganizationUser) => {
    await refresh();
    await queryClient.invalidateQueries({ queryKey: ACCOUNT_KEYS.plans });
    if (user.hashedId === currentHashedId) await onOwnAccessChanged();
  };

  const give = useMutation({
    mutationFn: (user: OrganizationUser) => team.give(user.hashedId, organizationId),
    onSuccess: async (_data, user) => {
      showBanner({ message: TEAM_MESSAGES.giveSuccess, type: 'success' });
      await afterChange(user);
    },
    onError: async (error) => {
      const full = error instanceof ApiError && error.status === 400;
      showBanner({
        message: full ? TEAM_MESSAGES.capacityReached : TEAM_MESSAGES.giveFailure,
        type: 'danger',
      });
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (user: OrganizationUser) => team.remove(user.hashedId, organizationId),
    onSuccess: async (_data, user) => {
      setConfirmingSelf(false);
      showBanner({ message: TEAM_MESSAGES.removeSuccess, type: 'success' });
      await afterChange(user);
    },
    onError: () => {
      setConfirmingSelf(false);
      showBanner({ message: TEAM_MESSAGES.removeFailure, type: 'danger' });
    },
  });
  const remove_ = (user: OrganizationUser) =>
    user.hashedId === currentHashedId ? setConfirmingSelf(true) : remove.mutate(user);
  const del = useMutation({
    mutationFn: (user: OrganizationUser) => team.delete(user.hashedId),
    onSuccess: async () => {
      setDeleting(undefined);
      showBanner({ message: TEAM_MESSAGES.deleteSuccess, type: 'success' });
      await refresh();
    },
    onError: () => {
      setDeleting(undefined);
      showBanner({ message: TEAM_MESSAGES.deleteFailure, type: 'danger' });
    },
  });
  // A pending invitation (a mistyped address, say) holds a seat until it is accepted or withdrawn.
  const withdraw = useMutation({
    mutationFn: (user: OrganizationUser) => team.withdraw(user.hashedId),
    onSuccess: async () => {
      setWithdrawing(undefined);
      showBanner({ message: TEAM_MESSAGES.withdrawSuccess, type: 'success' });
      await refresh();
      await queryClient.invalidateQueries({ queryKey: ACCOUNT_KEYS.plans });
    },
    onError: async () => {
      setWithdrawing(undefined);
      showBanner({ message: TEAM_MESSAGES.withdrawFailure, type: 'danger' });
      await refresh();
    },
  });
  const busyHashedId = give.isPending
    ? give.variables.hashedId
    : remove.isPending
      ? remove.variables.hashedId
      : undefined;
  const busy = give.isPending || remove.isPending || del.isPending || withdraw.isPending;
  const me = users.data?.find((u) => u.hashedId === currentHashedId);

  return (
    <section className="card account-panel account-team" aria-labelledby="account-team-title">
      <header className="account-panel__header">
        <div>
          <h2 id="account-team-title" className="account-panel__title">
            Users
          </h2>
          <p className="account-panel__lead">
            Invite the analysts of your organization and decide who has access to search.
          </p>
        </div>
        <SeatMeter used={seatsUsedOf(users.data)} limit={seatLimit} />
      </header>

      <InviteForm seatsLeft={users.data ? seatsLeft : 0} onInvited={refresh} />

      <DataTable
        caption="Users of your organization"
        tableClassName="account-table"
        columns={[
          {
            header: 'Email',
            cell: (user) => (
              <span className="account-user">
                <EmailAddress email={user.email} />
                {user.hashedId === currentHashedId && <span className="account-you">You</span>}
              </span>
            ),
          },
          { header: 'Role', cell: (user) => (user.userRole === 'OWNER' ? 'Owner' : 'User') },
          {
            header: 'Status',
            cell: (user) => (
              <span className={`badge badge--${STATUS_LABELS[user.status].tone}`}>
                {STATUS_LABELS[user.status].label}
              </span>
            ),
          },
          {
            header: 'Access',
            cell: (user) => (
              <AccessCell
                user={user}
                seatsLeft={seatsLeft}
                working={busyHashedId === user.hashedId}
                disabled={busy}
                onGive={() => give.mutate(user)}
                onRemove={() => remove_(user)}
              />
            ),
          },
        ]}
        rows={users.data}
        rowKey={(user) => user.hashedId}
        rowClassName={(user) => (user.hashedId === currentHashedId ? 'account-row--current' : undefined)}
        actionsLabel="Delete or withdraw"
        actions={(user) =>
          user.status === 'PENDING' ? (
            <Button
              variant="ghost"
              className="btn-sm account-delete"
              disabled={busy}
              onClick={() => setWithdrawing(user)}
              aria-label={`${TEAM_MESSAGES.withdrawInvitation}: ${user.email}`}
            >
              Withdraw
            </Button>
          ) : (
            canDeleteUser(user) && (
              <Button
                variant="ghost"
                className="btn-sm account-delete"
                disabled={busy}
                onClick={() => setDeleting(user)}
                aria-label={`Delete ${user.email}`}
              >
                Delete
              </Button>
            )
          )
        }
        loading={users.isPending}
        error={
          users.isError && {
            title: 'The users of your organization could not be loaded.',
            onRetry: () => void users.refetch(),
          }
        }
        empty={{ title: 'No users yet.' }}
      />

      {deleting && (
        <Modal
          title="Delete this user?"
          size="sm"
          onClose={() => !del.isPending && setDeleting(undefined)}
          actions={
            <>
              <Button variant="secondary" disabled={del.isPending} onClick={() => setDeleting(undefined)}>
                Cancel
              </Button>
              <Button variant="danger" loading={del.isPending} onClick={() => del.mutate(deleting)}>
                Delete user
              </Button>
            </>
          }
        >
          <p className="modal__lead account-break">{deleting.email}</p>
          <p>
            The account is deleted together with all of its saved searches and AI data extractions, and the
            face watches it created end. This cannot be undone.
          </p>
        </Modal>
      )}
      {withdrawing && (
        <ConfirmDeleteModal
          title="Withdraw this invitation?"
          text={`The invitation sent to ${withdrawing.email} stops working, and the seat it holds is free again. You can invite the address again later.`}
          confirmLabel={TEAM_MESSAGES.withdrawInvitation}
          keepLabel="Keep invitation"
          busy={withdraw.isPending}
          onConfirm={() => withdraw.mutate(withdrawing)}
          onClose={() => !withdraw.isPending && setWithdrawing(undefined)}
        />
      )}
      {confirmingSelf && me && (
        <Modal
          title="Remove your own access?"
          size="sm"
          onClose={() => !remove.isPending && setConfirmingSelf(false)}
          actions={
            <>
              <Button
                variant="secondary"
                disabled={remove.isPending}
                onClick={() => setConfirmingSelf(false)}
              >
                Cancel
              </Button>
              <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate(me)}>
                Remove my access
              </Button>
            </>
          }
        >
          <p>
            You stay the owner and keep managing users and billing, but you cannot search until a seat is
            given back to you. Use this to hand your seat to another user.
          </p>
        </Modal>
      )}
    </section>
  );
}

/** Breaks a long address before the @ first, never in the middle of its name unless it must. */
function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  return (
    <span className="account-email account-break">
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

function SeatMeter({ used, limit }: { used: number | undefined; limit: number }) {
  const ratio = limit > 0 && used !== undefined ? Math.min(1, used / limit) : 0;
  return (
    <div className="account-seats" aria-live="polite">
      <p className="account-seats__label">
        <strong data-testid="seat-usage">
          {used ?? '…'} / {limit}
        </strong>{' '}
        seats used
      </p>
      <div
        className={`account-seats__bar${ratio >= 1 ? ' account-seats__bar--full' : ''}`}
        role="progressbar"
        aria-label="Seats used"
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={used ?? 0}
      >
        <span style={{ width: `${ratio * 100}%` }} />
      </div>
    </div>
  );
}

interface AccessCellProps {
  user: OrganizationUser;
  seatsLeft: number;
  working: boolean;
  disabled: boolean;
  onGive: () => void;
  onRemove: () => void;
}

/** Give or remove a seat, or why neither is possible. */
function AccessCell({ user, seatsLeft, working, disabled, onGive, onRemove }: AccessCellProps) {
  const action = seatActionOf(user, seatsLeft);
  switch (action) {
    case 'PENDING':
      return <span className="account-muted">{TEAM_MESSAGES.invitationSent}</span>;
    case 'REMOVE':
      return (
        <Button
          variant="secondary"
          className="btn-sm"
          loading={working}
          disabled={disabled}
          onClick={onRemove}
          aria-label={`${TEAM_MESSAGES.removeAccess}: ${user.email}`}
        >
          {TEAM_MESSAGES.removeAccess}
        </Button>
      );
    case 'GIVE':
      return (
        <Button
          className="btn-sm"
          loading={working}
          disabled={disabled}
          onClick={onGive}
          aria-label={`${TEAM_MESSAGES.giveAccess}: ${user.email}`}
        >
          {TEAM_MESSAGES.giveAccess}
        </Button>
      );
    case 'NO_SEATS':
      return <span className="account-muted">{TEAM_MESSAGES.noSeatsLeft}</span>;
    default:
      return <span className="account-muted">—</span>;
  }
}

/**
 * Invites a user by e-mail. While a seat is free, "Give access now" (checked by default) gives it to the
 * invited user at once, so they can search as soon as they have set their password.
 */
function InviteForm({ seatsLeft, onInvited }: { seatsLeft: number; onInvited: () => Promise<void> }) {
  const { showBanner } = useBanner();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string>();
  const [giveAccessWanted, setGiveAccessWanted] = useState(true);
  const giveAccess = giveAccessWanted && seatsLeft > 0;
  const invite = useMutation({
    mutationFn: (input: { email: string; giveAccess: boolean }) => team.invite(input.email, input.giveAccess),
    onSuccess: async () => {
      setEmail('');
      showBanner({ message: INVITE_MESSAGES.success, type: 'success', icon: 'email' });
      await onInvited();
    },
    onError: (failure) => {
      const field = violationsByField(failure).email;
      if (field) setError(field);
      const message =
        failure instanceof ApiError && failure.status === 409
          ? INVITE_MESSAGES.exists
          : field
            ? field
            : failure instanceof ApiError && failure.message === TEAM_MESSAGES.capacityReached
              ? TEAM_MESSAGES.capacityReached
              : INVITE_MESSAGES.failure;
      showBanner({ message, type: 'danger' });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = validateInvite({ email }).email;
    setError(problem);
    if (!problem) invite.mutate({ email: email.trim(), giveAccess });
  };
  return (
    <form className="account-invite" onSubmit={submit} noValidate>
      <TextInput
        label="Invite a user"
        type="email"
        autoComplete="off"
        placeholder="name@your-organization.org"
        value={email}
        error={error}
        onChange={(event) => {
          setEmail(event.target.value);
          setError(undefined);
        }}
      />
      <Button type="submit" loading={invite.isPending}>
        Send invitation
      </Button>
      <div className="account-invite__access">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={giveAccess}
            disabled={seatsLeft === 0}
            aria-describedby="account-invite-access-note"
            onChange={(event) => setGiveAccessWanted(event.target.checked)}
          />
          <span>Give access now</span>
        </label>
        <p id="account-invite-access-note" className="account-invite__note">
          {seatsLeft > 0
            ? `${seatsLeft} ${seatsLeft === 1 ? 'seat' : 'seats'} free: the new user can search as soon as they have set a password.`
            : 'No seats left: the new user can be given access once a seat is free.'}
        </p>
      </div>
    </form>
  );
}
