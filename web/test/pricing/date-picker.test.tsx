import { formatDay } from '@osint/contract/dates';
import { localIsoDate } from '@osint/contract/pricing';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { DatePicker } from '../../src/features/pricing/date-picker';

afterEach(() => cleanup());

/** The first day of the month after `date`'s (YYYY-MM-DD). */
function firstOfNextMonth(date: string): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

describe('DatePicker', () => {
  test('after Next month a day of the new month is the one Tab reaches, and the arrows start from it', async () => {
    const user = userEvent.setup();
    const today = localIsoDate();
    render(<DatePicker label="Start date" value={today} onChange={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: /Start date/ }));
    const calendar = screen.getByRole('dialog', { name: 'Choose start date' });
    expect(document.activeElement).toBe(within(calendar).getByRole('button', { name: formatDay(today) }));

    const next = within(calendar).getByRole('button', { name: 'Next month' });
    await user.click(next);
    // The button keeps focus (it can be pressed again); the new month's first day is the grid's tab stop.
    expect(document.activeElement).toBe(next);
    const first = firstOfNextMonth(today);
    const firstButton = within(calendar).getByRole('button', { name: formatDay(first) });
    expect(firstButton.tabIndex).toBe(0);
    await user.tab();
    expect(document.activeElement).toBe(firstButton);
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement?.getAttribute('data-date')).toBe(`${first.slice(0, 8)}02`);
  });
});
