import type { UserRole, UserStatus } from '@osint/contract/api-types';
import type { Config } from '../config.ts';
import { hashToken, newSecureToken } from '../lib/secure-token.ts';
import type { SessionRepository } from '../repositories/session.repository.ts';

export interface AuthUser {
  id: number;
  hashedId: string;
  email: string;
  organizationId: number;
  role: UserRole;
  isAdmin: boolean;
  hasAccess: boolean;
  newsletter: boolean;
  status: UserStatus;
  sessionId: string;
}

const TOUCH_INTERVAL_MS = 60_000;

export class SessionService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly config: Config,
  ) {}

  /** Starts a session and returns the cookie value; only its hash is stored. */
  async create(userId: number, client: { ip: string | null; userAgent: string | null }): Promise<string> {
    const token = newSecureToken();
    const expiresAt = new Date(Date.now() + this.config.session.absoluteHours * 3_600_000);
    await this.sessions.insert({ id: hashToken(token), userId, expiresAt, ...client });
    return token;
  }

  /**
   * The signed-in user of a cookie value, or undefined when the session is unknown, past its absolute or
   * idle expiry, or its user is no longer active (rejected, blocked or deleted users lose their sessions).
   */
  async authenticate(token: string): Promise<AuthUser | undefined> {
    const id = hashToken(token);
    const row = await this.sessions.findValidWithUser(id);
    if (!row) return undefined;
    const idleMs = this.config.session.idleMinutes * 60_000;
    if (row.status !== 'ACTIVE' || Date.now() - row.last_seen_at.getTime() > idleMs) {
      await this.sessions.delete(id);
      return undefined;
    }
    if (Date.now() - row.last_seen_at.getTime() > TOUCH_INTERVAL_MS) await this.sessions.touch(id);
    return {
      id: row.id,
      hashedId: row.hashed_id,
      email: row.email,
      organizationId: row.organization_id,
      role: row.role,
      isAdmin: row.is_admin,
      hasAccess: row.has_access,
      newsletter: row.newsletter,
      status: row.status,
      sessionId: id,
    };
  }

  async end(sessionId: string): Promise<void> {
    await this.sessions.delete(sessionId);
  }

  async endAllForUser(userId: number): Promise<void> {
    await this.sessions.deleteByUserId(userId);
  }

  /** Signs the user out everywhere except the session making the request. */
  async endOthersForUser(userId: number, keepSessionId: string): Promise<void> {
    await this.sessions.deleteByUserIdExcept(userId, keepSessionId);
  }

  /** The user's live sessions (idle ones past SESSION_IDLE_MINUTES are left out). */
  async listForUser(userId: number) {
    const idleMs = this.config.session.idleMinutes * 60_000;
    const rows = await this.sessions.findActiveByUserId(userId);
    return rows.filter((row) => Date.now() - row.last_seen_at.getTime() <= idleMs);
  }
}
