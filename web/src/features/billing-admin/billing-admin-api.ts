import type { Buyer, OrderDto, OrderStatus } from '@osint/contract/pricing';
import { api, apiFile } from '../../lib/api-client.ts';

export interface AdminOrder extends OrderDto {
  invoiceNumber: string;
  organization: { id: number | null; name: string };
  buyer: Buyer | null;
  fastspringOrderId: string | null;
}

export interface AdminOrderDetail extends AdminOrder {
  plan: { planType: string; seatLimit: number; startDate: string; endDate: string } | null;
  payments: {
    id: number;
    source: string;
    eventType: string;
    amount: number | null;
    currency: string | null;
    receivedAt: string;
  }[];
}

export interface AdminPayment {
  id: number;
  source: 'FASTSPRING' | 'BANK_TRANSFER';
  eventId: string | null;
  eventType: string;
  live: boolean;
  outcome: 'PROCESSED' | 'IGNORED' | 'FAILED';
  note: string | null;
  organization: { id: number; name: string } | null;
  orderId: number | null;
  orderNumber: string | null;
  fastspringOrderId: string | null;
  fastspringSubscriptionId: string | null;
  amount: number | null;
  currency: string | null;
  occurredAt: string;
  receivedAt: string;
}

export interface AdminPaymentDetail extends AdminPayment {
  payload: unknown;
}

export const ORDERS_KEY = ['admin', 'orders'] as const;
export const PAYMENTS_KEY = ['admin', 'payments'] as const;
export const PAGE_SIZE = 25;

export function fetchOrders(filter: { status: '' | OrderStatus; search: string; page: number }) {
  return api<AdminOrder[]>('/admin/orders', {
    query: {
      status: filter.status || undefined,
      search: filter.search || undefined,
      page: filter.page,
      pageSize: PAGE_SIZE,
    },
  });
}

export const fetchOrder = (id: number) => api<AdminOrderDetail>(`/admin/orders/${id}`);
export const markPaid = (id: number) =>
  api<AdminOrderDetail>(`/admin/orders/${id}/mark-paid`, { method: 'POST' });
export const fetchInvoice = (id: number) => apiFile(`/admin/orders/${id}/invoice`, 'invoice.pdf');

export function fetchPayments(filter: { source: '' | 'FASTSPRING' | 'BANK_TRANSFER'; page: number }) {
  return api<AdminPayment[]>('/admin/payments', {
    query: { source: filter.source || undefined, page: filter.page, pageSize: PAGE_SIZE },
  });
}

export const fetchPayment = (id: number) => api<AdminPaymentDetail>(`/admin/payments/${id}`);
