import { SEARCH_MESSAGES } from './search.ts';
/**
 * Review by the platform of a face the minors gate refused (issue 13): an organization that is not
 * verified law enforcement asks, with a reason; an admin who judges the person an adult approves one
 * search of that face, or refuses (final).
 */

/** Where a review stands. APPROVED: its one search is still to be made; USED: it has been made. */
export type MinorReviewStatus = 'PENDING' | 'APPROVED' | 'USED' | 'REFUSED' | 'EXPIRED';

export const MINOR_REVIEW_STATUS_LABELS: Record<MinorReviewStatus, string> = {
  PENDING: 'Review pending',
  APPROVED: 'Approved for one search',
  USED: 'Approved search made',
  REFUSED: 'Review refused',
  EXPIRED: 'Review expired',
};

/** The reasons (the organization's and the admin's) are kept short: a few sentences. */
export const MINOR_REVIEW_REASON_MAX_LENGTH = 1000;

/** A pending review's face crop is deleted after this many days, and the review expires. */
export const MINOR_REVIEW_KEPT_DAYS = 7;

export const MINOR_REVIEW_MESSAGES = {
  reasonRequired: 'Please say why this person is an adult.',
  decisionReasonRequired: 'Please give the reason for the decision.',
  reasonTooLong: `Please keep the reason under ${MINOR_REVIEW_REASON_MAX_LENGTH} characters.`,
  notNeeded: 'This face can be searched without a review.',
  cropMismatch: SEARCH_MESSAGES.faceImageMismatch,
  alreadyPending: 'A review of this face is already pending.',
  alreadyApproved: 'A search of this face has already been approved. Search it from the chooser.',
  refusedFinal: 'The platform has refused a review of this face. The refusal is final.',
  notFound: 'Review not found.',
  alreadyDecided: 'This review has already been decided.',
  cropGone: 'The face image of this review has been deleted.',
  requested: 'Review requested. You will get an e-mail when the platform has decided.',
} as const;

/** What the organization sees of its review (GET /api/minor-reviews/{id}, and on each chooser face). */
export interface MinorReviewView {
  id: number;
  status: MinorReviewStatus;
  createdAt: string;
  decidedAt: string | null;
}

/** What an admin sees in the queue (the crop is fetched on its own). */
export interface AdminMinorReviewView extends MinorReviewView {
  organization: { id: number; name: string };
  requestedBy: string | null;
  reason: string;
  decidedBy: string | null;
  decisionReason: string | null;
  hasCrop: boolean;
}
