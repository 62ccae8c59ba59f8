import type { OrganizationData, UserInfo } from '@osint/contract/api-types';
import { blockedDomainMessage } from '@osint/contract/email';
import {
  CHANGE_PASSWORD_MESSAGES,
  DELETE_ACCOUNT_MESSAGES,
  INVITE_MESSAGES,
  TEAM_MESSAGES,
  type OrganizationUser,
} from '@osint/contract/team';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { ToastRegion } from '../../src/components/toast-region';
import { mockFetch, type RecordedCall } from '../auth/fetch-mock';

const DAY = 86_400_000;
const session: { current: { user: UserInfo; organization: OrganizationData } | null } = { current: null };
const refresh = vi.fn(async () => undefined);
const logout = vi.fn(async () => undefined);
vi.mock('../../src/lib/session.tsx', () => ({
  useSession: () => ({ session: session.current, refresh, logout }),
}));

const { AccountPage } = await import('../../src/features/account/account-page');

function signedIn(options: {
  owner: boolean;
  planType?: 'TRIAL' | 'SUBSCRIPTION' | null;
  seatLimit?: number;
}) {
  const plan =
    options.planType === null
      ? null
      : {
          planType: options.planType ?? 'TRIAL',
          seatLimit: options.seatLimit ?? 1,
          startDate: new Date(Date.now() - DAY).toISOString(),
          endDate: new Date(Date.now() + 6 * DAY).toISOString(),
        };
  session.current = {
    user: {
      access: true,
      restricted: plan?.planType === 'TRIAL',
      userRole: options.owner ? 'OWNER' : 'USER',
      admin: false,
      email: options.owner ? 'owner@agency.example.org' : 'analyst@agency.example.org',
      hashedId: options.owner ? 'owner-id' : 'analyst-id',
      organizationId: 7,
      isOwner: options.owner,
      newsletter: false,
      planActive: plan !== null,
      organizationBlocked: false,
    },
    organization: {
      organizationId: 7,
      name: 'Harbour Agency',
      link: 'https://agency.example.org',
      type: 'police',
      isOwner: options.owner,
      activeBillingPlan: plan,
    },
  };
}

const member = (hashedId: string, patch: Partial<OrganizationUser> = {}): OrganizationUser => ({
  hashedId,
  email: `${hashedId}@agency.example.org`,
  access: false,
  status: 'ACTIVE',
  userRole: 'USER',
  organization: { id: 7 },
  createdAt: '2024-05-01T10:00:00.000Z',
  lastActiveAt: null,
  ...patch,
});

type Answer = { status: number; body?: unknown };

/** A small server: the users list, billing answers (404 unless given) and the calls' answers. */
function serve(options: {
  users?: OrganizationUser[];
  plans?: unknown;
  orders?: unknown;
  answer?: (call: RecordedCall) => Answer | undefined;
}) {
  return mockFetch((call) => {
    const custom = options.answer?.(call);
    if (custom) return custom;
    if (call.url.startsWith('/api/user/organization/users'))
      return { status: 200, body: options.users ?? [] };
    if (call.url.startsWith('/api/user/organization/audit'))
      return { status: 200, body: { entries: [], totalResultCount: 0 } };
    if (call.url.startsWith('/api/user/organization/all-billing-plans'))
      return options.plans ? { status: 200, body: options.plans } : { status: 404, body: {} };
    if (call.url.startsWith('/api/user/organization/orders'))
      return options.orders ? { status: 200, body: options.orders } : { status: 404, body: {} };
    return { status: 200, body: {} };
  });
}

function renderAccount() {
  const user = userEvent.setup();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <BannerProvider>
        <MemoryRouter initialEntries={['/account']}>
          <ToastRegion />
          <Routes>
            <Route path="/account" element={<AccountPage />} />
            <Route path="/login" element={<h1>Login screen</h1>} />
            <Route path="/pricing" element={<h1>Pricing screen</h1>} />
          </Routes>
        </MemoryRouter>
      </BannerProvider>
    </QueryClientProvider>,
  );
  return user;
}

const rowOf = (email: string) => screen.getByText(email).closest('tr')!;

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
  refresh.mockClear();
  logout.mockClear();
});

