import { formatDateTime, formatDay } from '@osint/contract/dates';
import { saveFile } from '../../lib/save-file.ts';
import { useDebounced } from '../../lib/use-paged-list.ts';
import { formatUsd, monthsLabel, type OrderStatus } from '@osint/contract/pricing';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button } from '../../components/button.tsx';
import {
  DataTable,
  StateMessage,
  SearchFilter,
  SelectFilter,
  type DataTableColumn,
} from '../../components/data-table.tsx';
import { LoadingPlaceholder } from '../../components/loading-placeholder.tsx';
import { useBanner } from '../../components/message-banner.tsx';
import { Modal } from '../../components/modal.tsx';
import { ApiError } from '../../lib/api-client.ts';
import {
  fetchInvoice,
  fetchOrder,
  fetchOrders,
  markPaid,
  ORDERS_KEY,
  PAGE_SIZE,
  PAYMENTS_KEY,
  type AdminOrder,
} from './billing-admin-api.ts';
import './billing-admin.css';

const STATUS_FILTERS: { value: '' | OrderStatus; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'PENDING', label: 'Waiting for payment' },
  { value: 'COMPLETED', label: 'Completed' },
  { value: 'CANCELED', label: 'Canceled' },
];

const STATUS_BADGE: Record<OrderStatus, { label: string; tone: string }> = {
  PENDING: { label: 'Pending', tone: 'warning' },
  COMPLETED: { label: 'Completed', tone: 'success' },
  CANCELED: { label: 'Canceled', tone: 'danger' },
};

function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Please check your connection and try again.';
}

/** Mark as paid, confirmed first: it starts the organization's plan and cannot be undone here. */
function useMarkPaid(onDone?: () => void) {
  const queryClient = useQueryClient();
  const { showBanner } = useBanner();
  return useMutation({
    mutationFn: (order: AdminOrder) => markPaid(order.id),
    onSuccess: async (_data, order) => {
      await queryClient.invalidateQueries({ queryKey: ORDERS_KEY });
      await queryClient.invalidateQueries({ queryKey: PAYMENTS_KEY });
      showBanner({
        message: `Order ${order.orderNumber} is paid.`,
        additionalMessage: `The plan of \u2068${order.organization.name}\u2069 has been created and the owner was told by e-mail.`,
        type: 'success',
      });
      onDone?.();
    },
    onError: (error, order) => {
      showBanner({
        message: `Could not mark order ${order.orderNumber} as paid.`,
        additionalMessage: errorText(error),
        type: 'danger',
      });
      onDone?.();
    },
  });
}

function ConfirmPaid({
  order,
  busy,
  onConfirm,
  onCancel,
}: {
  order: AdminOrder;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal
      title="Mark this order as paid?"
      size="sm"
      onClose={() => !busy && onCancel()}
      actions={
        <>
          <Button variant="secondary" disabled={busy} onClick={onCancel}>
            Cancel
          </Button>
          <Button loading={busy} onClick={onConfirm}>
            Mark as paid
          </Button>
        </>
      }
    >
      <p className="modal__lead">
        {/* Isolated: a Hebrew or Arabic name must not pull the amount into its right-to-left run. */}
        {order.orderNumber} · <bdi>{order.organization.name}</bdi> · {formatUsd(order.amount)}{' '}
        {order.currency}
      </p>
      <p>
        Confirm only once the bank transfer has arrived. The order completes and a Fixed Period plan with{' '}
        {order.seatLimit} {order.seatLimit === 1 ? 'seat' : 'seats'} for {monthsLabel(order.months)} starts on{' '}
        {formatDay(order.startDate)} (or today, if that day has passed; or when the organization’s paid plans
        end, if one arrived since the order was placed).
      </p>
    </Modal>
  );
}

const orderColumns: DataTableColumn<AdminOrder>[] = [
  {
    header: 'Order',
    cell: (order) => (
      <Link className="billing-admin-strong" to={`/admin/orders/${order.id}`}>
        {order.orderNumber}
      </Link>
    ),
  },
  { header: 'Organization', cell: (order) => order.organization.name },
  {
    header: 'Status',
    cell: (order) => (
      <span className={`badge badge--${STATUS_BADGE[order.orderStatus].tone}`}>
        {STATUS_BADGE[order.orderStatus].label}
      </span>
    ),
  },
  { header: 'Method', cell: (order) => (order.paymentMethod === 'CARD' ? 'Card' : 'Bank transfer') },
  {
    header: 'Period',
    className: 'billing-admin-nowrap',
    cell: (order) => `${formatDay(order.startDate)} – ${formatDay(order.endDate)}`,
  },
  { header: 'Seats', cell: (order) => order.seatLimit },
  { header: 'Amount', numeric: true, cell: (order) => `${formatUsd(order.amount)} ${order.currency}` },
  { header: 'Created', className: 'billing-admin-nowrap', cell: (order) => formatDateTime(order.createdAt) },
];

