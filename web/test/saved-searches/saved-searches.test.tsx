import { SEARCH_MESSAGES } from '@osint/contract/search';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: { user: { access: true, restricted: false } } }),
}));

const { AdminSavedSearchesPage, SavedSearchesPage } =
  await import('../../src/features/saved-searches/saved-searches-page');
const { ReportModal } = await import('../../src/components/report-modal');
const { generateReport } = await import('../../src/features/saved-searches/saved-searches-api');
const reportFailure = { message: SEARCH_MESSAGES.reportFailure, hint: SEARCH_MESSAGES.reportFailureHint };

const item = (id: number, status: 'PENDING' | 'COMPLETED', name = `Saved ${id}`) => ({
  id,
  hash: `hash-${id}`,
  name,
  description: `Note ${id}`,
  createdAt: '2024-05-01T10:00:00.000Z',
  image: `/api/saved-search/image/${id}`,
  status,
  type: 'OSINT',
  resultCount: 2,
});

const result = (id: number, group: string) => ({
  id,
  hash: `r${id}`,
  group,
  thumbnailUrl: `/api/saved-search/results/image/${id}`,
  imageUrl: `https://site${id}.example.org/a.jpg`,
  sourceUrl: `https://site${id}.example.org/page`,
  sourceTitle: `Page ${id}`,
  crawledAt: '2024-05-01T10:00:00.000Z',
  similarity: 0.96,
  scoreModel: SHIPPED_SCORE_MODEL,
  quality: 0.8,
});

