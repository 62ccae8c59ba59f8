import type { Db } from '../db/database.ts';

export class OrganizationRepository {
  constructor(private readonly db: Db) {}

  findById(id: number) {
    return this.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(organization: { name: string; link: string; type: string }) {
    return this.db.insertInto('organizations').values(organization).returningAll().executeTakeFirstOrThrow();
  }
}
