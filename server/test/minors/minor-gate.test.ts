import { POSSIBLE_MINOR_MESSAGE } from '@osint/contract/search';
import { describe, expect, it } from 'vitest';
import {
  estimatedAge,
  isPossibleMinor,
  POSSIBLE_MINOR_BELOW_AGE,
  SECOND_ESTIMATE_BELOW_AGE,
} from '../../src/face/age/possible-minor.ts';
import { HttpError } from '../../src/lib/http-error.ts';
import type { AuditEntry } from '../../src/repositories/audit.repository.ts';
import { minorGateDecision, MinorGateService } from '../../src/services/minor-gate.service.ts';
import { QueryFaceTokens } from '../../src/services/query-face-token.ts';
import type { AuthUser } from '../../src/services/session.service.ts';

// The minors gate without models or a database: the threshold, the decision, the refusal's audit entry
// and the flag sealed in the query token. Always runs.

const user = { id: 9, organizationId: 7 } as AuthUser;

function gateFor(verifiedAt: Date | null) {
  const entries: AuditEntry[] = [];
  const gate = new MinorGateService(
    { findById: async (id: number) => ({ id, law_enforcement_verified_at: verifiedAt }) as never },
    { insert: async (entry: AuditEntry) => void entries.push(entry) },
    // No review approved anything: minor-review.test.ts covers the approvals.
    { hasApprovals: async () => false },
  );
  return { gate, entries };
}

describe('possible minor from the age estimates', () => {
  it('flags a face whose mean estimate is under the threshold, and only then', () => {
    const just = POSSIBLE_MINOR_BELOW_AGE;
    expect(isPossibleMinor({ ageGenderNet: just - 0.2, faceresDeep: just })).toBe(true);
    expect(isPossibleMinor({ ageGenderNet: just, faceresDeep: just })).toBe(false);
    // The mean of both networks: one high estimate does not clear a child's face the other sees.
    expect(isPossibleMinor({ ageGenderNet: 8, faceresDeep: 2 * just - 8 + 1 })).toBe(false);
    expect(isPossibleMinor({ ageGenderNet: 8, faceresDeep: 2 * just - 8 - 1 })).toBe(true);
    expect(estimatedAge({ ageGenderNet: 10, faceresDeep: 20 })).toBe(15);
  });

  it("takes AgeGenderNet's estimate alone where the second network was not needed", () => {
    expect(estimatedAge({ ageGenderNet: SECOND_ESTIMATE_BELOW_AGE })).toBe(SECOND_ESTIMATE_BELOW_AGE);
    expect(isPossibleMinor({ ageGenderNet: SECOND_ESTIMATE_BELOW_AGE })).toBe(false);
    // The limit sits well above the gate: a face spared the second network is never a possible minor.
    expect(SECOND_ESTIMATE_BELOW_AGE).toBeGreaterThan(POSSIBLE_MINOR_BELOW_AGE + 10);
  });
});

describe('the minors gate', () => {
  it('decides by the face and the organization', () => {
    expect(minorGateDecision(false, false)).toBe('search');
    expect(minorGateDecision(false, true)).toBe('search');
    expect(minorGateDecision(true, false)).toBe('refuse');
    expect(minorGateDecision(true, true)).toBe('search-minor');
  });

  it('refuses a possible minor for an organization that is not verified, with an audit entry', async () => {
    const { gate, entries } = gateFor(null);
    const refused = await gate.admit(user, ['face']).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ statusCode: 403, message: POSSIBLE_MINOR_MESSAGE });
    expect(entries).toEqual([{ actorUserId: 9, organizationId: 7, action: 'search.refused_minor' }]);
  });

  it('lets verified law enforcement search a possible minor, and everyone search adults', async () => {
    await expect(gateFor(new Date()).gate.admit(user, ['face'])).resolves.toEqual({
      decision: 'search-minor',
      fingerprints: ['face'],
    });
    const unverified = gateFor(null);
    await expect(unverified.gate.admit(user, [])).resolves.toEqual({ decision: 'search', fingerprints: [] });
    expect(unverified.entries).toEqual([]);
  });
});

describe('the flag sealed in the query token', () => {
  const settings = { getOrCreate: async (_key: string, value: string) => value };
  const face = {
    descriptor: new Float32Array(8).fill(0.25),
    modelId: 'm@1',
    organizationId: 7,
    userId: 9,
  };

  it('opens with the flag it was sealed with', async () => {
    const tokens = new QueryFaceTokens(settings, 'k');
    const minor = await tokens.open(await tokens.seal({ ...face, possibleMinor: true }), 7);
    const adult = await tokens.open(await tokens.seal({ ...face, possibleMinor: false }), 7);
    expect(minor?.possibleMinor).toBe(true);
    expect(adult?.possibleMinor).toBe(false);
    expect(adult?.descriptor).toEqual(face.descriptor);
  });

  it('cannot be cleared by altering the token', async () => {
    const tokens = new QueryFaceTokens(settings, 'k');
    const token = await tokens.seal({ ...face, possibleMinor: true });
    const bytes = Buffer.from(token, 'base64url');
    // The flags byte is the 17th byte of the plaintext: version (1) + IV (12) + 16 header bytes.
    bytes[1 + 12 + 16]! ^= 1;
    expect(await tokens.open(bytes.toString('base64url'), 7)).toBeUndefined();
  });
});
