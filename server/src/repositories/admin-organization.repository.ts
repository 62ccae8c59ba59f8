import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { inForceFirst } from './billing-plan.repository.ts';
import { COUNTS_AGAINST_SEATS } from './seat.repository.ts';
import { containing, pageWithTotal } from './list-query.ts';

/** What the admin pages read about an organization beyond its users: plan history, usage. */
export class AdminOrganizationRepository {
  constructor(private readonly db: Db) {}

  /** Every billing plan the organization ever had, latest start first. */
  findPlans(organizationId: number) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('start_date', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async countSearches(filter: { organizationId?: number; userId?: number }): Promise<number> {
    let query = this.db.selectFrom('searches').select((eb) => eb.fn.countAll<number>().as('count'));
    if (filter.organizationId !== undefined)
      query = query.where('organization_id', '=', filter.organizationId);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** The organization's face watches (active and ended) and the alerts they raised (all and still new). */
  async countFaceWatches(organizationId: number) {
    const watches = await this.db
      .selectFrom('face_watches')
      .select((eb) => [
        eb.fn.countAll<string>().filterWhere('ended_at', 'is', null).as('active'),
        eb.fn.countAll<string>().filterWhere('ended_at', 'is not', null).as('ended'),
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    const alerts = await this.db
      .selectFrom('face_alerts')
      .select((eb) => [
        eb.fn.countAll<string>().as('all'),
        eb.fn.countAll<string>().filterWhere('status', '=', 'NEW').as('new'),
      ])
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    return {
      activeWatches: Number(watches.active),
      endedWatches: Number(watches.ended),
      alerts: Number(alerts.all),
      newAlerts: Number(alerts.new),
    };
  }

  /**
   * One page of every organization, newest first, with its owner, the plan in force (a paid plan before
   * a trial, then the latest start: `inForceFirst`), seats in use and whether it ever had a plan.
   * `search` matches the name, the link or the e-mail address of any of its users.
   */
  async findPage(filter: { search?: string | undefined; offset: number; limit: number; at: Date }) {
    let query = this.db.selectFrom('organizations');
    if (filter.search) {
      const pattern = containing(filter.search);
      query = query.where((eb) =>
        eb.or([
          eb('organizations.name', 'ilike', pattern),
          eb('organizations.link', 'ilike', pattern),
          eb.exists(
            eb
              .selectFrom('users')
              .select('users.id')
              .whereRef('users.organization_id', '=', 'organizations.id')
              .where('users.email', 'ilike', pattern),
          ),
        ]),
      );
    }
    const page = query
      .leftJoin('users as owner', (join) =>
        join.onRef('owner.organization_id', '=', 'organizations.id').on('owner.role', '=', 'OWNER'),
      )
      .leftJoinLateral(
        (eb) =>
          inForceFirst(
            eb
              .selectFrom('billing_plans')
              .select(['plan_type', 'seat_limit', 'end_date'])
              .whereRef('billing_plans.organization_id', '=', 'organizations.id'),
            filter.at,
          )
            .limit(1)
            .as('active_plan'),
        (join) => join.onTrue(),
      )
      .select((eb) => [
        'organizations.id',
        'organizations.name',
        'organizations.link',
        'organizations.type',
        'organizations.created_at',
        'organizations.last_active_at',
        'owner.id as owner_id',
        'owner.email as owner_email',
        'owner.status as owner_status',
        'active_plan.plan_type',
        'active_plan.seat_limit',
        'active_plan.end_date',
        // Seats used as search grants them (SeatRepository.accessAsGranted): with a plan in force, its seat
        // holders, i.e. active or invited users with access, at most its seats; with none, every flag.
        sql<string>`case when active_plan.seat_limit is null
          then (select count(*) from users where users.organization_id = organizations.id and users.has_access)
          else least(active_plan.seat_limit, (select count(*) from users where users.organization_id = organizations.id
            and ${COUNTS_AGAINST_SEATS}))
          end`.as('seats_used'),
        eb
          .selectFrom('users')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .whereRef('users.organization_id', '=', 'organizations.id')
          .as('user_count'),
        eb
          .exists(
            eb
              .selectFrom('billing_plans')
              .select('billing_plans.id')
              .whereRef('billing_plans.organization_id', '=', 'organizations.id'),
          )
          .as('had_plan'),
      ])
      .orderBy('organizations.created_at', 'desc')
      .orderBy('organizations.id', 'desc')
      .offset(filter.offset)
      .limit(filter.limit)
      .execute();
    return pageWithTotal(query, page);
  }
}
