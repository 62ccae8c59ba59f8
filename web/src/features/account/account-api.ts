import type { AuditPage } from '@osint/contract/audit';
import type { AllBillingPlans, OrderDto } from '@osint/contract/pricing';
import type { OrganizationUser } from '@osint/contract/team';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, apiFile, ApiError } from '../../lib/api-client.ts';

export const ACCOUNT_KEYS = {
  users: ['account', 'organization-users'] as const,
  activity: ['account', 'organization-audit'] as const,
  plans: ['account', 'billing-plans'] as const,
  orders: ['account', 'orders'] as const,
};

export function useOrganizationUsers(enabled: boolean) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.users,
    queryFn: () => api<OrganizationUser[]>('/user/organization/users'),
    enabled,
  });
}

export function useOrganizationActivity(filter: { action: string; page: number }, enabled: boolean) {
  return useQuery({
    queryKey: [...ACCOUNT_KEYS.activity, filter],
    queryFn: () =>
      api<AuditPage>('/user/organization/audit', {
        query: { action: filter.action || undefined, page: filter.page, pageSize: ACTIVITY_PAGE_SIZE },
      }),
    enabled,
    placeholderData: keepPreviousData,
  });
}

export const ACTIVITY_PAGE_SIZE = 10;

/**
 * A billing call that may not exist on this server yet answers null instead of failing: the account page
 * then works from the plan in force that GET /api/user/organization carries.
 */
async function optional<T>(path: string): Promise<T | null> {
  try {
    return await api<T>(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    // Spec 001 §8: billing plan and order fetch failures are logged only.
    console.error(`GET ${path} failed`, error);
    return null;
  }
}

export function useBillingPlans(enabled: boolean) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.plans,
    queryFn: () => optional<AllBillingPlans>('/user/organization/all-billing-plans'),
    enabled,
  });
}

export function useOrders(enabled: boolean) {
  return useQuery({
    queryKey: ACCOUNT_KEYS.orders,
    queryFn: () => optional<OrderDto[]>('/user/organization/orders'),
    enabled,
  });
}

export const team = {
  invite: (email: string, giveAccess: boolean) =>
    api('/user/invite', { method: 'POST', body: { email, giveAccess } }),
  give: (userHashedId: string, organizationId: number) =>
    api('/user/give', { method: 'POST', body: { userHashedId, organizationId } }),
  remove: (userHashedId: string, organizationId: number) =>
    api('/user/remove', { method: 'POST', body: { userHashedId, organizationId } }),
  delete: (hashedId: string) => api(`/user/${encodeURIComponent(hashedId)}`, { method: 'DELETE' }),
  withdraw: (hashedId: string) =>
    api(`/user/invitation/${encodeURIComponent(hashedId)}`, { method: 'DELETE' }),
};

export const settings = {
  changePassword: (currentPassword: string, newPassword: string) =>
    api('/user/change-password', { method: 'POST', body: { currentPassword, newPassword } }),
  deleteAccount: (password: string) => api('/user/delete', { method: 'DELETE', body: { password } }),
};

/** Saves the proforma invoice of a pending order under the name the server gives it. */
export async function downloadProforma(orderId: number): Promise<void> {
  await downloadPdf(`/order/download-invoice/${orderId}`);
}

/** Saves the final (paid, numbered) invoice of a paid bank order. */
export async function downloadFinalInvoice(orderId: number): Promise<void> {
  await downloadPdf(`/order/download-final-invoice/${orderId}`);
}

async function downloadPdf(path: string): Promise<void> {
  const { blob, fileName } = await apiFile(path, 'invoice');
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
