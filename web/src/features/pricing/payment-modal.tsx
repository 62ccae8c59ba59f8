import { formatDay } from '@osint/contract/dates';
import {
  ANNUAL_DISCOUNT_LABEL,
  BILLING_MESSAGES,
  BUYER_LABELS,
  formatUsd,
  monthsLabel,
  transferTitle,
  validateBuyer,
  type BankDetails,
  type Buyer,
  type BuyerField,
  type InvoiceReferences,
  type PriceBreakdown,
} from '@osint/contract/pricing';
import {
  INVOICE_REFERENCE_LABELS,
  MAX_PURCHASE_ORDER_LENGTH,
  MAX_VAT_ID_LENGTH,
  validateInvoiceReferences,
  type InvoiceReferenceField,
} from '@osint/contract/invoice';
import { useState, type FormEvent } from 'react';
import { Button } from '../../components/button.tsx';
import { MessageBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { TextInput } from '../../components/text-field.tsx';
import { CopyField } from './copy-field.tsx';
import { placeBankOrder } from './pricing-api.ts';
import { saveFile } from '../../lib/save-file.ts';

type Step = 'choose' | 'bank' | 'finalize';

interface PaymentModalProps {
  price: PriceBreakdown;
  startDate: string;
  endDate: string;
  organizationName: string;
  bank: BankDetails | undefined;
  /** Card checkout is not configured: the modal starts at the buyer's details, no method to choose. */
  bankOnly?: boolean;
  /**
   * Undefined when card checkout works; otherwise the card option is disabled, with this note under it
   * (none when empty: a card checkout that failed to load is logged only, spec 001 §8).
   */
  cardUnavailable: string | undefined;
  onCard: () => void;
  /** `ordered`: a bank order was placed (user data is refreshed). */
  onClose: (ordered: boolean) => void;
  /** Places the bank order; a new plan (`POST /order`) unless a renewal or added users say otherwise. */
  placeOrder?: (buyer: Buyer, references: InvoiceReferences) => Promise<{ blob: Blob; fileName: string }>;
  /** What is bought, for the first step; "N months for N users" by default. */
  description?: string;
}

const FIELDS: BuyerField[] = ['name', 'street', 'cityPostcode', 'city', 'country'];

/** Spec 001 §2 payment modal: choose the method, then the buyer's details, then the bank data to pay. */
export function PaymentModal(props: PaymentModalProps) {
  const { price, startDate, endDate, organizationName, bank, cardUnavailable, onCard, onClose } = props;
  const description =
    props.description ??
    `${monthsLabel(price.months)} for ${price.users} ${price.users === 1 ? 'user' : 'users'}`;
  const [step, setStep] = useState<Step>(props.bankOnly ? 'bank' : 'choose');
  const steps: Step[] = props.bankOnly ? ['bank', 'finalize'] : ['choose', 'bank', 'finalize'];
  const [buyer, setBuyer] = useState<Buyer>({
    name: organizationName,
    street: '',
    cityPostcode: '',
    city: '',
    country: '',
  });
  const [references, setReferences] = useState<Record<InvoiceReferenceField, string>>({
    vatId: '',
    purchaseOrder: '',
  });
  const [touched, setTouched] = useState<Partial<Record<BuyerField | InvoiceReferenceField, boolean>>>({});
  const [sending, setSending] = useState(false);
  const [failed, setFailed] = useState(false);
  const [invoice, setInvoice] = useState<{ blob: Blob; fileName: string }>();

  const errors = { ...validateBuyer(buyer), ...validateInvoiceReferences(references) };
  const valid = Object.keys(errors).length === 0;
  const ordered = step === 'finalize';

  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(Object.fromEntries([...FIELDS, 'vatId', 'purchaseOrder'].map((field) => [field, true])));
    if (!valid || sending) return;
    setSending(true);
    setFailed(false);
    try {
      const invoiceReferences: InvoiceReferences = {
        ...(references.vatId.trim() ? { vatId: references.vatId } : {}),
        ...(references.purchaseOrder.trim() ? { purchaseOrder: references.purchaseOrder } : {}),
      };
      const file = props.placeOrder
        ? await props.placeOrder(buyer, invoiceReferences)
        : await placeBankOrder({
            seatAmount: price.users,
            startDate,
            period: price.months,
            buyer,
            ...invoiceReferences,
          });
      setInvoice(file);
      saveFile(file.blob, file.fileName);
      setStep('finalize');
    } catch (error) {
      console.error('Bank order failed', error);
      setFailed(true);
    } finally {
      setSending(false);
    }
  };

  const title = { choose: 'Choose payment method', bank: 'Bank details', finalize: 'Order confirmed' }[step];
  return (
    // While the order is sent the modal stays: closed, the order would still be placed but unreported,
    // and the plan could be bought twice.
    <Modal title={title} size="md" onClose={() => !sending && onClose(ordered)}>
      <ol className="pricing-steps" aria-label="Steps">
        {steps.map((s, i) => (
          <li
            key={s}
            className={`pricing-steps__step${s === step ? ' pricing-steps__step--current' : ''}`}
            aria-current={s === step ? 'step' : undefined}
          >
            <span className="pricing-steps__number">{i + 1}</span>
            {{ choose: 'Method', bank: 'Bank details', finalize: 'Finalize' }[s]}
          </li>
        ))}
      </ol>

      {step === 'choose' && (
        <div className="pricing-methods">
          <p className="modal__lead">
            {description}, {formatDay(startDate)} – {formatDay(endDate)}:{' '}
            <strong>{formatUsd(price.total)} USD</strong>, one time payment.
          </p>
          {price.discount > 0 && (
            <p className="pricing-methods__discount" data-testid="modal-discount">
              {ANNUAL_DISCOUNT_LABEL}: −{formatUsd(price.discount)} (instead of {formatUsd(price.subtotal)}{' '}
              USD)
            </p>
          )}
          <button
            type="button"
            className="pricing-method"
            onClick={onCard}
            disabled={cardUnavailable !== undefined}
            aria-describedby={cardUnavailable ? 'pricing-card-unavailable' : undefined}
          >
            <span className="pricing-method__title">Card</span>
            <span className="pricing-method__text">
              Pay now by card through our payment provider (merchant of record). Access starts on the start
              date.
            </span>
            {cardUnavailable && (
              <span className="pricing-method__note" id="pricing-card-unavailable">
                {cardUnavailable}
              </span>
            )}
          </button>
          <button type="button" className="pricing-method" onClick={() => setStep('bank')}>
            <span className="pricing-method__title">Bank transfer</span>
            <span className="pricing-method__text">
              Get a proforma invoice and pay in advance. Bank transfers may take 1–5 business days to process.
            </span>
          </button>
        </div>
      )}

      {step === 'bank' && (
        <form className="form pricing-bank-form" onSubmit={(event) => void confirm(event)} noValidate>
          {failed && (
            <MessageBanner
              message={{ message: BILLING_MESSAGES.orderFailure, type: 'danger' }}
              onClose={() => setFailed(false)}
            />
          )}
          <p className="modal__lead">The proforma invoice is issued to this organisation and address.</p>
          {FIELDS.map((field) => (
            <TextInput
              key={field}
              label={BUYER_LABELS[field]}
              value={buyer[field]}
              autoComplete={
                {
                  name: 'organization',
                  street: 'street-address',
                  cityPostcode: 'postal-code',
                  city: 'address-level2',
                  country: 'country-name',
                }[field]
              }
              inputMode={field === 'cityPostcode' ? 'numeric' : undefined}
              maxLength={200}
              error={touched[field] ? errors[field] : undefined}
              onChange={(event) => setBuyer({ ...buyer, [field]: event.target.value })}
              onBlur={() => setTouched({ ...touched, [field]: true })}
            />
          ))}
          {(['vatId', 'purchaseOrder'] as InvoiceReferenceField[]).map((field) => (
            <TextInput
              key={field}
              label={INVOICE_REFERENCE_LABELS[field]}
              value={references[field]}
              maxLength={field === 'vatId' ? MAX_VAT_ID_LENGTH + 6 : MAX_PURCHASE_ORDER_LENGTH}
              error={touched[field] ? errors[field] : undefined}
              onChange={(event) => setReferences({ ...references, [field]: event.target.value })}
              onBlur={() => setTouched({ ...touched, [field]: true })}
            />
          ))}
          <div className="pricing-modal-actions">
            {!props.bankOnly && (
              <Button variant="secondary" onClick={() => setStep('choose')} disabled={sending}>
                Back
              </Button>
            )}
            <Button type="submit" loading={sending} looksDisabled={!valid}>
              Confirm order
            </Button>
          </div>
        </form>
      )}

      {step === 'finalize' && (
        <div className="pricing-finalize">
          <MessageBanner message={{ message: BILLING_MESSAGES.orderSuccess, type: 'success' }} />
          <p>
            Transfer the amount below to this account. Use the transfer title so we can match your payment.
          </p>
          <div className="pricing-copy-list">
            <CopyField label="Account name" value={bank?.accountName ?? ''} />
            <CopyField label="Account number" value={bank?.accountNumber ?? ''} />
            <CopyField label="Bank" value={bank?.bankName ?? ''} />
            <CopyField label="SWIFT / BIC" value={bank?.swift ?? ''} />
            <CopyField label="Bank address" value={bank?.address ?? ''} />
            <CopyField label="Transfer title" value={transferTitle(price.months, buyer.name)} />
            <CopyField label="Amount (USD)" value={String(price.total)} />
          </div>
          <div className="pricing-modal-actions">
            {invoice && (
              <Button variant="secondary" onClick={() => saveFile(invoice.blob, invoice.fileName)}>
                Download proforma invoice
              </Button>
            )}
            <Button onClick={() => onClose(true)}>Done</Button>
          </div>
        </div>
      )}
    </Modal>
  );
}
