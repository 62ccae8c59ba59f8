import {
  auditActionLabel,
  auditDetailText,
  auditTargetLabel,
  type AuditEntryView,
} from '@osint/contract/audit';
import { Link } from 'react-router';
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

export function AuditTable({ entries, caption }: { entries: AuditEntryView[]; caption: string }) {
  return (
    <div className="admin-table-wrap">
      <table className="admin-table admin-audit-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Action</th>
            <th scope="col">Actor</th>
            <th scope="col">Organization</th>
            <th scope="col">Target</th>
            <th scope="col">Detail</th>
            <th scope="col">IP</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label="Time">
                <When iso={entry.at} withTime />
              </td>
              <td data-label="Action">
                <span className="admin-audit-action" title={entry.action}>
                  {auditActionLabel(entry.action)}
                </span>
              </td>
              <td data-label="Actor">
                {entry.actor?.id ? (
                  <Link className="admin-break" to={`/admin/users/${entry.actor.id}`}>
                    {entry.actor.email}
                  </Link>
                ) : (
                  <span className="admin-break">{entry.actor?.email ?? '—'}</span>
                )}
              </td>
              <td data-label="Organization">
                {entry.organization ? (
                  <Link to={`/admin/organizations/${entry.organization.id}`}>{entry.organization.name}</Link>
                ) : (
                  <span className="admin-muted">—</span>
                )}
              </td>
              <td data-label="Target">{targetLink(entry.target)}</td>
              <td data-label="Detail" className="admin-audit-detail admin-break">
                {auditDetailText(entry.detail) || <span className="admin-muted">—</span>}
              </td>
              <td data-label="IP" className="admin-code">
                {entry.ip ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
