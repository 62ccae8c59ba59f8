import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { PlanType, UserRole, UserStatus } from '@osint/contract/api-types';

/** Table types for Kysely. Each table group has its repository; SQL lives only there. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  link: string;
  type: string;
  created_at: CreatedAt;
  last_active_at: DefaultedTimestamp;
}

export interface UsersTable {
  id: Generated<number>;
  hashed_id: string;
  organization_id: number;
  email: string;
  password_hash: string | null;
  role: UserRole;
  is_admin: Generated<boolean>;
  status: UserStatus;
  has_access: Generated<boolean>;
  newsletter: Generated<boolean>;
  email_verified_at: Timestamp | null;
  approved_at: Timestamp | null;
  password_changed_at: Timestamp | null;
  last_active_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: CreatedAt;
  last_seen_at: DefaultedTimestamp;
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
}

export type TokenPurpose = 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'SET_PASSWORD';

export interface UserTokensTable {
  id: Generated<number>;
  user_id: number;
  purpose: TokenPurpose;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface BillingPlansTable {
  id: Generated<number>;
  organization_id: number;
  plan_type: PlanType;
  start_date: Timestamp;
  end_date: Timestamp;
  seat_limit: number;
  created_at: CreatedAt;
}

export interface SupportMessagesTable {
  id: Generated<number>;
  user_id: number | null;
  email: string;
  subject: string;
  message: string;
  created_at: CreatedAt;
}

export interface SupportAttachmentsTable {
  id: Generated<number>;
  message_id: number;
  file_name: string;
  content_type: string;
  content: Buffer;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: CreatedAt;
  actor_user_id: number | null;
  organization_id: number | null;
  action: string;
  target: string | null;
  detail: Json<Record<string, unknown>>;
  ip: string | null;
}

export type JobStatus = 'QUEUED' | 'RUNNING' | 'DONE' | 'DEAD';

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: Json<unknown>;
  status: Generated<JobStatus>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  run_at: DefaultedTimestamp;
  locked_at: Timestamp | null;
  locked_by: string | null;
  last_error: string | null;
  unique_key: string | null;
  created_at: CreatedAt;
  finished_at: Timestamp | null;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_tokens: UserTokensTable;
  billing_plans: BillingPlansTable;
  support_messages: SupportMessagesTable;
  support_attachments: SupportAttachmentsTable;
  audit_log: AuditLogTable;
  jobs: JobsTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Organization = Selectable<OrganizationsTable>;
export type BillingPlanRow = Selectable<BillingPlansTable>;
export type Job = Selectable<JobsTable>;
