import { INVITE_LINK_HOURS } from '@osint/contract/constants';
import { normalizeEmail } from '@osint/contract/email';
import {
  INVITE_MESSAGES,
  TEAM_MESSAGES,
  sortOrganizationUsers,
  validateInvite,
  type OrganizationUser,
} from '@osint/contract/team';
import { toViolations } from '@osint/contract/validation';
import type { Config } from '../config.ts';
import type { User } from '../db/schema.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../lib/http-error.ts';
import { hashToken, newPublicId, newSecureToken } from '../lib/secure-token.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { TeamRepository } from '../repositories/team.repository.ts';
import type { UserTokenRepository } from '../repositories/user-token.repository.ts';
import type { UserRepository } from '../repositories/user.repository.ts';
import type { MailService } from './mail.service.ts';
import type { AuthUser, SessionService } from './session.service.ts';

const HOUR_MS = 3_600_000;

/** The owner's management of the organization's users and seats (spec 000 §2 Account page, §6, §8). */
export class TeamService {
  constructor(
    private readonly config: Config,
    private readonly team: TeamRepository,
    private readonly users: UserRepository,
    private readonly organizations: OrganizationRepository,
    private readonly tokens: UserTokenRepository,
    private readonly audit: AuditRepository,
    private readonly sessions: SessionService,
    private readonly mail: MailService,
    private readonly seats: SeatRepository,
  ) {}

  /**
   * The users with `access` as search grants it while a plan is in force: holding one of its seats. After a
   * smaller plan follows a larger one, users beyond its seats keep their flag but not access, and are
   * listed without. With no plan in force, the flags: who gets access when the next plan starts.
   */
  async listUsers(owner: AuthUser): Promise<OrganizationUser[]> {
    this.requireOwner(owner);
    const members = await this.team.findMembers(owner.organizationId);
    const hasAccess = await this.seats.accessAsGranted(owner.organizationId);
    return sortOrganizationUsers(
      members.map((member) => toOrganizationUser(member, hasAccess(member))),
      owner.hashedId,
    );
  }

