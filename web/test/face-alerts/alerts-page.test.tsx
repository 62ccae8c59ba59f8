import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { ToastRegion } from '../../src/components/toast-region';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: { user: { access: true, restricted: false } } }),
}));

const { AlertsPage } = await import('../../src/features/face-alerts/alerts-page');

const watch = {
  id: 3,
  name: 'سارة',
  note: 'שלום note',
  type: 'OSINT',
  muted: false,
  createdAt: '2026-11-01T10:00:00.000Z',
  endsAt: '2027-11-01T10:00:00.000Z',
  endedAt: null,
  image: null,
  alertCount: 0,
  newAlertCount: 0,
};
const noAlerts = { results: [], totalResultCount: 0 };

function renderAt(path: string) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter initialEntries={[path]}>
          <ToastRegion />
          <Routes>
            <Route path="/alerts/:watchId?" element={<AlertsPage />} />
          </Routes>
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
  return user;
}

const path = (call: RecordedCall) => new URL(call.url, 'http://localhost').pathname;
const serverError = { status: 500, body: { statusCode: 500, error: 'Internal', message: 'Boom' } };

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('Alerts page', () => {
  test('a refused "End watch" keeps the dialog open with the message', async () => {
    let refuse = true;
    const { calls } = mockFetch((call) => {
      if (call.method === 'DELETE')
        return refuse
          ? { status: 409, body: { statusCode: 409, error: 'Conflict', message: 'The watch already ended.' } }
          : { status: 200, body: {} };
      return path(call) === '/api/watches'
        ? { status: 200, body: { results: [watch] } }
        : { status: 200, body: noAlerts };
    });
    const user = renderAt('/alerts');
    await user.click(await screen.findByRole('button', { name: 'End watch' }));
    const dialog = screen.getByRole('dialog', { name: 'End this watch?' });
    await user.click(within(dialog).getByRole('button', { name: 'End watch' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('The watch already ended.');
    expect(screen.getByRole('dialog', { name: 'End this watch?' })).toBe(dialog);

    refuse = false;
    await user.click(within(dialog).getByRole('button', { name: 'End watch' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((call) => call.method === 'DELETE')).toHaveLength(2);
  });

  test('"End watch" is busy while sent: a second press sends nothing', async () => {
    const deletes: RecordedCall[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      if (init?.method === 'DELETE') {
        deletes.push({ url: String(input), method: 'DELETE', body: undefined });
        return new Promise<Response>(() => undefined);
      }
      const body = String(input).startsWith('/api/watches') ? { results: [watch] } : noAlerts;
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    });
    const user = renderAt('/alerts');
    await user.click(await screen.findByRole('button', { name: 'End watch' }));
    const dialog = screen.getByRole('dialog', { name: 'End this watch?' });
    const confirm = within(dialog).getByRole<HTMLButtonElement>('button', { name: 'End watch' });
    await user.click(confirm);
    expect(confirm.disabled).toBe(true);
    await user.click(confirm);
    expect(deletes).toHaveLength(1);
  });

  test('a Mute that fails says so, and the watch stays as it was', async () => {
    const { calls } = mockFetch((call) => {
      if (call.method === 'PATCH' || call.method === 'PUT') return serverError;
      return path(call) === '/api/watches'
        ? { status: 200, body: { results: [watch] } }
        : { status: 200, body: noAlerts };
    });
    const user = renderAt('/alerts');
    await user.click(await screen.findByRole('button', { name: 'Mute' }));
    expect(await screen.findByText('The watch could not be muted.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Mute' })).toBeTruthy();
    expect(calls.filter((call) => call.method === 'PATCH' || call.method === 'PUT')).toHaveLength(1);
  });

  test('lists that could not be loaded say so and Try again asks again', async () => {
    let fail = true;
    const { calls } = mockFetch((call) => {
      if (fail) return serverError;
      return path(call) === '/api/watches'
        ? { status: 200, body: { results: [watch] } }
        : { status: 200, body: noAlerts };
    });
    const user = renderAt('/alerts');
    expect(await screen.findByText('The watched faces could not be loaded.')).toBeTruthy();
    expect(await screen.findByText('The alerts could not be loaded.')).toBeTruthy();
    expect(screen.queryByText(/No face is watched yet/)).toBeNull();
    expect(screen.queryByText(/No alerts here yet/)).toBeNull();

    fail = false;
    const [retryWatches, retryAlerts] = screen.getAllByRole('button', { name: 'Try again' });
    await user.click(retryWatches!);
    await user.click(retryAlerts!);
    expect(await screen.findByRole('link', { name: watch.name })).toBeTruthy();
    expect(await screen.findByText(/No alerts here yet/)).toBeTruthy();
    expect(calls.filter((call) => path(call) === '/api/watches')).toHaveLength(2);
    expect(calls.filter((call) => path(call) === '/api/alerts')).toHaveLength(2);
  });

  test("an address naming a watch that is not the organization's says so; a known one is named", async () => {
    const { calls } = mockFetch((call) =>
      path(call) === '/api/watches'
        ? { status: 200, body: { results: [watch] } }
        : { status: 200, body: noAlerts },
    );
    renderAt('/alerts/99999');
    expect(await screen.findByText('Watch not found')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'All alerts' }).getAttribute('href')).toBe('/alerts');
    // Once the watches are known, the alerts asked for are all of them, not the unknown watch's.
    await waitFor(() =>
      expect(calls.filter((c) => path(c) === '/api/alerts').at(-1)?.url).not.toContain('watchId'),
    );
    cleanup();
    renderAt('/alerts/not-a-number');
    expect(await screen.findByText('Watch not found')).toBeTruthy();
    cleanup();
    renderAt('/alerts/3');
    expect(await screen.findByRole('heading', { name: 'Alerts: سارة' })).toBeTruthy();
    expect(screen.queryByText('Watch not found')).toBeNull();
  });

  test('more than a page of alerts: "Show more" asks for the next page and adds it', async () => {
    const alert = (id: number) => ({
      id,
      watchId: 3,
      sourceUrl: `https://news.example/${id}`,
      imageUrl: `https://news.example/${id}.jpg`,
      thumbnailUrl: `/api/alerts/${id}/image`,
      sourceTitle: `Page ${id}`,
      similarity: 0.7,
      scoreModel: null,
      faceBox: { x: 1, y: 1, width: 50, height: 50 },
      imageSize: null,
      createdAt: '2026-11-02T10:00:00.000Z',
      status: 'SEEN',
      copies: [],
    });
    const total = 101;
    const { calls } = mockFetch((call) => {
      if (path(call) === '/api/watches') return { status: 200, body: { results: [watch] } };
      const url = new URL(call.url, 'http://localhost');
      const page = Number(url.searchParams.get('pageNumber'));
      const size = Number(url.searchParams.get('pageSize'));
      const ids = Array.from({ length: total }, (_, i) => i + 1).slice((page - 1) * size, page * size);
      return { status: 200, body: { results: ids.map(alert), totalResultCount: total } };
    });
    const user = renderAt('/alerts');
    expect(await screen.findByText('101 alerts')).toBeTruthy();
    const pages = () =>
      calls
        .filter((call) => path(call) === '/api/alerts')
        .map((call) => new URL(call.url, 'http://localhost').searchParams.get('pageNumber'));
    // The grid shows the loaded alerts a few rows at a time, then the button fetches the next page.
    for (let clicks = 0; clicks < 60; clicks++) {
      const more = screen.queryByRole('button', { name: 'Show more results' });
      if (!more) break;
      await user.click(more);
      await waitFor(() =>
        expect(
          screen.queryByRole('button', { name: 'Show more results' })?.hasAttribute('disabled') ?? false,
        ).toBe(false),
      );
    }
    expect(pages()).toEqual(['1', '2']);
    expect(screen.getAllByRole('listitem').length).toBeGreaterThanOrEqual(101);
    expect(screen.queryByRole('button', { name: 'Show more results' })).toBeNull();
  });

  test('watch names and notes are isolated from the surrounding direction', async () => {
    mockFetch((call) =>
      path(call) === '/api/watches'
        ? { status: 200, body: { results: [watch] } }
        : { status: 200, body: noAlerts },
    );
    renderAt('/alerts/3');
    const title = await screen.findByRole('heading', { level: 1, name: `Alerts: ${watch.name}` });
    expect(title.querySelector('bdi')?.textContent).toBe(watch.name);
    const link = screen.getByRole('link', { name: watch.name });
    expect(link.querySelector('bdi')?.textContent).toBe(watch.name);
    expect(screen.getByText(watch.note).getAttribute('dir')).toBe('auto');
  });
});
