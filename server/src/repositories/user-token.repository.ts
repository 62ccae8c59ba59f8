import { inTransaction, type Db } from '../db/database.ts';
import type { TokenPurpose } from '../db/schema.ts';

export class UserTokenRepository {
  constructor(private readonly db: Db) {}

  async insert(token: { userId: number; purpose: TokenPurpose; tokenHash: string; expiresAt: Date }) {
    await this.db
      .insertInto('user_tokens')
      .values({
        user_id: token.userId,
        purpose: token.purpose,
        token_hash: token.tokenHash,
        expires_at: token.expiresAt,
      })
      .execute();
  }

  findByHash(tokenHash: string, purpose: TokenPurpose) {
    return this.db
      .selectFrom('user_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
  }

  /** Marks the token used unless it already was: exactly one caller wins a race for a single-use token. */
  async markUsed(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('user_tokens')
      .set({ used_at: new Date() })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Whether the user holds a link of this purpose that can still be used (unused and not expired). */
  async hasUsable(userId: number, purpose: TokenPurpose): Promise<boolean> {
    const row = await this.db
      .selectFrom('user_tokens')
      .select('id')
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** How many links of this purpose the user was ever given, used or not. */
  /**
   * A new link replacing the unused ones of its purpose, unless `cap` links of that purpose were issued
   * already; false then. The user's row is locked meanwhile: two requests at once (queued resends run in
   * parallel) would both count below the cap and both issue a link.
   */
  async issueWithinCap(
    token: { userId: number; purpose: TokenPurpose; tokenHash: string; expiresAt: Date },
    cap: number,
  ): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      await tx.selectFrom('users').select('id').where('id', '=', token.userId).forUpdate().execute();
      const tokens = new UserTokenRepository(tx);
      if ((await tokens.countIssued(token.userId, token.purpose)) >= cap) return false;
      await tokens.expireUnused(token.userId, token.purpose);
      await tokens.insert(token);
      return true;
    });
  }

  async countIssued(userId: number, purpose: TokenPurpose): Promise<number> {
    const row = await this.db
      .selectFrom('user_tokens')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** A new link replaces older unused ones of the same purpose; without a purpose, every unused link goes. */
  async expireUnused(userId: number, purpose?: TokenPurpose): Promise<void> {
    let query = this.db
      .updateTable('user_tokens')
      .set({ expires_at: new Date() })
      .where('user_id', '=', userId)
      .where('used_at', 'is', null);
    if (purpose) query = query.where('purpose', '=', purpose);
    await query.execute();
  }
}
