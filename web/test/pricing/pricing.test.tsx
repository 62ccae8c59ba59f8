import { formatDay } from '@osint/contract/dates';
import {
  BILLING_MESSAGES,
  computePrice,
  localIsoDate,
  addDays,
  type CheckoutConfig,
} from '@osint/contract/pricing';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { PaymentModal } from '../../src/features/pricing/payment-modal';
import { PlanChooser } from '../../src/features/pricing/plan-chooser';

const BANK = {
  accountName: 'OSINT Platform Ltd.',
  accountNumber: 'IL00 1234',
  bankName: 'Example Bank',
  swift: 'EXAMPLXXXXX',
  address: '1 Example Street, Tel Aviv',
};
const NOT_CONFIGURED: CheckoutConfig = {
  configured: false,
  storefront: '',
  accessKey: '',
  scriptUrl: '',
  bank: BANK,
};

/** Card checkout set up (its script never loads in this test: the chooser prices without it). */
const CONFIGURED: CheckoutConfig = {
  ...NOT_CONFIGURED,
  configured: true,
  storefront: 'osint.test.onfastspring.com/popup-osint',
  accessKey: 'key',
  scriptUrl: '/no-script.js',
};

function renderChooser(config: CheckoutConfig = CONFIGURED) {
  const user = userEvent.setup();
  render(
    <PlanChooser
      organizationId={7}
      organizationName="Harbour Police"
      config={config}
      onPurchased={() => undefined}
    />,
  );
  return user;
}

const total = () => screen.getByTestId('order-total').textContent;

