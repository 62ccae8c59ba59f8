import { Link } from 'react-router';
import { ContactForm } from '../../features/support/contact-form.tsx';
import { useSession } from '../../lib/session.tsx';
import { formatDay } from '@osint/contract/dates';

const PLAN_LABELS: Record<string, string> = {
  TRIAL: 'Trial',
  SUBSCRIPTION: 'Subscription',
  ONE_TIME_PAYMENT: 'Fixed Period',
  VIRTUAL: 'Fixed Period',
};

/** The signed-in start page: where to go next and the state of the organization's plan. */
export function HomeRoute() {
  const { session } = useSession();
  if (!session) return null;
  const { user, organization } = session;
  const plan = organization.activeBillingPlan;
  const tiles = [
    {
      to: '/search',
      title: 'Face search',
      text: 'Upload a photo, choose a face and find where it appears on public websites.',
    },
    {
      to: '/saved-searches',
      title: 'Saved searches',
      text: 'Result sets kept under a name and a note, ready for a PDF report.',
    },
    {
      to: '/data-extractor',
      title: 'AI Data Extractor',
      text: 'Names, politician, sanctions and criminal flags with their evidence.',
    },
    { to: '/support', title: 'Support', text: 'Questions about a result, your account or billing.' },
  ];
  return (
    <section className="container page user-home">
      <header className="user-home__header">
        <p className="page__eyebrow" dir="auto">
          {organization.name}
        </p>
        <h1 className="page__title">Welcome back</h1>
        <p className="page__lead">Signed in as {user.email}</p>
      </header>
      <div className="card user-home__plan" aria-label="Plan">
        {plan && (user.access || user.admin) ? (
          <>
            <span className={`badge badge--${plan.planType === 'TRIAL' ? 'info' : 'success'}`}>
              {PLAN_LABELS[plan.planType]}
            </span>
            <p>
              Active until <strong>{formatDay(plan.endDate)}</strong> · {plan.seatLimit}{' '}
              {plan.seatLimit === 1 ? 'seat' : 'seats'}
            </p>
          </>
        ) : user.admin ? (
          <>
            <span className="badge badge--info">Administrator</span>
            <p>Your provider account has full access to search and to the admin panel.</p>
          </>
        ) : user.isOwner && !plan ? (
          <>
            <p className="user-home__plan-title">Your Subscription Has Expired</p>
            <Link className="btn btn-primary" to="/pricing">
              RENEW YOUR PLAN
            </Link>
          </>
        ) : (
          <>
            <p className="user-home__plan-title">Search Access Unavailable</p>
            {user.isOwner ? (
              <p>
                You hold no seat of your organization’s plan. <Link to="/account">Give yourself access</Link>{' '}
                on the Account page.
              </p>
            ) : (
              <p>Please contact the owner of your organization’s account to get access.</p>
            )}
          </>
        )}
      </div>
      <ul className="tile-grid">
        {tiles.map((tile) => (
          <li key={tile.to}>
            <Link className="tile card" to={tile.to}>
              <span className="tile__title">{tile.title}</span>
              <span className="tile__text">{tile.text}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function SupportRoute() {
  const { session } = useSession();
  return (
    <section className="container page support-page">
      <h1 className="page__title">Support</h1>
      <p className="page__lead">
        Our support team answers questions about search results, the AI data extractor, your team’s access and
        billing. We reply to the e-mail address of your account, usually within one business day.
      </p>
      <div className="support-page__grid">
        <div className="card">
          <ContactForm lockedEmail={session?.user.email} />
        </div>
        <aside className="card support-page__aside">
          <h2>Before you write</h2>
          <ul>
            <li>Include the name of the saved search or extraction your question is about.</li>
            <li>Attach screenshots if something does not look right.</li>
            <li>For billing, tell us the order or invoice number.</li>
            <li>
              Never send us photos of minors unless your organization is a verified law-enforcement body.
            </li>
          </ul>
        </aside>
      </div>
    </section>
  );
}
