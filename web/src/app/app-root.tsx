import { useCallback, useEffect } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { BannerProvider } from '../components/message-banner.tsx';
import { SessionProvider, useSession } from '../lib/session.tsx';
import { LoadingLayout } from './layouts/layouts.tsx';

const PROTECTED_PREFIXES = [
  '/home',
  '/pricing',
  '/search',
  '/data-extractor',
  '/saved-searches',
  '/account',
  '/support',
  '/admin',
];

function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo({ top: 0, behavior: 'smooth' });
  }, [pathname]);
  return null;
}

function LayoutGate() {
  const { session } = useSession();
  if (session === undefined) return <LoadingLayout />;
  return <Outlet />;
}

/** Providers and the behaviour every route shares: session, banner, scroll to top, 401 handling. */
export function AppRoot() {
  const navigate = useNavigate();
  const location = useLocation();
  // A 401 while on a protected path signs the user out and sends them to /login (spec 000 §4).
  const onSignedOut = useCallback(() => {
    if (PROTECTED_PREFIXES.some((prefix) => window.location.pathname.startsWith(prefix))) {
      navigate('/login', { replace: true, state: { from: location.pathname } });
    }
  }, [navigate, location.pathname]);
  return (
    <SessionProvider onSignedOut={onSignedOut}>
      <BannerProvider>
        <ScrollToTop />
        <LayoutGate />
      </BannerProvider>
    </SessionProvider>
  );
}
