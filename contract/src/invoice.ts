import type { FieldErrors } from './validation.ts';

/**
 * The buyer's own references on a bank order, both optional, printed on the proforma and the final
 * invoice: a VAT ID (country prefix and 2–13 letters or digits, as EU VAT numbers are written) and the
 * buyer's purchase-order number.
 */
export interface InvoiceReferences {
  vatId?: string | undefined;
  purchaseOrder?: string | undefined;
}

export type InvoiceReferenceField = keyof InvoiceReferences;

export const MAX_VAT_ID_LENGTH = 20;
export const MAX_PURCHASE_ORDER_LENGTH = 50;

export const INVOICE_REFERENCE_LABELS: Record<InvoiceReferenceField, string> = {
  vatId: 'VAT ID (optional)',
  purchaseOrder: 'Purchase-order number (optional)',
};

export const INVOICE_REFERENCE_MESSAGES = {
  vatId: 'VAT ID must be a two-letter country code followed by 2 to 13 letters or digits',
  purchaseOrder: `Purchase-order number: at most ${MAX_PURCHASE_ORDER_LENGTH} letters, digits, spaces or . / - _ #`,
} as const;

const VAT_ID = /^[A-Z]{2}[A-Z0-9]{2,13}$/;
const PURCHASE_ORDER = /^[\p{L}\p{N} ./_#-]+$/u;

/** The VAT ID as printed: upper case, without the spaces, dots and hyphens people type into it. */
export function normaliseVatId(value: string): string {
  return value.replace(/[\s.-]/g, '').toUpperCase();
}

/** Both fields may be left blank; what is given must look like what it claims to be. */
export function validateInvoiceReferences(
  references: Partial<Record<InvoiceReferenceField, unknown>>,
): FieldErrors<InvoiceReferenceField> {
  const errors: FieldErrors<InvoiceReferenceField> = {};
  const vatId = typeof references.vatId === 'string' ? normaliseVatId(references.vatId) : '';
  if (vatId && (vatId.length > MAX_VAT_ID_LENGTH || !VAT_ID.test(vatId)))
    errors.vatId = INVOICE_REFERENCE_MESSAGES.vatId;
  const purchaseOrder = typeof references.purchaseOrder === 'string' ? references.purchaseOrder.trim() : '';
  if (
    purchaseOrder &&
    (purchaseOrder.length > MAX_PURCHASE_ORDER_LENGTH || !PURCHASE_ORDER.test(purchaseOrder))
  )
    errors.purchaseOrder = INVOICE_REFERENCE_MESSAGES.purchaseOrder;
  return errors;
}

/** The final invoice's number: `INV-<year>-<number of the year, 6 digits>`. */
export function finalInvoiceNumber(year: number, sequence: number): string {
  return `INV-${year}-${String(sequence).padStart(6, '0')}`;
}
