import { formatDateTime } from '@osint/contract/dates';
import { formatUsd } from '@osint/contract/pricing';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { DataTable, StateMessage, SelectFilter, type DataTableColumn } from '../../components/data-table.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { ApiError } from '../../lib/api-client.ts';
import {
  fetchPayment,
  fetchPayments,
  PAGE_SIZE,
  PAYMENTS_KEY,
  type AdminPayment,
} from './billing-admin-api.ts';
import './billing-admin.css';

type Source = '' | 'FASTSPRING' | 'BANK_TRANSFER';

const SOURCES: { value: Source; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'FASTSPRING', label: 'FastSpring events' },
  { value: 'BANK_TRANSFER', label: 'Bank transfers' },
];

function amountOf(payment: AdminPayment): string {
  return payment.amount === null ? '—' : `${formatUsd(payment.amount)} ${payment.currency ?? ''}`;
}

function OutcomeBadge({ payment }: { payment: AdminPayment }) {
  if (payment.outcome === 'FAILED')
    return (
      <span className="badge badge--danger" title={payment.note ?? undefined}>
        Failed: review
      </span>
    );
  return payment.outcome === 'PROCESSED' ? (
    <span className="badge badge--success">Processed</span>
  ) : (
    <span className="badge" title={payment.note ?? undefined}>
      Ignored
    </span>
  );
}

/** /admin/payments: every FastSpring event received (with what it did) and every bank payment recorded. */
export function AdminPaymentsPage() {
  const [source, setSource] = useState<Source>('');
  const [pageState, setPageState] = useState({ page: 1, source });
  const page = pageState.source === source ? pageState.page : 1;
  const payments = useQuery({
    queryKey: [...PAYMENTS_KEY, { source, page }],
    queryFn: () => fetchPayments({ source, page }),
    placeholderData: keepPreviousData,
  });
  const rows = payments.data ?? [];

  return (
    <section className="billing-admin-page" aria-labelledby="billing-admin-payments-title">
      <header className="billing-admin-header">
        <div>
          <p className="page__eyebrow">Administration</p>
          <h1 className="page__title" id="billing-admin-payments-title">
            Payments
          </h1>
          <p className="page__lead">
            FastSpring webhook events as received, each processed once, and bank transfers marked as paid.
          </p>
        </div>
        <Link className="btn btn-secondary" to="/admin/orders">
          Orders
        </Link>
      </header>

      <div className="card billing-admin-panel">
        <DataTable
          caption="Payments, newest first"
          columns={paymentColumns}
          rows={payments.data}
          rowKey={(payment) => payment.id}
          loading={payments.isPending}
          stale={payments.isPlaceholderData}
          error={
            payments.isError && {
              title: 'The payments could not be loaded.',
              onRetry: () => void payments.refetch(),
            }
          }
          empty={{
            title: 'No payments yet.',
            text: 'FastSpring events appear when the webhook receives them; bank transfers when an order is marked as paid.',
          }}
          paging={{
            page,
            hasNext: rows.length === PAGE_SIZE,
            onPageChange: (next) => setPageState({ page: next, source }),
          }}
          filters={<SelectFilter label="Source" options={SOURCES} value={source} onChange={setSource} />}
        />
      </div>
    </section>
  );
}

const paymentColumns: DataTableColumn<AdminPayment>[] = [
  {
    header: 'Received',
    className: 'billing-admin-nowrap',
    cell: (payment) => <Link to={`/admin/payments/${payment.id}`}>{formatDateTime(payment.receivedAt)}</Link>,
  },
  { header: 'Source', cell: (payment) => (payment.source === 'FASTSPRING' ? 'FastSpring' : 'Bank transfer') },
  {
    header: 'Event',
    className: 'billing-admin-mono',
    cell: (payment) => (
      <>
        {payment.eventType}
        {payment.source === 'FASTSPRING' && !payment.live && (
          <span className="badge billing-admin-inline">test</span>
        )}
      </>
    ),
  },
  {
    header: 'Organization',
    cell: (payment) => payment.organization?.name ?? <span className="billing-admin-muted">—</span>,
  },
  {
    header: 'Order',
    cell: (payment) =>
      payment.orderId ? (
        <Link to={`/admin/orders/${payment.orderId}`}>{payment.orderNumber ?? `#${payment.orderId}`}</Link>
      ) : (
        <span className="billing-admin-muted">—</span>
      ),
  },
  { header: 'Amount', numeric: true, cell: amountOf },
  { header: 'Outcome', cell: (payment) => <OutcomeBadge payment={payment} /> },
];

/** /admin/payments/:id: one payment with the event exactly as FastSpring sent it. */
export function AdminPaymentPage() {
  const id = Number(useParams().id);
  const payment = useQuery({
    queryKey: [...PAYMENTS_KEY, 'detail', id],
    queryFn: () => fetchPayment(id),
    enabled: Number.isInteger(id) && id > 0,
  });
  if (payment.isPending) return <LoadingPlaceholder />;
  if (payment.isError)
    return (
      <section className="billing-admin-page">
        <StateMessage
          className="card"
          role="alert"
          state={{
            title:
              payment.error instanceof ApiError && payment.error.status === 404
                ? 'This payment does not exist.'
                : 'The payment could not be loaded.',
          }}
        >
          <Link className="btn btn-secondary" to="/admin/payments">
            Back to payments
          </Link>
        </StateMessage>
      </section>
    );
  const p = payment.data;
  return (
    <section className="billing-admin-page" aria-labelledby="billing-admin-payment-title">
      <header className="billing-admin-header">
        <div>
          <p className="page__eyebrow">
            <Link to="/admin/payments">Payments</Link>
          </p>
          <h1 className="page__title" id="billing-admin-payment-title">
            {p.source === 'FASTSPRING' ? p.eventType : 'Bank transfer'} <OutcomeBadge payment={p} />
          </h1>
          <p className="page__lead">Received {formatDateTime(p.receivedAt)}</p>
        </div>
      </header>
      <div className="billing-admin-grid">
        <div className="card">
          <dl className="billing-admin-facts">
            <dt>Source</dt>
            <dd>
              {p.source === 'FASTSPRING' ? `FastSpring (${p.live ? 'live' : 'test'})` : 'Bank transfer'}
            </dd>
            {p.eventId && (
              <>
                <dt>Event id</dt>
                <dd className="billing-admin-mono">{p.eventId}</dd>
              </>
            )}
            <dt>Occurred</dt>
            <dd>{formatDateTime(p.occurredAt)}</dd>
            <dt>Organization</dt>
            <dd>{p.organization?.name ?? '—'}</dd>
            <dt>Order</dt>
            <dd>
              {p.orderId ? (
                <Link to={`/admin/orders/${p.orderId}`}>{p.orderNumber ?? `#${p.orderId}`}</Link>
              ) : (
                '—'
              )}
            </dd>
            {p.fastspringOrderId && (
              <>
                <dt>FastSpring order</dt>
                <dd className="billing-admin-mono">{p.fastspringOrderId}</dd>
              </>
            )}
            {p.fastspringSubscriptionId && (
              <>
                <dt>Subscription</dt>
                <dd className="billing-admin-mono">{p.fastspringSubscriptionId}</dd>
              </>
            )}
            <dt>Amount</dt>
            <dd>{amountOf(p)}</dd>
            <dt>Result</dt>
            <dd>{p.note ?? '—'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2 className="billing-admin-subtitle">As received</h2>
          <pre className="billing-admin-json">{JSON.stringify(p.payload, null, 2)}</pre>
        </div>
      </div>
    </section>
  );
}
