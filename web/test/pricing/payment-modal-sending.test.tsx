import { BILLING_MESSAGES, computePrice } from '@osint/contract/pricing';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { PaymentModal } from '../../src/features/pricing/payment-modal';

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:invoice');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

test('the payment modal cannot be closed while the order is being sent', async () => {
  let answer: (response: Response) => void = () => undefined;
  const fetchSpy = vi
    .spyOn(globalThis, 'fetch')
    .mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
  const onClose = vi.fn();
  const user = userEvent.setup();
  render(
    <PaymentModal
      price={computePrice({ kind: 'FIXED', users: 4, months: 3 })}
      startDate="2030-01-31"
      endDate="2030-04-30"
      organizationName="Harbour Police"
      bank={undefined}
      cardUnavailable={BILLING_MESSAGES.checkoutNotConfigured}
      onCard={() => undefined}
      onClose={onClose}
    />,
  );
  await user.click(screen.getByRole('button', { name: /Bank transfer/ }));
  for (const [label, value] of [
    ['Street', 'a'],
    ['Postal code', '1'],
    ['City', 'b'],
    ['Country', 'c'],
  ] as const)
    await user.type(screen.getByLabelText(label), value);
  await user.click(screen.getByRole('button', { name: 'Confirm order' }));
  expect(fetchSpy).toHaveBeenCalledTimes(1);

  const dialog = screen.getByRole('dialog', { name: 'Bank details' });
  fireEvent.keyDown(dialog, { key: 'Escape' });
  fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
  fireEvent.mouseDown(dialog.parentElement!);
  expect(onClose).not.toHaveBeenCalled();

  answer(
    new Response('%PDF-1.4', {
      status: 200,
      headers: { 'content-disposition': 'attachment; filename="proforma-invoice-2030-000001.pdf"' },
    }),
  );
  await screen.findByText(BILLING_MESSAGES.orderSuccess);
  // Sent: closing reports the order.
  fireEvent.keyDown(screen.getByRole('dialog', { name: 'Order confirmed' }), { key: 'Escape' });
  expect(onClose).toHaveBeenCalledWith(true);
});
