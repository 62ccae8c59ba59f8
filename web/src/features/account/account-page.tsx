import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useSession } from '../../lib/session.tsx';
import { downloadProforma, useBillingPlans, useOrders, useOrganizationUsers } from './account-api.ts';
import { ActivityPanel } from './activity-panel.tsx';
import { InvoicesPanel } from './invoices-panel.tsx';
import { SettingsPanel } from './settings-panel.tsx';
import { FreeTrialPanel, SubscriptionPanel } from './subscription-panels.tsx';
import { accountBillingOf, subscriptionViewOf } from './subscription.ts';
import { TeamPanel } from './team-panel.tsx';
import './account.css';

/**
 * /account (spec 000 §2): Free Trial and My Subscription for owners, Settings for everyone, then the
 * owner's users and seats and the organization's activity.
 */
export function AccountPage() {
  const { session, refresh, logout } = useSession();
  const navigate = useNavigate();
  const isOwner = session?.user.isOwner ?? false;
  const users = useOrganizationUsers(isOwner);
  const plans = useBillingPlans(isOwner);
  const orders = useOrders(isOwner);

  const onAccountDeleted = useCallback(async () => {
    // The server ended the session with the account; signing out here clears what the app still holds.
    await logout().catch(() => undefined);
    navigate('/login', { replace: true });
  }, [logout, navigate]);

  if (!session) return null;
  const { user, organization } = session;
  const billing = accountBillingOf(organization, plans.data, orders.data);
  const subscription = subscriptionViewOf(billing);
  const usedSeats = users.data?.filter((u) => u.access && u.status !== 'BLOCKED').length;
  const showBilling = isOwner && !(user.admin && !billing.activePlan && !billing.expiredPlan);

  return (
    <section className="container page account-page" aria-labelledby="account-title">
      <header className="account-page__header">
        <p className="page__eyebrow" dir="auto">
          {organization.name}
        </p>
        <h1 className="page__title" id="account-title">
          Account
        </h1>
        <p className="page__lead">
          Signed in as <strong>{user.email}</strong> · {isOwner ? 'Owner' : 'User'}
        </p>
        {!user.admin && (
          <p className="account-access">
            <span className={`badge badge--${user.access ? 'success' : 'neutral'}`}>
              {user.access ? 'Search access' : 'No search access'}
            </span>
            {!user.access && !isOwner && (
              <span className="account-muted">Ask the owner of your organization’s account for a seat.</span>
            )}
          </p>
        )}
      </header>

      {showBilling && billing.activePlan?.planType === 'TRIAL' && (
        <FreeTrialPanel plan={billing.activePlan} usedSeats={usedSeats} />
      )}
      {showBilling && subscription && !plans.isPending && !orders.isPending && (
        <SubscriptionPanel
          view={subscription}
          usedSeats={usedSeats}
          roleLabel={isOwner ? 'Owner' : 'User'}
          onDownloadProforma={downloadProforma}
        />
      )}

      {isOwner && orders.data && <InvoicesPanel orders={orders.data} />}

      <SettingsPanel isOwner={isOwner} onAccountDeleted={onAccountDeleted} />

      {isOwner && (
        <TeamPanel
          currentHashedId={user.hashedId}
          organizationId={organization.organizationId}
          seatLimit={billing.activePlan?.seatLimit ?? 0}
          onOwnAccessChanged={refresh}
        />
      )}
      {isOwner && <ActivityPanel />}
    </section>
  );
}
