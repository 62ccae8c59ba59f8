import type { Db } from '../db/database.ts';

export class OrganizationRepository {
  constructor(private readonly db: Db) {}

  findById(id: number) {
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
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
