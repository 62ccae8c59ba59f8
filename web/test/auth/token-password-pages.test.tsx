import { PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ResetPasswordPage, SetPasswordPage } from '../../src/features/auth/token-password-pages';
import { mockFetch } from './fetch-mock';

function renderAt(path: string) {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route path="/set-password" element={<SetPasswordPage />} />
        <Route path="/login" element={<h1>Login screen</h1>} />
      </Routes>
    </MemoryRouter>,
  );
  return user;
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
    const user = renderAt('/set-password?token=abc');
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
  test('is titled Set Your Password, posts token and password, then offers the way back to login', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    const user = renderAt('/set-password?token=tok-123');
    expect(screen.getByRole('heading', { level: 1, name: 'Set Your Password' })).toBeTruthy();
    await user.type(screen.getByLabelText('New password'), 'Secret1!x');
    await user.click(screen.getByRole('button', { name: 'Save New Password' }));

    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.setSuccess)).toBeTruthy();
    expect(calls).toEqual([
      { url: '/api/user/set-password', method: 'POST', body: { token: 'tok-123', newPassword: 'Secret1!x' } },
    ]);
    await user.click(screen.getByRole('button', { name: /Back/ }));
    expect(screen.getByRole('heading', { name: 'Login screen' })).toBeTruthy();
  });

  test('a refused token shows the set failure with the server reason', async () => {
    mockFetch(() => ({ status: 400, body: { message: PASSWORD_FLOW_MESSAGES.invalidToken } }));
    const user = renderAt('/set-password?token=old');
    await user.type(screen.getByLabelText('New password'), 'Secret1!x');
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
