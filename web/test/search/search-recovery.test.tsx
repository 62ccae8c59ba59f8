import { SEARCH_MESSAGES } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { cleanup, screen } from '@testing-library/react';
import { Route } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ToastRegion } from '../../src/components/toast-region';
import { mockFetch } from '../auth/fetch-mock';
import { renderRoutes } from './render-routes';

const session = {
  user: { access: true, restricted: false, isOwner: true, admin: false, hashedId: 'owner-id' },
  organization: {},
};
vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session, refresh: vi.fn() }),
}));

const { SearchPage } = await import('../../src/features/search/search-page');
const { StoredSearchPage } = await import('../../src/features/search/stored-search-page');

function renderPage(element: React.ReactNode, path = '/search') {
  return renderRoutes(<Route path="*" element={element} />, path, <ToastRegion />);
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('SearchPage image address', () => {
  test('after a failed detection the typed address is still in the box, to be corrected', async () => {
    const { calls } = mockFetch(() => ({
      status: 500,
      body: { statusCode: 500, error: 'Error', message: 'boom' },
    }));
    const user = renderPage(<SearchPage />);
    const address = 'https://news.example.org/photos/marsh.jpg';
    await user.type(screen.getByLabelText('or paste an image URL'), address);
    await user.click(screen.getByRole('button', { name: 'Find faces' }));
    expect(await screen.findByText(SEARCH_MESSAGES.detectFailure)).toBeTruthy();
    expect(calls.map((c) => c.url)).toContain('/api/upload-image-url');
    expect(screen.getByLabelText<HTMLInputElement>('or paste an image URL').value).toBe(address);
  });
});

describe('StoredSearchPage without the searched face', () => {
  const answer = {
    searchHash: 'S1',
    type: 'OSINT',
    createdAt: '2024-05-02T10:00:00.000Z',
    time: 120,
    numberOfResults: 1,
    results: [
      {
        id: 1,
        hash: 'r1',
        group: 'a',
        thumbnailUrl: '/api/thumbnails/1',
        imageUrl: 'https://news1.example.org/a.jpg',
        sourceUrl: 'https://news1.example.org/story',
        sourceTitle: 'Story 1',
        crawledAt: '2024-05-01T10:00:00.000Z',
        similarity: 0.97,
        scoreModel: SHIPPED_SCORE_MODEL,
        faceBox: { x: 4, y: 6, width: 40, height: 48 },
        imageSize: { width: 200, height: 160 },
      },
    ],
  };

  test.each([
    ['its download fails', '/api/search/S1/image'],
    ['the search kept none', null],
  ])('says why saving and extraction are unavailable when %s', async (_, image) => {
    mockFetch((call) =>
      call.url === '/api/search/S1'
        ? { status: 200, body: { ...answer, image } }
        : { status: 404, body: { statusCode: 404, error: 'Not Found', message: 'gone' } },
    );
    renderPage(<StoredSearchPage searchHash="S1" renderExtractorCard={() => <p>Extractor card</p>} />);
    expect(await screen.findByRole('note')).toHaveProperty(
      'textContent',
      expect.stringContaining('could not be loaded, so this search cannot be saved'),
    );
    expect(screen.getByRole('button', { name: 'Save result' })).toHaveProperty('disabled', true);
    expect(screen.queryByText('Extractor card')).toBeNull();
  });
});
