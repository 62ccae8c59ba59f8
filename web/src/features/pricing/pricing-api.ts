import {
  BILLING_MESSAGES,
  type AddUsersOrderRequest,
  type AllBillingPlans,
  type BankOrderRequest,
  type BillingPlanDto,
  type CheckoutConfig,
  type CheckoutSessionRequest,
  type CheckoutSessionResponse,
  type OrderDto,
  type RenewOrderRequest,
} from '@osint/contract/pricing';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, apiFile } from '../../lib/api-client.ts';

export const PLANS_KEY = ['billing', 'plans'] as const;
export const ORDERS_KEY = ['billing', 'orders'] as const;
const CONFIG_KEY = ['billing', 'config'] as const;

/** Spec 001 §8: a failed plan or order fetch is logged only; the page shows what it has. */
export function usePlans() {
  return useQuery({
    queryKey: PLANS_KEY,
    queryFn: () => api<AllBillingPlans>('/user/organization/all-billing-plans'),
  });
}

export function useOrders(enabled: boolean) {
  return useQuery({
    queryKey: ORDERS_KEY,
    queryFn: () => api<OrderDto[]>('/user/organization/orders'),
    enabled,
  });
}

export function useCheckoutConfig() {
  return useQuery({
    queryKey: CONFIG_KEY,
    queryFn: () => api<CheckoutConfig>('/billing/config'),
    staleTime: Infinity,
  });
}

export function createCheckoutSession(request: CheckoutSessionRequest) {
  return api<CheckoutSessionResponse>('/fastspring/create-session', { method: 'POST', body: request });
}

export function placeBankOrder(request: BankOrderRequest) {
  return apiFile('/order', 'invoice', { method: 'POST', body: request });
}

export function placeRenewalOrder(request: RenewOrderRequest) {
  return apiFile('/order/renew', 'invoice', { method: 'POST', body: request });
}

export function placeAddUsersOrder(request: AddUsersOrderRequest) {
  return apiFile('/order/add-users', 'invoice', { method: 'POST', body: request });
}

export function cancelOrder(orderId: number) {
  return api<OrderDto>(`/order/${orderId}/cancel`, { method: 'POST' });
}

export function downloadInvoice(orderId: number) {
  return apiFile(`/order/download-invoice/${orderId}`, 'invoice');
}

/**
 * What an invoice download failure tells the user (spec 001 §8): "No order found." when the server has
 * no such order for the organization (404); any other failure is logged only.
 */
export function invoiceDownloadMessage(error: unknown): string | undefined {
  if (error instanceof ApiError && error.status === 404) return BILLING_MESSAGES.noOrderFound;
  console.error('Invoice download failed', error);
  return undefined;
}

/** Billing plan info of spec 001 §3–§4, derived from the plans and the orders. */
export interface BillingPlanInfo {
  activeBillingPlan: BillingPlanDto | null;
  futureBillingPlan: BillingPlanDto | null;
  expiredBillingPlan: BillingPlanDto | null;
  hasActivePlan: boolean;
  hasActiveTrialPlan: boolean;
  hasActivePaidPlan: boolean;
  /** The latest PENDING order. */
  pendingOrder: OrderDto | null;
  /** The COMPLETED order with the latest end date. */
  lastCompleteOrder: OrderDto | null;
  hasFuturePlanOrPendingOrder: boolean;
}

export function billingPlanInfo(
  plans: AllBillingPlans | undefined,
  orders: OrderDto[] | undefined,
): BillingPlanInfo {
  const active = plans?.activeBillingPlan ?? null;
  const future = plans?.futureBillingPlan ?? null;
  const pendingOrder =
    (orders ?? [])
      .filter((order) => order.orderStatus === 'PENDING')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
  const lastCompleteOrder =
    (orders ?? [])
      .filter((order) => order.orderStatus === 'COMPLETED')
      .sort((a, b) => b.endDate.localeCompare(a.endDate))[0] ?? null;
  return {
    activeBillingPlan: active,
    futureBillingPlan: future,
    expiredBillingPlan: plans?.expiredBillingPlan ?? null,
    hasActivePlan: active !== null,
    hasActiveTrialPlan: active?.planType === 'TRIAL',
    hasActivePaidPlan: active !== null && active.planType !== 'TRIAL',
    pendingOrder,
    lastCompleteOrder,
    hasFuturePlanOrPendingOrder: future !== null || pendingOrder !== null,
  };
}
