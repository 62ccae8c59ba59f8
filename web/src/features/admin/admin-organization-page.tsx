import { formatDate } from '@osint/contract/dates';
import {
  LAW_ENFORCEMENT_MESSAGES,
  LAW_ENFORCEMENT_NOTE_MAX_LENGTH,
  type AdminBillingPlanView,
  type AdminOrganizationDetail,
} from '@osint/contract/admin';
import { ORGANIZATION_TYPES, isOrganizationType } from '@osint/contract/organization';
import { formatUsd, PLAN_TYPE_LABELS } from '@osint/contract/pricing';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextArea } from '../../components/text-field.tsx';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
import { AdminHeader, errorText, Fact, QueryState, UserStatusBadge, When } from './admin-ui.tsx';
import { EndPlanModal } from './end-plan-modal.tsx';
import './admin.css';

const PLAN_STATES: Record<AdminBillingPlanView['state'], { label: string; tone: string }> = {
  ACTIVE: { label: 'Active', tone: 'success' },
  FUTURE: { label: 'Future', tone: 'info' },
  EXPIRED: { label: 'Expired', tone: 'neutral' },
  SUPERSEDED: { label: 'Superseded', tone: 'warning' },
  ENDED: { label: 'Ended early', tone: 'danger' },
};

const BACK = { to: '/admin/organizations', label: 'Organizations' };

/** /admin/organizations/{id}: details, owner, users, seats and every plan the organization had. */
export function AdminOrganizationPage() {
  const { id = '' } = useParams();
  const organization = useQuery({
    queryKey: ADMIN_KEYS.organization(id),
    queryFn: () => adminApi.organization(id),
  });
  return (
    <section className="admin-page" aria-labelledby="admin-organization-title">
      {organization.data ? (
        <OrganizationDetail organization={organization.data} />
      ) : (
        <>
          <AdminHeader
            eyebrow="Organization"
            title={<span id="admin-organization-title">Organization</span>}
            back={BACK}
          />
          <QueryState query={organization} notFoundText="This organization does not exist." />
        </>
      )}
    </section>
  );
}

function OrganizationDetail({ organization }: { organization: AdminOrganizationDetail }) {
  const typeLabel = isOrganizationType(organization.type)
    ? ORGANIZATION_TYPES[organization.type]
    : organization.type;
  const { seats } = organization;
  const [ending, setEnding] = useState<AdminBillingPlanView>();
  return (
    <>
      <AdminHeader
        eyebrow="Organization"
        title={<span id="admin-organization-title">{organization.name}</span>}
        back={BACK}
        lead={`${typeLabel} · registered ${formatDate(organization.createdAt)}`}
        actions={
          <>
            <Link
              className="btn btn-primary"
              to={`/admin/organizations/${organization.id}/create-billing-plan`}
            >
              Create billing plan
            </Link>
            <Link className="btn btn-secondary" to={`/admin/audit?organizationId=${organization.id}`}>
              Activity log
            </Link>
          </>
        }
      />

      <div className="admin-detail-grid">
        <div className="card admin-panel-padded">
          <h2 className="admin-section-title">Details</h2>
          <dl className="admin-facts">
            <Fact label="Website">
              <a href={organization.link} target="_blank" rel="noopener noreferrer" className="admin-break">
                {organization.link}
              </a>
            </Fact>
            <Fact label="Owner">
              {organization.owner ? (
                <span className="admin-inline-list">
                  <Link className="admin-break" to={`/admin/users/${organization.owner.id}`}>
                    {organization.owner.email}
                  </Link>
                  <UserStatusBadge status={organization.owner.status} />
                </span>
              ) : (
                <span className="admin-muted">No owner</span>
              )}
            </Fact>
            <Fact label="Last activity">
              <When iso={organization.lastActiveAt} withTime />
            </Fact>
            <Fact label="Searches">{organization.searchCount}</Fact>
            <Fact label="Watched faces">
              {organization.faceAlerts.activeWatches} active · {organization.faceAlerts.endedWatches} ended
            </Fact>
            <Fact label="Face alerts">
              {organization.faceAlerts.alerts} ({organization.faceAlerts.newAlerts} new)
            </Fact>
          </dl>
        </div>
        <div className="card admin-panel-padded">
          <h2 className="admin-section-title">Seats</h2>
          <p className="admin-seat-count" data-testid="admin-seats">
            <strong>
              {seats.used} / {seats.limit}
            </strong>{' '}
            seats used
          </p>
          {organization.activePlan ? (
            <p className="admin-muted">
              {PLAN_TYPE_LABELS[organization.activePlan.planType]} until{' '}
              <When iso={organization.activePlan.endDate} planDay />
            </p>
          ) : (
            <p className="admin-muted">No plan in force: nobody in this organization can search.</p>
          )}
        </div>
      </div>

      <LawEnforcementPanel organization={organization} />

      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Users</h2>
        <DataTable
          caption="Users of the organization"
          columns={memberColumns}
          rows={organization.users}
          rowKey={(user) => user.id}
          empty={{ title: 'No users.' }}
        />
      </div>

      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Plans history</h2>
        <DataTable
          caption="Billing plans, latest first"
          columns={planColumns}
          rows={organization.plans}
          rowKey={(plan) => plan.id}
          empty={{ title: 'This organization never had a plan.' }}
          actionsLabel="Actions"
          actions={(plan) =>
            plan.state !== 'ENDED' &&
            plan.state !== 'EXPIRED' && (
              <Button variant="secondary" onClick={() => setEnding(plan)}>
                End plan
              </Button>
            )
          }
        />
      </div>

      {ending && (
        <EndPlanModal
          organizationId={organization.id}
          plan={ending}
          otherPlans={organization.plans.filter((plan) => plan.id !== ending.id)}
          onClose={() => setEnding(undefined)}
        />
      )}

      <div className="card admin-panel">
        <h2 className="admin-section-title admin-panel-heading">Orders</h2>
        <DataTable
          caption="Orders, newest first"
          columns={orderColumns}
          rows={organization.orders}
          rowKey={(order) => order.id}
          empty={{ title: 'No orders yet.' }}
        />
      </div>
    </>
  );
}

