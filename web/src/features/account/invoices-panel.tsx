import { formatDate } from '@osint/contract/dates';
import { formatUsd, type OrderDto } from '@osint/contract/pricing';
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { invoiceDownloadMessage } from '../pricing/pricing-api.ts';
import { downloadFinalInvoice, downloadProforma } from './account-api.ts';

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
      <div className="account-table-wrap">
        <table className="account-table">
          <thead>
            <tr>
              <th scope="col">Invoice</th>
              <th scope="col">Paid</th>
              <th scope="col">Amount</th>
              <th scope="col">
                <span className="visually-hidden">Downloads</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {paid.map((order) => (
              <tr key={order.id}>
                <td data-label="Invoice">{order.finalInvoiceNumber}</td>
                <td data-label="Paid">{order.paidAt ? formatDate(order.paidAt) : ''}</td>
                <td data-label="Amount">
                  {formatUsd(order.amount)} {order.currency}
                </td>
                <td className="account-table__end">
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
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
