import {
  ADMIN_ORGANIZATION_STATUS_LABELS,
  type AdminOrganizationRow,
  type AdminOrganizationStatus,
} from '@osint/contract/admin';
import { ORGANIZATION_TYPES, isOrganizationType } from '@osint/contract/organization';
import { PLAN_TYPE_LABELS } from '@osint/contract/pricing';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, SearchFilter, type DataTableColumn } from '../../components/data-table.tsx';
import { useDebounced } from '../../lib/use-paged-list.ts';
import { ADMIN_KEYS, ORGANIZATIONS_PAGE_SIZE, adminApi } from './admin-api.ts';
import { AdminHeader, EmailText, When, errorText } from './admin-ui.tsx';
import './admin.css';

const STATUS_TONES: Record<AdminOrganizationStatus, string> = {
  EMAIL_UNVERIFIED: 'neutral',
  PENDING_APPROVAL: 'warning',
  REJECTED: 'danger',
  BLOCKED: 'danger',
  TRIAL: 'info',
  ACTIVE: 'success',
  EXPIRED: 'neutral',
  NO_PLAN: 'neutral',
};

/** /admin/organizations: every organization with its owner, plan, seats and status, newest first. */
export function AdminOrganizationsPage() {
  const [searchInput, setSearchInput] = useState('');
  const search = useDebounced(searchInput.trim());
  const [pageState, setPageState] = useState({ page: 1, search });
  // A new search starts again at page 1.
  const page = pageState.search === search ? pageState.page : 1;
  const goTo = (next: number) => setPageState({ page: next, search });

  const organizations = useQuery({
    queryKey: [...ADMIN_KEYS.organizations, { page, search }],
    queryFn: () => adminApi.organizations(page, search),
    placeholderData: keepPreviousData,
  });
  const total = organizations.data?.totalResultCount ?? 0;
  const pages = Math.max(1, Math.ceil(total / ORGANIZATIONS_PAGE_SIZE));

  return (
    <section className="admin-page" aria-labelledby="admin-organizations-title">
      <AdminHeader
        eyebrow="Administration"
        title={<span id="admin-organizations-title">Organizations</span>}
        lead="Every organization on the platform: who owns it, its plan in force, the seats in use and where it stands."
      />
      <div className="card admin-panel">
        <DataTable
          caption="Organizations, newest first"
          columns={organizationColumns}
          rows={organizations.data?.results}
          rowKey={(organization) => organization.id}
          loading={organizations.isPending}
          stale={organizations.isPlaceholderData}
          error={
            organizations.isError && {
              title: 'The organizations could not be loaded.',
              text: errorText(organizations.error, 'Please check your connection.'),
              onRetry: () => void organizations.refetch(),
            }
          }
          empty={
            search
              ? {
                  title: `No organization matches “${search}”.`,
                  text: 'Try part of the name, the web address or an e-mail address.',
                }
              : { title: 'No organizations yet.', text: 'Registrations will appear here.' }
          }
          paging={
            total > 0
              ? {
                  page,
                  pageCount: pages,
                  onPageChange: goTo,
                  summary: `${total} ${total === 1 ? 'organization' : 'organizations'}`,
                }
              : undefined
          }
          filters={
            <SearchFilter
              placeholder="Name, address or e-mail"
              value={searchInput}
              onChange={setSearchInput}
            />
          }
        />
      </div>
    </section>
  );
}

const organizationColumns: DataTableColumn<AdminOrganizationRow>[] = [
  {
    header: 'Organization',
    cell: (organization) => (
      <span className="admin-org">
        <Link className="admin-org-name" to={`/admin/organizations/${organization.id}`}>
          {organization.name}
        </Link>
        <span className="admin-org-type">
          {isOrganizationType(organization.type) ? ORGANIZATION_TYPES[organization.type] : organization.type}
        </span>
      </span>
    ),
  },
  {
    header: 'Owner',
    cell: (organization) =>
      organization.owner ? (
        <Link className="admin-user-link" to={`/admin/users/${organization.owner.id}`}>
          <EmailText email={organization.owner.email} />
        </Link>
      ) : (
        <span className="admin-muted">—</span>
      ),
  },
  {
    header: 'Status',
    cell: (organization) => (
      <span className={`badge badge--${STATUS_TONES[organization.status]}`}>
        {ADMIN_ORGANIZATION_STATUS_LABELS[organization.status]}
      </span>
    ),
  },
  {
    header: 'Plan',
    cell: (organization) =>
      organization.plan ? (
        <span className="admin-plan-cell">
          {PLAN_TYPE_LABELS[organization.plan.planType]}
          <span className="admin-muted">
            {' '}
            until <When iso={organization.plan.endDate} planDay />
          </span>
        </span>
      ) : (
        <span className="admin-muted">None</span>
      ),
  },
  { header: 'Seats', cell: (organization) => `${organization.seats.used} / ${organization.seats.limit}` },
  { header: 'Users', cell: (organization) => organization.userCount },
  { header: 'Registered', cell: (organization) => <When iso={organization.createdAt} /> },
  { header: 'Last activity', cell: (organization) => <When iso={organization.lastActiveAt} /> },
];
