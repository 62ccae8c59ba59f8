import { POSSIBLE_MINOR_MESSAGE } from '@osint/contract/search';
import { forbidden } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { Db } from '../db/database.ts';
import { MinorReviewRepository } from '../repositories/minor-review.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { AuthUser } from './session.service.ts';

// The minors rule (spec 000 §2): a face that may belong to a person under 18 is searched only for
// organizations an admin has verified as law enforcement. The age estimate is made at upload and sealed
// in the query token (face/age/possible-minor.ts decides), so the browser cannot clear it. Other
// organizations get through only with the platform's review: an admin who judged the person an adult
// approved one search of that face for that organization (minor-review.service.ts).

/**
 * What the gate does with a search: let it run, let it run as a minor search (audited), let it run as
 * the one search a review approved (audited), or refuse it.
 */
export type MinorGateDecision = 'search' | 'search-minor' | 'search-reviewed' | 'refuse';

export function minorGateDecision(
  possibleMinor: boolean,
  lawEnforcementVerified: boolean,
  /** Every possible-minor face of the search has an approved review not used yet. */
  reviewApproved = false,
): MinorGateDecision {
  if (!possibleMinor) return 'search';
  if (lawEnforcementVerified) return 'search-minor';
  return reviewApproved ? 'search-reviewed' : 'refuse';
}

export interface MinorGateAdmission {
  decision: Exclude<MinorGateDecision, 'refuse'>;
  /** The possible-minor faces' fingerprints, whose approvals a 'search-reviewed' search uses. */
  fingerprints: readonly string[];
}

export class MinorGateService {
  constructor(
    private readonly organizations: Pick<OrganizationRepository, 'findById'>,
    private readonly audit: Pick<AuditRepository, 'insert'>,
    private readonly reviews: Pick<MinorReviewRepository, 'hasApprovals'>,
  ) {}

  async isLawEnforcement(organizationId: number): Promise<boolean> {
    const organization = await this.organizations.findById(organizationId);
    return organization?.law_enforcement_verified_at != null;
  }

  /**
   * Whether a search of these faces may run, given the fingerprints (QueryFaceTokens.fingerprint) of its
   * possible-minor faces; nothing is used up yet (see useApprovals). A refusal is audited (who, when;
   * never the photo) and answered with 403.
   */
  async admit(user: AuthUser, possibleMinorFaces: readonly string[]): Promise<MinorGateAdmission> {
    const possibleMinor = possibleMinorFaces.length > 0;
    const verified = possibleMinor && (await this.isLawEnforcement(user.organizationId));
    const approved =
      possibleMinor &&
      !verified &&
      (await this.reviews.hasApprovals(user.organizationId, possibleMinorFaces));
    const decision = minorGateDecision(possibleMinor, verified, approved);
    if (decision !== 'refuse') return { decision, fingerprints: possibleMinorFaces };
    return this.refuse(user);
  }

  /**
   * Uses up the approvals an admitted 'search-reviewed' search rests on (each allows one search), in the
   * transaction `db` that stores the search: a search that fails leaves its approval unused. The ids of
   * the reviews used; throws ApprovalsUsedMeanwhile when another search used one first (see refuse).
   */
  async useApprovals(db: Db, user: AuthUser, admission: MinorGateAdmission): Promise<number[]> {
    if (admission.decision !== 'search-reviewed') return [];
    return new MinorReviewRepository(db).useApprovals(
      user.organizationId,
      admission.fingerprints,
      new Date(),
    );
  }

  /**
   * Whether a face may be watched. A watch searches every new image for as long as it runs, so only law
   * enforcement may watch a possible minor: a review's approval allows one search, never a watch.
   */
  async admitWatch(user: AuthUser, possibleMinor: boolean): Promise<void> {
    if (!possibleMinor || (await this.isLawEnforcement(user.organizationId))) return;
    await this.refuse(user);
  }

  /** Audits the refusal (who, when; never the photo) and answers 403. */
  async refuse(user: AuthUser): Promise<never> {
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'search.refused_minor',
    });
    throw forbidden(POSSIBLE_MINOR_MESSAGE);
  }
}
