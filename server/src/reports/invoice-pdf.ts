import { formatDay } from '@osint/contract/dates';
import {
  ADDITIONAL_USER_PRICE_USD,
  ANNUAL_DISCOUNT_LABEL,
  BASE_PRICE_USD,
  REFUND_DAYS,
  formatUsd,
  monthsLabel,
  transferTitle,
  utcIsoDate,
  type Buyer,
  type OrderType,
} from '@osint/contract/pricing';
import type { BillingConfig } from '../config.ts';
import { ACCENT, INK, MUTED, RULE, startDocument } from './pdf-parts.ts';
import { write } from './pdf-text.ts';

/** Who issues the invoice and where it is paid: the parts of the billing configuration printed on it. */
export type InvoiceIssuer = Pick<BillingConfig, 'seller' | 'bank'>;

export interface InvoiceOrder {
  orderNumber: string;
  invoiceNumber: string;
  issuedAt: Date;
  startDate: string;
  endDate: string;
  months: number;
  seats: number;
  basePrice: number;
  additionalUserFee: number;
  /** The annual discount; none when absent or 0. */
  discount?: number;
  /** A new plan when absent. */
  orderType?: OrderType;
  /** ADD_USERS: the users added; `seats` is the plan's new total. */
  addedUsers?: number | null;
  amount: number;
  currency: string;
  buyer: Buyer;
  vatId?: string | null;
  purchaseOrder?: string | null;
  /** Set for the final invoice of a paid order: its number and when the payment was received. */
  final?: { invoiceNumber: string; paidAt: Date } | undefined;
}

const PLAN_LINES: Record<OrderType, string> = {
  PLAN: 'OSINT Platform licence, fixed period',
  RENEWAL: 'OSINT Platform licence, fixed period (renewal)',
  ADD_USERS: 'Users added to the OSINT Platform licence in force, until it ends',
};

/**
 * The proforma invoice of a bank-transfer order (spec 001 §2, §9): paid in advance, amounts in USD. With
 * `final`, the same order's invoice once paid: its own number, marked paid, without the payment request.
 */
