import {
  ADDITIONAL_USER_PRICE_USD,
  BASE_PRICE_USD,
  REFUND_DAYS,
  formatDay,
  formatUsd,
  monthsLabel,
  transferTitle,
  utcIsoDate,
  type Buyer,
} from '@osint/contract/pricing';
import PDFDocument from 'pdfkit';
import type { BillingConfig } from '../config.ts';

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
  amount: number;
  currency: string;
  buyer: Buyer;
}

const INK = '#0f172a';
const MUTED = '#475569';
const RULE = '#dbe1ec';
const ACCENT = '#2563eb';

/** The proforma invoice of a bank-transfer order (spec 001 §2, §9): paid in advance, amounts in USD. */
export function renderProformaInvoice(order: InvoiceOrder, billing: BillingConfig): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `Proforma invoice ${order.invoiceNumber}`, Author: billing.seller.name },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  doc.font('Helvetica-Bold').fontSize(20).fillColor(INK).text('PROFORMA INVOICE', left, 50);
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor(MUTED)
    .text(`Invoice number: ${order.invoiceNumber}`)
    .text(`Order number: ${order.orderNumber}`)
    .text(`Issue date: ${formatDay(utcIsoDate(order.issuedAt))}`)
    .text('Payment: bank transfer, in advance');

  const partiesTop = 150;
  party(
    doc,
    'Seller',
    [billing.seller.name, billing.seller.address, `Tax ID: ${billing.seller.taxId}`, billing.seller.email],
    left,
    partiesTop,
    width / 2 - 10,
  );
  party(
    doc,
    'Buyer',
    [
      order.buyer.name,
      order.buyer.street,
      `${order.buyer.cityPostcode} ${order.buyer.city}`,
      order.buyer.country,
    ],
    left + width / 2 + 10,
    partiesTop,
    width / 2 - 10,
  );

  let y = 270;
  doc.font('Helvetica-Bold').fontSize(12).fillColor(INK).text('Order', left, y);
  y += 20;
  const period = `${formatDay(order.startDate)} – ${formatDay(order.endDate)} (${monthsLabel(order.months)})`;
  const additionalUsers = order.seats - 1;
  const rows: [string, string][] = [
    ['Plan', 'OSINT Platform licence, fixed period'],
    ['Period', period],
    ['Seats (users)', String(order.seats)],
    [
      'Base price',
      `${formatUsd(order.basePrice)} (${formatUsd(BASE_PRICE_USD)} × ${monthsLabel(order.months)}, first user included)`,
    ],
    [
      'Additional user fee',
      additionalUsers > 0
        ? `${formatUsd(order.additionalUserFee)} (${additionalUsers} × ${formatUsd(ADDITIONAL_USER_PRICE_USD)} × ${monthsLabel(order.months)})`
        : formatUsd(0),
    ],
  ];
  for (const [label, value] of rows) y = row(doc, label, value, left, y, width);
  doc
    .moveTo(left, y + 4)
    .lineTo(left + width, y + 4)
    .strokeColor(INK)
    .lineWidth(1)
    .stroke();
  y += 12;
  doc.font('Helvetica-Bold').fontSize(13).fillColor(INK).text(`Total (${order.currency})`, left, y);
  doc.text(`${formatUsd(order.amount)} ${order.currency}`, left, y, { width, align: 'right' });
  y += 40;

  doc.font('Helvetica-Bold').fontSize(12).fillColor(INK).text('Bank transfer details', left, y);
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

  y += 24;
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(MUTED)
    .text(
      'This proforma invoice is a request for payment in advance, not a tax invoice. Your subscription activates ' +
        'automatically once the payment is verified; bank transfers may take 1–5 business days to process. ' +
        'Please use the transfer title above so we can match your payment. Refunds are possible within ' +
        `${REFUND_DAYS} days after activation (the trial excluded).`,
      left,
      y,
      { width },
    );

  doc.end();
  return done;
}

function party(doc: PDFKit.PDFDocument, title: string, lines: string[], x: number, y: number, width: number) {
  doc.font('Helvetica-Bold').fontSize(10).fillColor(ACCENT).text(title.toUpperCase(), x, y, { width });
  doc.font('Helvetica').fontSize(10).fillColor(INK);
  for (const line of lines.filter(Boolean)) doc.text(line, { width });
}

function row(
  doc: PDFKit.PDFDocument,
  label: string,
  value: string,
  x: number,
  y: number,
  width: number,
): number {
  const labelWidth = 150;
  doc.font('Helvetica').fontSize(10).fillColor(MUTED).text(label, x, y, { width: labelWidth });
  doc.fillColor(INK).text(value, x + labelWidth, y, { width: width - labelWidth });
  const bottom = Math.max(doc.y, y + 14);
  doc
    .moveTo(x, bottom + 2)
    .lineTo(x + width, bottom + 2)
    .strokeColor(RULE)
    .lineWidth(0.5)
    .stroke();
  return bottom + 8;
}
