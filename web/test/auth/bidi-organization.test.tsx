import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { mockFetch } from './fetch-mock';

vi.mock('../../src/lib/session.tsx', () => ({ useSession: () => ({ refresh: async () => {} }) }));
const { SetPasswordPage } = await import('../../src/features/auth/token-password-pages');

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('an organization name in Hebrew is bidi-isolated inside the invitation sentence', async () => {
  const organizationName = 'משטרת ישראל – יחידה 5';
  mockFetch(() => ({
    status: 200,
    body: { email: 'analyst@police.example.org', organizationName, access: true },
  }));
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={['/set-password?token=abc']}>
        <Routes>
          <Route path="/set-password" element={<SetPasswordPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  const name = await screen.findByText(organizationName, { selector: 'bdi, [dir="auto"]' });
  expect(name.closest('p')?.textContent).toBe(
    `You have been invited to join ${organizationName}. Choose the password for analyst@police.example.org; ` +
      'you will use it with this e-mail address to log in.',
  );
});
