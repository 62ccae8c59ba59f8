import { SEARCH_MESSAGES } from '@osint/contract/search';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
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

let client: QueryClient;
const renderHistory = () => {
  client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <SearchHistoryPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
};

describe('Search history', () => {
  test('a search still needed by a pending save is kept, and the dialog says why', async () => {
    let deleted = false;
    const { calls } = mockFetch((call) => {
      if (call.method === 'DELETE') {
        return deleted
          ? { status: 204 }
          : {
              status: 409,
              body: { statusCode: 409, error: 'Conflict', message: SEARCH_MESSAGES.stillNeeded },
            };
      }
      return { status: 200, body: { results: deleted ? [] : [entry], totalResultCount: deleted ? 0 : 1 } };
    });
    const user = userEvent.setup();
    renderHistory();
    await user.click(await screen.findByRole('button', { name: /^Delete / }));
    const dialog = screen.getByRole('dialog', { name: 'Delete search' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(SEARCH_MESSAGES.stillNeeded);
    expect(screen.getAllByRole('article')).toHaveLength(1);

    // Asked again once the save is done: deleted, the dialog closes and the list reloads, and the search's
    // results are no longer in the cache (Back to them must not show a deleted search).
    client.setQueryData(['search', entry.searchHash], { results: [] });
    deleted = true;
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(screen.queryAllByRole('article')).toHaveLength(0));
    expect(calls.filter((call) => call.method === 'DELETE')).toHaveLength(2);
    expect(client.getQueryData(['search', entry.searchHash])).toBeUndefined();
  });

  test('a history that could not be loaded is not "No searches yet": it says so and Try again asks again', async () => {
    let fail = true;
    const { calls } = mockFetch(() =>
      fail
        ? { status: 500, body: { statusCode: 500, error: 'Internal', message: 'Boom' } }
        : { status: 200, body: { results: [entry], totalResultCount: 1 } },
    );
    const user = userEvent.setup();
    renderHistory();
    expect(await screen.findByText('The searches could not be loaded.')).toBeTruthy();
    expect(screen.queryByText('No searches yet')).toBeNull();

    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('1 search')).toBeTruthy();
    expect(screen.queryByText('The searches could not be loaded.')).toBeNull();
    expect(calls).toHaveLength(2);
  });
});
