import { sql, type Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database, User } from '../db/schema.ts';
import { AuditRepository, type AuditEntry } from './audit.repository.ts';
import { BillingPlanRepository } from './billing-plan.repository.ts';
import { FaceWatchRepository } from './face-watch.repository.ts';
import { searchStillNeeded } from './search.repository.ts';
import { SeatRepository } from './seat.repository.ts';

export type GrantOutcome = 'granted' | 'already' | 'full';

/**
 * Tables of other areas that hold a user's own work (saved searches, extractions). They are deleted with
 * the user; a table that does not exist in this database is skipped.
 */
const USER_CONTENT_TABLES = ['saved_searches', 'data_extractions', 'extractions'] as const;

/** The users of one organization and their seats. */
export class TeamRepository {
  constructor(private readonly db: Db) {}

  findMembers(organizationId: number) {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** A user of the organization by public id; another organization's user is not found. */
  findMember(organizationId: number, hashedId: string) {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('hashed_id', '=', hashedId)
      .executeTakeFirst();
  }

  /**
   * Gives the user a seat if the plan in force has one left. The organization's row is locked for the
   * transaction, so concurrent grants for one organization count seats one after the other and can never
   * exceed the limit together.
   */
  grantAccess(organizationId: number, userId: number, at: Date): Promise<GrantOutcome> {
    return this.db.transaction().execute((tx) => grantSeat(tx, organizationId, userId, at));
  }

  /** True when the user had a seat. */
  async revokeAccess(userId: number): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ has_access: false })
      .where('id', '=', userId)
      .where('has_access', '=', true)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Creates an invited user; with `seatAt`, gives them a seat in the same transaction, or creates nothing
   * and answers 'full' when the plan in force has no seat left.
   */
  insertInvitedUser(
    user: { hashedId: string; organizationId: number; email: string; invitedBy: number },
    seatAt?: Date,
  ): Promise<User | 'full'> {
    return this.db
      .transaction()
      .execute(async (tx) => {
        const invited = await tx
          .insertInto('users')
          .values({
            hashed_id: user.hashedId,
            organization_id: user.organizationId,
            email: user.email,
            password_hash: null,
            role: 'USER',
            status: 'INVITED',
            invited_by: user.invitedBy,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        if (seatAt && (await grantSeat(tx, user.organizationId, invited.id, seatAt)) === 'full')
          throw new NoSeatLeft();
        return { ...invited, has_access: seatAt !== undefined };
      })
      .catch((error: unknown) => {
        if (error instanceof NoSeatLeft) return 'full' as const;
        throw error;
      });
  }

  /**
   * Deletes a user who was invited and never set a password (no work of theirs exists; their seat, link,
   * sessions and tokens go with the row). False when the invitation was accepted meanwhile.
   */
  async deleteInvitedUser(organizationId: number, userId: number): Promise<boolean> {
    const deleted = await this.db
      .deleteFrom('users')
      .where('id', '=', userId)
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'INVITED')
      .executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }

  /**
   * Deletes the user with everything that is theirs: searches and their results, saved searches and
   * extractions; the face watches they created end (descriptor and crop deleted; the organization keeps the
   * alerts already found, as after any ended watch); sessions and tokens go with the user row. Only while
   * the user has no seat, unless `givingUpSeat` (a user deleting their own account gives it back). The
   * audit entry is written in the same transaction, before the row goes (it names the account; the log
   * keeps the e-mail): the log never reports a deletion that did not happen. Returns false, changing
   * nothing, when the user has a seat, is blocked (or no longer exists).
   */
  deleteUserWithContent(
    userId: number,
    options: { audit: AuditEntry; givingUpSeat?: boolean },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const user = await tx
        .selectFrom('users')
        .select(['id', 'has_access', 'status'])
        .where('id', '=', userId)
        .forUpdate()
        .executeTakeFirst();
      if (!user || (user.has_access && !options.givingUpSeat)) return false;
      // A blocked account stays, so that its address cannot be invited again around the block.
      if (user.status === 'BLOCKED') return false;
      const audit = new AuditRepository(tx);
      await audit.insert(options.audit);
      const present = await sql<{ table_name: string }>`
        select table_name from information_schema.columns
        where table_schema = current_schema() and column_name = 'user_id'
          and table_name in (${sql.join([...USER_CONTENT_TABLES])})`.execute(tx);
      for (const { table_name } of present.rows) {
        await sql`delete from ${sql.table(table_name)} where user_id = ${userId}`.execute(tx);
      }
      // A search a colleague's saved search or extraction still waits to copy stays until that copy has
      // its results (then deleteSearchNoLongerNeeded); the user's link to it goes with the user.
      await tx
        .deleteFrom('searches')
        .where('user_id', '=', userId)
        .where(sql<boolean>`not ${searchStillNeeded('searches.id')}`)
        .execute();
      for (const watchId of await new FaceWatchRepository(tx).endWatchesOfUser(userId)) {
        // Logged as a watch ended by hand is, by whoever deleted the user.
        await audit.insert({
          actorUserId: options.audit.actorUserId,
          organizationId: options.audit.organizationId,
          action: 'face-watch.ended',
          target: `face-watch:${watchId}`,
          detail: { reason: 'user_deleted' },
          ip: options.audit.ip ?? null,
        });
      }
      await tx.deleteFrom('users').where('id', '=', userId).execute();
      return true;
    });
  }
}

/** Rolls back an invitation whose seat was taken meanwhile. */
class NoSeatLeft extends Error {}

/**
 * Gives the user a seat if the plan in force has one left. The organization's row is locked for the
 * transaction, so concurrent grants for one organization count seats one after the other and can never
 * exceed the limit together.
 */
async function grantSeat(
  tx: Transaction<Database>,
  organizationId: number,
  userId: number,
  at: Date,
): Promise<GrantOutcome> {
  await tx
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', organizationId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const user = await tx
    .selectFrom('users')
    .select('has_access')
    .where('id', '=', userId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  if (user.has_access) return 'already';
  const plan = await new BillingPlanRepository(tx).findActive(organizationId, at);
  const used = await new SeatRepository(tx).countWithAccess(organizationId);
  if (used >= (plan?.seat_limit ?? 0)) return 'full';
  await tx.updateTable('users').set({ has_access: true }).where('id', '=', userId).execute();
  return 'granted';
}
