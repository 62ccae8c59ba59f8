import { passwordProblem } from '@osint/contract/password';
import { CHANGE_PASSWORD_MESSAGES, DELETE_ACCOUNT_MESSAGES } from '@osint/contract/team';
import { badRequest, conflict, forbidden, notFound } from '../lib/http-error.ts';
import { hashPassword, verifyPassword } from '../lib/password-hasher.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { TeamRepository } from '../repositories/team.repository.ts';
import type { UserRepository } from '../repositories/user.repository.ts';
import type { AuthUser, SessionService } from './session.service.ts';

/** The Settings panel of the account page: change password, delete account (spec 000 §2, §5, §8). */
export class AccountSettingsService {
  constructor(
    private readonly users: UserRepository,
    private readonly team: TeamRepository,
    private readonly audit: AuditRepository,
    private readonly sessions: SessionService,
  ) {}

  /** Every other session of the account ends; the one that changed the password stays signed in. */
  async changePassword(
    user: AuthUser,
    input: { currentPassword: string; newPassword: string },
    ip: string | null,
  ): Promise<void> {
    if (!input.currentPassword) {
      throw badRequest(CHANGE_PASSWORD_MESSAGES.currentRequired, [
        { field: 'currentPassword', message: CHANGE_PASSWORD_MESSAGES.currentRequired },
      ]);
    }
    const problem = passwordProblem(input.newPassword);
    if (problem) throw badRequest(problem, [{ field: 'newPassword', message: problem }]);
    const row = await this.users.findById(user.id);
    if (!row) throw notFound();
    if (!(await verifyPassword(row.password_hash, input.currentPassword))) {
      throw badRequest(CHANGE_PASSWORD_MESSAGES.wrongCurrent, [
        { field: 'currentPassword', message: CHANGE_PASSWORD_MESSAGES.wrongCurrent },
      ]);
    }
    await this.users.setPassword(user.id, await hashPassword(input.newPassword));
    await this.sessions.endOthersForUser(user.id, user.sessionId);
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'user.password_changed',
      target: `user:${user.id}`,
      ip,
    });
  }

  /**
   * Deletes the signed-in user's account with all of their work; the session ends with it. Owners cannot
   * delete their account; a wrong password answers 403. A user holding a seat gives it back first.
   */
  async deleteAccount(user: AuthUser, password: string, ip: string | null): Promise<void> {
    if (user.role === 'OWNER') throw forbidden(DELETE_ACCOUNT_MESSAGES.ownerNotAllowed);
    if (!password) {
      throw badRequest(DELETE_ACCOUNT_MESSAGES.passwordRequired, [
        { field: 'password', message: DELETE_ACCOUNT_MESSAGES.passwordRequired },
      ]);
    }
    const row = await this.users.findById(user.id);
    if (!row) throw notFound();
    if (!(await verifyPassword(row.password_hash, password)))
      throw forbidden(DELETE_ACCOUNT_MESSAGES.wrongPassword);
    // The seat, the work, the account and the audit entry go together, or nothing does.
    const deleted = await this.team.deleteUserWithContent(user.id, {
      givingUpSeat: true,
      audit: {
        actorUserId: user.id,
        organizationId: user.organizationId,
        action: 'user.account_deleted',
        target: `user:${user.id}`,
        detail: { email: user.email },
        ip,
      },
    });
    if (!deleted) throw conflict(DELETE_ACCOUNT_MESSAGES.failure);
  }
}
