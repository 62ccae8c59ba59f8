import { VERIFY_EMAIL_MESSAGES } from '@osint/contract/constants';
import { REGISTER_MESSAGES } from '@osint/contract/validation';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { RegisterPage } from '../../src/features/auth/register-page';
import { mockFetch } from './fetch-mock';

const VALID_PASSWORD = 'Secret1!pass';

function renderPage() {
  const user = userEvent.setup();
  render(
    <MemoryRouter>
      <RegisterPage />
    </MemoryRouter>,
  );
  return user;
}

const checkbox = (name: RegExp | string) => screen.getByRole('checkbox', { name });
const submit = () => screen.getByRole('button', { name: 'Register' });

async function fillValidForm(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Email'), 'owner@acme-intel.com');
  await user.type(screen.getByLabelText('Password'), VALID_PASSWORD);
  await user.type(screen.getByLabelText('Organization name'), 'Acme Intelligence');
  await user.type(screen.getByLabelText('Organization link'), 'acme-intel.com');
  await user.click(screen.getByRole('button', { name: /Organization type/ }));
  await user.click(screen.getByRole('option', { name: 'Government Agency' }));
  await user.click(checkbox('Accept all'));
}

beforeEach(() => {
  // The confirmation screen scrolls to the top; jsdom has no layout to scroll.
  vi.spyOn(window, 'scrollTo').mockImplementation(() => undefined);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('RegisterPage agreements', () => {
  test('Accept all ticks and clears the required agreements only, never the newsletter', async () => {
    const user = renderPage();
    const boxes = [checkbox(/Terms of Service/), checkbox(/Privacy Policy/), checkbox(/newsletter/)];
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([false, false, false]);

    await user.click(checkbox('Accept all'));
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([true, true, false]);

    // Unticking a required box means "all" is no longer true.
    await user.click(boxes[1]!);
    expect((checkbox('Accept all') as HTMLInputElement).checked).toBe(false);
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([true, false, false]);

    // Ticking it by hand makes "all" true again; the newsletter is the user's own choice either way.
    await user.click(boxes[1]!);
    expect((checkbox('Accept all') as HTMLInputElement).checked).toBe(true);
    await user.click(boxes[2]!);
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([true, true, true]);

    await user.click(checkbox('Accept all'));
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([false, false, true]);
  });

  test('the legal documents open in a new tab so the form is kept', () => {
    renderPage();
    const terms = screen.getByRole('link', { name: 'Terms of Service' });
    const privacy = screen.getByRole('link', { name: 'Privacy Policy' });
    expect(terms.getAttribute('href')).toBe('/terms-of-service');
    expect(privacy.getAttribute('href')).toBe('/privacy-policy');
    expect(terms.getAttribute('target')).toBe('_blank');
  });
});

describe('RegisterPage validation', () => {
  test('the submit button stays disabled until the password meets every rule', async () => {
    const user = renderPage();
    expect((submit() as HTMLButtonElement).disabled).toBe(true);
    await user.type(screen.getByLabelText('Password'), 'Secret1');
    expect((submit() as HTMLButtonElement).disabled).toBe(true);
    await user.type(screen.getByLabelText('Password'), '!');
    expect((submit() as HTMLButtonElement).disabled).toBe(false);
  });

  test('shows every message word for word and clears only the edited field', async () => {
    const { calls } = mockFetch(() => ({ status: 201, body: {} }));
    const user = renderPage();
    await user.type(screen.getByLabelText('Password'), VALID_PASSWORD);
    await user.click(submit());

    for (const message of [
      REGISTER_MESSAGES.emailRequired,
      REGISTER_MESSAGES.organizationNameRequired,
      REGISTER_MESSAGES.linkRequired,
      REGISTER_MESSAGES.typeRequired,
      'Please accept the Terms of Service.',
      'Please accept the Privacy Policy.',
    ]) {
      expect(screen.getByText(message)).toBeTruthy();
    }
    expect(calls).toHaveLength(0);

    await user.type(screen.getByLabelText('Email'), 'o');
    expect(screen.queryByText(REGISTER_MESSAGES.emailRequired)).toBeNull();
    expect(screen.getByText(REGISTER_MESSAGES.organizationNameRequired)).toBeTruthy();

    await user.type(screen.getByLabelText('Organization link'), 'x');
    expect(screen.queryByText(REGISTER_MESSAGES.linkRequired)).toBeNull();

    await user.click(screen.getByRole('button', { name: /Organization type/ }));
    await user.click(screen.getByRole('option', { name: 'Police' }));
    expect(screen.queryByText(REGISTER_MESSAGES.typeRequired)).toBeNull();

    await user.click(checkbox(/Terms of Service/));
    expect(screen.queryByText('Please accept the Terms of Service.')).toBeNull();
    expect(screen.getByText('Please accept the Privacy Policy.')).toBeTruthy();
    expect(screen.getByText(REGISTER_MESSAGES.organizationNameRequired)).toBeTruthy();
  });

  test('format and blocked-provider messages', async () => {
    const user = renderPage();
    await user.type(screen.getByLabelText('Email'), 'someone@gmail.com');
    await user.type(screen.getByLabelText('Password'), VALID_PASSWORD);
    await user.type(screen.getByLabelText('Organization link'), 'not a url');
    await user.click(submit());
    expect(
      screen.getByText("We don't support emails from 'gmail.com'. Please use a different email provider."),
    ).toBeTruthy();
    expect(screen.getByText(REGISTER_MESSAGES.linkFormat)).toBeTruthy();

    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'no-at-sign');
    await user.click(submit());
    expect(screen.getByText(REGISTER_MESSAGES.emailFormat)).toBeTruthy();
  });
});

describe('RegisterPage with the server', () => {
  test('sends the registration and shows the confirm-e-mail screen with a working resend', async () => {
    const { calls } = mockFetch((call) =>
      call.url.endsWith('/register') ? { status: 201, body: {} } : { status: 200, body: {} },
    );
    const user = renderPage();
    await fillValidForm(user);
    await user.click(submit());

    expect(await screen.findByRole('heading', { name: 'Your registration is almost done' })).toBeTruthy();
    expect(screen.getByText(/valid for 24 hours/)).toBeTruthy();
    expect(calls[0]).toEqual({
      url: '/api/user/register',
      method: 'POST',
      body: {
        mail: 'owner@acme-intel.com',
        password: VALID_PASSWORD,
        organizationName: 'Acme Intelligence',
        organizationLink: 'acme-intel.com',
        organizationType: 'government',
        newsletter: false,
      },
    });

    await user.click(screen.getByRole('button', { name: 'Resend e-mail' }));
    expect(await screen.findByText(VERIFY_EMAIL_MESSAGES.resendSuccess)).toBeTruthy();
    expect(calls[1]).toMatchObject({
      url: '/api/user/resend-verification',
      body: { mail: 'owner@acme-intel.com' },
    });
  });

  test('a failed resend says so', async () => {
    mockFetch((call) =>
      call.url.endsWith('/register') ? { status: 201, body: {} } : { status: 500, body: {} },
    );
    const user = renderPage();
    await fillValidForm(user);
    await user.click(submit());
    await user.click(await screen.findByRole('button', { name: 'Resend e-mail' }));
    expect(await screen.findByText(VERIFY_EMAIL_MESSAGES.resendFailure)).toBeTruthy();
  });

  test('server violations land on their fields, organizationUrl on the link field', async () => {
    mockFetch(() => ({
      status: 400,
      body: {
        message: 'Please correct the highlighted fields.',
        violations: [
          { field: 'email', message: REGISTER_MESSAGES.emailFormat },
          { field: 'organizationUrl', message: REGISTER_MESSAGES.linkFormat },
        ],
      },
    }));
    const user = renderPage();
    await fillValidForm(user);
    await user.click(submit());

    const emailField = (await screen.findByText(REGISTER_MESSAGES.emailFormat)).closest('.field');
    expect(within(emailField as HTMLElement).getByLabelText('Email')).toBeTruthy();
    const linkField = screen.getByText(REGISTER_MESSAGES.linkFormat).closest('.field');
    expect(within(linkField as HTMLElement).getByLabelText('Organization link')).toBeTruthy();
    expect(screen.queryByText(REGISTER_MESSAGES.failure)).toBeNull();
  });

  test('any other failure shows the generic registration error', async () => {
    mockFetch(() => ({ status: 500, body: { message: 'Internal Server Error' } }));
    const user = renderPage();
    await fillValidForm(user);
    await user.click(submit());
    expect(await screen.findByText(REGISTER_MESSAGES.failure)).toBeTruthy();
  });
});
