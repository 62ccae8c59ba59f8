import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** Fixed-window counters of the rate limits, shared by every process over the database (migration 0010). */
export class RateLimitRepository {
  constructor(private readonly db: Db) {}

  /**
   * Counts one attempt for each key in one statement (one UPSERT row per key): a window that has ended
   * starts again at 1. Times come from the database clock, so processes on machines whose clocks differ
   * agree. Returns each key's count in its window and the milliseconds until that window ends.
   */
  async hit(keys: readonly string[], windowMs: number): Promise<{ count: number; resetInMs: number }[]> {
    const window = sql<Date>`now() + ${windowMs} * interval '1 millisecond'`;
    const rows = await this.db
      .insertInto('rate_limit_windows')
      .values(keys.map((key) => ({ key, count: 1, reset_at: window })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql`case when rate_limit_windows.reset_at <= now() then 1 else rate_limit_windows.count + 1 end`,
          reset_at: sql`case when rate_limit_windows.reset_at <= now() then excluded.reset_at
            else rate_limit_windows.reset_at end`,
        }),
      )
      .returning(['count', sql<number>`extract(epoch from (reset_at - now())) * 1000`.as('reset_in_ms')])
      .execute();
    return rows.map((row) => ({ count: row.count, resetInMs: Math.max(0, Number(row.reset_in_ms)) }));
  }

  /** Forgets windows that ended a while ago. */
  async deleteEnded(): Promise<number> {
    const result = await this.db
      .deleteFrom('rate_limit_windows')
      .where('reset_at', '<', sql<Date>`now() - interval '1 minute'`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
