import { POSSIBLE_MINOR_MESSAGE } from '@osint/contract/search';
import { forbidden } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { AuthUser } from './session.service.ts';

// The minors rule (spec 000 §2): a face that may belong to a person under 18 is searched only for
// organizations an admin has verified as law enforcement. The age estimate is made at upload and sealed
// in the query token (face/age/possible-minor.ts decides), so the browser cannot clear it.

/** What the gate does with a search: let it run, let it run as a minor search (audited), or refuse it. */
export type MinorGateDecision = 'search' | 'search-minor' | 'refuse';

export function minorGateDecision(
  possibleMinor: boolean,
  lawEnforcementVerified: boolean,
): MinorGateDecision {
  if (!possibleMinor) return 'search';
  return lawEnforcementVerified ? 'search-minor' : 'refuse';
}

export class MinorGateService {
  constructor(
    private readonly organizations: Pick<OrganizationRepository, 'findById'>,
    private readonly audit: Pick<AuditRepository, 'insert'>,
  ) {}

  async isLawEnforcement(organizationId: number): Promise<boolean> {
    const organization = await this.organizations.findById(organizationId);
    return organization?.law_enforcement_verified_at != null;
  }

  /**
   * Whether a search of these faces may run: 'search' or 'search-minor'; a refusal is audited (who, when;
   * never the photo) and answered with 403.
   */
  async admit(user: AuthUser, possibleMinor: boolean): Promise<Exclude<MinorGateDecision, 'refuse'>> {
    const verified = possibleMinor && (await this.isLawEnforcement(user.organizationId));
    const decision = minorGateDecision(possibleMinor, verified);
    if (decision !== 'refuse') return decision;
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'search.refused_minor',
    });
    throw forbidden(POSSIBLE_MINOR_MESSAGE);
  }
}
