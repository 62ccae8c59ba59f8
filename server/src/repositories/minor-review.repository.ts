import type { Selectable, SqlBool } from 'kysely';
import { inTransaction, type Db } from '../db/database.ts';
import type { MinorReviewRowStatus, MinorReviewsTable } from '../db/schema.ts';

export type MinorReviewRow = Omit<Selectable<MinorReviewsTable>, 'crop'> & { has_crop: SqlBool };

export interface AdminMinorReviewRow extends MinorReviewRow {
  organization_name: string;
  requested_by_email: string | null;
  decided_by_email: string | null;
}

const ROW_COLUMNS = [
  'minor_reviews.id',
  'minor_reviews.organization_id',
  'minor_reviews.requested_by',
  'minor_reviews.face_fingerprint',
  'minor_reviews.reason',
  'minor_reviews.status',
  'minor_reviews.created_at',
  'minor_reviews.decided_at',
  'minor_reviews.decided_by',
  'minor_reviews.decision_reason',
  'minor_reviews.search_used_at',
] as const;

/** Reviews of faces refused by the minors gate (migration 0018). */
export class MinorReviewRepository {
  constructor(private readonly db: Db) {}

  async insert(review: {
    organizationId: number;
    requestedBy: number;
    faceFingerprint: string;
    reason: string;
    crop: Buffer;
  }): Promise<MinorReviewRow> {
    return this.db
      .insertInto('minor_reviews')
      .values({
        organization_id: review.organizationId,
        requested_by: review.requestedBy,
        face_fingerprint: review.faceFingerprint,
        reason: review.reason,
        crop: review.crop,
      })
      .returning([...ROW_COLUMNS, (eb) => eb.lit(true).as('has_crop')])
      .executeTakeFirstOrThrow();
  }