const memberColumns: DataTableColumn<AdminOrganizationDetail['users'][number]>[] = [
  {
    header: 'User',
    cell: (user) => (
      <Link className="admin-email admin-break" to={`/admin/users/${user.id}`}>
        {user.email}
      </Link>
    ),
  },
  { header: 'Role', cell: (user) => (user.role === 'OWNER' ? 'Owner' : 'User') },
  { header: 'Status', cell: (user) => <UserStatusBadge status={user.status} /> },
  { header: 'Access', cell: (user) => (user.access ? 'Yes' : 'No') },
  { header: 'Joined', cell: (user) => <When iso={user.createdAt} /> },
  { header: 'Last activity', cell: (user) => <When iso={user.lastActiveAt} /> },
];

const planColumns: DataTableColumn<AdminOrganizationDetail['plans'][number]>[] = [
  {
    header: 'Type',
    cell: (plan) => (
      <>
        {PLAN_TYPE_LABELS[plan.planType]}
        {plan.planType === 'VIRTUAL' && <span className="admin-muted"> (virtual)</span>}
      </>
    ),
  },
  {
    header: 'State',
    cell: (plan) => (
      <>
        <span className={`badge badge--${PLAN_STATES[plan.state].tone}`}>
          {PLAN_STATES[plan.state].label}
        </span>
        {plan.endedEarly && (
          <p className="admin-muted admin-break">
            <When iso={plan.endedEarly.at} withTime />: {plan.endedEarly.reason}
          </p>
        )}
        {plan.cardSubscription && <CardSubscriptionNote plan={plan} />}
      </>
    ),
  },
  { header: 'Start', cell: (plan) => <When iso={plan.startDate} planDay /> },
  { header: 'End', cell: (plan) => <When iso={plan.endDate} planDay /> },
  { header: 'Seats', cell: (plan) => plan.seatLimit },
  { header: 'Created', cell: (plan) => <When iso={plan.createdAt} withTime /> },
];

/** Whether the card that pays a plan is still charged: the admin must know after ending the plan. */
function CardSubscriptionNote({ plan }: { plan: AdminOrganizationDetail['plans'][number] }) {
  const subscription = plan.cardSubscription!;
  const name = <span className="admin-break">card subscription {subscription.id}</span>;
  if (subscription.cancelledAt)
    return (
      <p className="admin-muted">
        The {name} was cancelled at FastSpring <When iso={subscription.cancelledAt} withTime />.
      </p>
    );
  if (!plan.endedEarly) return <p className="admin-muted">Paid by {name}.</p>;
  if (!subscription.cancelRequestedAt)
    return (
      <p className="admin-warning" role="status">
        Cancel the {name} in FastSpring’s app: no FastSpring API credentials were set when the plan ended, so
        the card is still charged.
      </p>
    );
  return (
    <p className="admin-warning admin-break" role="status">
      {subscription.cancelError
        ? `The card subscription ${subscription.id} is not cancelled yet: ${subscription.cancelError}. It is tried again for about 1½ hours, then can be retried in Jobs (or cancel it in FastSpring’s app).`
        : `The card subscription ${subscription.id} is being cancelled at FastSpring.`}
    </p>
  );
}

