import {
  auditActionLabel,
  auditDetailText,
  auditTargetLabel,
  type AuditEntryView,
} from '@osint/contract/audit';
import { Link } from 'react-router';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { When } from './admin-ui.tsx';

function targetLink(target: string | null) {
  if (!target) return <span className="admin-muted">—</span>;
  const user = /^user:(\d+)$/.exec(target);
  if (user)
    return (
      <Link className="admin-nowrap" to={`/admin/users/${user[1]}`}>
        User #{user[1]}
      </Link>
    );
  return <span title={target}>{auditTargetLabel(target)}</span>;
}

/** The columns of every audit list (the audit log, a user's recent activity). */
export const auditColumns: DataTableColumn<AuditEntryView>[] = [
  { header: 'Time', cell: (entry) => <When iso={entry.at} withTime /> },
  {
    header: 'Action',
    cell: (entry) => (
      <span className="admin-audit-action" title={entry.action}>
        {auditActionLabel(entry.action)}
      </span>
    ),
  },
  {
    header: 'Actor',
    // Wide enough for an ordinary address on one line: long ones still break rather than widen the table.
    className: 'admin-audit-actor',
    cell: (entry) =>
      entry.actor?.id ? (
        <Link className="admin-break" to={`/admin/users/${entry.actor.id}`}>
          {entry.actor.email}
        </Link>
      ) : (
        <span className="admin-break">{entry.actor?.email ?? '—'}</span>
      ),
  },
  {
    header: 'Organization',
    cell: (entry) =>
      entry.organization ? (
        <Link to={`/admin/organizations/${entry.organization.id}`}>{entry.organization.name}</Link>
      ) : (
        <span className="admin-muted">—</span>
      ),
  },
  { header: 'Target', cell: (entry) => targetLink(entry.target) },
  {
    header: 'Detail',
    className: 'admin-audit-detail admin-break',
    cell: (entry) => auditDetailText(entry.detail) || <span className="admin-muted">—</span>,
  },
  { header: 'IP', className: 'admin-code', cell: (entry) => entry.ip ?? '—' },
];

export function AuditTable({ entries, caption }: { entries: AuditEntryView[]; caption: string }) {
  return (
    <DataTable
      caption={caption}
      columns={auditColumns}
      rows={entries}
      rowKey={(entry) => entry.id}
      empty={{ title: 'Nothing recorded yet.' }}
    />
  );
}