  /** A review of the organization (another organization's is not found). */
  async findById(id: number, organizationId: number): Promise<MinorReviewRow | undefined> {
    return this.db
      .selectFrom('minor_reviews')
      .select([...ROW_COLUMNS, (eb) => eb('crop', 'is not', null).as('has_crop')])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  /** The latest review of each of these faces of the organization. */
  async findLatestByFingerprints(
    organizationId: number,
    fingerprints: readonly string[],
  ): Promise<Map<string, MinorReviewRow>> {
    if (fingerprints.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('minor_reviews')
      .select([...ROW_COLUMNS, (eb) => eb('crop', 'is not', null).as('has_crop')])
      .where('organization_id', '=', organizationId)
      .where('face_fingerprint', 'in', [...fingerprints])
      .orderBy('id', 'asc')
      .execute();
    return new Map(rows.map((row) => [row.face_fingerprint, row]));
  }

  /** Every review with the organization's name and the people involved, newest first. */
  async findAdminPage(query: {
    status?: MinorReviewRowStatus | undefined;
    offset: number;
    limit: number;
  }): Promise<{ rows: AdminMinorReviewRow[]; total: number }> {
    let base = this.db.selectFrom('minor_reviews');
    if (query.status) base = base.where('minor_reviews.status', '=', query.status);
    const [rows, count] = await Promise.all([
      base
        .innerJoin('organizations', 'organizations.id', 'minor_reviews.organization_id')
        .leftJoin('users as requester', 'requester.id', 'minor_reviews.requested_by')
        .leftJoin('users as decider', 'decider.id', 'minor_reviews.decided_by')
        .select([
          ...ROW_COLUMNS,
          (eb) => eb('minor_reviews.crop', 'is not', null).as('has_crop'),
          'organizations.name as organization_name',
          'requester.email as requested_by_email',
          'decider.email as decided_by_email',
        ])
        // The oldest pending first is what the queue works through; decided ones newest first.
        .orderBy('minor_reviews.created_at', query.status === 'PENDING' ? 'asc' : 'desc')
        .orderBy('minor_reviews.id', query.status === 'PENDING' ? 'asc' : 'desc')
        .offset(query.offset)
        .limit(query.limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.count) };
  }

  /** Any organization's review, for admins. */
  async findAdminById(id: number): Promise<AdminMinorReviewRow | undefined> {
    return this.db
      .selectFrom('minor_reviews')
      .innerJoin('organizations', 'organizations.id', 'minor_reviews.organization_id')
      .leftJoin('users as requester', 'requester.id', 'minor_reviews.requested_by')
      .leftJoin('users as decider', 'decider.id', 'minor_reviews.decided_by')
      .select([
        ...ROW_COLUMNS,
        (eb) => eb('minor_reviews.crop', 'is not', null).as('has_crop'),
        'organizations.name as organization_name',
        'requester.email as requested_by_email',
        'decider.email as decided_by_email',
      ])
      .where('minor_reviews.id', '=', id)
      .executeTakeFirst();
  }

  /** The encrypted crop of a pending review (null once decided or expired). */
  async findCrop(id: number): Promise<Buffer | null> {
    const row = await this.db
      .selectFrom('minor_reviews')
      .select('crop')
      .where('id', '=', id)
      .executeTakeFirst();
    // PGlite answers bytea as a Uint8Array.
    return row?.crop ? Buffer.from(row.crop) : null;
  }

  /**
   * Decides a pending review and deletes its crop in the same statement; undefined when it is not
   * pending (decided, expired, or unknown), so two admins deciding at once cannot both succeed.
   */
  async decide(
    id: number,
    decision: { status: 'APPROVED' | 'REFUSED'; decidedBy: number; reason: string; at: Date },
  ): Promise<{ id: number; organization_id: number; requested_by: number | null } | undefined> {
    return this.db
      .updateTable('minor_reviews')
      .set({
        status: decision.status,
        decided_by: decision.decidedBy,
        decision_reason: decision.reason,
        decided_at: decision.at,
        crop: null,
      })
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .returning(['id', 'organization_id', 'requested_by'])
      .executeTakeFirst();
  }

  /** Whether each of these faces of the organization has an approved review not used yet (nothing changes). */
  async hasApprovals(organizationId: number, fingerprints: readonly string[]): Promise<boolean> {
    const unique = [...new Set(fingerprints)];
    if (unique.length === 0) return false;
    const rows = await this.db
      .selectFrom('minor_reviews')
      .select('face_fingerprint')
      .distinct()
      .where('organization_id', '=', organizationId)
      .where('face_fingerprint', 'in', unique)
      .where('status', '=', 'APPROVED')
      .where('search_used_at', 'is', null)
      .execute();
    return rows.length === unique.length;
  }

  /**
   * Uses the approved, unused review of each of these faces of the organization, all or none: the ids
   * used. Throws ApprovalsUsedMeanwhile when a face has no approval left, which rolls back the transaction
   * it runs in (the caller's, with the search it allows). A concurrent search of the same face waits for
   * the row and then finds it used.
   */
  async useApprovals(organizationId: number, fingerprints: readonly string[], at: Date): Promise<number[]> {
    const unique = [...new Set(fingerprints)];
    return inTransaction(this.db, async (trx) => {
      const used = await trx
        .updateTable('minor_reviews')
        .set({ search_used_at: at })
        .where('organization_id', '=', organizationId)
        .where('face_fingerprint', 'in', unique)
        .where('status', '=', 'APPROVED')
        .where('search_used_at', 'is', null)
        .returning(['id', 'face_fingerprint'])
        .execute();
      if (new Set(used.map((row) => row.face_fingerprint)).size !== unique.length) {
        throw new ApprovalsUsedMeanwhile();
      }
      return used.map((row) => row.id);
    });
  }

  /** Expires the reviews still pending since before `cutoff` and deletes their crops; how many. */
  async expirePendingBefore(cutoff: Date, at: Date): Promise<number> {
    const rows = await this.db
      .updateTable('minor_reviews')
      .set({ status: 'EXPIRED', crop: null, decided_at: at })
      .where('status', '=', 'PENDING')
      .where('created_at', '<', cutoff)
      .returning('id')
      .execute();
    return rows.length;
  }
}

/** A face's approval was used by another search between the gate's check and this one's commit. */
export class ApprovalsUsedMeanwhile extends Error {}