describe('account page: the owner’s users and seats', () => {
  const trialUsers = () => [
    member('owner-id', { userRole: 'OWNER', access: true }),
    member('pending', { status: 'PENDING' }),
    member('idle'),
  ];

  test('shows the trial, seat usage, and the action of each user state', async () => {
    signedIn({ owner: true });
    serve({ users: [...trialUsers(), member('blocked', { status: 'BLOCKED' })] });
    renderAccount();
    expect(await screen.findByRole('heading', { name: 'Free Trial' })).toBeTruthy();
    expect(await screen.findByText('pending@agency.example.org')).toBeTruthy();
    expect(screen.getByTestId('seat-usage').textContent).toBe('1 / 1');
    expect(
      within(rowOf('owner-id@agency.example.org')).getByRole('button', { name: /Remove access/ }),
    ).toBeTruthy();
    expect(within(rowOf('owner-id@agency.example.org')).getByText('You')).toBeTruthy();
    expect(within(rowOf('pending@agency.example.org')).getByText(TEAM_MESSAGES.invitationSent)).toBeTruthy();
    expect(within(rowOf('idle@agency.example.org')).getByText(TEAM_MESSAGES.noSeatsLeft)).toBeTruthy();
    // Delete only for users without access, not pending, not owner.
    expect(within(rowOf('idle@agency.example.org')).getByRole('button', { name: /Delete/ })).toBeTruthy();
    expect(within(rowOf('pending@agency.example.org')).queryByRole('button', { name: /Delete/ })).toBeNull();
    expect(within(rowOf('owner-id@agency.example.org')).queryByRole('button', { name: /Delete/ })).toBeNull();
    // Nor for a user the platform blocked: deleting them would free the address to be invited again.
    expect(within(rowOf('blocked@agency.example.org')).queryByRole('button', { name: /Delete/ })).toBeNull();
    // A trial alone shows no subscription panel.
    expect(screen.queryByRole('heading', { name: 'My Subscription' })).toBeNull();
  });

  test('checks the invitation address, then shows every answer of the server', async () => {
    signedIn({ owner: true });
    let status = 409;
    const { calls } = serve({
      users: trialUsers(),
      answer: (call) => (call.url === '/api/user/invite' ? { status, body: { message: 'x' } } : undefined),
    });
    const user = renderAccount();
    const field = await screen.findByLabelText('Invite a user');
    const send = screen.getByRole('button', { name: 'Send invitation' });
    await user.click(send);
    expect(screen.getByText(INVITE_MESSAGES.emailRequired)).toBeTruthy();
    await user.type(field, 'not-an-address');
    await user.click(send);
    expect(screen.getByText(INVITE_MESSAGES.emailFormat)).toBeTruthy();
    await user.clear(field);
    await user.type(field, 'someone@gmail.com');
    await user.click(send);
    expect(screen.getByText(blockedDomainMessage('gmail.com'))).toBeTruthy();
    expect(calls.filter((c) => c.url === '/api/user/invite')).toHaveLength(0);

    await user.clear(field);
    await user.type(field, 'new@agency.example.org');
    await user.click(send);
    expect(await screen.findByText(INVITE_MESSAGES.exists)).toBeTruthy();
    status = 500;
    await user.click(send);
    expect(await screen.findByText(INVITE_MESSAGES.failure)).toBeTruthy();
    status = 200;
    await user.click(send);
    expect(await screen.findByText(INVITE_MESSAGES.success)).toBeTruthy();
    // The trial's one seat is taken: the invitation cannot give access now, and says why.
    const giveNow = screen.getByRole('checkbox', { name: 'Give access now' }) as HTMLInputElement;
    expect(giveNow.disabled).toBe(true);
    expect(giveNow.checked).toBe(false);
    expect(
      screen.getByText(/No seats left: the new user can be given access once a seat is free/),
    ).toBeTruthy();
    expect(calls.filter((c) => c.url === '/api/user/invite').at(-1)!.body).toEqual({
      email: 'new@agency.example.org',
      giveAccess: false,
    });
    expect((field as HTMLInputElement).value).toBe('');
  });

  test('with a seat free, the invitation gives access now unless the owner unticks it', async () => {
    signedIn({ owner: true, planType: 'SUBSCRIPTION', seatLimit: 4 });
    const { calls } = serve({
      users: trialUsers(),
      answer: (call) => (call.url === '/api/user/invite' ? { status: 200, body: {} } : undefined),
    });
    const user = renderAccount();
    const field = await screen.findByLabelText('Invite a user');
    const giveNow = (await screen.findByRole('checkbox', { name: 'Give access now' })) as HTMLInputElement;
    await waitFor(() => expect(giveNow.disabled).toBe(false));
    expect(giveNow.checked).toBe(true);
    await user.type(field, 'first@agency.example.org');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    await screen.findByText(INVITE_MESSAGES.success);
    await user.click(giveNow);
    await user.type(field, 'second@agency.example.org');
    await user.click(screen.getByRole('button', { name: 'Send invitation' }));
    await waitFor(() => expect(calls.filter((c) => c.url === '/api/user/invite')).toHaveLength(2));
    expect(calls.filter((c) => c.url === '/api/user/invite').map((c) => c.body)).toEqual([
      { email: 'first@agency.example.org', giveAccess: true },
      { email: 'second@agency.example.org', giveAccess: false },
    ]);
  });

  test('gives and removes access with the messages of the specification', async () => {
    signedIn({ owner: true, planType: 'SUBSCRIPTION', seatLimit: 3 });
    let giveStatus = 400;
    const { calls } = serve({
      users: [
        member('owner-id', { userRole: 'OWNER', access: true }),
        member('idle'),
        member('seated', { access: true }),
      ],
      answer: (call) =>
        call.url === '/api/user/give'
          ? { status: giveStatus, body: { message: 'x' } }
          : call.url === '/api/user/remove'
            ? { status: 500, body: { message: 'x' } }
            : undefined,
    });
    const user = renderAccount();
    await screen.findByText('idle@agency.example.org');
    expect(screen.getByTestId('seat-usage').textContent).toBe('2 / 3');
    const give = within(rowOf('idle@agency.example.org')).getByRole('button', { name: /Give access/ });
    await user.click(give);
    expect(await screen.findByText(TEAM_MESSAGES.capacityReached)).toBeTruthy();
    giveStatus = 500;
    await user.click(give);
    expect(await screen.findByText(TEAM_MESSAGES.giveFailure)).toBeTruthy();
    giveStatus = 200;
    await user.click(give);
    expect(await screen.findByText(TEAM_MESSAGES.giveSuccess)).toBeTruthy();
    expect(calls.find((c) => c.url === '/api/user/give')!.body).toEqual({
      userHashedId: 'idle',
      organizationId: 7,
    });
    await user.click(
      within(rowOf('seated@agency.example.org')).getByRole('button', { name: /Remove access/ }),
    );
    expect(await screen.findByText(TEAM_MESSAGES.removeFailure)).toBeTruthy();
  });

  test('the owner confirms removing their own seat, then user data is fetched again', async () => {
    signedIn({ owner: true });
    serve({ users: trialUsers() });
    const user = renderAccount();
    await screen.findByText('idle@agency.example.org');
    await user.click(
      within(rowOf('owner-id@agency.example.org')).getByRole('button', { name: /Remove access/ }),
    );
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Remove my access' }));
    expect(await screen.findByText(TEAM_MESSAGES.removeSuccess)).toBeTruthy();
    await waitFor(() => expect(refresh).toHaveBeenCalled());
  });

  test('deletes a user after confirmation', async () => {
    signedIn({ owner: true });
    let status = 500;
    const { calls } = serve({
      users: trialUsers(),
      answer: (call) => (call.method === 'DELETE' ? { status, body: {} } : undefined),
    });
    const user = renderAccount();
    await screen.findByText('idle@agency.example.org');
    const remove = () => within(rowOf('idle@agency.example.org')).getByRole('button', { name: /Delete/ });
    await user.click(remove());
    expect(within(screen.getByRole('dialog')).getByText(/the face watches it created end/)).toBeTruthy();
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete user' }));
    expect(await screen.findByText(TEAM_MESSAGES.deleteFailure)).toBeTruthy();
    status = 200;
    await user.click(remove());
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete user' }));
    expect(await screen.findByText(TEAM_MESSAGES.deleteSuccess)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      '/api/user/idle',
      '/api/user/idle',
    ]);
  });
  test('withdraws a pending invitation after confirmation, or keeps it', async () => {
    signedIn({ owner: true });
    const { calls } = serve({
      users: trialUsers(),
      answer: (call) => (call.method === 'DELETE' ? { status: 200, body: {} } : undefined),
    });
    const user = renderAccount();
    await screen.findByText('pending@agency.example.org');
    const withdraw = () =>
      within(rowOf('pending@agency.example.org')).getByRole('button', {
        name: `${TEAM_MESSAGES.withdrawInvitation}: pending@agency.example.org`,
      });
    await user.click(withdraw());
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Keep invitation' }));
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await user.click(withdraw());
    const dialog = screen.getByRole('dialog', { name: 'Withdraw this invitation?' });
    expect(within(dialog).getByText(/pending@agency\.example\.org stops working/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: TEAM_MESSAGES.withdrawInvitation }));
    expect(await screen.findByText(TEAM_MESSAGES.withdrawSuccess)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      '/api/user/invitation/pending',
    ]);
  });
});

