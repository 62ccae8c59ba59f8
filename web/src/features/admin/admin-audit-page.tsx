import { AUDIT_ACTIONS, AUDIT_AREAS } from '@osint/contract/audit';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Dropdown } from '../../components/dropdown.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { saveFile } from '../../lib/save-file.ts';
import { ADMIN_KEYS, adminApi, AUDIT_PAGE_SIZE, type AuditQuery } from './admin-api.ts';
import { auditColumns } from './admin-audit-table.tsx';
import { AdminHeader, errorText } from './admin-ui.tsx';
import './admin.css';

const FILTER_KEYS = ['organizationId', 'userId', 'user', 'action', 'from', 'to'] as const;

const ACTION_OPTIONS = [
  { value: '', label: 'Every action' },
  ...Object.entries(AUDIT_AREAS).map(([value, label]) => ({ value, label: `${label} (all)` })),
  ...Object.entries(AUDIT_ACTIONS).map(([value, label]) => ({ value, label })),
];

/** The typed filters after the action: ids take digits only. */
const TEXT_FILTERS: {
  key: Exclude<(typeof FILTER_KEYS)[number], 'action'>;
  label: string;
  type: 'search' | 'text' | 'date';
  numeric?: boolean;
  className: string;
}[] = [
  { key: 'user', label: 'User e-mail', type: 'search', className: '' },
  {
    key: 'organizationId',
    label: 'Organization id',
    type: 'text',
    numeric: true,
    className: 'admin-filter--narrow',
  },
  { key: 'userId', label: 'User id', type: 'text', numeric: true, className: 'admin-filter--narrow' },
  { key: 'from', label: 'From', type: 'date', className: 'admin-filter--date' },
  { key: 'to', label: 'To', type: 'date', className: 'admin-filter--date' },
];

function queryOf(params: URLSearchParams): AuditQuery {
  const query: AuditQuery = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value) query[key] = value;
  }
  return query;
}

/** /admin/audit: the append-only audit trail, filtered by organization, user, action and dates; CSV export. */
export function AdminAuditPage() {
  const { showBanner } = useBanner();
  const [params, setParams] = useSearchParams();
  const query = queryOf(params);
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [draft, setDraft] = useState(query);
  const [exporting, setExporting] = useState(false);
  // The form follows the address (links from user and organization pages, back and forward).
  const paramsKey = params.toString();
  const [draftOf, setDraftOf] = useState(paramsKey);
  if (draftOf !== paramsKey) {
    setDraftOf(paramsKey);
    setDraft(query);
  }

  const audit = useQuery({
    queryKey: [...ADMIN_KEYS.audit, query, page],
    queryFn: () => adminApi.audit(query, page),
    placeholderData: keepPreviousData,
  });
  const total = audit.data?.totalResultCount ?? 0;
  const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE));

  const apply = (next: AuditQuery, nextPage = 1) => {
    const search = new URLSearchParams();
    for (const key of FILTER_KEYS) if (next[key]?.trim()) search.set(key, next[key].trim());
    if (nextPage > 1) search.set('page', String(nextPage));
    setParams(search);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply(draft);
  };
  const exportCsv = async () => {
    setExporting(true);
    try {
      const { blob, fileName } = await adminApi.auditExport(query);
      saveFile(blob, fileName);
    } catch (error) {
      showBanner({ message: 'The export failed.', additionalMessage: errorText(error, ''), type: 'danger' });
    } finally {
      setExporting(false);
    }
  };
  const set = (key: keyof AuditQuery) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const filtered = FILTER_KEYS.some((key) => query[key]);

  return (
    <section className="admin-page" aria-labelledby="admin-audit-title">
      <AdminHeader
        eyebrow="Security"
        title={<span id="admin-audit-title">Audit log</span>}
        lead="Sign-ins, password and access changes, invitations, searches and admin actions. Entries cannot be changed or deleted; photos are never logged."
        actions={
          <Button variant="secondary" loading={exporting} onClick={() => void exportCsv()}>
            Export CSV
          </Button>
        }
      />
      <div className="card admin-panel">
        <DataTable
          caption="Audit log entries, newest first"
          columns={auditColumns}
          rows={audit.data?.entries}
          rowKey={(entry) => entry.id}
          loading={audit.isPending}
          stale={audit.isPlaceholderData}
          error={
            audit.isError && {
              title: 'The audit log could not be loaded.',
              text: errorText(audit.error, 'Please check your connection.'),
              onRetry: () => void audit.refetch(),
            }
          }
          empty={{ title: 'No entries match these filters.' }}
          heading={
            audit.data &&
            total > 0 && (
              <p className="admin-result-count" aria-live="polite">
                {total} {total === 1 ? 'entry' : 'entries'}
              </p>
            )
          }
          paging={{ page, pageCount: pages, onPageChange: (next) => apply(query, next) }}
          filters={
            <form className="admin-audit-filters" onSubmit={submit} aria-label="Filters">
              <div className="admin-filter admin-filter--wide">
                <Dropdown
                  label="Action"
                  options={ACTION_OPTIONS}
                  value={draft.action ?? ''}
                  onChange={(value) => setDraft((d) => ({ ...d, action: value }))}
                />
              </div>
              {TEXT_FILTERS.map((filter) => (
                <div key={filter.key} className={`admin-filter ${filter.className}`}>
                  <TextInput
                    label={filter.label}
                    type={filter.type}
                    inputMode={filter.numeric ? 'numeric' : undefined}
                    value={draft[filter.key] ?? ''}
                    onChange={(e) =>
                      set(filter.key)(filter.numeric ? e.target.value.replace(/\D/g, '') : e.target.value)
                    }
                  />
                </div>
              ))}
              <div className="admin-filter-actions">
                <Button type="submit">Apply</Button>
                {filtered && (
                  <Button variant="ghost" onClick={() => apply({})}>
                    Clear
                  </Button>
                )}
              </div>
            </form>
          }
        />
      </div>
    </section>
  );
}
