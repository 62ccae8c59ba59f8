import {
  EXTRACTOR_MESSAGES,
  type ExtractedResult,
  type WikipediaResult,
} from '@osint/contract/data-extractor';
import { SHIPPED_SCORE_MODEL } from '@osint/contract/match-score';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: { user: { access: true, restricted: false } } }),
}));

const { DataExtractorPage, AdminExtractionPage } =
  await import('../../src/features/data-extractor/data-extractor-page');
const { StartExtractionModal } = await import('../../src/features/data-extractor/extractor-card');

const query = (call: RecordedCall) => new URL(call.url, 'http://localhost').searchParams;
const path = (call: RecordedCall) => new URL(call.url, 'http://localhost').pathname;

function renderAt(at: string) {
  const user = userEvent.setup();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="/data-extractor/:hashedId?" element={<DataExtractorPage />} />
          <Route path="/admin/data-extractor/:id" element={<AdminExtractionPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return user;
}

const stat = (name: string, linkCount: number, politicianCount = 0) => ({
  name,
  linkCount,
  politicianCount,
  criminalCount: 0,
  sanctionsCount: 0,
  seenWithCount: 0,
});

function extracted(id: string, personName: string, politician = false): ExtractedResult {
  return {
    hashedId: id,
    personName,
    personDesc: `${personName}, mayor of Riverside`,
    politician,
    sanctions: false,
    criminal: false,
    seenWith: false,
    checked: false,
    sourceUrl: `https://news.example.org/${id}`,
    imageUrl: `https://news.example.org/${id}.jpg`,
    sourceTitle: `Page ${id}`,
    thumbnailUrl: `/api/data-extractor/results/image/${id}`,
    similarity: 0.97,
    scoreModel: SHIPPED_SCORE_MODEL,
    crawledAt: '2024-05-01T10:00:00.000Z',
    alternativeNames: ['Helena J. Marsh'],
    evidence: politician
      ? [
          {
            flag: 'politician',
            source: 'watchlist',
            text: 'Helena Marsh — demo PEPs (role.pep)',
            url: null,
            score: 1,
          },
        ]
      : [],
    seenWithNames: [],
  };
}

/** The queries (as JSON of their parameters) whose details fail with a server error. */
const detailsFail = new Set<string>();

/** A small in-memory extraction the answers are made from; PATCH and DELETE change it. */
function fakeServer(names: string[], wikipediaResult: WikipediaResult | null = null) {
  const results = names.map((name, i) => extracted(`r${i + 1}`, name, name === 'Helena Marsh'));
  const summary = () => {
    const distinct = [...new Set(results.map((r) => r.personName))];
    return {
      id: 'x1',
      name: 'Marsh extraction',
      description: '',
      createdAt: '2024-05-01T10:00:00.000Z',
      state: 'DONE',
      nameStatistic: stat('', results.length, results.filter((r) => r.politician).length),
      nameList: distinct.map((n) =>
        stat(
          n,
          results.filter((r) => r.personName === n).length,
          results.filter((r) => r.personName === n && r.politician).length,
        ),
      ),
      bestName: distinct[0] ?? null,
      namesFound: distinct.length,
      seenWithNames: ['Peter Dunn'],
    };
  };
  return mockFetch((call) => {
    const p = path(call);
    if (call.method === 'PATCH' && p.startsWith('/api/data-extractor/results/') && !p.endsWith('/checked')) {
      const target = results.find((r) => p.endsWith(`/${r.hashedId}`))!;
      target.personName = (call.body as { name: string }).name;
      return { status: 204 };
    }
    if (call.method === 'PATCH') return { status: 204 };
    if (call.method === 'DELETE') {
      results.splice(
        results.findIndex((r) => p.endsWith(`/${r.hashedId}`)),
        1,
      );
      return { status: 204 };
    }
    if (
      p.startsWith('/api/data-extractor/results/details/') ||
      p.startsWith('/api/admin/data-extractor/results/details/')
    ) {
      const q = query(call);
      let list = results;
      if (q.get('name')) list = list.filter((r) => r.personName === q.get('name'));
      if (q.get('politician')) list = list.filter((r) => r.politician);
      // The Wikipedia result under the filters it matches, as results.
      const wikipedia =
        wikipediaResult &&
        (!q.get('name') || q.get('name') === wikipediaResult.name) &&
        (!q.get('politician') || wikipediaResult.politician)
          ? wikipediaResult
          : null;
      if (detailsFail.has(JSON.stringify(Object.fromEntries(q))))
        return { status: 500, body: { message: 'Database down' } };
      return {
        status: 200,
        body: { responses: list, wikipediaResult: wikipedia, totalResultCount: list.length },
      };
    }
    if (p.startsWith('/api/data-extractor/results/') || p.startsWith('/api/admin/data-extractor/results/'))
      return { status: 200, body: summary() };
    return { status: 200, body: { dataExtractorListItemList: [], totalResultCount: 0 } };
  });
}

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  localStorage.clear();
  detailsFail.clear();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('Extracted Data', () => {
  test('one name is preselected; filters send only what is on; Seen with starts at None', async () => {
    const { calls } = fakeServer(['Helena Marsh', 'Helena Marsh']);
    const user = renderAt('/data-extractor/x1');
    expect(await screen.findByRole('heading', { name: 'Extracted Data' })).toBeTruthy();
    const names = screen.getByRole('navigation', { name: 'Names found' });
    expect(
      within(names)
        .getByRole('button', { name: /^Helena Marsh/ })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    expect(
      within(names)
        .getByRole('button', { name: /ALL RESULTS/ })
        .getAttribute('aria-pressed'),
    ).toBe('false');
    await screen.findAllByRole('article');
    const first = calls.find((c) => path(c) === '/api/data-extractor/results/details/x1')!;
    expect(Object.fromEntries(query(first))).toEqual({
      pageNumber: '1',
      pageSize: '25',
      sortBy: 'smart',
      name: 'Helena Marsh',
    });

    await user.click(screen.getByRole('button', { name: 'Filters' }));
    // The open panel is remembered for the next visit.
    expect(localStorage.getItem('osint.showDataExtractorFilters')).toBe('true');
    const filters = screen.getByRole('group', { name: 'Filters' });
    expect(within(filters).getByRole('button', { name: /Seen with/ }).textContent).toContain('None');
    await user.click(within(filters).getByLabelText('Politician'));
    await user.click(within(filters).getByLabelText('Unchecked'));
    await waitFor(() => {
      const last = calls.filter((c) => path(c) === '/api/data-extractor/results/details/x1').at(-1)!;
      expect(query(last).get('politician')).toBe('true');
      expect(query(last).get('checked')).toBe('false');
      expect(query(last).has('sanctions')).toBe(false);
      expect(query(last).has('criminal')).toBe(false);
    });
  });

  test('a result renamed under a name filter leaves the list; the edit refuses a blank name', async () => {
    const { calls } = fakeServer(['Helena Marsh', 'Helena Marsh', 'Peter Dunn']);
    const user = renderAt('/data-extractor/x1');
    const names = await screen.findByRole('navigation', { name: 'Names found' });
    // Several names: the multiple-names banner, dismissible and remembered.
    expect(screen.getByRole('note', { name: 'Several names found' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Dismiss Several names found' }));
    expect(screen.queryByRole('note', { name: 'Several names found' })).toBeNull();
    expect(localStorage.getItem('osint.dismissedNamesInfo')).toBe('true');

    await user.click(within(names).getByRole('button', { name: /^Helena Marsh/ }));
    const list = screen.getByRole('list', { name: 'Extracted results' });
    await waitFor(() => expect(within(list).getAllByRole('article')).toHaveLength(2));
    await user.click(within(list).getAllByRole('button', { name: 'Edit Helena Marsh' })[0]!);
    const dialog = screen.getByRole('dialog', { name: 'Edit result' });
    const field = within(dialog).getByLabelText('Name');
    await user.clear(field);
    expect(within(dialog).getByText(EXTRACTOR_MESSAGES.nameEmpty)).toBeTruthy();
    expect((within(dialog).getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
    // An alternative name of the pages is one click away.
    await user.click(within(dialog).getByLabelText('Helena J. Marsh'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(list).getAllByRole('article')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PATCH')!.body).toEqual({
      name: 'Helena J. Marsh',
      description: 'Helena Marsh, mayor of Riverside',
    });
  });

  test('deleting the only link asks once, then returns to the list', async () => {
    const { calls } = fakeServer(['Helena Marsh']);
    const user = renderAt('/data-extractor/x1');
    const list = await screen.findByRole('list', { name: 'Extracted results' });
    await user.click(within(list).getByRole('button', { name: 'Delete Helena Marsh' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove result' });
    await user.click(within(dialog).getByLabelText("Don't show again"));
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByRole('heading', { name: 'AI Data Extractor' })).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE' && path(c) === '/api/data-extractor/results/r1')).toBe(
      true,
    );
    expect(localStorage.getItem('osint.dismissedResultRemovalInfo')).toBe('true');
  });

  test('a Wikipedia article whose address is withheld (trial) is a locked button that says why', async () => {
    const article = {
      name: 'Helena Marsh',
      personDescription: 'Mayor of Riverside',
      politician: true,
      sanctions: false,
      criminal: false,
      checked: false,
      evidence: [],
    };
    fakeServer(['Helena Marsh'], { ...article, url: null });
    const user = renderAt('/data-extractor/x1');
    const card = await screen.findByRole('article', { name: 'Wikipedia: Helena Marsh' });
    expect(within(card).queryByRole('link', { name: 'Wikipedia' })).toBeNull();
    await user.click(within(card).getByRole('button', { name: 'Wikipedia article (subscribers only)' }));
    expect(
      screen.getByRole('dialog', {
        name: 'Viewing the original source of this image is available only to subscribers.',
      }),
    ).toBeTruthy();
    cleanup();

    fakeServer(['Helena Marsh'], { ...article, url: 'https://en.wikipedia.org/wiki/Helena_Marsh' });
    renderAt('/data-extractor/x1');
    const open = await screen.findByRole('article', { name: 'Wikipedia: Helena Marsh' });
    expect(within(open).getByRole('link', { name: 'Wikipedia' }).getAttribute('href')).toBe(
      'https://en.wikipedia.org/wiki/Helena_Marsh',
    );
  });

  test('the Wikipedia result shows why it is flagged: the sentence of the article, and the article', async () => {
    const sentence = 'Helena Marsh (born 1968) is a British politician, Mayor of Riverside since 2019.';
    const article = 'https://en.wikipedia.org/wiki/Helena_Marsh';
    fakeServer(['Helena Marsh'], {
      name: 'Helena Marsh',
      personDescription: 'British politician',
      politician: true,
      sanctions: false,
      criminal: false,
      checked: false,
      url: article,
      evidence: [{ flag: 'politician', source: 'page', text: sentence, url: article }],
    });
    const user = renderAt('/data-extractor/x1');
    const card = await screen.findByRole('article', { name: 'Wikipedia: Helena Marsh' });
    await user.click(within(card).getByText('Why flagged (1)'));
    const why = card.querySelector('.extractor-evidence')!;
    expect(why.textContent).toContain('Politician');
    expect(within(why as HTMLElement).getByText(sentence)).toBeTruthy();
    expect(
      within(why as HTMLElement)
        .getByRole('link', { name: 'en.wikipedia.org' })
        .getAttribute('href'),
    ).toBe(article);
  });

  test('the Wikipedia result is chosen for a report only under the filters it was answered for', async () => {
    const { calls } = fakeServer(['Helena Marsh', 'Peter Dunn', 'Anna Berg'], {
      name: 'Helena Marsh',
      personDescription: 'British politician',
      politician: true,
      sanctions: false,
      criminal: false,
      checked: false,
      url: 'https://en.wikipedia.org/wiki/Helena_Marsh',
      evidence: [{ flag: 'politician', source: 'page', text: 'A politician.', url: null }],
    });
    // The details of Anna Berg's results cannot be loaded.
    detailsFail.add(JSON.stringify({ pageNumber: '1', pageSize: '25', sortBy: 'smart', name: 'Anna Berg' }));
    const user = renderAt('/data-extractor/x1');
    const wikipediaCard = () => screen.queryByRole('article', { name: 'Wikipedia: Helena Marsh' });
    await screen.findByRole('article', { name: 'Wikipedia: Helena Marsh' });
    expect(screen.getByRole('button', { name: 'GENERATE REPORT (4)' })).toBeTruthy();

    // Under another name the server answers no Wikipedia result: none is shown or chosen.
    const names = screen.getByRole('navigation', { name: 'Names found' });
    await user.click(within(names).getByRole('button', { name: /^Peter Dunn/ }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'GENERATE REPORT (1)' })).toBeTruthy());
    expect(wikipediaCard()).toBeNull();
    await user.click(within(names).getByRole('button', { name: /^Helena Marsh/ }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'GENERATE REPORT (2)' })).toBeTruthy());
    expect(wikipediaCard()).toBeTruthy();

    // A name whose answer fails: the article answered under Helena Marsh is not Anna Berg's.
    await user.click(within(names).getByRole('button', { name: /^Anna Berg/ }));
    await waitFor(() => expect(calls.some((c) => query(c).get('name') === 'Anna Berg')).toBe(true));
    await waitFor(() => expect(screen.getByRole('button', { name: 'GENERATE REPORT (0)' })).toBeTruthy());
    expect(wikipediaCard()).toBeNull();
  });

  test('admins see the same view read-only: no banners, switches, edit or delete', async () => {
    const { calls } = fakeServer(['Helena Marsh', 'Peter Dunn']);
    renderAt('/admin/data-extractor/42');
    const list = await screen.findByRole('list', { name: 'Extracted results' });
    expect(within(list).getAllByRole('article')).toHaveLength(2);
    expect(within(list).queryAllByRole('switch')).toHaveLength(0);
    expect(within(list).queryAllByRole('button', { name: /^(Edit|Delete) / })).toHaveLength(0);
    expect(screen.queryAllByRole('note')).toHaveLength(0);
    expect(calls.every((c) => path(c).startsWith('/api/admin/data-extractor/'))).toBe(true);
  });
});

describe('Extractor list and start modal', () => {
  test('pending with progress and an estimated end 10 minutes after the start; New done items', async () => {
    const item = (id: string, state: 'PENDING' | 'DONE', status: 'NEW' | 'CHECKED') => ({
      id,
      name: `Extraction ${id}`,
      description: '',
      state,
      status,
      createdAt: '2024-05-01T10:00:00.000Z',
      completedAt: null,
      estimatedEndAt: '2024-05-01T10:10:00.000Z',
      imagePath: `/api/data-extractor/image/${id}`,
      processedCount: 3,
      resultCount: 8,
      bestName: null,
    });
    mockFetch((call) =>
      query(call).get('status') === 'PENDING'
        ? {
            status: 200,
            body: { dataExtractorListItemList: [item('p', 'PENDING', 'NEW')], totalResultCount: 1 },
          }
        : {
            status: 200,
            body: {
              dataExtractorListItemList: [item('a', 'DONE', 'NEW'), item('b', 'DONE', 'CHECKED')],
              totalResultCount: 2,
            },
          },
    );
    renderAt('/data-extractor');
    const pending = await screen.findByRole('article', { name: 'Extraction p' });
    const [start, end] = [...pending.querySelectorAll('time')].map((t) => Date.parse(t.dateTime));
    expect(end! - start!).toBe(10 * 60_000);
    expect(within(pending).getByRole('progressbar').getAttribute('aria-valuetext')).toBe(
      '3 of 8 results analysed',
    );
    expect(within(screen.getByRole('article', { name: 'Extraction a' })).getByText('New')).toBeTruthy();
    expect(within(screen.getByRole('article', { name: 'Extraction b' })).queryByText('New')).toBeNull();
  });

  test('polls every 180 s while something is pending; a finished one refetches Done', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let pendingLeft = 1;
    const entry = (id: string, state: 'PENDING' | 'DONE') => ({
      id,
      name: `Extraction ${id}`,
      description: '',
      state,
      status: 'NEW',
      createdAt: '2024-05-01T10:00:00.000Z',
      completedAt: null,
      estimatedEndAt: '2024-05-01T10:10:00.000Z',
      imagePath: `/api/data-extractor/image/${id}`,
      processedCount: 0,
      resultCount: 4,
      bestName: null,
    });
    const { calls } = mockFetch((call) => {
      const q = query(call);
      if (q.get('status') === 'PENDING')
        return {
          status: 200,
          body: {
            dataExtractorListItemList: pendingLeft ? [entry('p', 'PENDING')] : [],
            totalResultCount: pendingLeft,
          },
        };
      const done = pendingLeft ? [] : [entry('p', 'DONE')];
      return { status: 200, body: { dataExtractorListItemList: done, totalResultCount: done.length } };
    });
    renderAt('/data-extractor');
    await screen.findByRole('article', { name: 'Extraction p' });
    const count = (status: string) => calls.filter((c) => query(c).get('status') === status).length;
    expect(count('PENDING')).toBe(1);
    await vi.advanceTimersByTimeAsync(179_000);
    expect(count('PENDING')).toBe(1);
    const doneBefore = count('DONE');
    pendingLeft = 0;
    await vi.advanceTimersByTimeAsync(1_000);
    await waitFor(() => expect(count('PENDING')).toBe(2));
    // The pending count changed: Done is fetched again and shows the finished extraction.
    await waitFor(() => expect(count('DONE')).toBe(doneBefore + 1));
    const doneSection = await screen.findByRole('region', { name: 'Done' });
    expect(await within(doneSection).findByRole('article', { name: 'Extraction p' })).toBeTruthy();
    // Nothing pending any more: no further polling.
    await vi.advanceTimersByTimeAsync(360_000);
    expect(count('PENDING')).toBe(2);
  });

  test('the default name, then the spec message when the start fails', async () => {
    const { calls } = mockFetch(() => ({ status: 500 }));
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StartExtractionModal searchHash="s1" image="QUJD" onClose={() => undefined} />
      </MemoryRouter>,
    );
    const name = screen.getByLabelText('Name') as HTMLInputElement;
    expect(name.value).toMatch(/^AI DATA EXTRACTION \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    await user.click(screen.getByRole('button', { name: 'Start extraction' }));
    expect(await screen.findByText(EXTRACTOR_MESSAGES.startFailure)).toBeTruthy();
    expect(calls[0]!.body).toEqual({ name: name.value, description: '', searchHash: 's1', image: 'QUJD' });
  });
});
