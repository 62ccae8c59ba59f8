import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { AdminUsersPage } from '../../src/features/admin/admin-users-page';
import { mockFetch } from '../auth/fetch-mock';

// Spec 001 §3: the browser keeps the admin users table last visited; it opens again on the next visit.

function renderPage() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter>
          <AdminUsersPage />
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('the status table last looked at opens again on the next visit', async () => {
  const { calls } = mockFetch(() => ({ status: 200, body: [] }));
  const user = userEvent.setup();
  renderPage();
  await waitFor(() => expect(calls.some((c) => c.url.startsWith('/api/admin/users'))).toBe(true));
  await user.click(screen.getByRole('button', { name: /Status/ }));
  await user.click(screen.getByRole('option', { name: 'Blocked' }));
  await waitFor(() => expect(calls.at(-1)!.url).toContain('status=BLOCKED'));
  cleanup();

  calls.length = 0;
  renderPage();
  await waitFor(() => expect(calls.some((c) => c.url.startsWith('/api/admin/users'))).toBe(true));
  expect(calls.find((c) => c.url.startsWith('/api/admin/users'))!.url).toContain('status=BLOCKED');
  expect(screen.getByRole('button', { name: /Status/ }).textContent).toContain('Blocked');
});