export function renderProformaInvoice(order: InvoiceOrder, billing: InvoiceIssuer): Promise<Buffer> {
  const final = order.final;
  const { doc, done } = startDocument({
    title: final ? `Invoice ${final.invoiceNumber}` : `Proforma invoice ${order.invoiceNumber}`,
    author: billing.seller.name,
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  write(
    doc,
    final ? 'INVOICE' : 'PROFORMA INVOICE',
    { weight: 'bold', size: 20, color: INK },
    { x: left, y: 50 },
  );
  for (const line of [
    ...(final
      ? [
          `Invoice number: ${final.invoiceNumber}`,
          `Order number: ${order.orderNumber} (proforma invoice ${order.invoiceNumber})`,
          `Issue date: ${formatDay(utcIsoDate(final.paidAt))}`,
          `PAID by bank transfer on ${formatDay(utcIsoDate(final.paidAt))}`,
        ]
      : [
          `Invoice number: ${order.invoiceNumber}`,
          `Order number: ${order.orderNumber}`,
          `Issue date: ${formatDay(utcIsoDate(order.issuedAt))}`,
          'Payment: bank transfer, in advance',
        ]),
    ...(order.purchaseOrder ? [`Purchase order: ${order.purchaseOrder}`] : []),
  ]) {
    write(doc, line, { weight: 'regular', size: 10, color: MUTED });
  }

  // Each block starts below what the one above took (a long purchase order, buyer name or address wraps;
  // Arabic and CJK lines are taller): never over it.
  const partiesTop = Math.max(150, doc.y + 16);
  const sellerBottom = party(
    doc,
    'Seller',
    [billing.seller.name, billing.seller.address, `Tax ID: ${billing.seller.taxId}`, billing.seller.email],
    left,
    partiesTop,
    width / 2 - 10,
  );
  const buyerBottom = party(
    doc,
    'Buyer',
    [
      order.buyer.name,
      order.buyer.street,
      [order.buyer.cityPostcode, order.buyer.city].filter(Boolean).join(' '),
      order.buyer.country,
      ...(order.vatId ? [`VAT ID: ${order.vatId}`] : []),
    ],
    left + width / 2 + 10,
    partiesTop,
    width / 2 - 10,
  );

  let y = roomFor(doc, Math.max(270, sellerBottom + 20, buyerBottom + 20), 40);
  write(doc, 'Order', { weight: 'bold', size: 12, color: INK }, { x: left, y });
  y += 20;
  const period = `${formatDay(order.startDate)} – ${formatDay(order.endDate)} (${monthsLabel(order.months)})`;
  const addingUsers = order.orderType === 'ADD_USERS';
  const additionalUsers = addingUsers ? (order.addedUsers ?? 0) : order.seats - 1;
  const rows: [string, string][] = [
    ['Plan', PLAN_LINES[order.orderType ?? 'PLAN']],
    ['Period', period],
    addingUsers
      ? ['Seats (users)', `${order.seats} (${additionalUsers} added)`]
      : ['Seats (users)', String(order.seats)],
    [
      'Base price',
      addingUsers
        ? `${formatUsd(0)} (paid with the licence)`
        : `${formatUsd(order.basePrice)} (${formatUsd(BASE_PRICE_USD)} × ${monthsLabel(order.months)}, first user included)`,
    ],
    [
      'Additional user fee',
      additionalUsers > 0
        ? `${formatUsd(order.additionalUserFee)} (${additionalUsers} × ${formatUsd(ADDITIONAL_USER_PRICE_USD)} × ${monthsLabel(order.months)})`
        : formatUsd(0),
    ],
  ];
  if (order.discount) rows.push([ANNUAL_DISCOUNT_LABEL, `−${formatUsd(order.discount)}`]);
  for (const [label, value] of rows) y = row(doc, label, value, left, y, width);
  y = roomFor(doc, y, 40);
  doc
    .moveTo(left, y + 4)
    .lineTo(left + width, y + 4)
    .strokeColor(INK)
    .lineWidth(1)
    .stroke();
  y += 12;
  write(doc, `Total (${order.currency})`, { weight: 'bold', size: 13, color: INK }, { x: left, y });
  write(
    doc,
    `${formatUsd(order.amount)} ${order.currency}`,
    { weight: 'bold', size: 13, color: INK },
    {
      x: left,
      y,
      width,
      align: 'right',
    },
  );
  y += 40;

  if (final) {
    y = roomFor(doc, y, 40);
    write(
      doc,
      `Paid in full on ${formatDay(utcIsoDate(final.paidAt))}: ${formatUsd(order.amount)} ${order.currency} received by bank transfer. Nothing is due. Refunds are possible within ${REFUND_DAYS} days after activation.`,
      { weight: 'regular', size: 10, color: INK },
      { x: left, y, width },
    );
    doc.end();
    return done;
  }

  y = roomFor(doc, y, 40);
  write(doc, 'Bank transfer details', { weight: 'bold', size: 12, color: INK }, { x: left, y });
  y += 20;
  const bankRows: [string, string][] = [
    ['Account name', billing.bank.accountName],
    ['Account number', billing.bank.accountNumber],
    ['Bank', billing.bank.bankName],
    ['SWIFT / BIC', billing.bank.swift],
    ['Address', billing.bank.address],
    ['Transfer title', transferTitle(order.months, order.buyer.name)],
    ['Amount', `${formatUsd(order.amount)} ${order.currency}`],
  ];
  for (const [label, value] of bankRows) y = row(doc, label, value, left, y, width);

  y = roomFor(doc, y + 24, 60);
  write(
    doc,
    'This proforma invoice is a request for payment in advance, not a tax invoice. Your subscription activates ' +
      'automatically once the payment is verified; bank transfers may take 1–5 business days to process. ' +
      'Please use the transfer title above so we can match your payment. Refunds are possible within ' +
      `${REFUND_DAYS} days after activation (the trial excluded).`,
    { weight: 'regular', size: 9, color: MUTED },
    { x: left, y, width },
  );

  doc.end();
  return done;
}

/** Writes a party's block; returns where it ends. */
function party(
  doc: PDFKit.PDFDocument,
  title: string,
  lines: string[],
  x: number,
  y: number,
  width: number,
): number {
  write(doc, title.toUpperCase(), { weight: 'bold', size: 10, color: ACCENT }, { x, y, width });
  for (const line of lines.filter(Boolean))
    write(doc, line, { weight: 'regular', size: 10, color: INK }, { width });
  return doc.y;
}

/**
 * `y`, or the top of a new page when `height` does not fit between it and the bottom margin: a block
 * written past the bottom would make pdfkit start a page for each of its lines, away from their labels.
 */
function roomFor(doc: PDFKit.PDFDocument, y: number, height: number): number {
  if (y + height <= doc.page.maxY()) return y;
  doc.addPage();
  return doc.page.margins.top;
}

function row(
  doc: PDFKit.PDFDocument,
  label: string,
  value: string,
  x: number,
  rowTop: number,
  width: number,
): number {
  const labelWidth = 150;
  // Measured in the value's size (the fonts of other scripts are about as tall): a row stays on one page.
  doc.fontSize(10);
  const height = Math.max(
    doc.heightOfString(value, { width: width - labelWidth }),
    doc.heightOfString(label, { width: labelWidth }),
  );
  const y = roomFor(doc, rowTop, height + 10);
  write(doc, label, { weight: 'regular', size: 10, color: MUTED }, { x, y, width: labelWidth });
  write(
    doc,
    value,
    { weight: 'regular', size: 10, color: INK },
    { x: x + labelWidth, y, width: width - labelWidth },
  );
  const bottom = Math.max(doc.y, y + 14);
  doc
    .moveTo(x, bottom + 2)
    .lineTo(x + width, bottom + 2)
    .strokeColor(RULE)
    .lineWidth(0.5)
    .stroke();
  return bottom + 8;
}
