import type { Db } from '../db/database.ts';

export class OrganizationRepository {
  constructor(private readonly db: Db) {}

  findById(id: number) {
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Locks the organization's row until the transaction ends, so that billing work that decides from the
   * organization's plans which plan to add (a card order) runs one at a time per organization. A no-key
   * lock: rows that merely reference the organization can still be written meanwhile.
   */
  async lockForBilling(id: number): Promise<void> {
    await this.db.selectFrom('organizations').select('id').where('id', '=', id).forNoKeyUpdate().execute();
  }

  /** Verifies (a date and the evidence note) or unverifies (both null) an organization as law enforcement. */
  updateLawEnforcement(id: number, verification: { verifiedAt: Date; note: string } | null) {
    return this.db
      .updateTable('organizations')
      .set({
        law_enforcement_verified_at: verification?.verifiedAt ?? null,
        law_enforcement_note: verification?.note ?? null,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  insert(organization: { name: string; link: string; type: string }) {
    return this.db.insertInto('organizations').values(organization).returningAll().executeTakeFirstOrThrow();
  }
}