const ORDER_STATUS_TONES: Record<string, string> = { COMPLETED: 'success', PENDING: 'warning' };

const orderColumns: DataTableColumn<AdminOrganizationDetail['orders'][number]>[] = [
  { header: 'Order', cell: (order) => <Link to={`/admin/orders/${order.id}`}>{order.orderNumber}</Link> },
  {
    header: 'Status',
    cell: (order) => (
      <span className={`badge badge--${ORDER_STATUS_TONES[order.status] ?? 'neutral'}`}>{order.status}</span>
    ),
  },
  { header: 'Payment', cell: (order) => (order.paymentMethod === 'CARD' ? 'Card' : 'Bank transfer') },
  {
    header: 'Period',
    cell: (order) => (
      <>
        <When iso={order.startDate} planDay /> – <When iso={order.endDate} planDay />
      </>
    ),
  },
  { header: 'Seats', cell: (order) => order.seatLimit },
  { header: 'Amount', cell: (order) => formatUsd(order.amount) },
  { header: 'Placed', cell: (order) => <When iso={order.createdAt} /> },
];

/**
 * Law-enforcement verification: verified organizations may search faces that may belong to minors. To
 * verify, the admin writes down the evidence seen; the owner is told by e-mail either way.
 */
function LawEnforcementPanel({ organization }: { organization: AdminOrganizationDetail }) {
  const { lawEnforcement } = organization;
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  const [note, setNote] = useState('');
  const [error, setError] = useState<string>();
  const change = useMutation({
    mutationFn: (verified: boolean) =>
      adminApi.setLawEnforcement(organization.id, verified ? { verified, note } : { verified }),
    onSuccess: async (status) => {
      setNote('');
      await queryClient.invalidateQueries({ queryKey: ADMIN_KEYS.organization(String(organization.id)) });
      showBanner({
        message: status.verified ? LAW_ENFORCEMENT_MESSAGES.verified : LAW_ENFORCEMENT_MESSAGES.revoked,
        type: 'success',
      });
    },
    onError: (failure) => setError(errorText(failure, 'The verification could not be changed.')),
  });
  const verify = (event: FormEvent) => {
    event.preventDefault();
    if (!note.trim()) {
      setError(LAW_ENFORCEMENT_MESSAGES.noteRequired);
      return;
    }
    change.mutate(true);
  };
  return (
    <div className="card admin-panel-padded" aria-labelledby="law-enforcement-title">
      <h2 id="law-enforcement-title" className="admin-section-title">
        Law enforcement
      </h2>
      {lawEnforcement.verified ? (
        <>
          <p data-testid="law-enforcement-status">
            <strong>Verified law enforcement</strong> since <When iso={lawEnforcement.verifiedAt!} withTime />
            : may search faces that may belong to minors.
          </p>
          <p className="admin-muted admin-break">Evidence: {lawEnforcement.note}</p>
          <div className="admin-form-actions">
            <Button variant="secondary" loading={change.isPending} onClick={() => change.mutate(false)}>
              Withdraw verification
            </Button>
            <Link
              className="btn btn-secondary"
              to={`/admin/audit?organizationId=${organization.id}&action=search.minor`}
            >
              Searches of possible minors
            </Link>
          </div>
        </>
      ) : (
        <form onSubmit={verify} noValidate>
          <p data-testid="law-enforcement-status">
            Not verified: faces that may belong to minors cannot be searched.
          </p>
          <TextArea
            label="Evidence of law-enforcement status (required: what you checked)"
            rows={2}
            maxLength={LAW_ENFORCEMENT_NOTE_MAX_LENGTH}
            value={note}
            error={error}
            onChange={(event) => {
              setNote(event.target.value);
              setError(undefined);
            }}
          />
          <div className="admin-form-actions">
            <Button type="submit" loading={change.isPending}>
              Verify as law enforcement
            </Button>
          </div>
        </form>
      )}
    </div>
  );
}
