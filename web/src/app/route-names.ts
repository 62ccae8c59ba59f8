/** Route names of spec 000 §2 and the paths they lead to. */
export const ROUTES = {
  index: '/',
  home: '/home',
  search: '/search',
  pricing: '/pricing',
  support: '/support',
  account: '/account',
  'data-extractor': '/data-extractor',
  'saved-searches': '/saved-searches',
  alerts: '/alerts',
  login: '/login',
  register: '/register',
  'forgot-password': '/forgot-password',
  'about-us': '/about-us',
  faq: '/faq',
  contact: '/contact',
  'terms-of-service': '/terms-of-service',
  'privacy-policy': '/privacy-policy',
  'admin-users': '/admin/users',
} as const;

export type RouteName = keyof typeof ROUTES;

export type LayoutKind = 'loading' | 'promo' | 'guest' | 'user' | 'admin' | 'not-found';

/** Per-route data read by layouts and guards. */
export interface RouteHandle {
  name?: string;
  /** What the page is, for the document title ("Saved searches" → "Saved searches · OSINT Platform"). */
  title?: string;
  /** User data is fetched again on entry (spec 000 §2: pricing, search, account). */
  refreshUser?: boolean;
}
