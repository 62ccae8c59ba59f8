import type { Db } from '../db/database.ts';
import type { BlobStore } from '../lib/blob-store.ts';

/** The blob store in the database (stored_blobs, migration 0024): the default, on PGlite and PostgreSQL. */
export class BlobRepository implements BlobStore {
  constructor(private readonly db: Db) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    // Two crawls storing the same image write the same key with the same bytes: the first one stays.
    await this.db
      .insertInto('stored_blobs')
      .values({ key, bytes })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  }

  async get(key: string): Promise<Buffer | null> {
    const row = await this.db
      .selectFrom('stored_blobs')
      .select('bytes')
      .where('key', '=', key)
      .executeTakeFirst();
    return row ? Buffer.from(row.bytes) : null;
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db
      .deleteFrom('stored_blobs')
      .where('key', 'in', [...keys])
      .execute();
  }

  async existingKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('stored_blobs')
      .select('key')
      .where('key', 'in', [...keys])
      .execute();
    return new Set(rows.map((r) => r.key));
  }
}
