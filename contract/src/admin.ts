import type { AuditEntryView } from './audit.ts';
import type { PlanType, UserRole, UserStatus } from './api-types.ts';

export interface AdminSessionView {
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  ip: string | null;
  userAgent: string | null;
}

/** GET /api/admin/users/{id} */
export interface AdminUserDetail {
  id: number;
  hashedId: string;
  email: string;
  status: UserStatus;
  role: UserRole;
  admin: boolean;
  access: boolean;
  newsletter: boolean;
  createdAt: string;
  emailVerifiedAt: string | null;
  approvedAt: string | null;
  blockedAt: string | null;
  passwordChangedAt: string | null;
  lastActiveAt: string | null;
  organization: { id: number; name: string; link: string; type: string };
  sessions: AdminSessionView[];
  searchCount: number;
  recentActivity: AuditEntryView[];
}

export interface AdminBillingPlanView {
  id: number;
  planType: PlanType;
  startDate: string;
  endDate: string;
  seatLimit: number;
  createdAt: string;
  /**
   * ACTIVE (in force now), FUTURE (starts later), EXPIRED (ended), SUPERSEDED (covers now, a later plan
   * rules), ENDED (ended early by an admin).
   */
  state: 'ACTIVE' | 'FUTURE' | 'EXPIRED' | 'SUPERSEDED' | 'ENDED';
  /** When and why an admin ended the plan early; null for a plan that runs its course. */
  endedEarly: { at: string; reason: string } | null;
  /** The FastSpring card subscription that pays the plan; null for other plans. */
  cardSubscription: {
    id: string;
    /** When the plan's end asked FastSpring to cancel it; null: not asked (no API credentials then). */
    cancelRequestedAt: string | null;
    /** When FastSpring confirmed its cancellation (its API's answer, or its deactivation webhook). */
    cancelledAt: string | null;
    /** Why the last attempt to cancel it failed (attempts go on; a job that failed them all can be retried). */
    cancelError: string | null;
    /** Ending the plan now would cancel it at FastSpring; false: no API credentials are set. */
    cancelledOnEnd: boolean;
  } | null;
}

export interface AdminOrganizationUser {
  id: number;
  email: string;
  status: UserStatus;
  role: UserRole;
  access: boolean;
  createdAt: string;
  lastActiveAt: string | null;
}

export interface AdminOrganizationOrder {
  id: number;
  orderNumber: string;
  status: string;
  paymentMethod: string;
  amount: number;
  currency: string;
  months: number;
  seatLimit: number;
  startDate: string;
  endDate: string;
  createdAt: string;
  paidAt: string | null;
}

/** What the organizations list and an organization's page both say of it. */
export interface AdminOrganizationSummary {
  id: number;
  name: string;
  link: string;
  type: string;
  createdAt: string;
  lastActiveAt: string;
  owner: { id: number; email: string; status: UserStatus } | null;
}

/** GET /api/admin/organizations/{id} */
export interface AdminOrganizationDetail extends AdminOrganizationSummary {
  users: AdminOrganizationUser[];
  seats: { used: number; limit: number };
  activePlan: AdminBillingPlanView | null;
  plans: AdminBillingPlanView[];
  /** Bank-transfer and card orders, newest first. */
  orders: AdminOrganizationOrder[];
  searchCount: number;
  /** Face watches of the organization and the alerts they raised (issue 17). */
  faceAlerts: { activeWatches: number; endedWatches: number; alerts: number; newAlerts: number };
  lawEnforcement: LawEnforcementStatus;
}

/** Verified law-enforcement organizations may search faces that may belong to minors (spec 000 §2). */
export interface LawEnforcementStatus {
  verified: boolean;
  verifiedAt: string | null;
  /** The admin's note of the evidence. */
  note: string | null;
}

/** POST /api/admin/organizations/{id}/law-enforcement */
export interface LawEnforcementInput {
  verified: boolean;
  /** Required to verify: the evidence the admin saw. */
  note?: string;
}

export const LAW_ENFORCEMENT_NOTE_MAX_LENGTH = 2000;

export const END_PLAN_REASON_MAX_LENGTH = 1000;

/** POST /api/admin/billing-plans/{id}/end: an admin ends or revokes a plan (spec 000 §1, a trial misused). */
export const END_PLAN_MESSAGES = {
  reasonRequired: 'Please give the reason for ending this plan.',
  alreadyEnded: 'This plan has already ended.',
  planNotFound: 'Billing plan not found.',
  ended: 'The plan has been ended. The organization’s owner was told by e-mail.',
} as const;

export const LAW_ENFORCEMENT_MESSAGES = {
  noteRequired: 'A note of the evidence is required to verify an organization as law enforcement.',
  verified: 'The organization is now verified as law enforcement.',
  revoked: 'The law-enforcement verification has been withdrawn.',
  unconfirmedOwner:
    'The owner has not confirmed their e-mail address yet: the organization can be verified once the registration is confirmed.',
} as const;

/**
 * Where an organization stands, as the organizations list shows it: its owner's registration first
 * (not yet confirmed, awaiting approval, rejected, blocked), then its plan in force, if any.
 */
