import { TEAM_MESSAGES } from '@osint/contract/team';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, ApiError } from '../lib/api-client.ts';
import { useSession } from '../lib/session.tsx';
import { Button } from './button.tsx';
import './work-access-notice.css';

/**
 * What a signed-in user without access to the organization's work (search, saved searches, the data
 * extractor) sees instead of it. Spec 001 §4/§6 reserve "Your Subscription Has Expired" for owners without
 * a plan in force; an owner who has a plan but holds no seat can give themselves one here.
 */
export function WorkAccessNotice() {
  const { session } = useSession();
  if (!session) return null;
  const { user } = session;
  return (
    <section className="container page">
      <div className="card work-access" role="status">
        {user.organizationBlocked ? (
          <>
            <h1 className="work-access__title">Your Organization’s Account Is Blocked</h1>
            <p>
              Searches, saved searches and reports are unavailable while the account is blocked. Please
              contact support to find out why and what to do.
            </p>
            <Link className="btn btn-primary" to="/support">
              Contact support
            </Link>
          </>
        ) : user.isOwner && !user.planActive ? (
          <>
            <h1 className="work-access__title">Your Subscription Has Expired</h1>
            <p>Renew your plan to search again and to open your saved searches and reports.</p>
            <Link className="btn btn-primary" to="/pricing">
              RENEW YOUR PLAN
            </Link>
          </>
        ) : user.isOwner ? (
          <OwnerWithoutSeat hashedId={user.hashedId} organizationId={user.organizationId} />
        ) : (
          <>
            <h1 className="work-access__title">Search Access Unavailable</h1>
            <p>
              Your account has no access to search at the moment. Please contact the owner of your
              organization’s account to get access.
            </p>
          </>
        )}
      </div>
    </section>
  );
}

function OwnerWithoutSeat({ hashedId, organizationId }: { hashedId: string; organizationId: number }) {
  const { refresh } = useSession();
  const [giving, setGiving] = useState(false);
  const [failure, setFailure] = useState<string>();
  const giveYourselfAccess = async () => {
    setGiving(true);
    setFailure(undefined);
    try {
      await api('/user/give', { method: 'POST', body: { userHashedId: hashedId, organizationId } });
      await refresh();
    } catch (error) {
      setFailure(
        error instanceof ApiError && error.status === 400
          ? `${TEAM_MESSAGES.capacityReached} Free a seat on the Account page, or add users to your plan.`
          : TEAM_MESSAGES.giveFailure,
      );
    } finally {
      setGiving(false);
    }
  };
  return (
    <>
      <h1 className="work-access__title">You Hold No Seat</h1>
      <p>
        Your organization’s plan is active, but none of its seats is yours. Give yourself access to search and
        to open saved searches and the data extractor.
      </p>
      {failure && (
        <p className="work-access__failure" role="alert">
          {failure}
        </p>
      )}
      <div className="work-access__actions">
        <Button loading={giving} onClick={() => void giveYourselfAccess()}>
          Give yourself access
        </Button>
        <Link className="btn btn-secondary" to="/account">
          Manage seats
        </Link>
      </div>
    </>
  );
}
