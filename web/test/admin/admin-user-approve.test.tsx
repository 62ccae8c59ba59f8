import type { AdminUserDetail } from '@osint/contract/admin';
import type { UserStatus } from '@osint/contract/api-types';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { AdminUserPage } from '../../src/features/admin/admin-user-page';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function detail(status: UserStatus, emailVerifiedAt: string | null): AdminUserDetail {
  return {
    id: 12,
    hashedId: 'applicant',
    email: 'applicant@agency.example.org',
    status,
    role: 'OWNER',
    admin: false,
    access: false,
    newsletter: false,
    createdAt: '2026-11-20T10:00:00.000Z',
    emailVerifiedAt,
    approvedAt: null,
    blockedAt: null,
    passwordChangedAt: null,
    lastActiveAt: null,
    organization: { id: 3, name: 'Harbour Agency', link: 'https://agency.example.org', type: 'police' },
    sessions: [],
    searchCount: 0,
    recentActivity: [],
  };
}

async function approveOffered(user: AdminUserDetail): Promise<boolean> {
  vi.spyOn(globalThis, 'fetch').mockImplementation(
    async () =>
      new Response(JSON.stringify(user), { status: 200, headers: { 'content-type': 'application/json' } }),
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <BannerProvider>
        <MemoryRouter initialEntries={['/admin/users/12']}>
          <Routes>
            <Route path="/admin/users/:id" element={<AdminUserPage />} />
          </Routes>
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
  await screen.findByRole('link', { name: 'Activity log' });
  const offered = screen.queryByRole('button', { name: 'Approve' }) !== null;
  cleanup();
  return offered;
}

test('offers Approve for a registration waiting for approval, and for a rejected one whose e-mail was confirmed', async () => {
  expect(await approveOffered(detail('PENDING_APPROVAL', '2026-11-20T10:05:00.000Z'))).toBe(true);
  expect(await approveOffered(detail('REJECTED', '2026-11-20T10:05:00.000Z'))).toBe(true);
});

test('never offers Approve for an address that was not confirmed', async () => {
  expect(await approveOffered(detail('EMAIL_UNVERIFIED', null))).toBe(false);
  expect(await approveOffered(detail('REJECTED', null))).toBe(false);
});
