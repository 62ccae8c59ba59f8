import { SEARCH_MESSAGES } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, screen, within } from '@testing-library/react';
import { Route } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';
import { renderRoutes } from './render-routes';

const session = {
  user: { access: true, restricted: false, isOwner: true, admin: false, hashedId: 'owner-id' },
  organization: {},
};
vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session, refresh: vi.fn() }),
}));

const { StoredSearchPage } = await import('../../src/features/search/stored-search-page');

const result = (id: number, similarity: number) => ({
  id,
  hash: `r${id}`,
  group: `g${id}`,
  thumbnailUrl: `/api/thumbnails/${id}`,
  imageUrl: `https://news.example.org/${id}.jpg`,
  sourceUrl: `https://news.example.org/story-${id}`,
  sourceTitle: `Story ${id}`,
  crawledAt: '2024-05-01T10:00:00.000Z',
  similarity,
  scoreModel: SHIPPED_SCORE_MODEL,
  faceBox: null,
  imageSize: null,
});

const stored = (image: string | null, addedFaceCount = 0, otherFaceCount = 0) => ({
  searchHash: 'S1',
  type: 'OSINT',
  createdAt: '2024-05-02T10:00:00.000Z',
  time: 120,
  numberOfResults: 2,
  results: [result(1, 0.81), result(2, 0.62)],
  image,
  addedFaceCount,
  otherFaceCount,
});

function renderSearch() {
  return renderRoutes(
    <>
      <Route path="/search/results/S1" element={<StoredSearchPage searchHash="S1" />} />
      <Route path="/search/results/S2" element={<p>The new search</p>} />
    </>,
    '/search/results/S1',
  );
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('searching again with results selected as the searched person', () => {
  test('sends the chosen results, says why a refusal happened, then opens the new search', async () => {
    let refine: { status: number; body: unknown } = {
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: SEARCH_MESSAGES.resultFaceGone },
    };
    const { calls } = mockFetch((call: RecordedCall) => {
      if (call.url === '/api/search/S1') return { status: 200, body: stored('/api/search/S1/image') };
      if (call.url === '/api/search/S1/with-results') return refine;
      return { status: 200, body: {} };
    });
    const user = renderSearch();
    const bar = await screen.findByRole('group', { name: 'Search again with selected results' });
    expect(within(bar).getByText(/Select them to search again with their faces too/)).toBeTruthy();

    await user.click(screen.getByRole('checkbox', { name: /Same person: result 2: Story 2/ }));
    expect(bar.querySelector('[aria-live]')?.textContent).toBe('1 result selected as this person');
    await user.click(within(bar).getByRole('button', { name: 'Search again with this face' }));
    expect(await within(bar).findByText(SEARCH_MESSAGES.resultFaceGone)).toBeTruthy();
    const refinements = () => calls.filter((c) => c.url === '/api/search/S1/with-results');
    expect(refinements().map((c) => [c.method, c.body])).toEqual([['POST', { recordHashes: ['r2'] }]]);

    // Changing the selection clears the failure: it was about the earlier choice.
    await user.click(screen.getByRole('checkbox', { name: /Same person: result 1: Story 1/ }));
    expect(within(bar).queryByText(SEARCH_MESSAGES.resultFaceGone)).toBeNull();
    refine = { status: 200, body: { searchHash: 'S2', results: [], time: 9, numberOfResults: 0 } };
    await user.click(within(bar).getByRole('button', { name: 'Search again with these faces' }));
    expect(await screen.findByText('The new search')).toBeTruthy();
    expect(refinements()[1]!.body).toEqual({ recordHashes: ['r1', 'r2'] });
  });

  test('clearing the selection brings the hint back; a search that kept no face offers nothing', async () => {
    mockFetch(() => ({ status: 200, body: stored('/api/search/S1/image', 2) }));
    const user = renderSearch();
    await user.click(await screen.findByRole('checkbox', { name: /Same person: result 1/ }));
    await user.click(screen.getByRole('button', { name: 'Clear selection' }));
    // This search was itself searched again: the bar says so, as the selected ones will be added.
    expect(
      screen.getByText(/Searched with the face above and 2 results selected before\. Sure that some/),
    ).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: /Same person: result 1/ })).toHaveProperty('checked', false);
    cleanup();

    // A search of three uploaded photos that added 16 results: one more face fits in a search, not two.
    mockFetch(() => ({ status: 200, body: stored('/api/search/S1/image', 16, 2) }));
    renderSearch();
    expect(
      await screen.findByText(
        /Searched with the face above, 2 other uploaded faces of this person and 16 results selected before\./,
      ),
    ).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: /Same person: result 1/ }));
    await user.click(screen.getByRole('checkbox', { name: /Same person: result 2/ }));
    expect(screen.getByText(/at most 1 result more can be searched with this search's faces/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Search again with these faces' })).toHaveProperty(
      'disabled',
      true,
    );
    cleanup();

    mockFetch(() => ({ status: 200, body: stored(null) }));
    renderSearch();
    await screen.findByRole('heading', { name: 'Results' });
    expect(screen.queryByRole('group', { name: 'Search again with selected results' })).toBeNull();
    expect(screen.queryByRole('checkbox')).toBeNull();
  });
});
