import type {
  AdminBillingPlanView,
  AdminDashboard,
  AdminOrganizationDetail,
  AdminOrganizationPage,
  LawEnforcementInput,
  LawEnforcementStatus,
  AdminUserDetail,
  CreateBillingPlanInput,
} from '@osint/contract/admin';
import type { AuditPage } from '@osint/contract/audit';
import type { AdminMinorReviewView } from '@osint/contract/minor-review';
import type { UploadImageResponse } from '@osint/contract/search';
import { api, apiFile } from '../../lib/api-client.ts';

export type CrawlStatus = 'QUEUED' | 'RUNNING' | 'DONE' | 'STOPPED' | 'FAILED';

/** GET /api/admin/crawls */
export interface CrawlRow {
  id: string;
  status: CrawlStatus;
  demo: boolean;
  seeds: string[];
  pages: number;
  images: number;
  faces: number;
  errors: number;
  lastError: string | null;
  requestedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

type StateCounts = Record<'queued' | 'claimed' | 'done' | 'failed' | 'skipped', number>;

/** GET /api/admin/crawls/{id} */
export interface CrawlDetail extends CrawlRow {
  frontier: Record<'page' | 'image' | 'sitemap', StateCounts>;
  failures: { url: string; kind: string; attempts: number; error: string | null }[];
}

/** GET /api/admin/opt-outs */
export interface OptOutRow {
  id: number;
  reason: string;
  modelId: string;
  createdAt: string;
  createdBy: string | null;
}

export interface AuditQuery {
  organizationId?: string;
  userId?: string;
  user?: string;
  action?: string;
  from?: string;
  to?: string;
}

export const ADMIN_KEYS = {
  user: (id: string) => ['admin', 'user', id] as const,
  organization: (id: string) => ['admin', 'organization', id] as const,
  organizations: ['admin', 'organizations'] as const,
  dashboard: ['admin', 'dashboard'] as const,
  crawls: ['admin', 'crawls'] as const,
  crawl: (id: string) => ['admin', 'crawls', id] as const,
  optOuts: ['admin', 'opt-outs'] as const,
  audit: ['admin', 'audit'] as const,
  minorReviews: (status: string) => ['admin', 'minor-reviews', status] as const,
};

/** The review queue's tabs: pending first; "ALL" lists every review. */
export type MinorReviewFilter = 'PENDING' | 'APPROVED' | 'REFUSED' | 'EXPIRED' | 'ALL';

export const AUDIT_PAGE_SIZE = 50;
export const ORGANIZATIONS_PAGE_SIZE = 25;

export const adminApi = {
  user: (id: string) => api<AdminUserDetail>(`/admin/users/${encodeURIComponent(id)}`),
  block: (id: number) => api(`/admin/users/${id}/block`, { method: 'POST' }),
  unblock: (id: number) => api(`/admin/users/${id}/unblock`, { method: 'POST' }),
  approve: (id: number) => api(`/admin/users/${id}/approve`, { method: 'POST' }),
  dashboard: () => api<AdminDashboard>('/admin/dashboard'),
  organizations: (pageNumber: number, search: string) =>
    api<AdminOrganizationPage>('/admin/organizations', {
      query: { pageNumber, pageSize: ORGANIZATIONS_PAGE_SIZE, search: search || undefined },
    }),
  organization: (id: string) =>
    api<AdminOrganizationDetail>(`/admin/organizations/${encodeURIComponent(id)}`),
  createPlan: (organizationId: string, input: CreateBillingPlanInput) =>
    api<AdminBillingPlanView>(`/admin/organizations/${encodeURIComponent(organizationId)}/billing-plans`, {
      method: 'POST',
      body: input,
    }),
  endPlan: (planId: number, reason: string) =>
    api<AdminBillingPlanView>(`/admin/billing-plans/${planId}/end`, { method: 'POST', body: { reason } }),
  setLawEnforcement: (organizationId: number, input: LawEnforcementInput) =>
    api<LawEnforcementStatus>(`/admin/organizations/${organizationId}/law-enforcement`, {
      method: 'POST',
      body: input,
    }),
  crawls: () => api<CrawlRow[]>('/admin/crawls', { query: { pageSize: 50 } }),
  crawl: (id: string) => api<CrawlDetail>(`/admin/crawls/${encodeURIComponent(id)}`),
  startCrawl: (urls: string[]) => api<{ id: string }>('/admin/crawl', { method: 'POST', body: { urls } }),
  minorReviews: (status: MinorReviewFilter) =>
    api<{ results: AdminMinorReviewView[]; totalResultCount: number }>('/admin/minor-reviews', {
      query: { status: status === 'ALL' ? undefined : status, pageSize: 100 },
    }),
  minorReviewCropUrl: (id: number) => `/api/admin/minor-reviews/${id}/crop`,
  decideMinorReview: (id: number, approve: boolean, reason: string) =>
    api<AdminMinorReviewView>(`/admin/minor-reviews/${id}/decision`, {
      method: 'POST',
      body: { approve, reason },
    }),
  optOuts: () => api<OptOutRow[]>('/admin/opt-outs', { query: { pageSize: 200 } }),
  addOptOut: (face: { faceId: number } | { faceHash: string }, reason: string) =>
    api<{ id: number; removedFaces: number }>('/admin/opt-outs', {
      method: 'POST',
      body: { ...face, reason },
    }),
  /** Faces of a photo (POST /api/upload-image; the photo is not stored). */
  detectFaces: (img: string) => api<UploadImageResponse>('/upload-image', { method: 'POST', body: { img } }),
  audit: (query: AuditQuery, page: number) =>
    api<AuditPage>('/admin/audit', { query: { ...query, page, pageSize: AUDIT_PAGE_SIZE } }),
  auditExport: (query: AuditQuery) =>
    apiFile('/admin/audit/export', 'audit-log.csv', { query: { ...query } }),
};
