import { PRODUCT_NAME, TRIAL_DAYS, VERIFICATION_LINK_HOURS } from '@osint/contract/constants';
import type { MailMessage } from './mail-transport.ts';

type Template = Omit<MailMessage, 'to'>;

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One layout for every message: a paragraph list and an optional call-to-action link. */
function layout(subject: string, paragraphs: string[], action?: { label: string; url: string }): Template {
  const text = [
    ...paragraphs,
    ...(action ? [`${action.label}: ${action.url}`] : []),
    '',
    `— ${PRODUCT_NAME}`,
  ].join('\n\n');
  const html = `<!doctype html><html><body style="font-family:Segoe UI,Arial,sans-serif;color:#0f172a;max-width:560px;margin:auto">
<h2 style="color:#0b1324">${escapeHtml(PRODUCT_NAME)}</h2>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${action ? `<p><a href="${escapeHtml(action.url)}" style="background:#2563eb;color:#fff;padding:10px 18px;border-radius:8px;text-decoration:none">${escapeHtml(action.label)}</a></p><p style="font-size:12px;color:#475569">${escapeHtml(action.url)}</p>` : ''}
</body></html>`;
  return { subject, text, html };
}

export const mailTemplates = {
  // Deliberately without the watch's name or any photo: mailboxes are not where biometric leads belong.
  faceAlerts: (link: string) =>
    layout(
      'New face alerts',
      [
        'A face your organization watches was found in newly indexed images.',
        'Sign in to review the alerts.',
      ],
      { label: 'Open alerts', url: link },
    ),
  lawEnforcementVerified: (organizationName: string) =>
    layout('Law-enforcement verification', [
      `${organizationName} has been verified as a law-enforcement organization.`,
      'Your users may now search faces that may belong to persons under 18. Every such search is recorded and reviewed by the platform.',
    ]),
  lawEnforcementRevoked: (organizationName: string) =>
    layout('Law-enforcement verification withdrawn', [
      `The law-enforcement verification of ${organizationName} has been withdrawn.`,
      'Faces that may belong to persons under 18 can no longer be searched by your users. Reply to this message if you think this is a mistake.',
    ]),
  // No photo and no reason of the admin's: the decision and a link to the search page.
  minorReviewDecided: (approved: boolean, reviewId: number, link: string) =>
    approved
      ? layout(
          'Face review approved',
          [
            `The platform has reviewed the face you sent (review #${reviewId}) and judged the person an adult.`,
            'One search of that face is approved for your organization. Upload the same photo again and choose the face to search it.',
          ],
          { label: 'Open the search', url: link },
        )
      : layout(
          'Face review refused',
          [
            `The platform has reviewed the face you sent (review #${reviewId}) and refused the search: the person may be under 18.`,
            'This decision is final. Searching for minors is available only to verified law-enforcement organizations.',
          ],
          { label: 'Open the search', url: link },
        ),
  verifyEmail: (link: string, releaseLink: string) =>
    layout(
      'Confirm your e-mail address',
      [
        'Thank you for requesting access for your organization.',
        `Please confirm your e-mail address within ${VERIFICATION_LINK_HOURS} hours. After that, our team verifies your organization before you can sign in.`,
        `If you did not ask for access, someone else used your address: release it here and it is free again at once: ${releaseLink}`,
      ],
      { label: 'Confirm e-mail address', url: link },
    ),
  registrationPendingForAdmin: (email: string, organizationName: string, link: string) =>
    layout(
      'New organization waiting for approval',
      [`${organizationName} (${email}) confirmed its e-mail address and waits for verification.`],
      { label: 'Review registrations', url: link },
    ),
  accountApproved: (link: string) =>
    layout(
      'Your organization has been approved',
      [
        'Your organization has passed our verification. You can now sign in.',
        `Your ${TRIAL_DAYS}-day free trial starts today.`,
      ],
      { label: 'Sign in', url: link },
    ),
  accountRejected: () =>
    layout('Your access request', [
      'We could not verify your organization, so your access request was declined.',
      'If you think this is a mistake, reply to this message with documents that confirm your organization.',
    ]),
  /** Sent instead of an error when someone registers an address that already has an account. */
  registrationAttempt: (signInUrl: string, resetUrl: string) =>
    layout(
      'Someone asked for access with your e-mail address',
      [
        'Someone asked for access to the platform with this e-mail address, which already has an account. No new account was made.',
        `If it was you, sign in at ${signInUrl}, or reset your password if you forgot it. If it was not you, ignore this message.`,
      ],
      { label: 'Reset password', url: resetUrl },
    ),
  /** Sent instead of an error when someone registers an address whose earlier request waits for confirmation. */
  registrationWaiting: () =>
    layout('Your access request waits for confirmation', [
      'Someone asked for access to the platform with this e-mail address, which already has a request waiting for confirmation. No new account was made.',
      `If the request was yours, use the confirmation link we sent you. If it was not, ignore our messages: an unconfirmed request lapses ${VERIFICATION_LINK_HOURS} hours after its last link and the address is free again.`,
    ]),
  resetPassword: (link: string, minutes: number) =>
    layout(
      'Reset your password',
      [
        `Someone asked to reset the password of this account. The link is valid for ${minutes} minutes and can be used once.`,
        'If it was not you, ignore this message.',
      ],
      { label: 'Reset password', url: link },
    ),
  invitation: (organizationName: string, invitedBy: string, link: string, hours: number) =>
    layout(
      `You have been invited to ${organizationName || PRODUCT_NAME}`,
      [
        `${invitedBy} invited you to join ${organizationName || 'their organization'} on ${PRODUCT_NAME}.`,
        `Set your password to activate your account. The link is valid for ${hours} hours and can be used once.`,
      ],
      { label: 'Set your password', url: link },
    ),
  supportMessage: (from: string, subject: string, message: string) =>
    layout(`[Support] ${subject}`, [`From: ${from}`, message]),
  orderPlaced: (orderNumber: string, amount: string, link: string) =>
    layout(
      `Your order ${orderNumber} is waiting for payment`,
      [
        `Thank you for your order. Please transfer ${amount} as shown on the proforma invoice; you can download it again from the pricing page.`,
        'Your subscription activates automatically once the payment is verified. Bank transfers may take 1–5 business days to process.',
      ],
      { label: 'Open pricing', url: link },
    ),
  paymentConfirmed: (orderNumber: string, period: string, seats: number, link: string) =>
    layout(
      `Payment received for order ${orderNumber}`,
      [
        `We have received your payment. Your plan runs ${period} with ${seats} ${seats === 1 ? 'seat' : 'seats'}.`,
        'Owners give team members access from the account page.',
      ],
      { label: 'Open your account', url: link },
    ),
  planActivated: (planLabel: string, period: string, link: string) =>
    layout(`Your ${planLabel} plan is active`, [`Your plan is active: ${period}.`], {
      label: 'Start searching',
      url: link,
    }),
  planExpired: (planLabel: string, link: string) =>
    layout(
      planLabel === 'Trial' ? 'Your free trial has ended' : 'Your subscription has expired',
      [
        `Your ${planLabel === 'Trial' ? 'free trial' : `${planLabel} plan`} has ended, so searches are paused for your organization.`,
        'Renew your plan to continue; your saved searches and extractions stay available.',
      ],
      { label: 'Renew your plan', url: link },
    ),
  planEndedByProvider: (planLabel: string, reason: string, link: string) =>
    layout(
      planLabel === 'Trial' ? 'Your free trial has been ended' : 'Your plan has been ended',
      [
        `We have ended your organization’s ${planLabel === 'Trial' ? 'free trial' : `${planLabel} plan`} today, so searches are paused for your organization.`,
        `Reason: ${reason}`,
        'Reply to this message or contact support if you think this is a mistake.',
      ],
      { label: 'Contact support', url: link },
    ),
  paymentOverdue: (link: string) =>
    layout(
      'Your subscription payment is overdue',
      [
        'The latest payment of your monthly subscription did not go through. Our payment provider will retry it; please check your card details.',
        'Access continues until the end of the period already paid.',
      ],
      { label: 'Open pricing', url: link },
    ),
  // The person the pages name is not written in the e-mail (mail leaves the product): the link opens it.
  extractionDone: (name: string, resultCount: number, link: string) =>
    layout(
      `Your AI data extraction is ready: ${name}`,
      [
        `The AI data extractor has analysed ${resultCount} ${resultCount === 1 ? 'result' : 'results'} of your search.`,
        'Open the extraction to see the names, flags and the persons seen with them: leads to verify, not identifications.',
      ],
      { label: 'Open the extraction', url: link },
    ),
  extractionDoneForTeam: (name: string, startedBy: string | null, link: string) =>
    layout(
      `An AI data extraction is ready: ${name}`,
      [
        `An AI data extraction${startedBy ? ` started by ${startedBy}` : ''} in your organization has finished.`,
        'Open the extraction to see what the pages say.',
      ],
      { label: 'Open the extraction', url: link },
    ),
};
