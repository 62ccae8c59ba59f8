import { cleanup, screen, within } from '@testing-library/react';
import { Route } from 'react-router';
import { afterEach, expect, test, vi } from 'vitest';
import { mockFetch } from '../auth/fetch-mock';
import { renderRoutes } from '../search/render-routes';

const { AdminOrderPage } = await import('../../src/features/billing-admin/admin-orders-pages');

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const organizationName = 'משטרת ישראל – יחידה 5';
const order = {
  id: 7,
  orderNumber: 'ORD-7',
  orderStatus: 'PENDING',
  paymentMethod: 'BANK_TRANSFER',
  planKind: 'FIXED_PERIOD',
  startDate: '2026-12-01',
  endDate: '2027-03-01',
  months: 3,
  seatLimit: 2,
  basePrice: 300,
  additionalUserFee: 150,
  discount: 0,
  amount: 1200,
  currency: 'USD',
  orderType: 'NEW',
  addedUsers: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  paidAt: null,
  finalInvoiceNumber: null,
  invoiceNumber: 'PRO-7',
  organization: { id: 3, name: organizationName },
  buyer: null,
  fastspringOrderId: null,
  plan: null,
  payments: [],
};

test('a Hebrew organization name is isolated where the admin confirms a payment, so the amount stays put', async () => {
  mockFetch(() => ({ status: 200, body: order }));
  const user = renderRoutes(
    <Route path="/admin/orders/:id" element={<AdminOrderPage />} />,
    '/admin/orders/7',
  );
  const lead = await screen.findByText(organizationName, { selector: 'bdi' });
  expect(lead.tagName).toBe('BDI');
  await user.click(screen.getByRole('button', { name: 'Mark as paid' }));
  const dialog = screen.getByRole('dialog', { name: 'Mark this order as paid?' });
  const name = within(dialog).getByText(organizationName, { selector: 'bdi' });
  // The amount is outside the isolated name, after it.
  expect(name.parentElement!.textContent).toBe(`ORD-7 · ${organizationName} · $1,200 USD`);
});
