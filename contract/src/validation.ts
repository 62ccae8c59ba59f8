import { blockedDomainMessage, blockedEmailDomain, isEmailFormatValid } from './email.ts';
import { isOrganizationType, isUrlFormatValid, MAX_ORGANIZATION_NAME_LENGTH } from './organization.ts';
import { passwordProblem } from './password.ts';

/** One field error, the shape every 400 answer of the API carries in `violations`. */
export interface Violation {
  field: string;
  message: string;
}

export type FieldErrors<F extends string> = Partial<Record<F, string>>;

interface EmailMessages {
  required: string;
  format: string;
}

/** Required → format → blocked provider, each form with its own wording (spec 000 §5). */
export function emailError(email: string, messages: EmailMessages): string | undefined {
  const value = email.trim();
  if (!value) return messages.required;
  if (!isEmailFormatValid(value)) return messages.format;
  const blocked = blockedEmailDomain(value);
  if (blocked) return blockedDomainMessage(blocked);
  // `someone@acme.org.` (the fully-qualified domain) reaches the mailbox of `someone@acme.org` but would be
  // another account: a blocked user could be invited again, one mailbox could register twice. Refused
  // after the blocked-provider check, so that `someone@gmail.com.` is still told why.
  return value.endsWith('.') ? messages.format : undefined;
}

export function toViolations<F extends string>(errors: FieldErrors<F>): Violation[] {
  return Object.entries(errors)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([field, message]) => ({ field, message }));
}

export const REGISTER_MESSAGES = {
  emailRequired: 'Please provide the organization e-mail.',
  emailFormat: "Email's format is invalid.",
  organizationNameRequired: 'Please provide the organization name.',
  organizationNameTooLong: `The organization name must be at most ${MAX_ORGANIZATION_NAME_LENGTH} characters.`,
  linkRequired: 'Please provide the link.',
  linkFormat: "Url's format is invalid.",
  typeRequired: 'Please choose the type of your organization.',
  failure: 'Error while registering. Please try again later.',
} as const;

export interface RegisterInput {
  mail: string;
  password: string;
  organizationName: string;
  organizationLink: string;
  organizationType: string;
}

/** Field names follow the API's 400 answer: email, password, organizationName, organizationUrl, organizationType. */
export type RegisterField =
  'email' | 'password' | 'organizationName' | 'organizationUrl' | 'organizationType';

export function validateRegistration(input: RegisterInput): FieldErrors<RegisterField> {
  const errors: FieldErrors<RegisterField> = {};
  errors.email = emailError(input.mail, {
    required: REGISTER_MESSAGES.emailRequired,
    format: REGISTER_MESSAGES.emailFormat,
  });
  errors.password = passwordProblem(input.password);
  const name = input.organizationName.trim();
  if (!name) errors.organizationName = REGISTER_MESSAGES.organizationNameRequired;
  else if (name.length > MAX_ORGANIZATION_NAME_LENGTH)
    errors.organizationName = REGISTER_MESSAGES.organizationNameTooLong;
  const link = input.organizationLink.trim();
  if (!link) errors.organizationUrl = REGISTER_MESSAGES.linkRequired;
  else if (!isUrlFormatValid(link)) errors.organizationUrl = REGISTER_MESSAGES.linkFormat;
  if (!input.organizationType) errors.organizationType = REGISTER_MESSAGES.typeRequired;
  else if (!isOrganizationType(input.organizationType))
    errors.organizationType = REGISTER_MESSAGES.typeRequired;
  return withoutEmpty(errors);
}

export const LOGIN_MESSAGES = {
  emailRequired: 'Please provide the organization email.',
  passwordRequired: 'Please provide the organization password.',
  emailFormat: "Email's format is invalid.",
  wrongCredentials: 'Wrong e-mail or password. Please check the provided information.',
  notApproved: 'Your account is still under our verification process.',
  /** After the right password only: the login page then offers to send the confirmation link again. */
  emailUnverified:
    'Please confirm your e-mail address first: open the link we sent you, or send it again below.',
  declined: 'Your access request was declined. Contact our support for more information.',
  blocked: 'Your account has been blocked. Contact our support for more information.',
  failure: 'Something went wrong while trying to login. Please try again later.',
} as const;

/** The address of the sign-in and forgot-password forms: given, and of a valid format. */
export function signInEmailProblem(mail: string): string | undefined {
  const value = mail.trim();
  if (!value) return LOGIN_MESSAGES.emailRequired;
  return isEmailFormatValid(value) ? undefined : LOGIN_MESSAGES.emailFormat;
}

export function validateLogin(input: { mail: string; password: string }): FieldErrors<'email' | 'password'> {
  const errors: FieldErrors<'email' | 'password'> = {};
  errors.email = signInEmailProblem(input.mail);
  if (!input.password) errors.password = LOGIN_MESSAGES.passwordRequired;
  return withoutEmpty(errors);
}

export const CONTACT_MESSAGES = {
  emailRequired: 'Email is required',
  emailFormat: 'Email format is invalid',
  subjectRequired: 'Subject is required',
  messageRequired: 'Message is required',
  messageTooLong: 'Message is too long',
  success:
    'Please wait for a response from our support team. Any follow-up communication will be sent to the provided email address.',
} as const;

export const CONTACT_SUBJECTS = ['General Inquiry', 'Product Support', 'Billing', 'Feedback'] as const;
export const MAX_CONTACT_MESSAGE_LENGTH = 10_000;

export type ContactField = 'email' | 'subject' | 'message' | 'files';

export function validateContact(input: {
  email: string;
  subject: string;
  message: string;
}): FieldErrors<ContactField> {
  const errors: FieldErrors<ContactField> = {};
  errors.email = emailError(input.email, {
    required: CONTACT_MESSAGES.emailRequired,
    format: CONTACT_MESSAGES.emailFormat,
  });
  if (!input.subject.trim()) errors.subject = CONTACT_MESSAGES.subjectRequired;
  if (!input.message.trim()) errors.message = CONTACT_MESSAGES.messageRequired;
  else if (input.message.length > MAX_CONTACT_MESSAGE_LENGTH)
    errors.message = CONTACT_MESSAGES.messageTooLong;
  return withoutEmpty(errors);
}

export const PASSWORD_FLOW_MESSAGES = {
  forgotSuccess: 'Reset password link has been successfully sent.',
  forgotFailure: 'Something went wrong while sending reset request.',
  resetSuccess: 'The password has been successfully changed.',
  resetFailure: 'Something went wrong while resetting password.',
  setSuccess: 'The password has been successfully set.',
  setFailure: 'Something went wrong while setting password.',
  missingToken:
    'No token detected. You cannot change your password due to missing access token. Contact our support for more information.',
  invalidToken: 'This link is invalid or has expired. Please request a new one.',
} as const;

function withoutEmpty<F extends string>(errors: FieldErrors<F>): FieldErrors<F> {
  return Object.fromEntries(Object.entries(errors).filter(([, v]) => v !== undefined)) as FieldErrors<F>;
}
