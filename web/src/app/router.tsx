import { createBrowserRouter, type RouteObject } from 'react-router';
import { AppRoot } from './app-root.tsx';
import { PageError, withPageErrors } from './page-error.tsx';
import { AdminLayout, GuestLayout, NotFoundLayout, PromoLayout, UserLayout } from './layouts/layouts.tsx';
import {
  AboutRoute,
  ContactRoute,
  FaqRoute,
  IndexRoute,
  PrivacyPolicyRoute,
  TermsOfServiceRoute,
} from './pages/promo-routes.tsx';
import { SearchResultsRoute } from './pages/search-route.tsx';
import { HomeRoute, SupportRoute } from './pages/user-routes.tsx';
import { AccountPage } from '../features/account/account-page.tsx';
import { AdminAuditPage } from '../features/admin/admin-audit-page.tsx';
import { AdminCrawlsPage } from '../features/admin/admin-crawls-page.tsx';
import { AdminDashboardPage } from '../features/admin/admin-dashboard-page.tsx';
import { AdminOrganizationsPage } from '../features/admin/admin-organizations-page.tsx';
import { AdminJobsPage } from '../features/admin/admin-jobs-page.tsx';
import { AdminCreatePlanPage } from '../features/admin/admin-create-plan-page.tsx';
import { AdminOptOutsPage } from '../features/admin/admin-opt-outs-page.tsx';
import { AdminMinorReviewsPage } from '../features/admin/admin-minor-reviews-page.tsx';
import { AdminOrganizationPage } from '../features/admin/admin-organization-page.tsx';
import { AdminUserPage } from '../features/admin/admin-user-page.tsx';
import { AdminUsersPage } from '../features/admin/admin-users-page.tsx';
import { AdminOrderPage, AdminOrdersPage } from '../features/billing-admin/admin-orders-pages.tsx';
import { AdminPaymentPage, AdminPaymentsPage } from '../features/billing-admin/admin-payments-pages.tsx';
import { PricingPage } from '../features/pricing/pricing-page.tsx';
import {
  AdminSavedSearchesPage,
  SavedSearchesPage,
} from '../features/saved-searches/saved-searches-page.tsx';
import { AlertsPage } from '../features/face-alerts/alerts-page.tsx';
import { SearchHistoryPage } from '../features/search/search-history-page.tsx';
import { SearchPage } from '../features/search/search-page.tsx';
import {
  AdminDataExtractorPage,
  AdminExtractionPage,
  DataExtractorPage,
} from '../features/data-extractor/data-extractor-page.tsx';
import { AdminWatchlistsPage } from '../features/data-extractor/admin-watchlists-page.tsx';
import { ForgotPasswordPage } from '../features/auth/forgot-password-page.tsx';
import { LoginPage } from '../features/auth/login-page.tsx';
import { RegisterPage } from '../features/auth/register-page.tsx';
import { ResetPasswordPage, SetPasswordPage } from '../features/auth/token-password-pages.tsx';
import { VerifyEmailPage } from '../features/auth/verify-email-page.tsx';
import { ReleaseEmailPage } from '../features/auth/release-email-page.tsx';

/**
 * The route map of spec 000 §2: every route belongs to one layout; `handle.name` is the route name,
 * `handle.title` what the page is, for its document title.
 */
