import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { AdminMinorReviewsPage } from '../../src/features/admin/admin-minor-reviews-page';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const review = {
  id: 5,
  status: 'PENDING',
  createdAt: '2026-11-20T10:00:00.000Z',
  decidedAt: null,
  expiresAt: '2026-12-20T10:00:00.000Z',
  organization: { id: 1, name: 'Acme' },
  requestedBy: 'analyst@acme.example.org',
  reason: 'An adult',
  decidedBy: null,
  decisionReason: null,
  hasCrop: false,
};

test('while a decision is sent, neither Approve nor Refuse can be pressed', async () => {
  const decisions: string[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    if (init?.method === 'POST') {
      decisions.push(String(init.body));
      return new Promise<Response>(() => undefined);
    }
    return new Response(JSON.stringify({ results: [review], totalResultCount: 1 }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  });
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter>
          <AdminMinorReviewsPage />
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
  await user.type(await screen.findByLabelText('Reason for the decision'), 'Clearly an adult');
  await user.click(screen.getByRole('button', { name: 'Approve one search' }));
  const refuse = screen.getByRole<HTMLButtonElement>('button', { name: 'Refuse' });
  expect(refuse.disabled).toBe(true);
  expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Approve one search' }).disabled).toBe(true);
  await user.click(refuse);
  expect(decisions).toHaveLength(1);
});
