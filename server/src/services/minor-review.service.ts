import { SEARCH_MESSAGES } from '@osint/contract/search';
import {
  MINOR_REVIEW_KEPT_DAYS,
  MINOR_REVIEW_MESSAGES,
  MINOR_REVIEW_REASON_MAX_LENGTH,
  type AdminMinorReviewView,
  type MinorReviewStatus,
  type MinorReviewView,
} from '@osint/contract/minor-review';
import type { MinorReviewRowStatus } from '../db/schema.ts';
import { isCropOf, normaliseFace } from '../lib/face-image.ts';
import { badRequest, conflict, notFound } from '../lib/http-error.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type {
  AdminMinorReviewRow,
  MinorReviewRepository,
  MinorReviewRow,
} from '../repositories/minor-review.repository.ts';
import type { SeatRepository } from '../repositories/seat.repository.ts';
import type { TeamRepository } from '../repositories/team.repository.ts';
import type { AccessService } from './access.service.ts';
import type { MailService } from './mail.service.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { AuthUser } from './session.service.ts';

const DAY_MS = 86_400_000;

const faceGone = () => badRequest(SEARCH_MESSAGES.faceGone);

/** What the organization sees: an approval whose search was made reads as USED. */
export function reviewStatusOf(row: Pick<MinorReviewRow, 'status' | 'search_used_at'>): MinorReviewStatus {
  return row.status === 'APPROVED' && row.search_used_at !== null ? 'USED' : row.status;
}

/**
 * Whether the organization may ask for a (new) review of a face whose latest review is `latest`: not
 * while one is pending or an approval is unused, never after a refusal (final); again after the
 * approved search was made or the review expired. Returns the refusal's message, or null.
 */
export function newReviewRefusal(latest: MinorReviewStatus | undefined): string | null {
  switch (latest) {
    case 'PENDING':
      return MINOR_REVIEW_MESSAGES.alreadyPending;
    case 'APPROVED':
      return MINOR_REVIEW_MESSAGES.alreadyApproved;
    case 'REFUSED':
      return MINOR_REVIEW_MESSAGES.refusedFinal;
    default:
      return null;
  }
}

function reasonOf(input: string, requiredMessage: string): string {
  const reason = input.trim();
  if (!reason) throw badRequest(requiredMessage, [{ field: 'reason', message: requiredMessage }]);
  if (reason.length > MINOR_REVIEW_REASON_MAX_LENGTH) {
    throw badRequest(MINOR_REVIEW_MESSAGES.reasonTooLong, [
      { field: 'reason', message: MINOR_REVIEW_MESSAGES.reasonTooLong },
    ]);
  }
  return reason;
}

