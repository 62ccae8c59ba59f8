import type { UserRole } from './api-types.ts';
import { emailError, type FieldErrors } from './validation.ts';

/** Spec 000 §5 and §8: inviting a user into the owner's organization. */
export const INVITE_MESSAGES = {
  emailRequired: 'Please provide an email address',
  emailFormat: 'Invalid email format',
  success: 'Invitation sent successfully.',
  exists: 'User with this email already exists.',
  /** An address that cannot be invited (an account of another organization): no reason is given. */
  refused: 'This e-mail address cannot be invited.',
  failure: 'Something went wrong while sending invite. Please try again later.',
} as const;

export function validateInvite(input: { email: string }): FieldErrors<'email'> {
  const email = emailError(input.email, {
    required: INVITE_MESSAGES.emailRequired,
    format: INVITE_MESSAGES.emailFormat,
  });
  return email ? { email } : {};
}

/** Spec 000 §2 (users list) and §8 (give, remove, delete). */
export const TEAM_MESSAGES = {
  invitationSent: 'Invitation has been sent',
  removeAccess: 'Remove access',
  giveAccess: 'Give access',
  noSeatsLeft: 'No seats left',
  removeSuccess: 'Access successfully removed.',
  removeFailure: 'Something went wrong while removing access.',
  giveSuccess: 'Access successfully granted.',
  capacityReached: 'Maximum access capacity reached.',
  giveFailure: 'Something went wrong while giving access.',
  deleteSuccess: 'User successfully deleted.',
  deleteFailure: 'Something went wrong while deleting the user.',
  ownersOnly: 'Only the owner of the organization can manage its users.',
  userNotFound: 'User not found.',
  invitationPending: 'This user has not accepted the invitation yet.',
  userBlocked: 'This user has been blocked by the provider.',
  deleteOnlyWithoutAccess: 'Only users without access can be deleted. Remove their access first.',
  deleteNotPending: 'A user whose invitation is pending cannot be deleted.',
  deleteNotOwner: 'The owner of the organization cannot be deleted.',
  deleteBlocked: 'This user was blocked by the platform and cannot be deleted.',
  withdrawInvitation: 'Withdraw invitation',
  withdrawSuccess: 'Invitation withdrawn. Its link no longer works.',
  withdrawFailure: 'Something went wrong while withdrawing the invitation.',
  notPending: 'This invitation has already been accepted.',
} as const;

/** Spec 000 §5 and §8: changing one's password on the account page. */
export const CHANGE_PASSWORD_MESSAGES = {
  currentRequired: 'Please enter your current password.',
  wrongCurrent: 'The current password is incorrect.',
  success: 'Password successfully changed',
  failure: 'Something went wrong while changing password.',
} as const;

/** Spec 000 §5, §6 and §8: deleting one's own account. */
export const DELETE_ACCOUNT_MESSAGES = {
  passwordRequired: 'Please enter your current password.',
  wrongPassword: 'The password you entered is incorrect. Please try again.',
  ownerNotAllowed: 'Account deletion is not allowed for organization owners.',
  failure: 'There was something wrong while trying to delete your account. Please try again later.',
} as const;

export function accountDeletedMessage(seconds: number): string {
  return `Your account has been deleted. You will return to login in ${seconds} seconds.`;
}

/** Status of a user in the owner's list: an INVITED account is shown as PENDING (spec 000 §3). */
export type OrganizationUserStatus = 'ACTIVE' | 'PENDING' | 'BLOCKED';

/** One row of GET /api/user/organization/users. */
export interface OrganizationUser {
  hashedId: string;
  email: string;
  access: boolean;
  status: OrganizationUserStatus;
  userRole: UserRole;
  organization: { id: number };
  createdAt: string;
  lastActiveAt: string | null;
}

/** The action the owner's list offers for a user (spec 000 §2 "User access states"). */
export type SeatAction = 'PENDING' | 'REMOVE' | 'GIVE' | 'NO_SEATS' | 'NONE';

export function seatActionOf(user: OrganizationUser, seatsLeft: number): SeatAction {
  if (user.status === 'PENDING') return 'PENDING';
  if (user.status === 'BLOCKED') return 'NONE';
  if (user.access) return 'REMOVE';
  return seatsLeft > 0 ? 'GIVE' : 'NO_SEATS';
}

/**
 * Delete is offered only for users without access, not pending, not owner (spec 000 §2), and not blocked:
 * deleting a user the platform blocked would free the address for a new invitation, undoing the block.
 */
export function canDeleteUser(user: OrganizationUser): boolean {
  return !user.access && user.status === 'ACTIVE' && user.userRole !== 'OWNER';
}

/** Current user first, then users with access, then the others; newest invitations last. */
export function sortOrganizationUsers(
  users: OrganizationUser[],
  currentHashedId: string,
): OrganizationUser[] {
  const rank = (u: OrganizationUser) => (u.hashedId === currentHashedId ? 0 : u.access ? 1 : 2);
  return [...users].sort(
    (a, b) => rank(a) - rank(b) || a.createdAt.localeCompare(b.createdAt) || a.email.localeCompare(b.email),
  );
}
