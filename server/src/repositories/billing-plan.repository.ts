import type { PlanType } from '@osint/contract/api-types';
import type { Db } from '../db/database.ts';

export class BillingPlanRepository {
  constructor(private readonly db: Db) {}

  insert(plan: {
    organizationId: number;
    planType: PlanType;
    startDate: Date;
    endDate: Date;
    seatLimit: number;
  }) {
    return this.db
      .insertInto('billing_plans')
      .values({
        organization_id: plan.organizationId,
        plan_type: plan.planType,
        start_date: plan.startDate,
        end_date: plan.endDate,
        seat_limit: plan.seatLimit,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The plan in force at `at`: the one that started last among those covering that moment. */
  findActive(organizationId: number, at: Date = new Date()) {
    return this.db
      .selectFrom('billing_plans')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('start_date', '<=', at)
      .where('end_date', '>', at)
      .orderBy('start_date', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
  }
}