describe('account page: My Subscription', () => {
  const plan = (planType: string, seatLimit: number) => ({
    id: 1,
    planType,
    seatLimit,
    startDate: '2024-05-01T00:00:00.000Z',
    endDate: '2024-08-01T00:00:00.000Z',
    periodMonths: 3,
    usedSeats: 1,
  });

  test('an active paid plan: ACTIVE with the role badge, period in months and seats used / limit', async () => {
    signedIn({ owner: true, planType: 'SUBSCRIPTION', seatLimit: 4 });
    serve({
      users: [member('owner-id', { userRole: 'OWNER', access: true })],
      plans: {
        activeBillingPlan: plan('SUBSCRIPTION', 4),
        futureBillingPlan: null,
        expiredBillingPlan: null,
      },
      orders: [],
    });
    renderAccount();
    const panel = (await screen.findByRole('heading', { name: 'My Subscription' })).closest('section')!;
    expect(within(panel).getByText('Active')).toBeTruthy();
    expect(within(panel).getByText('Owner')).toBeTruthy();
    expect(within(panel).getByText('Subscription')).toBeTruthy();
    expect(within(panel).getByText('3 months')).toBeTruthy();
    await waitFor(() => expect(within(panel).getByText('1 / 4')).toBeTruthy());
  });

  test('a pending order: CONFIRMING and the proforma invoice', async () => {
    signedIn({ owner: true });
    serve({
      users: [member('owner-id', { userRole: 'OWNER', access: true })],
      plans: { activeBillingPlan: plan('TRIAL', 1), futureBillingPlan: null, expiredBillingPlan: null },
      orders: [
        {
          id: 12,
          orderNumber: 'O-12',
          orderStatus: 'PENDING',
          startDate: '2024-06-01',
          endDate: '2024-09-01',
          months: 3,
          seatLimit: 4,
          amount: 750,
          createdAt: '2024-05-02T00:00:00.000Z',
        },
      ],
    });
    renderAccount();
    const panel = (await screen.findByRole('heading', { name: 'My Subscription' })).closest('section')!;
    expect(within(panel).getByText('CONFIRMING')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Download proforma invoice' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Free Trial' })).toBeTruthy();
  });

  test('a future plan shows APPROVED; without any plan the owner is asked to renew', async () => {
    signedIn({ owner: true });
    serve({
      users: [],
      plans: {
        activeBillingPlan: plan('TRIAL', 1),
        futureBillingPlan: plan('ONE_TIME_PAYMENT', 4),
        expiredBillingPlan: null,
      },
      orders: [],
    });
    renderAccount();
    expect(await screen.findByText('APPROVED')).toBeTruthy();
    cleanup();

    signedIn({ owner: true, planType: null });
    serve({ users: [] });
    renderAccount();
    const panel = (await screen.findByRole('heading', { name: 'My Subscription' })).closest('section')!;
    expect(within(panel).getByText('Expired')).toBeTruthy();
    expect(within(panel).getByRole('link', { name: 'Renew your plan' }).getAttribute('href')).toBe(
      '/pricing',
    );
  });

  test('users who are not owners see neither billing nor the users list', async () => {
    signedIn({ owner: false });
    const { calls } = serve({});
    renderAccount();
    expect(await screen.findByRole('heading', { name: 'Change password' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Free Trial' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Users' })).toBeNull();
    expect(calls).toHaveLength(0);
  });
});

