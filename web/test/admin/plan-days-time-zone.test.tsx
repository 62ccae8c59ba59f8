import type { AdminBillingPlanView } from '@osint/contract/admin';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { afterAll, afterEach, expect, test } from 'vitest';
import { BannerProvider } from '../../src/components/message-banner';
import { EndPlanModal } from '../../src/features/admin/end-plan-modal';

// An admin in Jerusalem, where midnight is 22:00 UTC the day before. Set before any date is formatted
// in this file (formatters are made, and keep their zone, on first use).
const previousZone = process.env.TZ;
process.env.TZ = 'Asia/Jerusalem';
afterAll(() => {
  process.env.TZ = previousZone;
});
afterEach(cleanup);

test("plan days are the owner's calendar days (UTC), whatever the admin's time zone", () => {
  // A plan stored from 9 Mar 22:00 UTC: the owner's pages and the invoices say 9 Mar, and so does this.
  const plan: AdminBillingPlanView = {
    id: 1,
    planType: 'VIRTUAL',
    startDate: '2026-03-09T22:00:00.000Z',
    endDate: '2026-04-10T21:00:00.000Z',
    seatLimit: 3,
    createdAt: '2026-03-01T00:00:00.000Z',
    state: 'FUTURE',
    endedEarly: null,
    cardSubscription: null,
  };
  render(
    <QueryClientProvider client={new QueryClient()}>
      <BannerProvider>
        <EndPlanModal organizationId={7} plan={plan} otherPlans={[]} onClose={() => undefined} />
      </BannerProvider>
    </QueryClientProvider>,
  );
  expect(new Date('2026-03-09T22:00:00.000Z').getDate()).toBe(10); // the zone is in effect
  expect(screen.getByRole('dialog').textContent).toContain('(9 Mar 2026 – 10 Apr 2026)');
});
