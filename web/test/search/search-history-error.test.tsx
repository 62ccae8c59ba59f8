import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { mockFetch } from '../auth/fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: { user: { access: true, restricted: false } } }),
}));

const { SearchHistoryPage } = await import('../../src/features/search/search-history-page');

const entry = {
  searchHash: 'search-1',
  type: 'OSINT',
  createdAt: '2026-11-20T10:00:00.000Z',
  userEmail: 'analyst@agency.example.org',
  numberOfResults: 4,
  image: null,
};

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('a history that could not be loaded is not "No searches yet": it says so and Try again asks again', async () => {
  let fail = true;
  const { calls } = mockFetch(() =>
    fail
      ? { status: 500, body: { statusCode: 500, error: 'Internal', message: 'Boom' } }
      : { status: 200, body: { results: [entry], totalResultCount: 1 } },
  );
  const user = userEvent.setup();
  render(
    <MemoryRouter>
      <SearchHistoryPage />
    </MemoryRouter>,
  );
  expect(await screen.findByText('The searches could not be loaded.')).toBeTruthy();
  expect(screen.queryByText('No searches yet')).toBeNull();

  fail = false;
  await user.click(screen.getByRole('button', { name: 'Try again' }));
  expect(await screen.findByText('1 search')).toBeTruthy();
  expect(screen.queryByText('The searches could not be loaded.')).toBeNull();
  expect(calls).toHaveLength(2);
});
