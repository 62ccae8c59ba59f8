import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { BillingPlanRepository } from './billing-plan.repository.ts';

/**
 * A user counted against the plan's seats: access given, and active or invited (not blocked, rejected or
 * still being registered). The one statement of it, for queries on `users`.
 */
export const COUNTS_AGAINST_SEATS = sql<boolean>`users.has_access and users.status in ('ACTIVE', 'INVITED')`;

/** Who holds the seats of an organization's plan, and whom billing notices go to. */
export class SeatRepository {
  constructor(private readonly db: Db) {}

  /**
   * Ids of the users that hold a seat, in seat order: the owner first, then by id. When a plan has fewer
   * seats than users with access (a smaller plan followed a larger one), only the first `limit` hold one.
   */
  async findSeatHolderIds(organizationId: number, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('users')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where(COUNTS_AGAINST_SEATS)
      .orderBy(sql`role = 'OWNER'`, 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Ids of the users that hold a seat of the plan in force (findSeatHolderIds); none without a plan. */
  async findSeatHolderIdsInForce(organizationId: number, at = new Date()): Promise<number[]> {
    return (await this.findSeatHoldersIfPlan(organizationId, at)) ?? [];
  }

  /** The seat holders of the plan in force; null when no plan is in force. */
  async findSeatHoldersIfPlan(organizationId: number, at = new Date()): Promise<number[] | null> {
    const plan = await new BillingPlanRepository(this.db).findActive(organizationId, at);
    return plan ? this.findSeatHolderIds(organizationId, plan.seat_limit) : null;
  }

  /**
   * Whether a user of the organization has access as search grants it (AccessService): while a plan is in
   * force, holding one of its seats; with no plan in force, the stored flag, i.e. who gets access when the
   * next plan starts. The team list and the admin pages show access this way, so that they agree with each
   * other and with search after a smaller plan followed a larger one.
   */
  async accessAsGranted(
    organizationId: number,
    at = new Date(),
  ): Promise<(user: { id: number; has_access: boolean }) => boolean> {
    const holders = await this.findSeatHoldersIfPlan(organizationId, at);
    if (!holders) return (user) => user.has_access;
    const seated = new Set(holders);
    return (user) => seated.has(user.id);
  }

  /**
   * Of these users of the organization, those who may still see its work, as AccessService decides for a
   * request: platform admins, and seat holders of the plan in force; nobody while the organization is
   * suspended (its owner blocked). Mail about the organization's work goes to these only.
   */
  async withAccess(
    organizationId: number,
    userIds: readonly number[],
    at = new Date(),
  ): Promise<Set<number>> {
    if (userIds.length === 0 || (await this.isOwnerBlocked(organizationId))) return new Set();
    const admins = await this.db
      .selectFrom('users')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...userIds])
      .where('is_admin', '=', true)
      .execute();
    const holders = await this.findSeatHolderIdsInForce(organizationId, at);
    const allowed = new Set([...admins.map((admin) => admin.id), ...holders]);
    return new Set(userIds.filter((id) => allowed.has(id)));
  }

  async countWithAccess(organizationId: number): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .where(COUNTS_AGAINST_SEATS)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Whether a platform admin blocked the organization's owner: the account holder is suspended, and with
   * it the organization (the admin's organization list shows it Blocked).
   */
  async isOwnerBlocked(organizationId: number): Promise<boolean> {
    return (await this.withOwnerBlocked([organizationId])).has(organizationId);
  }

  /** Those of these organizations whose owner is blocked (isOwnerBlocked, for many at once). */
  async withOwnerBlocked(organizationIds: readonly number[]): Promise<Set<number>> {
    if (organizationIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('users')
      .select('organization_id')
      .where('organization_id', 'in', [...organizationIds])
      .where('role', '=', 'OWNER')
      .where('status', '=', 'BLOCKED')
      .execute();
    return new Set(rows.map((row) => row.organization_id));
  }

  async findOwnerEmails(organizationId: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('users')
      .select('email')
      .where('organization_id', '=', organizationId)
      .where('role', '=', 'OWNER')
      .where('status', '=', 'ACTIVE')
      .execute();
    return rows.map((row) => row.email);
  }
}
