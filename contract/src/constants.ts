/** Business constants of the specification shared by server and web app. */
export const TRIAL_DAYS = 7;
export const TRIAL_SEATS = 1;
export const VERIFICATION_LINK_HOURS = 24;
export const RESET_LINK_MINUTES = 60;
export const INVITE_LINK_HOURS = 72;
export const BANNER_AUTO_HIDE_MS = 8000;
export const ACCOUNT_DELETION_REDIRECT_SECONDS = 10;
export const LEGAL_VERSION_DATE = 'January 22nd, 2024';
export const PRODUCT_NAME = 'OSINT Platform';
/** Max size of one contact-form attachment and of all of them together, in bytes. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
export const MAX_ATTACHMENTS_TOTAL_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS = 10;

/**
 * The largest page the paged lists answer (saved searches, extractions, an extraction's details). A refetch
 * reloads every page shown in one request (spec 001 §7), so this bounds how much one reload asks; past it a
 * reload shows this many and the rest loads again on scroll.
 */
export const MAX_RELOAD_PAGE_SIZE = 1000;

/**
 * Why contact-form attachments of these sizes cannot be sent (the first reason), or undefined. The form
 * says it as files are added; the server says the same of what it receives.
 */
export function attachmentsProblem(files: readonly { fileName: string; size: number }[]): string | undefined {
  if (files.length > MAX_ATTACHMENTS) return `At most ${MAX_ATTACHMENTS} files can be attached.`;
  let total = 0;
  for (const file of files) {
    total += file.size;
    if (file.size > MAX_ATTACHMENT_BYTES) return `The file "${file.fileName}" is larger than 5 MB.`;
    if (total > MAX_ATTACHMENTS_TOTAL_BYTES) return 'The attached files together are larger than 10 MB.';
  }
  return undefined;
}

export const NEWSLETTER_MESSAGES = {
  success: "You've successfully subscribed to the newsletter.",
  failure: 'Something went wrong while trying to subscribe to the newsletter.',
  unsubscribed: "You've unsubscribed from the newsletter.",
  unsubscribeFailure: 'Something went wrong while trying to unsubscribe from the newsletter.',
} as const;

export const VERIFY_EMAIL_MESSAGES = {
  resendSuccess: 'The email has been resent successfully.',
  resendFailure: 'Error while resending email.',
  missingHash: 'We could not find a verification code in this link.',
  invalidHash:
    'This verification link is missing a valid verification code or has expired. Please register again.',
} as const;

export const RATE_LIMITED_MESSAGE = 'Too many attempts. Please wait a few minutes and try again.';
/** 429 of a PDF report while the organization already has as many reports in progress as it may. */
export const REPORTS_BUSY_MESSAGE =
  'Too many reports in progress for your organization. Please wait for them to finish and try again.';
/** A PDF report that failed while being drawn (its worker crashed or took too long); the next one may work. */
export const REPORT_FAILED_MESSAGE =
  'The report could not be created. Please try again, or report fewer results.';

/** Spec 000 §9: an organization's searches, saved searches and extractions are deleted after this many days without activity. */
export const RETENTION_INACTIVE_DAYS = 30;
/** Spec 000 §9: system logs (the audit trail) are anonymised after this many days… */
export const AUDIT_ANONYMISE_AFTER_DAYS = 90;
/** …except billing and admin records, which keep their actor this many years. */
export const AUDIT_RECORDS_KEPT_YEARS = 7;
