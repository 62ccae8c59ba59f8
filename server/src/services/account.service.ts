import type { InvitationDetails, OrganizationData, UserInfo } from '@osint/contract/api-types';
import {
  RESET_LINK_MINUTES,
  VERIFICATION_LINK_HOURS,
  VERIFY_EMAIL_MESSAGES,
} from '@osint/contract/constants';
import { normalizeEmail } from '@osint/contract/email';
import { passwordProblem } from '@osint/contract/password';
import {
  LOGIN_MESSAGES,
  PASSWORD_FLOW_MESSAGES,
  signInEmailProblem,
  toViolations,
  validateLogin,
  validateRegistration,
  type RegisterInput,
} from '@osint/contract/validation';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { TokenPurpose, User } from '../db/schema.ts';
import { badRequest, conflict, forbidden, HttpError, unauthorized } from '../lib/http-error.ts';
import { hashPassword, verifyPassword } from '../lib/password-hasher.ts';
import { hashToken, newPublicId, newSecureToken } from '../lib/secure-token.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import { AuditRepository } from '../repositories/audit.repository.ts';
import type { BillingPlanRepository } from '../repositories/billing-plan.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import { SessionRepository } from '../repositories/session.repository.ts';
import type { TeamRepository } from '../repositories/team.repository.ts';
import { UserTokenRepository } from '../repositories/user-token.repository.ts';
import { UserRepository } from '../repositories/user.repository.ts';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import type { AccessService } from './access.service.ts';
import type { MailService } from './mail.service.ts';
import type { AuthUser, SessionService } from './session.service.ts';

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

const HOUR_MS = 3_600_000;

/** Confirmation links one registration can get: the first and two resent ones. */
export const MAX_VERIFICATION_LINKS = 3;

/** A request queued with the address typed in: the request itself does the same for every address. */
interface AddressJob {
  email: string;
}

