import { useCallback, useEffect } from 'react';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { BannerProvider } from '../components/message-banner.tsx';
import { useRouteDocumentTitle } from '../lib/document-title.ts';
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

/**
 * The first stop of the keyboard: straight to the page's main content past the header and menu
 * (WCAG 2.4.1). Every layout's `<main>` has the id `content`; it takes the focus itself so the next Tab
 * continues from there, and the address stays as it is.
 */
function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#content"
      onClick={(event) => {
        const main = document.getElementById('content');
        if (!main) return;
        event.preventDefault();
        main.setAttribute('tabindex', '-1');
        main.focus();
      }}
    >
      Skip to main content
    </a>
  );
}

function LayoutGate() {
  const { session } = useSession();
  if (session === undefined) return <LoadingLayout />;
  return <Outlet />;
}

/** Providers and the behaviour every route shares: session, banner, skip link, document title,
 * scroll to top, 401 handling. */
export function AppRoot() {
  const navigate = useNavigate();
  const location = useLocation();
  useRouteDocumentTitle();
  // A 401 while on a protected path signs the user out and sends them to /login (spec 000 §4).
  const onSignedOut = useCallback(() => {
    if (PROTECTED_PREFIXES.some((prefix) => window.location.pathname.startsWith(prefix))) {
      navigate('/login', { replace: true, state: { from: location.pathname } });
    }
  }, [navigate, location.pathname]);
  return (
    <SessionProvider onSignedOut={onSignedOut}>
      <BannerProvider>
        <SkipLink />
        <ScrollToTop />
        <LayoutGate />
      </BannerProvider>
    </SessionProvider>
  );
}
