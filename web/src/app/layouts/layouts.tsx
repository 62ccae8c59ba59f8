import { useAlertBadge } from '../../features/face-alerts/use-alert-badge.ts';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useMatches, useNavigate } from 'react-router';
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ToastRegion } from '../../components/toast-region.tsx';
import { useExtractionAlert } from '../../features/data-extractor/use-extraction-alert.ts';
import { useSession } from '../../lib/session.tsx';
import type { RouteHandle } from '../route-names.ts';
import { SiteFooter } from './site-footer.tsx';
import { SiteHeader, type MenuItem } from './site-header.tsx';

/** Shown while the layout is undecided: the first "who am I?" answer has not arrived. */
export function LoadingLayout() {
  return (
    <div className="layout layout--loading">
      <LoadingPlaceholder />
    </div>
  );
}

function LogInOutButton() {
  const { session, logout } = useSession();
  const navigate = useNavigate();
  if (!session) {
    return (
      <Button variant="light" onClick={() => navigate('/login')}>
        Log in
      </Button>
    );
  }
  return (
    <Button
      variant="light"
      onClick={() => {
        void logout()
          .catch(() => undefined)
          .finally(() => navigate('/login'));
      }}
    >
      Log out
    </Button>
  );
}

const PROMO_MENU: MenuItem[] = [
  { to: '/', label: 'Home', end: true },
  { to: '/about-us', label: 'About us' },
  { to: '/faq', label: 'FAQ' },
  { to: '/contact', label: 'Contact' },
  { to: '/privacy-policy', label: 'Privacy Policy' },
  { to: '/terms-of-service', label: 'Terms of Service' },
];

export function PromoLayout() {
  return (
    <div className="layout layout--promo">
      <SiteHeader logoTo="/" items={PROMO_MENU} actions={<LogInOutButton />} />
      <ToastRegion />
      <main id="content" className="layout__main">
        <Outlet />
      </main>
      <SiteFooter legalBase="" />
    </div>
  );
}

/** Register and login are for signed-out visitors only; the other guest pages work either way. */
export function GuestLayout() {
  const { session } = useSession();
  const location = useLocation();
  if (session && ['/login', '/register'].includes(location.pathname)) return <Navigate to="/home" replace />;
  return (
    <div className="layout layout--guest">
      <SiteHeader logoTo="/" items={PROMO_MENU} actions={<LogInOutButton />} />
      <ToastRegion />
      <main id="content" className="layout__main layout__main--guest">
        <div className="container guest-container">
          <Outlet />
        </div>
      </main>
      <SiteFooter legalBase="" />
    </div>
  );
}

/** Fetches user data again on entry to routes flagged to refresh (spec 000 §2). */
function useRefreshOnFlaggedRoutes() {
  const { refresh } = useSession();
  const matches = useMatches();
  const location = useLocation();
  const refreshUser = matches.some((m) => (m.handle as RouteHandle | undefined)?.refreshUser);
  useEffect(() => {
    if (refreshUser) void refresh();
    // Once per entry: the path, not every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.pathname, refreshUser]);
}

export function UserLayout() {
  const { session } = useSession();
  const location = useLocation();
  useRefreshOnFlaggedRoutes();
  // The menu alert: done extractions nobody has opened yet (spec 001 §4).
  const newExtractions = useExtractionAlert(Boolean(session?.user.access));
  // Face alerts nobody has looked at yet (issue 17).
  const newAlerts = useAlertBadge(Boolean(session?.user.access));
  if (!session) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  const { user } = session;
  const items: MenuItem[] = [
    { to: '/home', label: 'Home', end: true },
    ...(user.isOwner ? [{ to: '/pricing', label: 'Pricing' }] : []),
    { to: '/search', label: 'Search' },
    { to: '/data-extractor', label: 'AI Data Extractor', marker: newExtractions },
    { to: '/saved-searches', label: 'Saved Searches' },
    { to: '/alerts', label: 'Alerts', marker: newAlerts, markerLabel: 'new alerts' },
    { to: '/account', label: 'Account' },
    { to: '/support', label: 'Support' },
    ...(user.admin ? [{ to: '/admin/users', label: 'Admin Panel' }] : []),
  ];
  return (
    <div className="layout layout--user">
      <SiteHeader logoTo="/home" items={items} actions={<LogInOutButton />} />
      <ToastRegion />
      <main id="content" className="layout__main">
        <Outlet />
      </main>
      <SiteFooter legalBase="/home" />
    </div>
  );
}

const ADMIN_MENU: MenuItem[] = [
  { to: '/admin', label: 'Dashboard', end: true },
  { to: '/admin/users', label: 'Users' },
  { to: '/admin/organizations', label: 'Organizations' },
  { to: '/admin/saved-searches', label: 'Saved Searches' },
  { to: '/admin/payments', label: 'Payments' },
  { to: '/admin/orders', label: 'Orders' },
  { to: '/admin/data-extractor', label: 'AI Data Extractor' },
  { to: '/admin/watchlists', label: 'Watch-lists' },
  { to: '/admin/crawls', label: 'Crawls' },
  { to: '/admin/opt-outs', label: 'Opt-outs' },
  { to: '/admin/minor-reviews', label: 'Face reviews' },
  { to: '/admin/jobs', label: 'Jobs' },
  { to: '/admin/audit', label: 'Audit log' },
];

export function AdminLayout() {
  const { session } = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  if (!session) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  if (!session.user.admin) return <Navigate to="/home" replace />;
  return (
    <div className="layout layout--admin">
      <SiteHeader
        logoTo="/admin/users"
        items={ADMIN_MENU}
        variant="admin"
        actions={
          <Button variant="light" onClick={() => navigate('/home')}>
            Back to home
          </Button>
        }
      />
      <ToastRegion />
      <main id="content" className="layout__main layout__main--admin">
        <Outlet />
      </main>
    </div>
  );
}

export function NotFoundLayout() {
  const navigate = useNavigate();
  return (
    <div className="layout layout--not-found">
      <main id="content" className="not-found">
        <svg className="not-found__graphic" viewBox="0 0 480 200" role="img" aria-label="404">
          <defs>
            <linearGradient id="nf-gradient" x1="0" x2="1" y1="0" y2="1">
              <stop offset="0" stopColor="#2563eb" />
              <stop offset="1" stopColor="#14b8a6" />
            </linearGradient>
          </defs>
          <text
            x="50%"
            y="165"
            textAnchor="middle"
            fontSize="190"
            fontWeight="800"
            fill="url(#nf-gradient)"
            fontFamily="inherit"
          >
            404
          </text>
        </svg>
        <h1 className="not-found__title">Page not found</h1>
        <p className="not-found__text">The page you are looking for does not exist or has been moved.</p>
        <Button onClick={() => (window.history.length > 1 ? navigate(-1) : navigate('/'))}>Go back</Button>
      </main>
    </div>
  );
}
