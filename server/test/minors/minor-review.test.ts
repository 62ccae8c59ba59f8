import { MINOR_REVIEW_MESSAGES } from '@osint/contract/minor-review';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/lib/http-error.ts';
import type { AuditEntry } from '../../src/repositories/audit.repository.ts';
import { minorGateDecision, MinorGateService } from '../../src/services/minor-gate.service.ts';
import { newReviewRefusal, reviewStatusOf } from '../../src/services/minor-review.service.ts';
import { QueryFaceTokens } from '../../src/services/query-face-token.ts';
import type { AuthUser } from '../../src/services/session.service.ts';

// The approval logic of platform reviews without models or a database (always runs): what the gate does
// with approvals, which new requests are allowed, and what binds an approval and a crop to one face.
// The repository's SQL is exercised on both databases by integration/minor-review.test.ts.

/** Approved reviews as rows in memory: organization, face fingerprint. */
function approvals(rows: { id: number; organizationId: number; fingerprint: string }[]) {
  return {
    // Every face needs its own, like MinorReviewRepository.hasApprovals.
    async hasApprovals(organizationId: number, fingerprints: readonly string[]) {
      return fingerprints.every((fingerprint) =>
        rows.some((row) => row.organizationId === organizationId && row.fingerprint === fingerprint),
      );
    },
  };
}

function gateWith(reviews: ReturnType<typeof approvals>, lawEnforcement = false) {
  const entries: AuditEntry[] = [];
  const gate = new MinorGateService(
    {
      findById: async (id: number) =>
        ({ id, law_enforcement_verified_at: lawEnforcement ? new Date() : null }) as never,
    },
    { insert: async (entry: AuditEntry) => void entries.push(entry) },
    reviews,
  );
  return { gate, entries };
}

const analyst = { id: 9, organizationId: 7 } as AuthUser;
const otherOrganization = { id: 11, organizationId: 8 } as AuthUser;

describe('approvals at the minors gate', () => {
  it('decides a reviewed search only for a possible minor of an organization that is not law enforcement', () => {
    expect(minorGateDecision(true, false, true)).toBe('search-reviewed');
    expect(minorGateDecision(true, false, false)).toBe('refuse');
    expect(minorGateDecision(true, true, true)).toBe('search-minor');
    expect(minorGateDecision(false, false, true)).toBe('search');
  });

  it('admits a search of the approved face, for that organization only (the stored search uses it up)', async () => {
    const reviews = approvals([{ id: 1, organizationId: 7, fingerprint: 'face-a' }]);
    const { gate, entries } = gateWith(reviews);
    // Another organization, or another face of this one: refused.
    await expect(gate.admit(otherOrganization, ['face-a'])).rejects.toBeInstanceOf(HttpError);
    await expect(gate.admit(analyst, ['face-b'])).rejects.toMatchObject({ statusCode: 403 });
    await expect(gate.admit(analyst, ['face-a'])).resolves.toEqual({
      decision: 'search-reviewed',
      fingerprints: ['face-a'],
    });
    expect(entries.map((entry) => entry.action)).toEqual(['search.refused_minor', 'search.refused_minor']);
  });

  it('needs an approval for every possible-minor face of a search', async () => {
    const reviews = approvals([
      { id: 1, organizationId: 7, fingerprint: 'face-a' },
      { id: 2, organizationId: 7, fingerprint: 'face-b' },
    ]);
    const { gate } = gateWith(reviews);
    await expect(gate.admit(analyst, ['face-a', 'face-c'])).rejects.toMatchObject({ statusCode: 403 });
    await expect(gate.admit(analyst, ['face-a', 'face-b'])).resolves.toEqual({
      decision: 'search-reviewed',
      fingerprints: ['face-a', 'face-b'],
    });
  });

  it('needs no approval when the organization is law enforcement', async () => {
    const reviews = approvals([]);
    await expect(gateWith(reviews, true).gate.admit(analyst, ['face-a'])).resolves.toEqual({
      decision: 'search-minor',
      fingerprints: ['face-a'],
    });
  });
});

describe('asking for a review', () => {
  it('is refused while one is pending or approved, and for good after a refusal', () => {
    expect(newReviewRefusal(undefined)).toBeNull();
    expect(newReviewRefusal('PENDING')).toBe(MINOR_REVIEW_MESSAGES.alreadyPending);
    expect(newReviewRefusal('APPROVED')).toBe(MINOR_REVIEW_MESSAGES.alreadyApproved);
    expect(newReviewRefusal('REFUSED')).toBe(MINOR_REVIEW_MESSAGES.refusedFinal);
    expect(newReviewRefusal('USED')).toBeNull();
    expect(newReviewRefusal('EXPIRED')).toBeNull();
  });

  it('reads an approval whose search was made as used', () => {
    expect(reviewStatusOf({ status: 'APPROVED', search_used_at: null })).toBe('APPROVED');
    expect(reviewStatusOf({ status: 'APPROVED', search_used_at: new Date() })).toBe('USED');
    expect(reviewStatusOf({ status: 'REFUSED', search_used_at: null })).toBe('REFUSED');
  });
});

describe('what binds a review to one face', () => {
  const settings = { getOrCreate: async (_key: string, value: string) => value };
  const face = {
    descriptor: new Float32Array(8).fill(0.25),
    modelId: 'm@1',
    organizationId: 7,
    userId: 9,
    possibleMinor: true,
  };

  it('seals the crop digest in the token, so another crop is recognised', async () => {
    const tokens = new QueryFaceTokens(settings, 'k');
    const digest = createHash('sha256').update('crop').digest();
    const opened = await tokens.open(await tokens.seal({ ...face, cropSha256: digest }), 7);
    expect(opened?.cropSha256?.equals(digest)).toBe(true);
    expect(opened?.possibleMinor).toBe(true);
    expect((await tokens.open(await tokens.seal(face), 7))?.cropSha256).toBeUndefined();
  });

  it('fingerprints the same face alike in every upload, another face or key differently', async () => {
    const tokens = new QueryFaceTokens(settings, 'k');
    const fingerprint = await tokens.fingerprint(face);
    expect(await tokens.fingerprint({ ...face, descriptor: new Float32Array(8).fill(0.25) })).toBe(
      fingerprint,
    );
    expect(await tokens.fingerprint({ ...face, descriptor: new Float32Array(8).fill(0.26) })).not.toBe(
      fingerprint,
    );
    expect(await tokens.fingerprint({ ...face, modelId: 'm@2' })).not.toBe(fingerprint);
    expect(await new QueryFaceTokens(settings, 'other').fingerprint(face)).not.toBe(fingerprint);
  });

  it('keeps a crop encrypted at rest and refuses altered bytes', async () => {
    const tokens = new QueryFaceTokens(settings, 'k');
    const crop = Buffer.from('jpeg bytes of a face crop');
    const sealed = await tokens.sealBytes(crop);
    expect(sealed.includes(crop)).toBe(false);
    expect((await tokens.openBytes(sealed)).equals(crop)).toBe(true);
    sealed[14]! ^= 1;
    await expect(tokens.openBytes(sealed)).rejects.toThrow();
  });
});
