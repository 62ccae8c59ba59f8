import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { mockFetch, type RecordedCall } from './fetch-mock';

const refreshSession = vi.fn(async () => {});
vi.mock('../../src/lib/session.tsx', () => ({ useSession: () => ({ refresh: refreshSession }) }));
const { ResetPasswordPage, SetPasswordPage } = await import('../../src/features/auth/token-password-pages');

function renderAt(path: string) {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/reset-password" element={<ResetPasswordPage />} />
          <Route path="/set-password" element={<SetPasswordPage />} />
          <Route path="/login" element={<h1>Login screen</h1>} />
          <Route path="/search" element={<h1>Search screen</h1>} />
          <Route path="/home" element={<h1>Home screen</h1>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return user;
}

const INVITATION = {
  email: 'analyst@riverside.example.org',
  organizationName: 'Riverside Police',
  access: true,
};

/** The server of an invitation: its details, then the answer to setting the password. */
function invitationServer(
  setAnswer: (call: RecordedCall) => { status: number; body?: unknown },
  access = true,
) {
  return mockFetch((call) =>
    call.url.startsWith('/api/user/invitation?')
      ? { status: 200, body: { ...INVITATION, access } }
      : setAnswer(call),
  );
}

const items = () => screen.getAllByRole('listitem');
const states = () => items().map((item) => item.className.replace(/.*password-checklist__item--/, ''));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('missing token', () => {
  test.each(['/reset-password', '/set-password', '/set-password?token='])(
    '%s explains the missing token',
    (path) => {
      renderAt(path);
      expect(screen.getByText(PASSWORD_FLOW_MESSAGES.missingToken)).toBeTruthy();
      expect(screen.queryByLabelText('New password')).toBeNull();
    },
  );
});

describe('password checklist', () => {
  test('is neutral until focused, then each rule turns red or green as the user types', async () => {
    invitationServer(() => ({ status: 200, body: {} }));
    const user = renderAt('/set-password?token=abc');
    await screen.findByLabelText('New password');
    expect(states()).toEqual(['idle', 'idle', 'idle', 'idle']);

    await user.click(screen.getByLabelText('New password'));
    expect(states()).toEqual(['unmet', 'unmet', 'unmet', 'unmet']);

    await user.keyboard('abcdefgh');
    expect(states()).toEqual(['met', 'unmet', 'unmet', 'unmet']);
    await user.keyboard('A1');
    expect(states()).toEqual(['met', 'met', 'met', 'unmet']);
    expect((screen.getByRole('button', { name: 'Save New Password' }) as HTMLButtonElement).disabled).toBe(
      true,
    );

    await user.keyboard(';');
    expect(states()).toEqual(['met', 'met', 'met', 'met']);
    expect((screen.getByRole('button', { name: 'Save New Password' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });
});

describe('set password', () => {
  test('names the account and organization, signs the invited user in and leads them to search', async () => {
    const { calls } = invitationServer(() => ({ status: 200, body: { signedIn: true, access: true } }));
    const user = renderAt('/set-password?token=tok-123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Set Your Password' })).toBeTruthy();
    expect(screen.getByText('Riverside Police')).toBeTruthy();
    expect(screen.getByText(INVITATION.email)).toBeTruthy();
    await user.type(screen.getByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));

    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.setSuccess)).toBeTruthy();
    expect(calls).toEqual([
      { url: '/api/user/invitation?token=tok-123', method: 'GET', body: undefined },
      { url: '/api/user/set-password', method: 'POST', body: { token: 'tok-123', newPassword: 'Secret1!x' } },
    ]);
    expect(refreshSession).toHaveBeenCalled();
    expect(screen.getByText('You have access to search.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Start searching' }));
    expect(screen.getByRole('heading', { name: 'Search screen' })).toBeTruthy();
  });

  test('says so when the owner has not given a seat yet', async () => {
    invitationServer(() => ({ status: 200, body: { signedIn: true, access: false } }), false);
    const user = renderAt('/set-password?token=tok-9');
    await user.type(await screen.findByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));
    expect(await screen.findByText(/You have no access to search yet/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Start searching' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Go to your home page' }));
    expect(screen.getByRole('heading', { name: 'Home screen' })).toBeTruthy();
  });

  test('an invalid or used link says so before asking for a password', async () => {
    mockFetch(() => ({ status: 400, body: { message: PASSWORD_FLOW_MESSAGES.invalidToken } }));
    renderAt('/set-password?token=old');
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.invalidToken)).toBeTruthy();
    expect(screen.queryByLabelText('New password')).toBeNull();
  });

  test('a token refused when saving shows the set failure with the server reason', async () => {
    invitationServer(() => ({ status: 400, body: { message: PASSWORD_FLOW_MESSAGES.invalidToken } }));
    const user = renderAt('/set-password?token=old');
    await user.type(await screen.findByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.setFailure)).toBeTruthy();
    expect(screen.getByText(PASSWORD_FLOW_MESSAGES.invalidToken)).toBeTruthy();
  });
});

describe('reset password', () => {
  test('uses the reset path and messages', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    const user = renderAt('/reset-password?token=r1');
    await user.type(screen.getByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.resetSuccess)).toBeTruthy();
    expect(calls[0]?.url).toBe('/api/user/reset-password');
  });

  test('a server failure shows the reset failure', async () => {
    mockFetch(() => ({ status: 500, body: {} }));
    const user = renderAt('/reset-password?token=r1');
    await user.type(screen.getByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.resetFailure)).toBeTruthy();
  });
});