/** /admin/orders: bank transfers waiting for payment first in mind, every order searchable. */
export function AdminOrdersPage() {
  const [status, setStatus] = useState<'' | OrderStatus>('PENDING');
  const [searchInput, setSearchInput] = useState('');
  const search = useDebounced(searchInput.trim());
  const [pageState, setPageState] = useState({ page: 1, status, search });
  const page = pageState.status === status && pageState.search === search ? pageState.page : 1;
  const [confirming, setConfirming] = useState<AdminOrder>();
  const paid = useMarkPaid(() => setConfirming(undefined));

  const orders = useQuery({
    queryKey: [...ORDERS_KEY, { status, search, page }],
    queryFn: () => fetchOrders({ status, search, page }),
    placeholderData: keepPreviousData,
  });
  const rows = orders.data ?? [];

  return (
    <section className="billing-admin-page" aria-labelledby="billing-admin-orders-title">
      <header className="billing-admin-header">
        <div>
          <p className="page__eyebrow">Administration</p>
          <h1 className="page__title" id="billing-admin-orders-title">
            Orders
          </h1>
          <p className="page__lead">
            Bank-transfer orders wait here until their payment arrives; marking one as paid starts the
            organization’s plan. Card orders complete by themselves through FastSpring.
          </p>
        </div>
        <Link className="btn btn-secondary" to="/admin/payments">
          Payments
        </Link>
      </header>

      <div className="card billing-admin-panel">
        <DataTable
          caption="Orders, newest first"
          columns={orderColumns}
          rows={orders.data}
          rowKey={(order) => order.id}
          actions={(order) =>
            order.orderStatus === 'PENDING' &&
            order.paymentMethod === 'BANK_TRANSFER' && (
              <Button className="btn-sm" disabled={paid.isPending} onClick={() => setConfirming(order)}>
                Mark as paid
              </Button>
            )
          }
          loading={orders.isPending}
          stale={orders.isPlaceholderData}
          error={
            orders.isError && {
              title: 'The orders could not be loaded.',
              text: errorText(orders.error),
              onRetry: () => void orders.refetch(),
            }
          }
          empty={{
            title:
              status === 'PENDING' && !search
                ? 'No bank transfers are waiting for payment.'
                : 'No orders match.',
            text: 'New bank-transfer orders appear here when an owner confirms one on the pricing page.',
          }}
          paging={{
            page,
            hasNext: rows.length === PAGE_SIZE,
            onPageChange: (next) => setPageState({ page: next, status, search }),
          }}
          filters={
            <>
              <SearchFilter
                placeholder="Order number or organization"
                value={searchInput}
                onChange={setSearchInput}
              />
              <SelectFilter label="Status" options={STATUS_FILTERS} value={status} onChange={setStatus} />
            </>
          }
        />
      </div>

      {confirming && (
        <ConfirmPaid
          order={confirming}
          busy={paid.isPending}
          onCancel={() => setConfirming(undefined)}
          onConfirm={() => paid.mutate(confirming)}
        />
      )}
    </section>
  );
}

