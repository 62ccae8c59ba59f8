import { BILLING_MESSAGES, type OrderDto } from '@osint/contract/pricing';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, test, vi } from 'vitest';
import { InvoicesPanel } from '../../src/features/account/invoices-panel';
import { mockFetch } from '../auth/fetch-mock';

const PAID: OrderDto = {
  id: 41,
  orderNumber: '2026-000041',
  orderStatus: 'COMPLETED',
  paymentMethod: 'BANK_TRANSFER',
  planKind: 'FIXED',
  startDate: '2026-12-01',
  endDate: '2027-12-01',
  months: 12,
  seatLimit: 1,
  basePrice: 1200,
  additionalUserFee: 0,
  discount: 240,
  amount: 960,
  currency: 'USD',
  orderType: 'PLAN',
  addedUsers: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  paidAt: '2026-11-22T10:00:00.000Z',
  finalInvoiceNumber: 'INV-2026-000007',
};

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('a download the server answers with 404 says "No order found." (spec 001 §8)', async () => {
  const { calls } = mockFetch(() => ({ status: 404, body: { message: BILLING_MESSAGES.noOrderFound } }));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const user = userEvent.setup();
  render(
    <InvoicesPanel orders={[PAID, { ...PAID, id: 42, paymentMethod: 'CARD', finalInvoiceNumber: null }]} />,
  );
  // Only the paid bank order has an invoice here; card payments are invoiced by the checkout.
  expect(screen.getAllByRole('button', { name: 'Download invoice' })).toHaveLength(1);
  expect(screen.getByText('INV-2026-000007')).toBeTruthy();
  await user.click(screen.getByRole('button', { name: 'Download invoice' }));
  expect((await screen.findByRole('alert')).textContent).toBe('No order found.');
  expect(calls[0]!.url).toBe('/api/order/download-final-invoice/41');
});

test('any other failure is logged, not shown as a missing order', async () => {
  mockFetch(() => ({ status: 500, body: {} }));
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const user = userEvent.setup();
  render(<InvoicesPanel orders={[PAID]} />);
  await user.click(screen.getByRole('button', { name: 'Proforma invoice' }));
  await vi.waitFor(() => expect(logged).toHaveBeenCalled());
  expect(screen.queryByText('No order found.')).toBeNull();
});
