import { BILLING_MESSAGES, utcIsoDate } from '@osint/contract/pricing';
import { INVOICE_REFERENCE_MESSAGES } from '@osint/contract/invoice';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { pdfText } from '../support/pdf-text.ts';

// Bank orders take the buyer's optional VAT ID and purchase-order number, printed on the proforma and the
// final invoice; the final invoice (paid, numbered INV-<year>-<n> without gaps) is downloaded by the owner
// after the admin marks the order paid. PDFs are read back with pdftotext.

let t: TestApp;
let admin: string;

const BUYER = {
  name: 'Harbour Police Department',
  street: '1 Quay Road',
  cityPostcode: '12-345',
  city: 'Port Town',
  country: 'Freedonia',
};

async function owner(email: string) {
  const user = await createUser(t, { email });
  return { ...user, cookie: await login(t, email) };
}

function order(cookie: string, extra: Record<string, unknown> = {}) {
  return t.request({
    method: 'POST',
    url: '/api/order',
    cookie,
    payload: { seatAmount: 2, startDate: utcIsoDate(), period: 1, buyer: BUYER, ...extra },
  });
}

async function orderIdOf(cookie: string): Promise<number> {
  const orders = await t.request({ method: 'GET', url: '/api/user/organization/orders', cookie });
  return orders.json<{ id: number }[]>()[0]!.id;
}

function markPaid(orderId: number) {
  return t.request({ method: 'POST', url: `/api/admin/orders/${orderId}/mark-paid`, cookie: admin });
}

function finalInvoice(orderId: number, cookie: string) {
  return t.request({ method: 'GET', url: `/api/order/download-final-invoice/${orderId}`, cookie });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdmin(t);
});

afterAll(async () => {
  await t?.close();
});

describe('VAT ID and purchase order on the invoices', () => {
  it('prints them on the proforma and, once paid, on the final invoice the owner downloads', async () => {
    const buyer = await owner('owner@vat.example.org');
    const placed = await order(buyer.cookie, { vatId: 'de 123.456.789', purchaseOrder: 'PO-2026/0042' });
    expect(placed.statusCode, placed.body).toBe(200);
    const proforma = pdfText(placed.rawPayload);
    expect(proforma).toContain('PROFORMA INVOICE');
    expect(proforma).toContain('VAT ID: DE123456789');
    expect(proforma).toContain('Purchase order: PO-2026/0042');

    const orderId = await orderIdOf(buyer.cookie);
    // Not paid yet: there is no final invoice.
    const early = await finalInvoice(orderId, buyer.cookie);
    expect(early.statusCode).toBe(404);
    expect(early.json()).toMatchObject({ message: BILLING_MESSAGES.noOrderFound });

    expect((await markPaid(orderId)).statusCode).toBe(200);
    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: buyer.cookie,
    });
    const number = orders.json<{ finalInvoiceNumber: string | null }[]>()[0]!.finalInvoiceNumber;
    expect(number).toMatch(new RegExp(`^INV-${new Date().getUTCFullYear()}-\\d{6}$`));

    const response = await finalInvoice(orderId, buyer.cookie);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(String(response.headers['content-disposition'])).toBe(
      `attachment; filename="invoice-${number}.pdf"`,
    );
    const text = pdfText(response.rawPayload);
    expect(text).not.toContain('PROFORMA INVOICE');
    expect(text).toContain('INVOICE');
    expect(text).toContain(`Invoice number: ${number}`);
    expect(text).toMatch(/PAID by bank transfer on/);
    expect(text).toContain('VAT ID: DE123456789');
    expect(text).toContain('Purchase order: PO-2026/0042');
    expect(text).toContain('$150 USD');
    expect(text).not.toContain('Transfer title');

    // The admin gets the same invoice.
    const adminCopy = await t.request({
      method: 'GET',
      url: `/api/admin/orders/${orderId}/final-invoice`,
      cookie: admin,
    });
    expect(pdfText(adminCopy.rawPayload)).toContain(`Invoice number: ${number}`);
  });

  it('refuses a malformed VAT ID or purchase order and places no order', async () => {
    const buyer = await owner('owner@badvat.example.org');
    const bad = await order(buyer.cookie, { vatId: '123', purchaseOrder: 'x'.repeat(51) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ violations: { field: string; message: string }[] }>().violations).toEqual(
      expect.arrayContaining([
        { field: 'vatId', message: INVOICE_REFERENCE_MESSAGES.vatId },
        { field: 'purchaseOrder', message: INVOICE_REFERENCE_MESSAGES.purchaseOrder },
      ]),
    );
    const control = await order(buyer.cookie, { purchaseOrder: 'PO\u0000 1' });
    expect(control.statusCode).toBe(400);
    const orders = await t.request({
      method: 'GET',
      url: '/api/user/organization/orders',
      cookie: buyer.cookie,
    });
    expect(orders.json()).toEqual([]);
    // Both are optional: without them the proforma has neither line.
    const plain = await order(buyer.cookie, { vatId: '  ', purchaseOrder: '' });
    expect(plain.statusCode, plain.body).toBe(200);
    const text = pdfText(plain.rawPayload);
    expect(text).not.toContain('VAT ID');
    expect(text).not.toContain('Purchase order');
  });
});

describe('final invoice numbers', () => {
  it('are sequential and unique, without gaps, when orders are marked paid at the same time', async () => {
    const buyers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => owner(`owner${i}@numbering.example.org`)),
    );
    const ids: number[] = [];
    for (const buyer of buyers) {
      expect((await order(buyer.cookie)).statusCode).toBe(200);
      ids.push(await orderIdOf(buyer.cookie));
    }
    const before = await t.db.selectFrom('invoice_counters').selectAll().execute();
    const start = before[0]?.last_number ?? 0;
    // Each order marked paid twice at once: one of each pair wins, the other is refused and gives no number.
    const answers = await Promise.all([...ids, ...ids].map((id) => markPaid(id)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(ids.length);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(ids.length);

    const rows = await t.db
      .selectFrom('orders')
      .select('final_invoice_number')
      .where('id', 'in', ids)
      .execute();
    const sequence = rows
      .map((r) => Number(/-(\d{6})$/.exec(r.final_invoice_number ?? '')?.[1]))
      .sort((a, b) => a - b);
    expect(sequence).toEqual(Array.from({ length: ids.length }, (_, i) => start + i + 1));
  });

  it('another organization’s final invoice is "No order found."', async () => {
    const payer = await owner('owner@payer.example.org');
    const other = await owner('owner@other.example.org');
    expect((await order(payer.cookie)).statusCode).toBe(200);
    const orderId = await orderIdOf(payer.cookie);
    expect((await markPaid(orderId)).statusCode).toBe(200);
    expect((await finalInvoice(orderId, payer.cookie)).statusCode).toBe(200);
    const foreign = await finalInvoice(orderId, other.cookie);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ message: BILLING_MESSAGES.noOrderFound });
    expect((await finalInvoice(999_999, payer.cookie)).statusCode).toBe(404);
  });
});
