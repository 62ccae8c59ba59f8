import { LOGIN_MESSAGES } from '@osint/contract/validation';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ApiError } from '../../src/lib/api-client';

const login = vi.fn<(mail: string, password: string) => Promise<void>>();
vi.mock('../../src/lib/session.tsx', () => ({ useSession: () => ({ login }) }));

const { LoginPage } = await import('../../src/features/auth/login-page');

function renderLogin(state?: unknown) {
  const user = userEvent.setup();
  render(
    <MemoryRouter initialEntries={[{ pathname: '/login', state }]}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/home" element={<h1>Home screen</h1>} />
        <Route path="/search" element={<h1>Search screen</h1>} />
      </Routes>
    </MemoryRouter>,
  );
  return user;
}

async function signIn(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Email'), 'analyst@acme-intel.com');
  await user.type(screen.getByLabelText('Password'), 'whatever');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

afterEach(() => {
  cleanup();
  login.mockReset();
});

describe('LoginPage', () => {
  test('validates before calling the server', async () => {
    const user = renderLogin();
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText(LOGIN_MESSAGES.emailRequired)).toBeTruthy();
    expect(screen.getByText(LOGIN_MESSAGES.passwordRequired)).toBeTruthy();
    await user.type(screen.getByLabelText('Email'), 'nope');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText(LOGIN_MESSAGES.emailFormat)).toBeTruthy();
    expect(login).not.toHaveBeenCalled();
  });

  test.each([
    [401, 'Unauthorized', LOGIN_MESSAGES.wrongCredentials],
    [403, 'Forbidden', LOGIN_MESSAGES.notApproved],
    [
      429,
      'Too many attempts. Please wait a few minutes and try again.',
      'Too many attempts. Please wait a few minutes and try again.',
    ],
    [500, 'Internal Server Error', LOGIN_MESSAGES.failure],
  ])('a %i answer shows its message', async (status, serverMessage, shown) => {
    login.mockRejectedValue(new ApiError(status, serverMessage));
    const user = renderLogin();
    await signIn(user);
    expect((await screen.findByRole('alert')).textContent).toContain(shown);
  });

  test('a network failure shows the generic message', async () => {
    login.mockRejectedValue(new TypeError('Failed to fetch'));
    const user = renderLogin();
    await signIn(user);
    expect(await screen.findByText(LOGIN_MESSAGES.failure)).toBeTruthy();
  });

  test('goes to /home after signing in, or back where the user came from', async () => {
    login.mockResolvedValue();
    let user = renderLogin();
    await signIn(user);
    expect(await screen.findByRole('heading', { name: 'Home screen' })).toBeTruthy();
    expect(login).toHaveBeenCalledWith('analyst@acme-intel.com', 'whatever');
    cleanup();

    user = renderLogin({ from: '/search' });
    await signIn(user);
    expect(await screen.findByRole('heading', { name: 'Search screen' })).toBeTruthy();
  });

  test('never follows a return path to another site', async () => {
    login.mockResolvedValue();
    const user = renderLogin({ from: '//evil.example/path' });
    await signIn(user);
    expect(await screen.findByRole('heading', { name: 'Home screen' })).toBeTruthy();
  });

  test('links to password recovery and registration', () => {
    renderLogin();
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe(
      '/forgot-password',
    );
    expect(screen.getByRole('link', { name: /Request access/ }).getAttribute('href')).toBe('/register');
  });
});
