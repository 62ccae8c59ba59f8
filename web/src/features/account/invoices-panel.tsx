import { formatDate } from '@osint/contract/dates';
import { formatUsd, type OrderDto } from '@osint/contract/pricing';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { DataTable, type DataTableColumn } from '../../components/data-table.tsx';
import { invoiceDownloadMessage } from '../pricing/pricing-api.ts';
import { downloadFinalInvoice, downloadProforma } from './account-api.ts';

const INVOICE_COLUMNS: DataTableColumn<OrderDto>[] = [
  { header: 'Invoice', cell: (order) => order.finalInvoiceNumber },
  { header: 'Paid', cell: (order) => (order.paidAt ? formatDate(order.paidAt) : '') },
  { header: 'Amount', cell: (order) => `${formatUsd(order.amount)} ${order.currency}`, numeric: true },
];

/**
 * The invoices of the organization's paid bank orders: the final invoice (paid, numbered) next to the
 * proforma the order was placed with. Card payments are invoiced by the card checkout itself.
 */
export function InvoicesPanel({ orders }: { orders: OrderDto[] }) {
  const paid = orders.filter((order) => order.paymentMethod === 'BANK_TRANSFER' && order.finalInvoiceNumber);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  if (paid.length === 0) return null;
  const download = async (key: string, run: () => Promise<void>) => {
    setBusy(key);
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(invoiceDownloadMessage(failure));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section className="card account-panel" aria-labelledby="account-invoices-title">
      <h2 id="account-invoices-title" className="account-panel__title">
        Invoices
      </h2>
      <DataTable
        caption="Invoices of paid bank orders"
        columns={INVOICE_COLUMNS}
        rows={paid}
        rowKey={(order) => order.id}
        empty={{ title: 'No paid invoices yet.' }}
        actionsLabel="Downloads"
        actions={(order) => (
          <div className="account-actions">
            <Button
              loading={busy === `final-${order.id}`}
              onClick={() => void download(`final-${order.id}`, () => downloadFinalInvoice(order.id))}
            >
              Download invoice
            </Button>
            <Button
              variant="secondary"
              loading={busy === `proforma-${order.id}`}
              onClick={() => void download(`proforma-${order.id}`, () => downloadProforma(order.id))}
            >
              Proforma invoice
            </Button>
          </div>
        )}
      />
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
