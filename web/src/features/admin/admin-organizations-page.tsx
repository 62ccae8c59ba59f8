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
import { Button } from '../../components/button.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { TextInput } from '../../components/text-field.tsx';
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
  const rows = organizations.data?.results ?? [];

  return (
    <section className="admin-page" aria-labelledby="admin-organizations-title">
      <AdminHeader
        eyebrow="Administration"
        title={<span id="admin-organizations-title">Organizations</span>}
        lead="Every organization on the platform: who owns it, its plan in force, the seats in use and where it stands."
      />
      <div className="card admin-panel">
        <div className="admin-toolbar">
          <div className="admin-toolbar-search">
            <TextInput
              label="Search"
              type="search"
              placeholder="Name, address or e-mail"
              value={searchInput}
              onChange={(event) => setSearchInput(event.target.value)}
            />
          </div>
        </div>

        {organizations.isPending ? (
          <LoadingPlaceholder />
        ) : organizations.isError ? (
          <div className="admin-empty" role="alert">
            <p className="admin-empty-title">The organizations could not be loaded.</p>
            <p>{errorText(organizations.error, 'Please check your connection.')}</p>
            <Button variant="secondary" onClick={() => void organizations.refetch()}>
              Try again
            </Button>
          </div>
        ) : rows.length === 0 ? (
          <div className="admin-empty" role="status">
            <p className="admin-empty-title">
              {search ? `No organization matches “${search}”.` : 'No organizations yet.'}
            </p>
            <p>
              {search
                ? 'Try part of the name, the web address or an e-mail address.'
                : 'Registrations will appear here.'}
            </p>
          </div>
        ) : (
          <div
            className={`admin-table-wrap${organizations.isPlaceholderData ? ' admin-table-wrap--stale' : ''}`}
          >
            <table className="admin-table">
              <caption className="visually-hidden">Organizations, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Organization</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Status</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Seats</th>
                  <th scope="col">Users</th>
                  <th scope="col">Registered</th>
                  <th scope="col">Last activity</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((organization) => (
                  <OrganizationRow key={organization.id} organization={organization} />
                ))}
              </tbody>
            </table>
          </div>
        )}

        {total > 0 && (
          <nav className="admin-pager" aria-label="Pages">
            <Button
              variant="secondary"
              className="btn-sm"
              disabled={page <= 1}
              onClick={() => goTo(page - 1)}
            >
              Previous
            </Button>
            <span className="admin-pager-label" aria-live="polite">
              Page {page} of {pages} · {total} {total === 1 ? 'organization' : 'organizations'}
            </span>
            <Button
              variant="secondary"
              className="btn-sm"
              disabled={page >= pages}
              onClick={() => goTo(page + 1)}
            >
              Next
            </Button>
          </nav>
        )}
      </div>
    </section>
  );
}

function OrganizationRow({ organization }: { organization: AdminOrganizationRow }) {
  const typeLabel = isOrganizationType(organization.type)
    ? ORGANIZATION_TYPES[organization.type]
    : organization.type;
  return (
    <tr>
      <td data-label="Organization">
        <span className="admin-org">
          <Link className="admin-org-name" to={`/admin/organizations/${organization.id}`}>
            {organization.name}
          </Link>
          <span className="admin-org-type">{typeLabel}</span>
        </span>
      </td>
      <td data-label="Owner">
        {organization.owner ? (
          <Link className="admin-user-link" to={`/admin/users/${organization.owner.id}`}>
            <EmailText email={organization.owner.email} />
          </Link>
        ) : (
          <span className="admin-muted">—</span>
        )}
      </td>
      <td data-label="Status">
        <span className={`badge badge--${STATUS_TONES[organization.status]}`}>
          {ADMIN_ORGANIZATION_STATUS_LABELS[organization.status]}
        </span>
      </td>
      <td data-label="Plan">
        {organization.plan ? (
          <span className="admin-plan-cell">
            {PLAN_TYPE_LABELS[organization.plan.planType]}
            <span className="admin-muted">
              {' '}
              until <When iso={organization.plan.endDate} />
            </span>
          </span>
        ) : (
          <span className="admin-muted">None</span>
        )}
      </td>
      <td data-label="Seats">
        {organization.seats.used} / {organization.seats.limit}
      </td>
      <td data-label="Users">{organization.userCount}</td>
      <td data-label="Registered">
        <When iso={organization.createdAt} />
      </td>
      <td data-label="Last activity">
        <When iso={organization.lastActiveAt} />
      </td>
    </tr>
  );
}
