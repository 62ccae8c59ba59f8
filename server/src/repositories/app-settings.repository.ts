import type { Db } from '../db/database.ts';

/** Small named values shared by every process over one database (app_settings, migration 0010). */
export class AppSettingsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The stored value of `key`; when there is none yet, `candidate` is stored and returned. Concurrent
   * callers (N processes starting together) all get the one value that was stored first.
   */
  async getOrCreate(key: string, candidate: string): Promise<string> {
    await this.db
      .insertInto('app_settings')
      .values({ key, value: candidate })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('app_settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