function renderAt(path: string) {
  const user = userEvent.setup();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/saved-searches/:hashedId?" element={<SavedSearchesPage />} />
          <Route path="/admin/saved-searches/:savedSearchHash?" element={<AdminSavedSearchesPage />} />
          <Route path="/search" element={<h1>Search screen</h1>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return user;
}

const query = (call: RecordedCall) => new URL(call.url, 'http://localhost').searchParams;

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('Saved Searches list', () => {
  test('empty state', async () => {
    mockFetch(() => ({ status: 200, body: { results: [], totalResultCount: 0 } }));
    renderAt('/saved-searches');
    expect(await screen.findByText("You haven't saved any results yet")).toBeTruthy();
  });

  test('In progress (3 a page) and Done (5 a page) with SHOW MORE, pending details and the search box', async () => {
    const done = Array.from({ length: 7 }, (_, i) => item(10 + i, 'COMPLETED'));
    const { calls } = mockFetch((call) => {
      const q = query(call);
      if (q.get('status') === 'PENDING')
        return { status: 200, body: { results: [item(1, 'PENDING', 'Pending one')], totalResultCount: 1 } };
      const size = Number(q.get('pageSize'));
      const start = (Number(q.get('pageNumber')) - 1) * size;
      const matching = q.get('search') ? done.filter((d) => d.name.includes(q.get('search')!)) : done;
      return {
        status: 200,
        body: { results: matching.slice(start, start + size), totalResultCount: matching.length },
      };
    });
    const user = renderAt('/saved-searches');
    const pending = await screen.findByRole('article', { name: 'Pending one' });
    expect(within(pending).getByText('PENDING')).toBeTruthy();
    expect(within(pending).getByText('Stand by')).toBeTruthy();
    expect(within(pending).getByText(/Saving in progress/)).toBeTruthy();
    // Estimated end: start plus 3 minutes.
    const [start, end] = [...pending.querySelectorAll('time')].map((t) => Date.parse(t.dateTime));
    expect(end! - start!).toBe(3 * 60_000);
    expect(query(calls.find((c) => query(c).get('status') === 'PENDING')!).get('pageSize')).toBe('3');

    const doneSection = screen.getByRole('region', { name: 'Done' });
    expect(await within(doneSection).findAllByRole('article')).toHaveLength(5);
    await user.click(within(doneSection).getByRole('button', { name: 'SHOW MORE' }));
    expect(await within(doneSection).findAllByRole('article')).toHaveLength(7);
    expect(within(doneSection).queryByRole('button', { name: 'SHOW MORE' })).toBeNull();
    const more = calls.filter((c) => query(c).get('status') === 'COMPLETED').at(-1)!;
    expect([query(more).get('pageNumber'), query(more).get('pageSize')]).toEqual(['2', '5']);
    const first = within(doneSection).getAllByRole('article')[0]!;
    expect(within(first).getByRole('link', { name: 'Check the results' }).getAttribute('href')).toBe(
      '/saved-searches/hash-10',
    );

    await user.type(screen.getByLabelText('Search saved searches'), 'Saved 12');
    await waitFor(() => expect(within(doneSection).getAllByRole('article')).toHaveLength(1));
    expect(within(doneSection).getByRole('article', { name: 'Saved 12' })).toBeTruthy();
  });

  test('Delete asks first, removes the saved search and reloads Done; a failure is logged only', async () => {
    let done = [item(10, 'COMPLETED'), item(11, 'COMPLETED')];
    let failDelete = true;
    const { calls } = mockFetch((call) => {
      if (call.method === 'DELETE') {
        if (failDelete) return { status: 500, body: { statusCode: 500, error: 'Error', message: 'boom' } };
        done = done.filter((d) => d.id !== (call.body as { id: number }).id);
        return { status: 200, body: {} };
      }
      if (query(call).get('status') === 'PENDING')
        return { status: 200, body: { results: [], totalResultCount: 0 } };
      return { status: 200, body: { results: done, totalResultCount: done.length } };
    });
    const user = renderAt('/saved-searches');
    const doneSection = await screen.findByRole('region', { name: 'Done' });
    expect(await within(doneSection).findAllByRole('article')).toHaveLength(2);

    await user.click(within(doneSection).getByRole('button', { name: 'Delete Saved 10' }));
    const dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toMatch(/“Saved 10” and its saved results will be deleted/);
    // The name is isolated: a Hebrew or Arabic name keeps the sentence's order around it.
    expect(within(dialog).getByText('Saved 10').tagName).toBe('BDI');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(console.error).toHaveBeenCalledWith('Deleting the saved search failed', expect.anything());
    expect(within(doneSection).getAllByRole('article')).toHaveLength(2);

    failDelete = false;
    const listCalls = calls.length;
    await user.click(within(doneSection).getByRole('button', { name: 'Delete Saved 10' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(within(doneSection).getAllByRole('article')).toHaveLength(1));
    expect(within(doneSection).getByRole('article', { name: 'Saved 11' })).toBeTruthy();
    const removal = calls.slice(listCalls).find((c) => c.method === 'DELETE')!;
    expect(removal.body).toEqual({ id: 10 });
  });
});

describe('Saved Results', () => {
  test('grouped by default, Select All, deleting every result returns to the list', async () => {
    const { calls } = mockFetch((call) => {
      if (call.url.startsWith('/api/saved-search/results/'))
        return {
          status: 200,
          body: {
            ...item(5, 'COMPLETED', 'Helena'),
            results: [result(1, 'a'), result(2, 'a'), result(3, 'b')],
            time: 500,
            numberOfResults: 3,
          },
        };
      if (call.url === '/api/saved-search/remove/result')
        return { status: 200, body: { removed: 3, remaining: 0 } };
      return { status: 200, body: { results: [], totalResultCount: 0 } };
    });
    const user = renderAt('/saved-searches/hash-5');
    expect(await screen.findByRole('heading', { name: 'Saved Results' })).toBeTruthy();
    expect(screen.getByText('Same photo results: 2')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'GENERATE REPORT (3)' })).toBeTruthy();
    await user.click(screen.getByLabelText('Select All'));
    expect((screen.getByRole('button', { name: 'GENERATE REPORT (0)' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    await user.click(screen.getByLabelText('Select result 2: Page 2, similarity 0.96'));
    expect(screen.getByRole('button', { name: 'GENERATE REPORT (1)' })).toBeTruthy();
    await user.click(screen.getByLabelText('Select All'));
    expect(screen.getByRole('button', { name: 'GENERATE REPORT (3)' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Delete selected' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText("You haven't saved any results yet")).toBeTruthy();
    expect(calls.find((c) => c.url === '/api/saved-search/remove/result')!.body).toEqual({
      saveSearchId: 5,
      searchResultIds: [1, 2, 3],
    });
  });
});

describe('admin saved searches (read-only)', () => {
  test('the list calls the admin API, names the organization and offers neither edit nor delete', async () => {
    const { calls } = mockFetch((call) =>
      query(call).get('status') === 'PENDING'
        ? { status: 200, body: { results: [], totalResultCount: 0 } }
        : {
            status: 200,
            body: {
              results: [{ ...item(10, 'COMPLETED'), organizationName: 'Riverton Police' }],
              totalResultCount: 1,
            },
          },
    );
    renderAt('/admin/saved-searches');
    const card = await screen.findByRole('article', { name: 'Saved 10' });
    expect(within(card).getByText('Riverton Police')).toBeTruthy();
    expect(within(card).queryByRole('button', { name: /Delete|Edit/ })).toBeNull();
    expect(within(card).getByRole('link', { name: 'Check the results' }).getAttribute('href')).toBe(
      '/admin/saved-searches/hash-10',
    );
    expect(
      calls.every((call) => new URL(call.url, 'http://localhost').pathname === '/api/admin/saved-search'),
    ).toBe(true);
  });

  test('the results view reads /api/admin/saved-search/{hash}; selection and report, no delete', async () => {
    const { calls } = mockFetch(() => ({
      status: 200,
      body: {
        ...item(10, 'COMPLETED'),
        organizationName: 'Riverton Police',
        results: [result(1, 'g1'), result(2, 'g2')],
        time: 1200,
        numberOfResults: 2,
      },
    }));
    const user = renderAt('/admin/saved-searches/hash-10');
    expect(await screen.findByRole('heading', { name: 'Saved Results' })).toBeTruthy();
    expect(screen.getByText('Riverton Police')).toBeTruthy();
    // A name in Arabic or Hebrew reads right to left, as it was typed.
    expect(screen.getByText('Saved 10').getAttribute('dir')).toBe('auto');
    expect(new URL(calls[0]!.url, 'http://localhost').pathname).toBe('/api/admin/saved-search/hash-10');
    expect(screen.queryByRole('button', { name: /Delete selected/ })).toBeNull();
    expect(screen.queryByRole('link', { name: 'New search' })).toBeNull();
    // Spec 001 §2: the admin's result views differ by the admin prefix and hidden edits, not the report.
    expect((screen.getByRole('checkbox', { name: 'Select All' }) as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole('button', { name: 'GENERATE REPORT (2)' }));
    const report = await waitFor(() => {
      const found = calls.find((call) => call.url.endsWith('/generate-report'));
      expect(found).toBeTruthy();
      return found!;
    });
    expect(new URL(report.url, 'http://localhost').pathname).toBe('/api/admin/saved-search/generate-report');
    expect(report.body).toEqual({ dataResultsId: [1, 2] });
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('button', { name: '← Back' }));
    expect(await screen.findByRole('heading', { name: 'Saved Searches' })).toBeTruthy();
  });
});

describe('ReportModal', () => {
  test('moves towards 95 % over 50 seconds, then 100 % and Export PDF', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let finish!: (response: Response) => void;
    vi.spyOn(globalThis, 'fetch').mockImplementation(
      () => new Promise<Response>((resolve) => (finish = resolve)),
    );
    render(
      <ReportModal
        count={2}
        generate={() => generateReport('user', [1, 2])}
        failure={reportFailure}
        onClose={() => undefined}
      />,
    );
    expect(screen.getByText('Your report will be ready in under a minute.')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(25_000));
    const halfway = Number(screen.getByRole('progressbar').getAttribute('aria-valuenow'));
    expect(halfway).toBeGreaterThanOrEqual(45);
    expect(halfway).toBeLessThanOrEqual(50);
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('95');
    await act(async () =>
      finish(
        new Response('%PDF-1.3', {
          status: 200,
          headers: { 'content-disposition': 'attachment; filename="r.pdf"' },
        }),
      ),
    );
    expect(await screen.findByRole('button', { name: 'Export PDF' })).toBeTruthy();
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
  });

  test('shows the spec error text', async () => {
    mockFetch(() => ({ status: 500 }));
    render(
      <ReportModal
        count={1}
        generate={() => generateReport('user', [1])}
        failure={reportFailure}
        onClose={() => undefined}
      />,
    );
    expect(await screen.findByText(SEARCH_MESSAGES.reportFailure)).toBeTruthy();
    expect(screen.getByText(SEARCH_MESSAGES.reportFailureHint)).toBeTruthy();
  });
});