describe('account page: settings', () => {
  test('changes the password: disabled while invalid, field and banner messages, success', async () => {
    signedIn({ owner: false });
    let answer: Answer = {
      status: 400,
      body: {
        message: 'x',
        violations: [{ field: 'currentPassword', message: 'The current password is incorrect.' }],
      },
    };
    const { calls } = serve({
      answer: (call) => (call.url === '/api/user/change-password' ? answer : undefined),
    });
    const user = renderAccount();
    const save = await screen.findByRole('button', { name: 'Save password' });
    await user.type(screen.getByLabelText('New password'), 'weak');
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await user.type(screen.getByLabelText('New password'), 'Pass.Word9');
    expect((save as HTMLButtonElement).disabled).toBe(false);
    await user.click(save);
    expect(screen.getByText(CHANGE_PASSWORD_MESSAGES.currentRequired)).toBeTruthy();
    expect(calls).toHaveLength(0);

    const current = screen.getAllByLabelText('Current password')[0]!;
    await user.type(current, 'Old.Password1');
    await user.click(save);
    expect(await screen.findByText('The current password is incorrect.')).toBeTruthy();
    expect(await screen.findByText(CHANGE_PASSWORD_MESSAGES.failure)).toBeTruthy();
    answer = { status: 200, body: {} };
    await user.click(save);
    expect(await screen.findByText(CHANGE_PASSWORD_MESSAGES.success)).toBeTruthy();
    expect(calls.at(-1)!.body).toEqual({ currentPassword: 'Old.Password1', newPassword: 'weakPass.Word9' });
  });

  test('an owner cannot delete the account', async () => {
    signedIn({ owner: true });
    serve({ users: [] });
    renderAccount();
    expect(await screen.findByText(DELETE_ACCOUNT_MESSAGES.ownerNotAllowed)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Delete Account' })).toBeNull();
  });

  test('deletes the account: wrong password, failure, then the 10-second return to login', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signedIn({ owner: false });
    let answer: Answer = { status: 403, body: { message: 'x' } };
    serve({ answer: (call) => (call.url === '/api/user/delete' ? answer : undefined) });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderAccount();
    const button = await screen.findByRole('button', { name: 'Delete Account' });
    expect(screen.getByText(/the face watches you created end/)).toBeTruthy();
    await user.click(button);
    expect(screen.getByText(DELETE_ACCOUNT_MESSAGES.passwordRequired)).toBeTruthy();
    const password = screen.getAllByLabelText('Current password')[1]!;
    await user.type(password, 'Wrong.Pass1');
    await user.click(button);
    expect(await screen.findByText(DELETE_ACCOUNT_MESSAGES.wrongPassword)).toBeTruthy();
    answer = { status: 500, body: { message: 'x' } };
    await user.click(button);
    expect(await screen.findByText(DELETE_ACCOUNT_MESSAGES.failure)).toBeTruthy();

    answer = { status: 200, body: {} };
    await user.click(button);
    expect(
      await screen.findByText('Your account has been deleted. You will return to login in 10 seconds.'),
    ).toBeTruthy();
    // One second at a time: each tick renders the countdown, which sets the next timer.
    for (let second = 1; second < 10; second++) await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(screen.getByText('Returning to login in 1 s.')).toBeTruthy();
    expect(logout).not.toHaveBeenCalled();
    expect(screen.queryByRole('heading', { name: 'Login screen' })).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await waitFor(() => expect(logout).toHaveBeenCalled());
    expect(await screen.findByRole('heading', { name: 'Login screen' })).toBeTruthy();
  });
});
