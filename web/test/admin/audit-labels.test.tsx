import type { AuditEntryView } from '@osint/contract/audit';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, test } from 'vitest';
import { describeEntry } from '../../src/features/account/activity-panel';
import { AuditTable } from '../../src/features/admin/admin-audit-table';

// Issue 15 item 8: raw codes never reach users. The admin audit table and the owner's activity list showed
// "data-extractor.deleted", "orderNumber: …" and "type: OSINT".

afterEach(cleanup);

function entry(
  id: number,
  action: string,
  target: string | null,
  detail: Record<string, unknown>,
): AuditEntryView {
  return {
    id,
    at: '2026-03-05T14:05:00Z',
    action,
    actor: { id: 7, email: 'owner@harbour.test' },
    organization: { id: 3, name: 'Harbour Police Department' },
    target,
    detail,
    ip: '127.0.0.1',
  };
}

const ENTRIES = [
  entry(1, 'data-extractor.deleted', 'data-extractor:4', { name: 'Case 7' }),
  entry(2, 'billing.order_created', 'order:12', { orderNumber: '2026-0001', amount: 750, seats: 4 }),
  entry(3, 'search.performed', 'search:abcdef', { type: 'OSINT', results: 12 }),
  entry(4, 'user.login_failed', null, { email: 'a@b.test', reason: 'wrong_password' }),
];

describe('audit entries in words', () => {
  test('the admin audit table shows labels, never action codes or detail keys', () => {
    render(
      <MemoryRouter>
        <AuditTable entries={ENTRIES} caption="Audit log" />
      </MemoryRouter>,
    );
    const table = screen.getByRole('table', { name: 'Audit log' });
    const text = table.textContent!;
    expect(screen.getByText('Deleted an AI data extraction')).toBeTruthy();
    expect(screen.getByText('Order number: 2026-0001 · Amount: $750 USD · Seats: 4')).toBeTruthy();
    expect(screen.getByText('Search type: Standard search · Results: 12')).toBeTruthy();
    expect(screen.getByText('Order #12')).toBeTruthy();
    for (const code of [
      'data-extractor.deleted',
      'orderNumber',
      'type: OSINT',
      'wrong_password',
      'order:12',
    ]) {
      expect(text).not.toContain(code);
    }
  });

  test("the owner's activity list describes entries in words", () => {
    expect(describeEntry(ENTRIES[0]!)).toBe('Name: Case 7');
    expect(describeEntry(ENTRIES[1]!)).toBe('Order number: 2026-0001 · Amount: $750 USD · Seats: 4');
    expect(describeEntry(ENTRIES[3]!)).toBe('E-mail: a@b.test · Reason: wrong password');
  });
});
