import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { mockFetch } from '../auth/fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({
    session: {
      user: { access: true, restricted: false, isOwner: true, admin: false, hashedId: 'u' },
      organization: {},
    },
    refresh: vi.fn(),
  }),
}));

const { StoredSearchPage } = await import('../../src/features/search/stored-search-page');

const result = (id: number) => ({
  id,
  hash: `r${id}`,
  group: `g${id}`,
  thumbnailUrl: `/api/thumbnails/${id}`,
  imageUrl: `https://news${id}.example.org/a.jpg`,
  sourceUrl: `https://news${id}.example.org/story`,
  sourceTitle: `Story ${id}`,
  crawledAt: '2024-05-01T10:00:00.000Z',
  similarity: 0.9,
  scoreModel: SHIPPED_SCORE_MODEL,
  faceBox: { x: 4, y: 6, width: 40, height: 48 },
  imageSize: { width: 200, height: 160 },
});
const answer = {
  searchHash: 'S1',
  type: 'OSINT',
  createdAt: '2024-05-02T10:00:00.000Z',
  time: 120,
  numberOfResults: 2,
  image: null,
  results: [result(1), result(2)],
};

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  localStorage.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('a result removed from a stored search stays removed when the search is opened again', async () => {
  const { calls } = mockFetch((call) =>
    call.url === '/api/search/S1' && call.method === 'GET'
      ? { status: 200, body: answer }
      : call.method === 'DELETE' || call.method === 'POST'
        ? { status: 204 }
        : { status: 404, body: { statusCode: 404, error: 'Not Found', message: 'gone' } },
  );
  // One query client for the whole visit, as in the app: leaving the page and coming back reads its cache.
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const open = () =>
    render(
      <QueryClientProvider client={client}>
        <BannerProvider>
          <MemoryRouter>
            <StoredSearchPage searchHash="S1" />
          </MemoryRouter>
        </BannerProvider>
      </QueryClientProvider>,
    );
  const user = userEvent.setup();
  const first = open();
  await screen.findByText('Story 1');
  await user.click(screen.getAllByRole('button', { name: /^Remove / })[0]!);
  await user.click(
    within(screen.getByRole('dialog', { name: 'Remove result' })).getByRole('button', { name: 'Remove' }),
  );
  expect(screen.queryByText('Story 1')).toBeNull();
  first.unmount();

  open();
  expect(await screen.findByText('Story 2')).toBeTruthy();
  expect(screen.queryByText('Story 1')).toBeNull();
  // Read from the cache, not asked again.
  expect(calls.filter((call) => call.url === '/api/search/S1' && call.method === 'GET')).toHaveLength(1);
});