/** /admin/orders/:id: an order with its buyer, plan and payments. */
export function AdminOrderPage() {
  const id = Number(useParams().id);
  const [confirming, setConfirming] = useState(false);
  const [downloading, setDownloading] = useState(false);
  const { showBanner } = useBanner();
  const paid = useMarkPaid(() => setConfirming(false));
  const order = useQuery({
    queryKey: [...ORDERS_KEY, 'detail', id],
    queryFn: () => fetchOrder(id),
    enabled: Number.isInteger(id) && id > 0,
  });

  const download = async () => {
    setDownloading(true);
    try {
      const file = await fetchInvoice(id);
      saveFile(file.blob, file.fileName);
    } catch (error) {
      showBanner({
        message: 'The invoice could not be downloaded.',
        additionalMessage: errorText(error),
        type: 'danger',
      });
    } finally {
      setDownloading(false);
    }
  };

  if (order.isPending) return <LoadingPlaceholder />;
  if (order.isError)
    return (
      <section className="billing-admin-page">
        <StateMessage
          className="card"
          role="alert"
          state={{
            title:
              order.error instanceof ApiError && order.error.status === 404
                ? 'This order does not exist.'
                : 'The order could not be loaded.',
          }}
        >
          <Link className="btn btn-secondary" to="/admin/orders">
            Back to orders
          </Link>
        </StateMessage>
      </section>
    );
  const o = order.data;
  const badge = STATUS_BADGE[o.orderStatus];
  return (
    <section className="billing-admin-page" aria-labelledby="billing-admin-order-title">
      <header className="billing-admin-header">
        <div>
          <p className="page__eyebrow">
            <Link to="/admin/orders">Orders</Link>
          </p>
          <h1 className="page__title" id="billing-admin-order-title">
            Order {o.orderNumber} <span className={`badge badge--${badge.tone}`}>{badge.label}</span>
          </h1>
          <p className="page__lead">
            <bdi>{o.organization.name}</bdi> ·{' '}
            {o.paymentMethod === 'CARD' ? 'Card (FastSpring)' : 'Bank transfer'} · created{' '}
            {formatDateTime(o.createdAt)}
          </p>
        </div>
        <div className="billing-admin-header__actions">
          {o.paymentMethod === 'BANK_TRANSFER' && (
            <Button variant="secondary" loading={downloading} onClick={() => void download()}>
              Proforma invoice
            </Button>
          )}
          {o.orderStatus === 'PENDING' && o.paymentMethod === 'BANK_TRANSFER' && (
            <Button onClick={() => setConfirming(true)}>Mark as paid</Button>
          )}
        </div>
      </header>

      <div className="billing-admin-grid">
        <div className="card">
          <h2 className="billing-admin-subtitle">Order</h2>
          <dl className="billing-admin-facts">
            <dt>Period</dt>
            <dd>
              {formatDay(o.startDate)} – {formatDay(o.endDate)} ({monthsLabel(o.months)})
            </dd>
            <dt>Plan</dt>
            <dd>{o.planKind === 'MONTHLY' ? 'Monthly subscription' : 'Fixed period'}</dd>
            <dt>Seats</dt>
            <dd>{o.seatLimit}</dd>
            <dt>Base price</dt>
            <dd>{formatUsd(o.basePrice)}</dd>
            <dt>Additional user fee</dt>
            <dd>{formatUsd(o.additionalUserFee)}</dd>
            <dt>Total</dt>
            <dd className="billing-admin-strong">
              {formatUsd(o.amount)} {o.currency}
            </dd>
            <dt>Invoice number</dt>
            <dd>{o.invoiceNumber}</dd>
            {o.fastspringOrderId && (
              <>
                <dt>FastSpring order</dt>
                <dd className="billing-admin-mono">{o.fastspringOrderId}</dd>
              </>
            )}
            <dt>Paid</dt>
            <dd>{o.paidAt ? formatDateTime(o.paidAt) : '—'}</dd>
          </dl>
        </div>
        <div className="card">
          <h2 className="billing-admin-subtitle">Buyer</h2>
          {o.buyer ? (
            <address className="billing-admin-address">
              {o.buyer.name}
              <br />
              {o.buyer.street}
              <br />
              {[o.buyer.cityPostcode, o.buyer.city].filter(Boolean).join(' ')}
              <br />
              {o.buyer.country}
            </address>
          ) : (
            <p className="billing-admin-muted">
              Card buyers are known to FastSpring, the merchant of record.
            </p>
          )}
          <h2 className="billing-admin-subtitle">Plan</h2>
          {o.plan ? (
            <p>
              {o.plan.planType === 'SUBSCRIPTION' ? 'Subscription' : 'Fixed Period'}, {o.plan.seatLimit}{' '}
              seats, {formatDay(o.plan.startDate)} – {formatDay(o.plan.endDate)}
            </p>
          ) : (
            <p className="billing-admin-muted">No plan yet: it is created when the order is paid.</p>
          )}
          <h2 className="billing-admin-subtitle">Payments</h2>
          {o.payments.length === 0 ? (
            <p className="billing-admin-muted">No payment recorded.</p>
          ) : (
            <ul className="billing-admin-list">
              {o.payments.map((p) => (
                <li key={p.id}>
                  <Link to={`/admin/payments/${p.id}`}>
                    {p.source === 'BANK_TRANSFER' ? 'Bank transfer' : p.eventType}
                  </Link>{' '}
                  · {p.amount !== null ? `${formatUsd(p.amount)} ${p.currency ?? ''}` : '—'} ·{' '}
                  {formatDateTime(p.receivedAt)}
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>

      {confirming && (
        <ConfirmPaid
          order={o}
          busy={paid.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => paid.mutate(o)}
        />
      )}
    </section>
  );
}
