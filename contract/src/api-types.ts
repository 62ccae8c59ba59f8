import type { Violation } from './validation.ts';

/** The error body of every non-2xx answer of the API. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string;
  violations?: Violation[];
}

export type UserRole = 'OWNER' | 'USER';

/** GET /api/user/user-info (spec 000 §7: access, userRole, admin) with the identity the app shows. */
export interface UserInfo {
  access: boolean;
  /** Original sources are withheld (trial plans): links open the Access Restricted modal instead. */
  restricted: boolean;
  userRole: UserRole;
  admin: boolean;
  email: string;
  hashedId: string;
  organizationId: number;
  isOwner: boolean;
  newsletter: boolean;
  /** The organization has a plan in force (an owner without a seat can then give themselves one). */
  planActive: boolean;
  /** A platform admin blocked the organization's owner: nobody in the organization has access. */
  organizationBlocked: boolean;
}

/** GET /api/user/invitation?token=: what an invited user's set-password page shows. */
export interface InvitationDetails {
  email: string;
  organizationName: string;
  /** The owner gave the account a seat when inviting. */
  access: boolean;
}

/** POST /api/user/set-password: an invited user is signed in; `access` says whether they may search. */
export interface SetPasswordAnswer {
  signedIn: boolean;
  access: boolean;
}

export type PlanType = 'TRIAL' | 'SUBSCRIPTION' | 'ONE_TIME_PAYMENT' | 'VIRTUAL';

export interface BillingPlan {
  planType: PlanType;
  seatLimit: number;
  startDate: string;
  endDate: string;
}

/** GET /api/user/organization */
export interface OrganizationData {
  organizationId: number;
  name: string;
  link: string;
  type: string;
  isOwner: boolean;
  activeBillingPlan: BillingPlan | null;
}

export type UserStatus =
  'EMAIL_UNVERIFIED' | 'PENDING_APPROVAL' | 'ACTIVE' | 'REJECTED' | 'BLOCKED' | 'INVITED';

/** GET /api/admin/users */
export interface AdminUserRow {
  id: number;
  email: string;
  status: UserStatus;
  role: UserRole;
  admin: boolean;
  createdAt: string;
  emailVerifiedAt: string | null;
  lastActiveAt: string | null;
  organization: { id: number; name: string; link: string; type: string };
}