beforeEach(() => {
  URL.createObjectURL = vi.fn(() => 'blob:invoice');
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('plan chooser', () => {
  test('prices monthly and fixed selections with the shared computation', async () => {
    const user = renderChooser();
    expect(total()).toBe('$100 USD');
    expect(screen.getByText('Billed monthly')).toBeTruthy();
    await user.clear(screen.getByLabelText('Number of users'));
    await user.type(screen.getByLabelText('Number of users'), '4');
    expect(total()).toBe('$250 USD');

    await user.click(screen.getByRole('tab', { name: 'Fixed period' }));
    fireEvent.change(screen.getByRole('slider'), { target: { value: '3' } });
    expect(total()).toBe('$750 USD');
    expect(total()).toBe(`$${computePrice({ kind: 'FIXED', users: 4, months: 3 }).total} USD`);
    expect(screen.getByText('One time payment')).toBeTruthy();
    expect(screen.getByText('Buy Now!')).toBeTruthy();
    expect(screen.getByText('(3 × $50 × 3 months)')).toBeTruthy();

    // Switching to monthly resets the period to 1.
    await user.click(screen.getByRole('tab', { name: 'Monthly subscription' }));
    expect(screen.getByText('Subscribe Now!')).toBeTruthy();
    await user.click(screen.getByRole('tab', { name: 'Fixed period' }));
    expect(screen.getByText('Period:').textContent).toContain('1 month');
    expect(total()).toBe('$250 USD');
  });

  test('the user count is a whole number from 1 to 100: typing above 100 is blocked, text becomes 1', async () => {
    const user = renderChooser();
    const input = screen.getByLabelText<HTMLInputElement>('Number of users');
    await user.clear(input);
    await user.type(input, '100');
    expect(input.value).toBe('100');
    await user.type(input, '5');
    expect(input.value).toBe('100');
    await user.clear(input);
    await user.type(input, 'abc');
    expect(input.value).toBe('1');
    expect(total()).toBe('$100 USD');
    await user.click(screen.getByRole('button', { name: 'One user more' }));
    expect(input.value).toBe('2');
  });

  test('the end date follows the start date and the months; past days are disabled; Cancel resets to today', async () => {
    const user = renderChooser();
    const today = localIsoDate();
    await user.click(screen.getByRole('tab', { name: 'Fixed period' }));
    expect(screen.getByLabelText('End date').textContent).toBe(formatDay(addMonthsLocal(today, 1)));

    await user.click(screen.getByRole('button', { name: /Start date/ }));
    const calendar = screen.getByRole('dialog', { name: 'Choose start date' });
    const headers = within(calendar)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
    const yesterday = addDays(today, -1);
    if (yesterday.slice(0, 7) === today.slice(0, 7))
      expect(
        within(calendar)
          .getByRole('button', { name: formatDay(yesterday) })
          .hasAttribute('disabled'),
      ).toBe(true);
    // Pick a day next month.
    await user.click(within(calendar).getByRole('button', { name: 'Next month' }));
    const later = `${addMonthsLocal(today, 1).slice(0, 8)}15`;
    await user.click(within(calendar).getByRole('button', { name: formatDay(later) }));
    expect(screen.getByRole('button', { name: /Start date/ }).textContent).toContain(formatDay(later));
    expect(screen.getByLabelText('End date').textContent).toBe(formatDay(addMonthsLocal(later, 1)));

    await user.click(screen.getByRole('button', { name: /Start date/ }));
    await user.click(
      within(screen.getByRole('dialog', { name: 'Choose start date' })).getByRole('button', {
        name: 'Cancel',
      }),
    );
    expect(screen.getByRole('button', { name: /Start date/ }).textContent).toContain(formatDay(today));
  });

  test('a card script that fails to load is logged only: no message, and card checkout is not offered', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const user = renderChooser();
    const subscribe = screen.getByRole('button', { name: 'Subscribe Now!' });
    // The Store Builder script of the configuration fails to load.
    const script = document.getElementById('fsc-api');
    expect(script?.getAttribute('src')).toBe('/no-script.js');
    act(() => {
      script!.dispatchEvent(new Event('error'));
    });
    await waitFor(() =>
      expect(logged).toHaveBeenCalledWith('Store Builder script failed to load', expect.any(Error)),
    );
    expect((subscribe as HTMLButtonElement).disabled).toBe(true);
    expect(subscribe.getAttribute('aria-busy')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.body.textContent).not.toMatch(/could not be|try again/i);

    // A fixed period is still bought by bank transfer; the card option is off, without a note.
    await user.click(screen.getByRole('tab', { name: 'Fixed period' }));
    await user.click(screen.getByRole('button', { name: 'Buy Now!' }));
    const card = screen.getByRole('button', { name: /Card/ }) as HTMLButtonElement;
    expect(card.disabled).toBe(true);
    expect(card.getAttribute('aria-describedby')).toBeNull();
    expect(document.body.textContent).not.toMatch(/could not be|try again/i);
  });

  test('a card session that cannot be created is logged only: no message, the button works again', async () => {
    const checkoutOpened = vi.fn();
    window.fastspring = { builder: { secure: vi.fn(), checkout: checkoutOpened } };
    try {
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const calls: string[] = [];
      vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
        calls.push(String(input));
        return new Response('{"message":"Your organization already has a paid plan."}', {
          status: 409,
          headers: { 'content-type': 'application/json' },
        });
      });
      const user = renderChooser();
      const subscribe = screen.getByRole('button', { name: 'Subscribe Now!' }) as HTMLButtonElement;
      expect(subscribe.disabled).toBe(false);
      await user.click(subscribe);
      await waitFor(() =>
        expect(logged).toHaveBeenCalledWith('Card checkout session failed', expect.any(Error)),
      );
      expect(calls[0]).toBe('/api/fastspring/create-session');
      expect(checkoutOpened).not.toHaveBeenCalled();
      await waitFor(() => expect(subscribe.disabled).toBe(false));
      expect(screen.queryByRole('alert')).toBeNull();
      expect(document.body.textContent).not.toMatch(/could not be|try again|paid plan/i);
    } finally {
      delete window.fastspring;
    }
  });

  test('without card checkout offers fixed periods by bank transfer only, and no message for developers', () => {
    renderChooser(NOT_CONFIGURED);
    expect(screen.queryByRole('tab', { name: 'Monthly subscription' })).toBeNull();
    expect(screen.getByRole('tab', { name: 'Fixed period' })).toBeTruthy();
    expect(screen.getByText('One time payment')).toBeTruthy();
    expect(screen.queryByText(/not configured/i)).toBeNull();
    expect(screen.queryByText(BILLING_MESSAGES.checkoutNotConfigured)).toBeNull();
  });
});