export type AdminOrganizationStatus =
  | 'EMAIL_UNVERIFIED'
  | 'PENDING_APPROVAL'
  | 'REJECTED'
  | 'BLOCKED'
  | 'TRIAL'
  | 'ACTIVE'
  | 'EXPIRED'
  | 'NO_PLAN';

export const ADMIN_ORGANIZATION_STATUS_LABELS: Record<AdminOrganizationStatus, string> = {
  EMAIL_UNVERIFIED: 'E-mail unverified',
  PENDING_APPROVAL: 'Pending approval',
  REJECTED: 'Rejected',
  BLOCKED: 'Blocked',
  TRIAL: 'Trial',
  ACTIVE: 'Active plan',
  EXPIRED: 'Plan expired',
  NO_PLAN: 'No plan',
};

/** An item of GET /api/admin/organizations. */
export interface AdminOrganizationRow extends AdminOrganizationSummary {
  /** The plan in force (a paid plan before a trial), or null. */
  plan: { planType: PlanType; endDate: string } | null;
  seats: { used: number; limit: number };
  userCount: number;
  status: AdminOrganizationStatus;
}

/** GET /api/admin/organizations?pageNumber=&pageSize=&search= */
export interface AdminOrganizationPage {
  results: AdminOrganizationRow[];
  totalResultCount: number;
}

/** POST /api/admin/organizations/{id}/billing-plans */
export interface CreateBillingPlanInput {
  planType: PlanType;
  startDate: string;
  endDate: string;
  seatLimit: number;
}

export const MAX_SEAT_LIMIT = 1000;

export const BILLING_PLAN_MESSAGES = {
  endBeforeStart: 'The end date must be after the start date.',
  endInPast: 'The end date must be in the future.',
  seatLimit: `The seat limit must be a whole number from 1 to ${MAX_SEAT_LIMIT}.`,
  invalidDate: 'Please enter a valid date.',
  created: 'The billing plan has been created.',
  failure: 'Something went wrong while creating the billing plan.',
} as const;

export type BillingPlanField = 'planType' | 'startDate' | 'endDate' | 'seatLimit';

export function validateBillingPlan(
  input: CreateBillingPlanInput,
  now: Date = new Date(),
): Partial<Record<BillingPlanField, string>> {
  const errors: Partial<Record<BillingPlanField, string>> = {};
  const start = Date.parse(input.startDate);
  const end = Date.parse(input.endDate);
  if (Number.isNaN(start)) errors.startDate = BILLING_PLAN_MESSAGES.invalidDate;
  if (Number.isNaN(end)) errors.endDate = BILLING_PLAN_MESSAGES.invalidDate;
  else if (!Number.isNaN(start) && end <= start) errors.endDate = BILLING_PLAN_MESSAGES.endBeforeStart;
  else if (end <= now.getTime()) errors.endDate = BILLING_PLAN_MESSAGES.endInPast;
  if (!Number.isInteger(input.seatLimit) || input.seatLimit < 1 || input.seatLimit > MAX_SEAT_LIMIT)
    errors.seatLimit = BILLING_PLAN_MESSAGES.seatLimit;
  return errors;
}

export const ADMIN_USER_MESSAGES = {
  notFound: 'User not found.',
  cannotBlockAdmin: 'Administrators cannot be blocked.',
  cannotBlockState: 'Only active or invited users can be blocked.',
  notBlocked: 'This user is not blocked.',
  alreadyApproved: 'This user is already approved.',
  emailNotConfirmed: 'This user has not confirmed their e-mail address yet, so it cannot be approved.',
  cannotApproveState: 'This user cannot be approved in its current state.',
  cannotRejectState: 'Only registrations waiting for approval can be rejected.',
} as const;

/**
 * Whether the provider may approve this account: a registration waiting for approval, or one rejected
 * after its owner confirmed the e-mail address. An unconfirmed address is never approved: anyone can
 * register someone else's address, and approving it would hand them that person's account.
 */
export function canApproveUser(user: { status: UserStatus; emailVerifiedAt: string | null }): boolean {
  return user.status === 'PENDING_APPROVAL' || (user.status === 'REJECTED' && user.emailVerifiedAt !== null);
}

/** GET /api/admin/dashboard */
export interface AdminDashboard {
  pendingRegistrations: number;
  ordersAwaitingPayment: number;
  /** Jobs that used up their attempts (Admin → Jobs). */
  failedJobs: number;
  runningCrawls: number;
  index: { pages: number; images: number; faces: number };
  /** Searches since the start of the UTC day `searchesSince`. */
  searchesToday: number;
  searchesSince: string;
  /** Configuration the provider should fix, said in words (e.g. card checkout not configured). */
  warnings: string[];
}

/** The admin dashboard's warning when card checkout has no storefront or webhook secret. */
export const CARD_CHECKOUT_NOT_CONFIGURED_WARNING =
  'Card checkout is not configured (FASTSPRING_STOREFRONT and FASTSPRING_WEBHOOK_SECRET): customers can only buy fixed periods by bank transfer, and the monthly subscription is not offered.';
