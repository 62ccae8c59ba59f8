import type { AdminDashboard } from '@osint/contract/admin';
import { formatDateTime } from '@osint/contract/dates';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { MessageBanner } from '../../components/message-banner.tsx';
import { ADMIN_KEYS, adminApi } from './admin-api.ts';
import { AdminHeader, QueryState } from './admin-ui.tsx';
import './admin.css';

// The dashboard is a glance: it refreshes itself while open.
const REFRESH_MS = 60_000;

const count = (value: number) => value.toLocaleString('en-US');

interface Tile {
  label: string;
  value: string;
  detail: string;
  to: string;
  /** Something waits for the provider: the tile stands out while the count is not zero. */
  attention: boolean;
}

function tilesOf(dashboard: AdminDashboard): Tile[] {
  return [
    {
      label: 'Pending registrations',
      value: count(dashboard.pendingRegistrations),
      detail: 'Confirmed e-mail addresses awaiting approval',
      to: '/admin/users',
      attention: dashboard.pendingRegistrations > 0,
    },
    {
      label: 'Orders awaiting payment',
      value: count(dashboard.ordersAwaitingPayment),
      detail: 'Bank transfers to confirm in Orders',
      to: '/admin/orders',
      attention: dashboard.ordersAwaitingPayment > 0,
    },
    {
      label: 'Failed jobs',
      value: count(dashboard.failedJobs),
      detail: 'Jobs that used up their attempts',
      to: '/admin/jobs',
      attention: dashboard.failedJobs > 0,
    },
    {
      label: 'Running crawls',
      value: count(dashboard.runningCrawls),
      detail: 'Crawls fetching and indexing now',
      to: '/admin/crawls',
      attention: false,
    },
    {
      label: 'Index size',
      value: `${count(dashboard.index.faces)} faces`,
      detail: `${count(dashboard.index.images)} images on ${count(dashboard.index.pages)} pages`,
      to: '/admin/crawls',
      attention: false,
    },
    {
      label: 'Searches today',
      value: count(dashboard.searchesToday),
      detail: `Since ${formatDateTime(dashboard.searchesSince)}`,
      to: '/admin/audit',
      attention: false,
    },
  ];
}

/** /admin: what waits for the provider (registrations, payments, failed jobs) and how the index grows. */
export function AdminDashboardPage() {
  const dashboard = useQuery({
    queryKey: ADMIN_KEYS.dashboard,
    queryFn: adminApi.dashboard,
    refetchInterval: REFRESH_MS,
  });
  return (
    <section className="admin-page" aria-labelledby="admin-dashboard-title">
      <AdminHeader
        eyebrow="Administration"
        title={<span id="admin-dashboard-title">Dashboard</span>}
        lead="What waits for you, and how the platform is doing today."
      />
      {dashboard.data?.warnings.map((warning) => (
        <MessageBanner key={warning} message={{ message: warning, type: 'danger' }} />
      ))}
      {dashboard.data ? (
        <ul className="admin-dashboard">
          {tilesOf(dashboard.data).map((tile) => (
            <li key={tile.label}>
              <Link
                className={`card admin-tile${tile.attention ? ' admin-tile--attention' : ''}`}
                to={tile.to}
              >
                <span className="admin-tile-label">{tile.label}</span>
                <strong className="admin-tile-value">{tile.value}</strong>
                <span className="admin-tile-detail">{tile.detail}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <QueryState query={dashboard} notFoundText="The dashboard is not available." />
      )}
    </section>
  );
}
