import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: { user: { access: true, restricted: false } } }),
}));

const { AdminSavedSearchesPage, SavedSearchesPage } =
  await import('../../src/features/saved-searches/saved-searches-page');

const item = (id: number, name = `Saved ${id}`, organizationName?: string) => ({
  id,
  hash: `hash-${id}`,
  name,
  description: `Note ${id}`,
  createdAt: '2024-05-01T10:00:00.000Z',
  image: `/api/saved-search/image/${id}`,
  status: 'COMPLETED',
  type: 'OSINT',
  resultCount: 2,
  ...(organizationName ? { organizationName } : {}),
});

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

/**
 * Saved searches answered at once, except the Done searches named in `held` (by their search text, '' for
 * the cleared box after its first answer), which wait until the test lets them go.
 */
function mockLists(done: ReturnType<typeof item>[], held: Set<string>) {
  const waiting: (() => void)[] = [];
  let doneAnswers = 0;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    const q = new URL(String(input), 'http://localhost').searchParams;
    if (q.get('status') === 'PENDING') return json({ results: [], totalResultCount: 0 });
    const search = q.get('search') ?? '';
    const matching = done.filter((d) => d.name.includes(search));
    const answer = () => json({ results: matching, totalResultCount: matching.length });
    doneAnswers += 1;
    if (held.has(search) && (search !== '' || doneAnswers > 1))
      return new Promise<Response>((resolve) => waiting.push(() => resolve(answer())));
    return answer();
  });
  // The spinner can show before the held request is made (the key changed, the fetch not yet sent): wait
  // for the request, or a release before it would let nothing go and the request would wait for ever.
  const release = async () => {
    await vi.waitFor(() => expect(waiting.length).toBeGreaterThan(0));
    waiting.splice(0).forEach((go) => go());
  };
  return { release };
}

function renderAt(path: string) {
  const user = userEvent.setup();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/saved-searches/:hashedId?" element={<SavedSearchesPage />} />
          <Route path="/admin/saved-searches/:savedSearchHash?" element={<AdminSavedSearchesPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { user, ...view };
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Done section of a paged list', () => {
  test('a search being answered shows a spinner in the Done section, not an empty list', async () => {
    const { release } = mockLists([item(10), item(11)], new Set(['Saved 11']));
    const { user } = renderAt('/saved-searches');
    const doneSection = await screen.findByRole('region', { name: 'Done' });
    expect(await within(doneSection).findAllByRole('article')).toHaveLength(2);

    await user.type(within(doneSection).getByLabelText('Search saved searches'), 'Saved 11');
    expect(await within(doneSection).findByRole('status')).toHaveProperty('textContent', 'LOADING');
    expect(within(doneSection).queryAllByRole('article')).toHaveLength(0);
    await release();
    expect(await within(doneSection).findByRole('article', { name: 'Saved 11' })).toBeTruthy();
    expect(within(doneSection).queryByRole('status')).toBeNull();
  });

  test('clearing the search box keeps the page and the focus in the box while the list loads again', async () => {
    const { release } = mockLists([item(10), item(11)], new Set(['']));
    const { user } = renderAt('/saved-searches');
    const doneSection = await screen.findByRole('region', { name: 'Done' });
    expect(await within(doneSection).findAllByRole('article')).toHaveLength(2);
    const box = within(doneSection).getByLabelText('Search saved searches');

    await user.type(box, 'Saved 11');
    await waitFor(() => expect(within(doneSection).getAllByRole('article')).toHaveLength(1));
    await user.clear(box);
    // The cleared search is being answered: the spinner is in the Done section, the box still focused.
    expect(await within(doneSection).findByRole('status')).toHaveProperty('textContent', 'LOADING');
    expect(box.isConnected).toBe(true);
    expect(document.activeElement).toBe(box);
    expect(screen.queryByText("You haven't saved any results yet")).toBeNull();
    await release();
    await waitFor(() => expect(within(doneSection).getAllByRole('article')).toHaveLength(2));
    expect(document.activeElement).toBe(box);
  });

  test("an organization's name is isolated for right-to-left text", async () => {
    mockLists([item(10, 'Saved 10', 'משטרת ישראל')], new Set());
    renderAt('/admin/saved-searches');
    const card = await screen.findByRole('article', { name: 'Saved 10' });
    const name = within(card).getByText('משטרת ישראל');
    expect(name.tagName === 'BDI' || name.getAttribute('dir') === 'auto').toBe(true);
  });
});