export class AccountService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly users: UserRepository,
    private readonly organizations: OrganizationRepository,
    private readonly tokens: UserTokenRepository,
    private readonly plans: BillingPlanRepository,
    private readonly audit: AuditRepository,
    private readonly sessions: SessionService,
    private readonly mail: MailService,
    private readonly access: AccessService,
    private readonly queue: JobQueue,
    private readonly team: TeamRepository,
  ) {}

  /** A 400 naming each field the registration form would refuse; nothing is stored or sent. */
  checkRegistration(input: RegisterInput): void {
    const errors = validateRegistration(input);
    if (Object.keys(errors).length > 0)
      throw badRequest('Please correct the highlighted fields.', toViolations(errors));
  }

  /**
   * An invitation whose set-password link expired unused holds the address for nobody: it is closed, or
   * any organization could keep another's staff from registering by inviting them. The inviting
   * organization's log says only that it lapsed, not why it was closed now (an owner must not learn that
   * the address registered). True when it was.
   */
  private async releaseLapsedInvitation(existing: User): Promise<boolean> {
    if (existing.status !== 'INVITED' || (await this.tokens.hasUsable(existing.id, 'SET_PASSWORD')))
      return false;
    if (!(await this.team.deleteInvitedUser(existing.organization_id, existing.id))) return false;
    await this.audit.insert({
      actorUserId: null,
      organizationId: existing.organization_id,
      action: 'team.invitation_lapsed',
      target: `user:${existing.id}`,
      detail: { email: existing.email },
      ip: null,
    });
    return true;
  }

  /**
   * Creates the organization and its owner, unverified, and sends the confirmation link. The answer is
   * the same whether or not the address already has an account (no account enumeration): the owner of
   * an address in use gets an e-mail instead (a new confirmation link while the account is unconfirmed,
   * as "Resend e-mail" sends; the account keeps the password it was made with, or whoever registers
   * someone else's address could set the password its owner then confirms), and the password is hashed
   * either way so both take as long.
   */
  async register(input: RegisterInput & { newsletter: boolean }, client: ClientInfo): Promise<void> {
    this.checkRegistration(input);
    const email = normalizeEmail(input.mail);
    const passwordHash = await hashPassword(input.password);
    const found = await this.users.findByEmail(email);
    // Invited by an organization whose link expired unused: the address is its owner's to register.
    const existing = found && !(await this.releaseLapsedInvitation(found)) ? found : undefined;
    if (existing) {
      // An address whose confirmation link expired may register again (spec 000 §9); any other may not.
      // The newest link counts: a resent link keeps the registration for its own 24 hours.
      const abandoned =
        existing.status === 'EMAIL_UNVERIFIED' && !(await this.tokens.hasUsable(existing.id, 'VERIFY_EMAIL'));
      if (!abandoned) {
        if (existing.status !== 'EMAIL_UNVERIFIED') {
          await this.mail.send(
            existing.email,
            mailTemplates.registrationAttempt(
              `${this.config.publicUrl}/login`,
              `${this.config.publicUrl}/forgot-password`,
            ),
          );
        } else if (!(await this.resendVerificationTo(existing))) {
          // The links' cap is reached: the owner is told the request is waiting, without a new link.
          await this.mail.send(existing.email, mailTemplates.registrationWaiting());
        }
        await this.audit.insert({
          actorUserId: null,
          organizationId: existing.organization_id,
          action: 'user.registration_repeated',
          target: `user:${existing.id}`,
          ip: client.ip,
        });
        return;
      }
      await this.users.deleteUnconfirmedRegistration(existing.id);
    }
    const link = input.organizationLink.trim();
    const user = await this.db.transaction().execute(async (tx) => {
      const organization = await tx
        .insertInto('organizations')
        .values({
          name: input.organizationName.trim(),
          link: /^https?:\/\//i.test(link) ? link : `https://${link}`,
          type: input.organizationType,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return tx
        .insertInto('users')
        .values({
          hashed_id: newPublicId(),
          organization_id: organization.id,
          email,
          password_hash: passwordHash,
          role: 'OWNER',
          status: 'EMAIL_UNVERIFIED',
          newsletter: input.newsletter,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organization_id,
      action: 'user.registered',
      ip: client.ip,
    });
    await this.sendVerificationLink(user.id, email);
  }

  /**
   * Answers the same whether or not the address is waiting for confirmation. Anyone may ask, so the
   * renewals are capped: an unconfirmed registration of someone else's address lapses at most
   * MAX_VERIFICATION_LINKS × 24 hours after it was made, and every link mailed lets the address's real
   * owner release it at once (releaseRegistration).
   */
  /**
   * "Resend e-mail": queued, as a reset request is, so that the answer takes as long for an unconfirmed
   * registration (a count, a token and a mail) as for any other address (nothing).
   */
  async resendVerification(mail: string): Promise<void> {
    await this.queue.enqueue(QUEUES.verificationResend, { email: normalizeEmail(mail) } satisfies AddressJob);
  }

  /** The resend job: a new link for an unconfirmed registration, within the cap; nothing for any other. */
  async runVerificationResendJob(payload: unknown): Promise<void> {
    const { email } = payload as AddressJob;
    const user = await this.users.findByEmail(email);
    if (user?.status !== 'EMAIL_UNVERIFIED') return;
    await this.resendVerificationTo(user);
  }

  /**
   * A new confirmation link for an unconfirmed account (resend, or a registration of the same address
   * again), within the cap; false when the cap is reached. Only the address's mailbox gets the link, so
   * whoever asked learns nothing new.
   */
  private async resendVerificationTo(user: { id: number; email: string }): Promise<boolean> {
    const token = newSecureToken();
    const issued = await this.tokens.issueWithinCap(
      {
        userId: user.id,
        purpose: 'VERIFY_EMAIL',
        tokenHash: hashToken(token),
        expiresAt: new Date(Date.now() + VERIFICATION_LINK_HOURS * HOUR_MS),
      },
      MAX_VERIFICATION_LINKS,
    );
    if (issued) await this.mailVerificationLink(user.email, token);
    return issued;
  }

  /**
   * POST /user/release/:verificationHash: the owner of the mailbox that received a confirmation link, who
   * never asked for access, removes the unconfirmed registration (organization and account) so the address
   * is free again. Only an unused, unexpired link of an unconfirmed account does it.
   */
  async releaseRegistration(verificationHash: string, client: ClientInfo): Promise<void> {
    const token = await this.tokens.findByHash(hashToken(verificationHash), 'VERIFY_EMAIL');
    if (!token || token.used_at || token.expires_at.getTime() <= Date.now())
      throw badRequest(VERIFY_EMAIL_MESSAGES.invalidHash);
    const user = await this.users.findById(token.user_id);
    // Confirmed meanwhile (the same mailbox clicked both links at once): the confirmation stands.
    if (!user || !(await this.users.deleteUnconfirmedRegistration(user.id)))
      throw badRequest(VERIFY_EMAIL_MESSAGES.invalidHash);
    await this.audit.insert({
      actorUserId: null,
      organizationId: null,
      action: 'user.registration_released',
      detail: { email: user.email },
      ip: client.ip,
    });
  }

  /** 400 for unknown or expired links, 409 for a link already used (the page treats it as success). */
  async verifyEmail(verificationHash: string): Promise<void> {
    const token = await this.tokens.findByHash(hashToken(verificationHash), 'VERIFY_EMAIL');
    if (!token) throw badRequest(VERIFY_EMAIL_MESSAGES.invalidHash);
    if (token.used_at) throw conflict('This e-mail address has already been confirmed.');
    if (token.expires_at.getTime() <= Date.now()) throw badRequest(VERIFY_EMAIL_MESSAGES.invalidHash);
    if (!(await this.tokens.markUsed(token.id)))
      throw conflict('This e-mail address has already been confirmed.');
    const user = await this.users.findById(token.user_id);
    if (!user) throw badRequest(VERIFY_EMAIL_MESSAGES.invalidHash);
    const confirmed = await this.users.updateStatusIf(user.id, ['EMAIL_UNVERIFIED'], {
      status: 'PENDING_APPROVAL',
      email_verified_at: new Date(),
    });
    if (!confirmed) return;
    const organization = await this.organizations.findById(user.organization_id);
    for (const admin of await this.users.findAdmins()) {
      await this.mail.send(
        admin.email,
        mailTemplates.registrationPendingForAdmin(
          user.email,
          organization?.name ?? '',
          `${this.config.publicUrl}/admin/users`,
        ),
      );
    }
  }

  /**
   * Returns the new session's cookie value.
   *
   * `addressLimit` is the 429 of the per-address limit (10 attempts in 15 minutes) when it is exceeded.
   * It is not a lockout of the account's owner: a sign-in with the right password from an IP address the
   * user signed in from before goes through, so guessing from elsewhere cannot lock a person out of their
   * usual place of work. Every other attempt (a wrong password, or an address never used before) gets the
   * 429, so the limit still stops guessing, and its answer does not tell whether the password was right.
   * (Chosen over progressive delays, which would slow down the owner along with the attacker.)
   */
  async login(
    mail: string,
    password: string,
    client: ClientInfo,
    limits: { addressLimit?: HttpError | undefined } = {},
  ): Promise<string> {
    // The sign-in form's own checks (spec 000 §5), for a client that skipped them: nothing is looked up.
    const errors = validateLogin({ mail, password });
    const first = errors.email ?? errors.password;
    if (first) throw badRequest(first, toViolations(errors));
    const user = await this.users.findByEmail(normalizeEmail(mail));
    const valid = await verifyPassword(user?.password_hash ?? null, password);
    if (limits.addressLimit) {
      const knownPlace =
        valid &&
        user !== undefined &&
        client.ip !== null &&
        (await this.audit.hasSignedInFrom(user.id, client.ip));
      if (!knownPlace) throw limits.addressLimit;
    }
    if (!user || !valid || user.status !== 'ACTIVE') {
      await this.audit.insert({
        actorUserId: user?.id ?? null,
        organizationId: user?.organization_id ?? null,
        action: 'user.login_failed',
        detail: {
          email: normalizeEmail(mail).slice(0, 320),
          reason: !user ? 'unknown_email' : !valid ? 'wrong_password' : user.status.toLowerCase(),
        },
        ip: client.ip,
      });
    }
    if (!user || !valid) throw unauthorized(LOGIN_MESSAGES.wrongCredentials);
    switch (user.status) {
      case 'ACTIVE':
        break;
      case 'REJECTED':
        throw forbidden(LOGIN_MESSAGES.declined);
      case 'BLOCKED':
        throw forbidden(LOGIN_MESSAGES.blocked);
      // Told only to someone who knows the password, so it reveals nothing to a guesser.
      case 'EMAIL_UNVERIFIED':
        throw forbidden(LOGIN_MESSAGES.emailUnverified);
      default:
        throw forbidden(LOGIN_MESSAGES.notApproved);
    }
    await this.users.update(user.id, { last_active_at: new Date() });
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organization_id,
      action: 'user.login',
      ip: client.ip,
    });
    return this.sessions.create(user.id, client);
  }

  /**
   * Queues the reset request whatever the address: the request does the same work, in the same time,
   * for an active account, another account and no account at all, so neither the answer nor its timing
   * tells whether the account exists. The job mails the link to active accounts only.
   */
  async requestPasswordReset(mail: string): Promise<void> {
    // The form's format check, for a client that skipped it (it tells nothing about accounts).
    const problem = signInEmailProblem(mail);
    if (problem) throw badRequest(problem, [{ field: 'email', message: problem }]);
    await this.queue.enqueue(QUEUES.passwordReset, {
      email: normalizeEmail(mail),
    } satisfies AddressJob);
  }

  /** The password-reset job: a link for an active account, nothing for any other address. */
  async runPasswordResetJob(payload: unknown): Promise<void> {
    const { email } = payload as AddressJob;
    const user = await this.users.findByEmail(email);
    if (user?.status !== 'ACTIVE') return;
    const token = await this.issueToken(user.id, 'RESET_PASSWORD', RESET_LINK_MINUTES * 60_000);
    await this.mail.send(
      user.email,
      mailTemplates.resetPassword(
        `${this.config.publicUrl}/reset-password?token=${token}`,
        RESET_LINK_MINUTES,
      ),
    );
  }

  /**
   * What the set-password page of an invitation shows: the account, its organization and whether it has
   * a seat. A link that is unknown, used or expired gets the same answer as any invalid token.
   */
  async invitationDetails(rawToken: string): Promise<InvitationDetails> {
    const token = await this.usableToken('SET_PASSWORD', rawToken);
    const user = await this.users.findById(token.user_id);
    if (!user) throw badRequest(PASSWORD_FLOW_MESSAGES.invalidToken);
    const organization = await this.organizations.findById(user.organization_id);
    return { email: user.email, organizationName: organization?.name ?? '', access: user.has_access };
  }

  /**
   * Sets a new password with a single-use token: RESET_PASSWORD for a forgotten password, SET_PASSWORD
   * for an invited user's first one. Every session of the account ends. An invited user is signed in
   * afterwards (the answer carries the new session): the link proved the address, the password is new.
   */
  async setPasswordWithToken(
    purpose: 'RESET_PASSWORD' | 'SET_PASSWORD',
    rawToken: string,
    newPassword: string,
    client?: ClientInfo,
  ): Promise<{ session?: string; access: boolean }> {
    const problem = passwordProblem(newPassword);
    if (problem) throw badRequest(problem, [{ field: 'newPassword', message: problem }]);
    const token = await this.usableToken(purpose, rawToken);
    const passwordHash = await hashPassword(newPassword);
    const now = new Date();
    // The link is used up only together with the new password (and the invited account's activation):
    // a failure half-way leaves the link working rather than the account without a way in.
    const user = await this.db.transaction().execute(async (tx) => {
      const users = new UserRepository(tx);
      // The account's row first, as its deletion locks it: the two cannot wait for each other.
      await users.lockById(token.user_id);
      // A link sent before its account was blocked stays dead even if it escaped the block's expiry.
      const holder = await users.findById(token.user_id);
      if (holder?.status === 'BLOCKED' || !(await new UserTokenRepository(tx).markUsed(token.id))) {
        throw badRequest(PASSWORD_FLOW_MESSAGES.invalidToken);
      }
      await users.setPassword(token.user_id, passwordHash, now);
      if (purpose === 'SET_PASSWORD') {
        await users.updateStatusIf(token.user_id, ['INVITED'], { status: 'ACTIVE', email_verified_at: now });
      }
      await new SessionRepository(tx).deleteByUserId(token.user_id);
      const changed = await users.findById(token.user_id);
      await new AuditRepository(tx).insert({
        actorUserId: token.user_id,
        organizationId: changed?.organization_id ?? null,
        action: purpose === 'SET_PASSWORD' ? 'user.set_password' : 'user.reset_password',
        target: `user:${token.user_id}`,
      });
      return changed;
    });
    if (purpose !== 'SET_PASSWORD' || !client || user?.status !== 'ACTIVE') return { access: false };
    await this.users.update(user.id, { last_active_at: now });
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organization_id,
      action: 'user.login',
      ip: client.ip,
    });
    const session = await this.sessions.create(user.id, client);
    const signedIn = await this.sessions.authenticate(session);
    return { session, access: signedIn ? (await this.access.of(signedIn)).granted : false };
  }

  private async usableToken(purpose: 'RESET_PASSWORD' | 'SET_PASSWORD', rawToken: string) {
    const token = await this.tokens.findByHash(hashToken(rawToken), purpose);
    if (!token || token.used_at || token.expires_at.getTime() <= Date.now())
      throw badRequest(PASSWORD_FLOW_MESSAGES.invalidToken);
    return token;
  }

  async setNewsletter(user: AuthUser, subscribed: boolean): Promise<void> {
    await this.users.update(user.id, { newsletter: subscribed });
  }

  async getUserInfo(user: AuthUser): Promise<UserInfo> {
    const access = await this.access.of(user);
    return {
      access: access.granted,
      restricted: access.restricted,
      userRole: user.role,
      admin: user.isAdmin,
      email: user.email,
      hashedId: user.hashedId,
      organizationId: user.organizationId,
      isOwner: user.role === 'OWNER',
      newsletter: user.newsletter,
      planActive: access.plan !== undefined,
      organizationBlocked: access.organizationBlocked,
    };
  }

  async getOrganizationData(user: AuthUser): Promise<OrganizationData> {
    const organization = await this.organizations.findById(user.organizationId);
    if (!organization) throw new HttpError(404, 'Organization not found.');
    const plan = await this.plans.findActive(user.organizationId);
    return {
      organizationId: organization.id,
      name: organization.name,
      link: organization.link,
      type: organization.type,
      isOwner: user.role === 'OWNER',
      activeBillingPlan: plan
        ? {
            planType: plan.plan_type,
            seatLimit: plan.seat_limit,
            startDate: plan.start_date.toISOString(),
            endDate: plan.end_date.toISOString(),
          }
        : null,
    };
  }

  private async sendVerificationLink(userId: number, email: string): Promise<void> {
    await this.mailVerificationLink(
      email,
      await this.issueToken(userId, 'VERIFY_EMAIL', VERIFICATION_LINK_HOURS * HOUR_MS),
    );
  }

  private async mailVerificationLink(email: string, token: string): Promise<void> {
    await this.mail.send(
      email,
      mailTemplates.verifyEmail(
        `${this.config.publicUrl}/verify-email/${token}`,
        `${this.config.publicUrl}/release-email/${token}`,
      ),
    );
  }

  private async issueToken(userId: number, purpose: TokenPurpose, validForMs: number): Promise<string> {
    await this.tokens.expireUnused(userId, purpose);
    const token = newSecureToken();
    await this.tokens.insert({
      userId,
      purpose,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + validForMs),
    });
    return token;
  }
}
