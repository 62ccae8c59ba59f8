import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AUDIT_ACTIONS, auditActionLabel, auditDetailText, auditTargetLabel } from '@osint/contract/audit';
import { describe, expect, it } from 'vitest';

// Issue 15 item 8: raw codes never reach users. The account and admin pages showed "data-extractor.deleted",
// "orderNumber: …" and "type: OSINT"; every action the server writes must have a label in the contract's
// table, and details read as words.

const SERVER_SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** The actions of every `audit.insert({ … action: … })` call in the server's code. */
function writtenActions(): string[] {
  const actions = new Set<string>();
  for (const file of sourceFiles(SERVER_SRC)) {
    const source = readFileSync(file, 'utf8');
    for (const call of source.matchAll(/audit\.insert\(\{([\s\S]*?)\n\s*\}\)/g)) {
      const line = /\baction: ([^\n]+)/.exec(call[1]!);
      expect(line, `${path.relative(SERVER_SRC, file)}: an audit entry without an action`).toBeTruthy();
      for (const literal of line![1]!.matchAll(/'([^']+)'/g)) {
        if (literal[1]!.includes('.')) actions.add(literal[1]!);
      }
    }
  }
  return [...actions].sort();
}

describe('audit entries in words (issue 15 item 8)', () => {
  it('every action the server writes has a label', () => {
    const actions = writtenActions();
    // The scan finds the calls (about thirty of them), including the data extractor's.
    expect(actions.length).toBeGreaterThan(25);
    expect(actions).toContain('data-extractor.deleted');
    const unlabelled = actions.filter((action) => !(action in AUDIT_ACTIONS));
    expect(unlabelled).toEqual([]);
    expect(auditActionLabel('data-extractor.deleted')).toBe('Deleted an AI data extraction');
  });

  it('details and targets read as words, not keys and codes', () => {
    expect(auditDetailText({ orderNumber: '2026-0001', amount: 750, seats: 4 })).toBe(
      'Order number: 2026-0001 · Amount: $750 USD · Seats: 4',
    );
    expect(auditDetailText({ type: 'OSINT', results: 12 })).toBe(
      'Search type: Standard search · Results: 12',
    );
    expect(auditDetailText({ name: 'Case 7', searchHash: 'abc123' })).toBe('Name: Case 7');
    expect(auditDetailText({ email: 'a@b.test', reason: 'wrong_password' })).toBe(
      'E-mail: a@b.test · Reason: wrong password',
    );
    expect(auditDetailText({ someNewKey: 'x' })).toBe('Some new key: x');
    // A face watch's "from" is where its face came from, a filter's a date: neither breaks the page.
    expect(auditDetailText({ from: 'search', endsAt: '2027-02-25T10:00:00.000Z' })).toMatch(
      /^From: search · Ends at: 25 Feb 2027/,
    );
    expect(auditDetailText({ from: '2026-11-01T09:30:00.000Z' })).toMatch(/^From: \d{1,2} Nov 2026/);
    expect(auditTargetLabel('order:12')).toBe('Order #12');
    expect(auditTargetLabel('data-extractor:3')).toBe('Extraction #3');
    expect(auditActionLabel('data-extractor.renamed')).toBe('Renamed');
  });
});
