import type { AdminBillingPlanView } from '@osint/contract/admin';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, test } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { EndPlanModal } from '../../src/features/admin/end-plan-modal';

afterEach(cleanup);

const plan = (overrides: Partial<AdminBillingPlanView>): AdminBillingPlanView => ({
  id: 1,
  planType: 'SUBSCRIPTION',
  startDate: '2026-11-20T00:00:00.000Z',
  endDate: '2026-12-20T00:00:00.000Z',
  seatLimit: 3,
  createdAt: '2026-11-20T00:00:00.000Z',
  state: 'ACTIVE',
  endedEarly: null,
  cardSubscription: null,
  ...overrides,
});

function renderModal(ending: AdminBillingPlanView, otherPlans: AdminBillingPlanView[]) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <BannerProvider>
        <EndPlanModal organizationId={7} plan={ending} otherPlans={otherPlans} onClose={() => undefined} />
      </BannerProvider>
    </QueryClientProvider>,
  );
  return screen.getByRole('dialog');
}

test('ending the plan in force says so when a superseded paid plan takes over, instead of "lose access"', () => {
  const virtual = plan({
    id: 2,
    planType: 'VIRTUAL',
    state: 'SUPERSEDED',
    endDate: '2026-11-27T00:00:00.000Z',
  });
  const dialog = renderModal(plan({}), [virtual]);
  expect(dialog.textContent).not.toContain('lose search access');
  expect(dialog.textContent).toContain(
    'The organization’s fixed period plan also covers today (until 27 Nov 2026): its users keep that plan’s access. End it too to remove all access.',
  );
});

test('the trial a paid plan replaced does not take over: ending the paid plan ends access', () => {
  const trial = plan({ id: 2, planType: 'TRIAL', state: 'SUPERSEDED', endDate: '2026-11-27T00:00:00.000Z' });
  const dialog = renderModal(plan({}), [trial]);
  expect(dialog.textContent).toContain('ends now: the organization’s users lose search access at once.');
  expect(dialog.textContent).not.toContain('also covers today');
});

test('with no other plan covering today, its users lose access at once', () => {
  const expired = plan({ id: 2, planType: 'TRIAL', state: 'EXPIRED' });
  const dialog = renderModal(plan({}), [expired]);
  expect(dialog.textContent).toContain('ends now: the organization’s users lose search access at once.');
  expect(dialog.textContent).not.toContain('also covers today');
});

test('a card subscription is said to be cancelled at FastSpring, or to need cancelling there', () => {
  const card = { id: 'SUB-1', cancelRequestedAt: null, cancelledAt: null, cancelError: null };
  let dialog = renderModal(plan({ cardSubscription: { ...card, cancelledOnEnd: true } }), []);
  expect(dialog.textContent).toContain(
    'Its card subscription (SUB-1) will be cancelled at FastSpring, so the card is not charged again.',
  );
  cleanup();
  dialog = renderModal(plan({ cardSubscription: { ...card, cancelledOnEnd: false } }), []);
  expect(dialog.textContent).toContain('Cancel its card subscription (SUB-1) in FastSpring’s app too');
});