export const routes: RouteObject[] = [
  {
    element: <AppRoot />,
    // A layout that fails still shows something useful (pages fail inside their layout: withPageErrors).
    errorElement: <PageError />,
    children: [
      {
        element: <PromoLayout />,
        children: [
          {
            path: '/',
            element: <IndexRoute />,
            handle: { name: 'index', title: 'Face search for verified organizations' },
          },
          { path: '/about-us', element: <AboutRoute />, handle: { name: 'about-us', title: 'About us' } },
          { path: '/faq', element: <FaqRoute />, handle: { name: 'faq', title: 'FAQ' } },
          { path: '/contact', element: <ContactRoute />, handle: { name: 'contact', title: 'Contact' } },
          {
            path: '/privacy-policy',
            element: <PrivacyPolicyRoute />,
            handle: { name: 'privacy-policy', title: 'Privacy policy' },
          },
          {
            path: '/terms-of-service',
            element: <TermsOfServiceRoute />,
            handle: { name: 'terms-of-service', title: 'Terms of service' },
          },
        ],
      },
      {
        element: <GuestLayout />,
        children: [
          { path: '/register', element: <RegisterPage />, handle: { name: 'register', title: 'Register' } },
          { path: '/login', element: <LoginPage />, handle: { name: 'login', title: 'Log in' } },
          {
            path: '/verify-email/:verificationHash?',
            element: <VerifyEmailPage />,
            handle: { name: 'verify-email', title: 'Verify email' },
          },
          {
            path: '/release-email/:verificationHash',
            element: <ReleaseEmailPage />,
            handle: { name: 'release-email', title: 'Release email' },
          },
          {
            path: '/forgot-password',
            element: <ForgotPasswordPage />,
            handle: { name: 'forgot-password', title: 'Forgot password' },
          },
          {
            path: '/reset-password',
            element: <ResetPasswordPage />,
            handle: { name: 'reset-password', title: 'Reset password' },
          },
          {
            path: '/set-password',
            element: <SetPasswordPage />,
            handle: { name: 'set-password', title: 'Set password' },
          },
        ],
      },
      {
        element: <UserLayout />,
        children: [
          { path: '/home', element: <HomeRoute />, handle: { name: 'home', title: 'Home' } },
          {
            path: '/home/privacy-policy',
            element: <PrivacyPolicyRoute />,
            handle: { name: 'home-privacy-policy', title: 'Privacy policy' },
          },
          {
            path: '/home/terms-of-service',
            element: <TermsOfServiceRoute />,
            handle: { name: 'home-terms-of-service', title: 'Terms of service' },
          },
          {
            path: '/pricing',
            element: <PricingPage />,
            handle: { name: 'pricing', title: 'Pricing', refreshUser: true },
          },
          {
            path: '/search/:imageUrl?',
            element: <SearchPage />,
            handle: { name: 'search', title: 'Search', refreshUser: true },
          },
          // Static segments rank above /search/:imageUrl, whatever the order here.
          {
            path: '/search/results/:searchHash',
            element: <SearchResultsRoute />,
            handle: { name: 'search-results', title: 'Search results', refreshUser: true },
          },
          {
            path: '/search/history',
            element: <SearchHistoryPage />,
            handle: { name: 'search-history', title: 'Search history' },
          },
          {
            path: '/data-extractor/:hashedId?',
            element: <DataExtractorPage />,
            handle: { name: 'data-extractor', title: 'AI Data Extractor' },
          },
          {
            path: '/alerts/:watchId?',
            element: <AlertsPage />,
            handle: { name: 'alerts', title: 'Alerts' },
          },
          {
            path: '/saved-searches/:hashedId?',
            element: <SavedSearchesPage />,
            handle: { name: 'saved-searches', title: 'Saved searches' },
          },
          {
            path: '/account',
            element: <AccountPage />,
            handle: { name: 'account', title: 'Account', refreshUser: true },
          },
          { path: '/support', element: <SupportRoute />, handle: { name: 'support', title: 'Support' } },
        ],
      },
      {
        path: '/admin',
        element: <AdminLayout />,
        children: [
          {
            index: true,
            element: <AdminDashboardPage />,
            handle: { name: 'admin-dashboard', title: 'Dashboard · Admin' },
          },
          {
            path: 'users',
            element: <AdminUsersPage />,
            handle: { name: 'admin-users', title: 'Users · Admin' },
          },
          {
            path: 'organizations',
            element: <AdminOrganizationsPage />,
            handle: { name: 'admin-organizations', title: 'Organizations · Admin' },
          },
          {
            path: 'users/:id',
            element: <AdminUserPage />,
            handle: { name: 'admin-user', title: 'User · Admin' },
          },
          {
            path: 'organizations/:id',
            element: <AdminOrganizationPage />,
            handle: { name: 'admin-organization', title: 'Organization · Admin' },
          },
          {
            path: 'organizations/:id/create-billing-plan',
            element: <AdminCreatePlanPage />,
            handle: { name: 'admin-create-billing-plan', title: 'Create billing plan · Admin' },
          },
          {
            path: 'crawls',
            element: <AdminCrawlsPage />,
            handle: { name: 'admin-crawls', title: 'Crawls · Admin' },
          },
          { path: 'jobs', element: <AdminJobsPage />, handle: { name: 'admin-jobs', title: 'Jobs · Admin' } },
          {
            path: 'opt-outs',
            element: <AdminOptOutsPage />,
            handle: { name: 'admin-opt-outs', title: 'Opt-outs · Admin' },
          },
          {
            path: 'minor-reviews',
            element: <AdminMinorReviewsPage />,
            handle: { name: 'admin-minor-reviews', title: 'Face reviews · Admin' },
          },
          {
            path: 'audit',
            element: <AdminAuditPage />,
            handle: { name: 'admin-audit', title: 'Audit log · Admin' },
          },
          {
            path: 'payments',
            element: <AdminPaymentsPage />,
            handle: { name: 'admin-payments', title: 'Payments · Admin' },
          },
          {
            path: 'payments/:id',
            element: <AdminPaymentPage />,
            handle: { name: 'admin-payment', title: 'Payment · Admin' },
          },
          {
            path: 'orders',
            element: <AdminOrdersPage />,
            handle: { name: 'admin-orders', title: 'Orders · Admin' },
          },
          {
            path: 'orders/:id',
            element: <AdminOrderPage />,
            handle: { name: 'admin-order', title: 'Order · Admin' },
          },
          {
            path: 'saved-searches',
            element: <AdminSavedSearchesPage />,
            handle: { name: 'admin-saved-searches', title: 'Saved searches · Admin' },
          },
          {
            path: 'saved-searches/:savedSearchHash',
            element: <AdminSavedSearchesPage />,
            handle: { name: 'admin-saved-search', title: 'Saved search · Admin' },
          },
          {
            path: 'data-extractor',
            element: <AdminDataExtractorPage />,
            handle: { name: 'admin-data-extractor', title: 'AI Data Extractor · Admin' },
          },
          {
            path: 'data-extractor/:id',
            element: <AdminExtractionPage />,
            handle: { name: 'admin-data-extraction', title: 'Extraction · Admin' },
          },
          {
            path: 'watchlists',
            element: <AdminWatchlistsPage />,
            handle: { name: 'admin-watchlists', title: 'Watch-lists · Admin' },
          },
        ],
      },
      { path: '*', element: <NotFoundLayout />, handle: { name: 'not-found', title: 'Page not found' } },
    ],
  },
];

export const router = createBrowserRouter(withPageErrors(routes));
