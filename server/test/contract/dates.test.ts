import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatDate, formatDateTime, formatDay, formatTime } from '@osint/contract/dates';
import { describe, expect, it } from 'vitest';

// Issue 15 item 5: one date format per locale. The pages, e-mails and PDFs wrote days as "05 Mar 2026",
// "5 March 2026" and "05.03.2026"; the contract's helpers are now the only place that formats a date.

const ROOT = path.resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.(ts|tsx)$/.test(entry.name) ? [file] : [];
  });
}

describe('one date format (issue 15 item 5)', () => {
  it('writes a day as "5 Mar 2026" and a moment as "5 Mar 2026, 14:05"', () => {
    const moment = new Date('2026-03-05T14:05:00Z');
    expect(formatDay('2026-03-05')).toBe('5 Mar 2026');
    expect(formatDay('2026-03-05T00:00:00.000Z')).toBe('5 Mar 2026');
    expect(formatDate(moment, 'UTC')).toBe('5 Mar 2026');
    expect(formatDateTime(moment, 'UTC')).toBe('5 Mar 2026, 14:05 UTC');
    expect(formatDateTime(moment, 'Europe/Warsaw')).toBe('5 Mar 2026, 15:05 CET');
    expect(formatDate(moment.toISOString())).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(formatTime(moment)).toMatch(/^\d{2}:\d{2}$/);
  });

  it('no page, e-mail or report formats a date by itself', () => {
    const offenders = ['web/src', 'server/src']
      .flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
      .filter((file) =>
        /Intl\.DateTimeFormat|toLocaleDateString|toLocaleTimeString/.test(readFileSync(file, 'utf8')),
      )
      .map((file) => path.relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
