import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export interface InactiveOrganization {
  id: number;
  /** The organization's latest activity (see findInactiveWithContent), or null when it never had any. */
  lastActivityAt: Date | null;
}

export interface RetentionDeletion {
  searches: number;
  savedSearches: number;
  extractions: number;
  /** Face alerts (issue 17); the watches themselves stay, ending on their end date. */
  faceAlerts: number;
}

/**
 * Retention (spec 000 §9): the organizations whose users have not been active for a while, and the
 * deletion of their searches, saved searches and extractions.
 */
export class RetentionRepository {
  constructor(private readonly db: Db) {}

  /**
   * Deletes jobs that finished long ago: done ones before `doneBefore`, dead ones (which an admin may
   * still retry) before `deadBefore`. Their payloads name people (addresses, messages): kept no longer than
   * the work needs. Returns how many went.
   */
  async deleteFinishedJobs(doneBefore: Date, deadBefore: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'DONE'), eb('finished_at', '<', doneBefore)]),
          eb.and([eb('status', '=', 'DEAD'), eb('finished_at', '<', deadBefore)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Organizations holding searches, saved searches or extractions whose last activity is before
   * `cutoff`. An organization's last activity is the latest of: a session of one of its users in use
   * (sessions.last_seen_at), an audited action by one of its users (sign-in, search, save, report…), and
   * the creation of any of its searches, saved searches and extractions.
   */
  async findInactiveWithContent(cutoff: Date): Promise<InactiveOrganization[]> {
    const result = await sql<{ id: number; last_activity_at: Date | string | null }>`
      with content as (
        select organization_id, max(created_at) as at from searches group by organization_id
        union all
        select organization_id, max(created_at) from saved_searches group by organization_id
        union all
        select organization_id, max(created_at) from data_extractions group by organization_id
      ),
      activity as (
        select organization_id, at from content
        union all
        select u.organization_id, max(s.last_seen_at)
          from sessions s join users u on u.id = s.user_id group by u.organization_id
        union all
        select u.organization_id, max(a.at)
          from audit_log a join users u on u.id = a.actor_user_id
          where a.organization_id = u.organization_id group by u.organization_id
      )
      select o.id, max(activity.at) as last_activity_at
      from organizations o
      -- Left: an organization with alerts and no trace of activity left (its sessions ended, its audit
      -- entries anonymised) has been inactive all along.
      left join activity on activity.organization_id = o.id
      -- Alerts are content to delete, but the matcher writes them: they are no sign of activity.
      where o.id in (select organization_id from content)
        or o.id in (select organization_id from face_alerts)
      group by o.id
      having max(activity.at) is null or max(activity.at) < ${cutoff}
      order by o.id`.execute(this.db);
    return result.rows.map((row) => ({
      id: row.id,
      lastActivityAt: row.last_activity_at === null ? null : new Date(row.last_activity_at),
    }));
  }

  /**
   * Deletes the organization's searches (with their results), saved searches (with their copied results
   * and thumbnails, which live in the database) and extractions (with their results), in one transaction,
   * unless it became active again since `cutoff` (checked under a lock on the organization's row).
   */
  async deleteContentIfInactive(
    organizationId: number,
    cutoff: Date,
  ): Promise<RetentionDeletion | undefined> {
    return this.db.transaction().execute(async (tx) => {
      await tx
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', organizationId)
        .forUpdate()
        .execute();
      const stillInactive = await new RetentionRepository(tx).findInactiveWithContent(cutoff);
      if (!stillInactive.some((o) => o.id === organizationId)) return undefined;
      const extractions = await tx
        .deleteFrom('data_extractions')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      const savedSearches = await tx
        .deleteFrom('saved_searches')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      const searches = await tx
        .deleteFrom('searches')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      const faceAlerts = await tx
        .deleteFrom('face_alerts')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return {
        searches: Number(searches.numDeletedRows),
        savedSearches: Number(savedSearches.numDeletedRows),
        extractions: Number(extractions.numDeletedRows),
        faceAlerts: Number(faceAlerts.numDeletedRows),
      };
    });
  }
}