  /**
   * Creates an invited user in the owner's organization and mails a set-password link valid for 72 hours.
   * Inviting an address that is still waiting in this organization sends a fresh link instead. With
   * `giveAccess` the invited user gets a seat at once; when none is left, nothing is created or sent.
   */
  async invite(
    owner: AuthUser,
    rawEmail: string,
    ip: string | null,
    options: { giveAccess?: boolean } = {},
  ): Promise<void> {
    this.requireOwner(owner);
    const errors = validateInvite({ email: rawEmail });
    if (errors.email) throw badRequest(errors.email, toViolations(errors));
    const email = normalizeEmail(rawEmail);
    const existing = await this.users.findByEmail(email);
    const seatAt = options.giveAccess ? new Date() : undefined;
    let invited: User;
    let seatGiven = false;
    if (existing) {
      // A user of another organization is refused without saying why: the owner must not learn which
      // addresses have accounts elsewhere. Users of the owner's own organization are on their list anyway.
      if (existing.organization_id !== owner.organizationId) throw badRequest(INVITE_MESSAGES.refused);
      if (existing.status !== 'INVITED') throw conflict(INVITE_MESSAGES.exists);
      invited = existing;
      if (seatAt) {
        const outcome = await this.team.grantAccess(owner.organizationId, existing.id, seatAt);
        if (outcome === 'full') throw badRequest(TEAM_MESSAGES.capacityReached);
        seatGiven = outcome === 'granted';
      }
    } else {
      try {
        const inserted = await this.team.insertInvitedUser(
          { hashedId: newPublicId(), organizationId: owner.organizationId, email, invitedBy: owner.id },
          seatAt,
        );
        if (inserted === 'full') throw badRequest(TEAM_MESSAGES.capacityReached);
        invited = inserted;
        seatGiven = seatAt !== undefined;
      } catch (error) {
        if (error instanceof HttpError) throw error;
        // Two invitations of one address at the same moment: the unique e-mail decides.
        const taken = await this.users.findByEmail(email);
        if (taken)
          throw taken.organization_id === owner.organizationId
            ? conflict(INVITE_MESSAGES.exists)
            : badRequest(INVITE_MESSAGES.refused);
        throw error;
      }
    }
    await this.tokens.expireUnused(invited.id, 'SET_PASSWORD');
    const token = newSecureToken();
    await this.tokens.insert({
      userId: invited.id,
      purpose: 'SET_PASSWORD',
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + INVITE_LINK_HOURS * HOUR_MS),
    });
    const organization = await this.organizations.findById(owner.organizationId);
    await this.mail.send(
      email,
      mailTemplates.invitation(
        organization?.name ?? '',
        owner.email,
        `${this.config.publicUrl}/set-password?token=${token}`,
        INVITE_LINK_HOURS,
      ),
      owner.organizationId,
    );
    await this.audit.insert({
      actorUserId: owner.id,
      organizationId: owner.organizationId,
      action: 'team.user_invited',
      target: `user:${invited.id}`,
      detail: { email, resent: invited === existing },
      ip,
    });
    if (seatGiven) {
      await this.audit.insert({
        actorUserId: owner.id,
        organizationId: owner.organizationId,
        action: 'team.access_granted',
        target: `user:${invited.id}`,
        detail: { email },
        ip,
      });
    }
  }

  /** Gives a seat; 400 "Maximum access capacity reached." when the plan in force has none left. */
  async giveAccess(owner: AuthUser, userHashedId: string, organizationId: number, ip: string | null) {
    const user = await this.findMember(owner, userHashedId, organizationId);
    if (user.status === 'INVITED') throw conflict(TEAM_MESSAGES.invitationPending);
    if (user.status !== 'ACTIVE') throw conflict(TEAM_MESSAGES.userBlocked);
    const outcome = await this.team.grantAccess(owner.organizationId, user.id, new Date());
    if (outcome === 'full') throw badRequest(TEAM_MESSAGES.capacityReached);
    if (outcome === 'granted') {
      await this.audit.insert({
        actorUserId: owner.id,
        organizationId: owner.organizationId,
        action: 'team.access_granted',
        target: `user:${user.id}`,
        detail: { email: user.email },
        ip,
      });
    }
  }

  /**
   * Takes the seat back and signs the user out at once. An owner may take their own seat (the trial's one
   * seat is transferable that way) and stays signed in in the session that asked.
   */
  async removeAccess(owner: AuthUser, userHashedId: string, organizationId: number, ip: string | null) {
    const user = await this.findMember(owner, userHashedId, organizationId);
    const removed = await this.team.revokeAccess(user.id);
    if (user.id === owner.id) await this.sessions.endOthersForUser(user.id, owner.sessionId);
    else await this.sessions.endAllForUser(user.id);
    if (removed) {
      await this.audit.insert({
        actorUserId: owner.id,
        organizationId: owner.organizationId,
        action: 'team.access_removed',
        target: `user:${user.id}`,
        detail: { email: user.email },
        ip,
      });
    }
  }

  /** Deletes a user without access who is neither pending, blocked nor the owner, with all of their work. */
  async deleteUser(owner: AuthUser, userHashedId: string, ip: string | null): Promise<void> {
    this.requireOwner(owner);
    const user = await this.team.findMember(owner.organizationId, userHashedId);
    if (!user) throw notFound(TEAM_MESSAGES.userNotFound);
    if (user.role === 'OWNER') throw conflict(TEAM_MESSAGES.deleteNotOwner);
    if (user.status === 'INVITED') throw conflict(TEAM_MESSAGES.deleteNotPending);
    // A blocked user stays: once deleted, the address could be invited again and the block undone.
    if (user.status !== 'ACTIVE') throw conflict(TEAM_MESSAGES.deleteBlocked);
    // Flagged beyond the seats of the plan in force (a smaller plan followed a larger one): listed without
    // access, so Delete is offered; the unused flag goes with the row.
    let beyondSeats = false;
    if (user.has_access) {
      const hasAccess = await this.seats.accessAsGranted(owner.organizationId);
      if (hasAccess(user)) throw conflict(TEAM_MESSAGES.deleteOnlyWithoutAccess);
      beyondSeats = true;
    }
    // Sessions and tokens are deleted with the user row; access and status are checked again under lock.
    const deleted = await this.team.deleteUserWithContent(user.id, {
      givingUpSeat: beyondSeats,
      audit: {
        actorUserId: owner.id,
        organizationId: owner.organizationId,
        action: 'team.user_deleted',
        target: `user:${user.id}`,
        detail: { email: user.email },
        ip,
      },
    });
    if (!deleted) {
      // Refused under lock: the user was blocked or given a seat meanwhile.
      const now = await this.team.findMember(owner.organizationId, userHashedId);
      throw conflict(
        now?.status === 'BLOCKED' ? TEAM_MESSAGES.deleteBlocked : TEAM_MESSAGES.deleteOnlyWithoutAccess,
      );
    }
  }

  /**
   * Withdraws a pending invitation (a mistyped address, a colleague who left): the invited account, which
   * never signed in, is deleted, so its link stops working and the seat it held is free again.
   */
  async withdrawInvitation(owner: AuthUser, userHashedId: string, ip: string | null): Promise<void> {
    this.requireOwner(owner);
    const user = await this.team.findMember(owner.organizationId, userHashedId);
    if (!user) throw notFound(TEAM_MESSAGES.userNotFound);
    if (user.status !== 'INVITED') throw conflict(TEAM_MESSAGES.notPending);
    // The status is checked again by the delete itself: an invitation accepted meanwhile stays.
    if (!(await this.team.deleteInvitedUser(owner.organizationId, user.id))) {
      throw conflict(TEAM_MESSAGES.notPending);
    }
    await this.audit.insert({
      actorUserId: owner.id,
      organizationId: owner.organizationId,
      action: 'team.invitation_withdrawn',
      target: `user:${user.id}`,
      detail: { email: user.email },
      ip,
    });
  }

  private requireOwner(user: AuthUser): void {
    if (user.role !== 'OWNER') throw forbidden(TEAM_MESSAGES.ownersOnly);
  }

  /** The organization id of the call must be the owner's own; another organization's user is not found. */
  private async findMember(owner: AuthUser, hashedId: string, organizationId: number): Promise<User> {
    this.requireOwner(owner);
    if (organizationId !== owner.organizationId) throw notFound(TEAM_MESSAGES.userNotFound);
    const user = await this.team.findMember(owner.organizationId, hashedId);
    if (!user) throw notFound(TEAM_MESSAGES.userNotFound);
    return user;
  }
}

export function toOrganizationUser(user: User, access: boolean): OrganizationUser {
  return {
    hashedId: user.hashed_id,
    email: user.email,
    access,
    status: user.status === 'INVITED' ? 'PENDING' : user.status === 'ACTIVE' ? 'ACTIVE' : 'BLOCKED',
    userRole: user.role,
    organization: { id: user.organization_id },
    createdAt: user.created_at.toISOString(),
    lastActiveAt: user.last_active_at?.toISOString() ?? null,
  };
}