function addMonthsLocal(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const index = y * 12 + m - 1 + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = month === 2 ? 28 : new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

describe('payment modal', () => {
  function renderModal(onClose = vi.fn()) {
    const user = userEvent.setup();
    render(
      <PaymentModal
        price={computePrice({ kind: 'FIXED', users: 4, months: 3 })}
        startDate="2030-01-31"
        endDate="2030-04-30"
        organizationName="Harbour Police"
        bank={BANK}
        cardUnavailable={BILLING_MESSAGES.checkoutNotConfigured}
        onCard={() => undefined}
        onClose={onClose}
      />,
    );
    return user;
  }

  /** Bank transfer, with a billing address the form accepts. */
  async function chooseBankTransfer(user: ReturnType<typeof userEvent.setup>) {
    await user.click(screen.getByRole('button', { name: /Bank transfer/ }));
    for (const [label, value] of [
      ['Street', 'a'],
      ['Postal code', '1'],
      ['City', 'b'],
      ['Country', 'c'],
    ] as const)
      await user.type(screen.getByLabelText(label), value);
  }

  test('the payment modal cannot be closed while the order is being sent', async () => {
    let answer: (response: Response) => void = () => undefined;
    const fetchSpy = vi
      .spyOn(globalThis, 'fetch')
      .mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    const onClose = vi.fn();
    const user = renderModal(onClose);
    await chooseBankTransfer(user);
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

  test('validates the buyer, orders, then offers the bank data with copy buttons', async () => {
    const calls: { url: string; body: unknown }[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      calls.push({ url: String(input), body: JSON.parse(String(init?.body)) });
      return new Response('%PDF-1.4', {
        status: 200,
        headers: { 'content-disposition': 'attachment; filename="proforma-invoice-2030-000001.pdf"' },
      });
    });
    const onClose = vi.fn();
    const user = renderModal(onClose);
    expect((screen.getByRole('button', { name: /Card/ }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: /Bank transfer/ }));
    expect(screen.getByLabelText<HTMLInputElement>('Organisation').value).toBe('Harbour Police');

    await user.click(screen.getByRole('button', { name: 'Confirm order' }));
    expect(screen.getByText('Street is required')).toBeTruthy();
    expect(screen.getByText('City is required')).toBeTruthy();
    expect(screen.getByText('Country is required')).toBeTruthy();
    // Spec 001 §5 requires organisation, street, city and country; not the postal code.
    expect(screen.queryByText(/Postal code is required/)).toBeNull();
    expect(screen.getByLabelText('Postal code').getAttribute('aria-invalid')).not.toBe('true');
    expect(calls).toHaveLength(0);

    await user.type(screen.getByLabelText('Street'), '1 Quay Road');
    await user.type(screen.getByLabelText('Postal code'), 'AB-1');
    expect(screen.getByText('Postal code must contain only numbers')).toBeTruthy();
    await user.clear(screen.getByLabelText('Postal code'));
    await user.type(screen.getByLabelText('Postal code'), '12-345');
    await user.type(screen.getByLabelText('City'), 'Port Town');
    await user.type(screen.getByLabelText('Country'), 'Freedonia');
    await user.click(screen.getByRole('button', { name: 'Confirm order' }));

    await screen.findByText(BILLING_MESSAGES.orderSuccess);
    expect(calls).toEqual([
      {
        url: '/api/order',
        body: {
          seatAmount: 4,
          startDate: '2030-01-31',
          period: 3,
          buyer: {
            name: 'Harbour Police',
            street: '1 Quay Road',
            cityPostcode: '12-345',
            city: 'Port Town',
            country: 'Freedonia',
          },
        },
      },
    ]);
    expect(screen.getByText('OSINT, 3 months, Harbour Police')).toBeTruthy();
    expect(screen.getByText('750')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Copy account number' }));
    await screen.findByText(BILLING_MESSAGES.copied);
    expect(await navigator.clipboard.readText()).toBe('IL00 1234');
    // The hint goes after 500 ms.
    await waitFor(() => expect(screen.queryByText(BILLING_MESSAGES.copied)).toBeNull(), { timeout: 1500 });

    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(onClose).toHaveBeenCalledWith(true);
  });

  test('the postal code may be left blank: the order is placed without one', async () => {
    const bodies: unknown[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (_input, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response('%PDF-1.4', {
        status: 200,
        headers: { 'content-disposition': 'attachment; filename="proforma-invoice-2030-000002.pdf"' },
      });
    });
    const user = renderModal();
    await user.click(screen.getByRole('button', { name: /Bank transfer/ }));
    for (const [label, value] of [
      ['Street', 'Main Street 1'],
      ['City', 'Dublin'],
      ['Country', 'Ireland'],
    ] as const)
      await user.type(screen.getByLabelText(label), value);
    await user.click(screen.getByRole('button', { name: 'Confirm order' }));
    await screen.findByText(BILLING_MESSAGES.orderSuccess);
    expect(bodies).toEqual([
      expect.objectContaining({
        buyer: {
          name: 'Harbour Police',
          street: 'Main Street 1',
          cityPostcode: '',
          city: 'Dublin',
          country: 'Ireland',
        },
      }),
    ]);
  });

  test('a failed order shows the danger notice of spec 001 §8', async () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{"message":"x"}', { status: 500 }));
    const user = renderModal();
    await chooseBankTransfer(user);
    await act(async () => {
      await user.click(screen.getByRole('button', { name: 'Confirm order' }));
    });
    await screen.findByText(BILLING_MESSAGES.orderFailure);
    expect(screen.getByRole('dialog', { name: 'Bank details' })).toBeTruthy();
  });
});
