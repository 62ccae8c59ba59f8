import {
  expect,
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  type Page,
} from '@playwright/test';
import { mailedLink } from './outbox.ts';
import { E2E_ADMIN } from './session.ts';

export const origin = () => ({ origin: process.env.E2E_BASE_URL! });

export async function apiLogin(request: APIRequestContext, mail: string, password: string): Promise<void> {
  const response = await request.post('/api/user/login', { headers: origin(), data: { mail, password } });
  expect(response.status(), await response.text()).toBe(200);
}

/**
 * An approved organization whose owner confirmed the e-mail, with a VIRTUAL plan of `seats` seats, made
 * through the API as the product's own pages would. Returns the organization's id and a browser context
 * signed in as the admin (and its API requests).
 */
export async function createOrganizationWithPlan(
  page: Page,
  browser: Browser,
  options: { owner: string; password: string; organizationName: string; seats: number },
): Promise<{ organizationId: number; admin: APIRequestContext; adminContext: BrowserContext }> {
  const registered = await page.request.post('/api/user/register', {
    headers: origin(),
    data: {
      mail: options.owner,
      password: options.password,
      organizationName: options.organizationName,
      organizationLink: 'https://organization.example.org',
      organizationType: 'police',
      newsletter: false,
    },
  });
  expect(registered.status()).toBe(201);
  const hash = (await mailedLink(options.owner, /confirm/i, '/verify-email/')).split('/verify-email/')[1]!;
  expect((await page.request.post(`/api/user/validate/${hash}`, { headers: origin() })).status()).toBe(200);
  const adminContext = await browser.newContext();
  const admin = adminContext.request;
  await apiLogin(admin, E2E_ADMIN.email, E2E_ADMIN.password);
  const users = await admin.get(`/api/admin/users?search=${encodeURIComponent(options.owner)}`);
  const [row] = (await users.json()) as { id: number; organization: { id: number } }[];
  expect((await admin.post(`/api/admin/users/${row!.id}/approve`, { headers: origin() })).status()).toBe(200);
  const plan = await admin.post(`/api/admin/organizations/${row!.organization.id}/billing-plans`, {
    headers: origin(),
    data: {
      planType: 'VIRTUAL',
      startDate: new Date().toISOString(),
      endDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      seatLimit: options.seats,
    },
  });
  expect(plan.status()).toBe(201);
  return { organizationId: row!.organization.id, admin, adminContext };
}
