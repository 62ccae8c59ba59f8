import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { LOGIN_MESSAGES, PASSWORD_FLOW_MESSAGES } from '@osint/contract/validation';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ForgotPasswordPage } from '../../src/features/auth/forgot-password-page';
import { VerifyEmailPage } from '../../src/features/auth/verify-email-page';
import { mockFetch } from './fetch-mock';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function renderVerify(path: string) {
  render(
    <StrictMode>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/verify-email/:verificationHash?" element={<VerifyEmailPage />} />
        </Routes>
      </MemoryRouter>
    </StrictMode>,
  );
}

describe('VerifyEmailPage', () => {
  test('without a hash it says the code is missing and posts nothing', () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    renderVerify('/verify-email');
    expect(screen.getByText(VERIFY_EMAIL_MESSAGES.missingHash)).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  test('posts the hash once, even under StrictMode, and shows the pending-approval success', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    renderVerify('/verify-email/h4sh');
    expect(screen.getByText('LOADING')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Registration Successful' })).toBeTruthy();
    expect(screen.getByText(/verify your organization/)).toBeTruthy();
    expect(calls).toEqual([{ url: '/api/user/validate/h4sh', method: 'POST', body: undefined }]);
  });

  test('409 (already confirmed) counts as success', async () => {
    mockFetch(() => ({ status: 409, body: { message: 'This e-mail address has already been confirmed.' } }));
    renderVerify('/verify-email/used');
    expect(await screen.findByRole('heading', { name: 'Registration Successful' })).toBeTruthy();
  });

  test('400 shows the invalid-code message with a way to register again', async () => {
    mockFetch(() => ({ status: 400, body: { message: VERIFY_EMAIL_MESSAGES.invalidHash } }));
    renderVerify('/verify-email/bad');
    expect(await screen.findByText(VERIFY_EMAIL_MESSAGES.invalidHash)).toBeTruthy();
    expect(screen.getAllByRole('link', { name: 'Register again' })[0]?.getAttribute('href')).toBe(
      '/register',
    );
  });
});

describe('ForgotPasswordPage', () => {
  function renderForgot() {
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <ForgotPasswordPage />
      </MemoryRouter>,
    );
    return user;
  }

  test('checks the e-mail format before sending', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    const user = renderForgot();
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(screen.getByText(LOGIN_MESSAGES.emailFormat)).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  test('confirms the link was sent', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    const user = renderForgot();
    await user.type(screen.getByLabelText('Email'), 'analyst@acme-intel.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.forgotSuccess)).toBeTruthy();
    expect(calls[0]).toEqual({
      url: '/api/user/request-reset',
      method: 'POST',
      body: { email: 'analyst@acme-intel.com' },
    });
  });

  test('reports a failure', async () => {
    mockFetch(() => ({ status: 500, body: {} }));
    const user = renderForgot();
    await user.type(screen.getByLabelText('Email'), 'analyst@acme-intel.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(PASSWORD_FLOW_MESSAGES.forgotFailure)).toBeTruthy();
  });
});
