import type { Db } from '../db/database.ts';

/** The counts on the admin dashboard that call for the provider's attention, in one round trip. */
export class AdminDashboardRepository {
  constructor(private readonly db: Db) {}

  async findCounts(searchesSince: Date) {
    const row = await this.db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('users')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .where('status', '=', 'PENDING_APPROVAL')
          .as('pending_registrations'),
        eb
          .selectFrom('orders')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .where('status', '=', 'PENDING')
          .as('orders_awaiting_payment'),
        eb
          .selectFrom('jobs')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .where('status', '=', 'DEAD')
          .as('failed_jobs'),
        eb
          .selectFrom('crawls')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .where('status', '=', 'RUNNING')
          .as('running_crawls'),
        eb
          .selectFrom('searches')
          .select((sub) => sub.fn.countAll<string>().as('count'))
          .where('created_at', '>=', searchesSince)
          .as('searches_today'),
      ])
      .executeTakeFirstOrThrow();
    return {
      pendingRegistrations: Number(row.pending_registrations ?? 0),
      ordersAwaitingPayment: Number(row.orders_awaiting_payment ?? 0),
      failedJobs: Number(row.failed_jobs ?? 0),
      runningCrawls: Number(row.running_crawls ?? 0),
      searchesToday: Number(row.searches_today ?? 0),
    };
  }
}