function view(row: MinorReviewRow): MinorReviewView {
  return {
    id: row.id,
    status: reviewStatusOf(row),
    createdAt: row.created_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}

function adminView(row: AdminMinorReviewRow): AdminMinorReviewView {
  return {
    ...view(row),
    organization: { id: row.organization_id, name: row.organization_name },
    requestedBy: row.requested_by_email,
    reason: row.reason,
    decidedBy: row.decided_by_email,
    decisionReason: row.decision_reason,
    hasCrop: Boolean(row.has_crop),
  };
}

/**
 * Review by the platform of faces the minors gate refused (issue 13). An organization that is not
 * verified law enforcement sends the face's crop (checked against the digest sealed in the face's token,
 * so it cannot send another face) with a reason; the crop is kept encrypted until an admin decides or
 * for MINOR_REVIEW_KEPT_DAYS days. An approval allows one search of that face (its fingerprint) by that
 * organization; MinorGateService uses it up. A refusal is final.
 */
export class MinorReviewService {
  constructor(
    private readonly reviews: MinorReviewRepository,
    private readonly tokens: QueryFaceTokens,
    private readonly access: AccessService,
    private readonly minorGate: Pick<MinorGateService, 'isLawEnforcement'>,
    private readonly audit: Pick<AuditRepository, 'insert'>,
    private readonly mail: Pick<MailService, 'send'>,
    private readonly team: Pick<TeamRepository, 'findMembers'>,
    private readonly seats: Pick<SeatRepository, 'withAccess'>,
    private readonly publicUrl: string,
  ) {}

  /** POST /api/minor-reviews: asks the platform to review a face the gate refused. */
  async request(
    user: AuthUser,
    input: { face: string; image: string; reason: string },
  ): Promise<MinorReviewView> {
    await this.access.require(user);
    const reason = reasonOf(input.reason, MINOR_REVIEW_MESSAGES.reasonRequired);
    const face = await this.tokens.open(input.face, user.organizationId);
    if (!face) throw faceGone();
    if (!face.possibleMinor || (await this.minorGate.isLawEnforcement(user.organizationId))) {
      throw badRequest(MINOR_REVIEW_MESSAGES.notNeeded);
    }
    // Only the crop the upload answered with this face: never the photo, never another face.
    if (!isCropOf(face, input.image)) throw badRequest(MINOR_REVIEW_MESSAGES.cropMismatch);
    // Re-encoded like a search's face (it must decode as an image); stored encrypted.
    const cropJpeg = await normaliseFace(input.image);
    const fingerprint = await this.tokens.fingerprint(face);
    const latest = (await this.reviews.findLatestByFingerprints(user.organizationId, [fingerprint])).get(
      fingerprint,
    );
    const refusal = newReviewRefusal(latest && reviewStatusOf(latest));
    if (refusal) throw conflict(refusal);
    let row: MinorReviewRow;
    try {
      row = await this.reviews.insert({
        organizationId: user.organizationId,
        requestedBy: user.id,
        faceFingerprint: fingerprint,
        reason,
        crop: await this.tokens.sealBytes(cropJpeg),
      });
    } catch (error) {
      // Two requests for the same face at once: the open-review index keeps one.
      if (/minor_reviews_open_idx/.test(String(error))) throw conflict(MINOR_REVIEW_MESSAGES.alreadyPending);
      throw error;
    }
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'search.minor_review_requested',
      target: `minor-review:${row.id}`,
      detail: { reviewReason: reason },
    });
    return view(row);
  }

  /** GET /api/minor-reviews/{id}: a review of the caller's organization (another's is not found). */
  async find(user: AuthUser, id: number): Promise<MinorReviewView> {
    await this.access.require(user);
    const row = await this.reviews.findById(id, user.organizationId);
    if (!row) throw notFound(MINOR_REVIEW_MESSAGES.notFound);
    return view(row);
  }

  /** The latest review of each face (by fingerprint) of the organization, for the chooser. */
  async latestOfFaces(organizationId: number, fingerprints: string[]): Promise<Map<string, MinorReviewView>> {
    const rows = await this.reviews.findLatestByFingerprints(organizationId, fingerprints);
    return new Map([...rows].map(([fingerprint, row]) => [fingerprint, view(row)]));
  }

  /** GET /api/admin/minor-reviews: the queue (by status), oldest pending first. */
  async list(query: {
    status?: MinorReviewRowStatus | undefined;
    pageNumber: number;
    pageSize: number;
  }): Promise<{ results: AdminMinorReviewView[]; totalResultCount: number }> {
    const { rows, total } = await this.reviews.findAdminPage({
      status: query.status,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
    });
    return { results: rows.map(adminView), totalResultCount: total };
  }

  /** GET /api/admin/minor-reviews/{id} */
  async adminFind(id: number): Promise<AdminMinorReviewView> {
    const row = await this.reviews.findAdminById(id);
    if (!row) throw notFound(MINOR_REVIEW_MESSAGES.notFound);
    return adminView(row);
  }

  /** GET /api/admin/minor-reviews/{id}/crop: the face crop of a pending review, decrypted. */
  async crop(id: number): Promise<Buffer> {
    const sealed = await this.reviews.findCrop(id);
    if (!sealed) throw notFound(MINOR_REVIEW_MESSAGES.cropGone);
    return this.tokens.openBytes(sealed);
  }

  /**
   * POST /api/admin/minor-reviews/{id}/decision: approves one search of the face, or refuses (final).
   * The crop is deleted with the decision; audited with the admin and the reason; the requester and the
   * organization's owner are told by e-mail (a link, no photo).
   */
  async decide(
    admin: AuthUser,
    id: number,
    input: { approve: boolean; reason: string },
    ip: string | null,
  ): Promise<AdminMinorReviewView> {
    const reason = reasonOf(input.reason, MINOR_REVIEW_MESSAGES.decisionReasonRequired);
    const decided = await this.reviews.decide(id, {
      status: input.approve ? 'APPROVED' : 'REFUSED',
      decidedBy: admin.id,
      reason,
      at: new Date(),
    });
    if (!decided) {
      if (!(await this.reviews.findAdminById(id))) throw notFound(MINOR_REVIEW_MESSAGES.notFound);
      throw conflict(MINOR_REVIEW_MESSAGES.alreadyDecided);
    }
    await this.audit.insert({
      actorUserId: admin.id,
      organizationId: decided.organization_id,
      action: input.approve ? 'admin.minor_review.approved' : 'admin.minor_review.refused',
      target: `minor-review:${id}`,
      detail: { reviewReason: reason },
      ip,
    });
    const told = (await this.team.findMembers(decided.organization_id))
      // Active members only: a blocked requester is no longer told about the organization's work.
      .filter((member) => member.status === 'ACTIVE')
      .filter((member) => member.id === decided.requested_by || member.role === 'OWNER');
    // Nor a suspended organization, nor a requester who has lost their seat since.
    const withAccess = await this.seats.withAccess(
      decided.organization_id,
      told.map((member) => member.id),
    );
    const recipients = new Set(
      told.filter((member) => withAccess.has(member.id)).map((member) => member.email),
    );
    const link = `${this.publicUrl}/search`;
    for (const email of recipients) {
      await this.mail.send(
        email,
        mailTemplates.minorReviewDecided(input.approve, id, link),
        decided.organization_id,
      );
    }
    return this.adminFind(id);
  }

  /** The retention sweep: reviews undecided for MINOR_REVIEW_KEPT_DAYS days expire, crops deleted. */
  async expireOld(now = new Date()): Promise<number> {
    const expired = await this.reviews.expirePendingBefore(
      new Date(now.getTime() - MINOR_REVIEW_KEPT_DAYS * DAY_MS),
      now,
    );
    if (expired > 0) {
      await this.audit.insert({
        actorUserId: null,
        organizationId: null,
        action: 'retention.minor_reviews_expired',
        detail: { expiredReviews: expired },
      });
    }
    return expired;
  }
}
