import type { Db } from '../db/database.ts';

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
}
