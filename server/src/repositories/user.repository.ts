import type { UserStatus } from '@osint/contract/api-types';
import { inTransaction, type Db } from '../db/database.ts';
import type { NewUser, UserUpdate } from '../db/schema.ts';

export class UserRepository {
  constructor(private readonly db: Db) {}

  findById(id: number) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByEmail(email: string) {
    return this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findAdmins() {
    return this.db.selectFrom('users').selectAll().where('is_admin', '=', true).execute();
  }

  async insert(user: NewUser) {
    return this.db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  }

  async update(id: number, changes: UserUpdate): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  /** Locks the user's row for the transaction `db` runs in (first, where another writer locks it first too). */
  async lockById(id: number): Promise<void> {
    await this.db.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute();
  }

  /**
   * Deletes a registration nobody confirmed (its organization, and with it the account), deciding under
   * the account's row lock: a confirmation committed meanwhile wins, and nothing is deleted (false).
   */
  deleteUnconfirmedRegistration(id: number): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      const user = await tx
        .selectFrom('users')
        .select(['organization_id', 'status'])
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (user?.status !== 'EMAIL_UNVERIFIED') return false;
      await tx.deleteFrom('organizations').where('id', '=', user.organization_id).execute();
      return true;
    });
  }

  /**
   * A new password. Every outstanding reset and set-password link of the account ends with the old
   * password, in the same transaction: a link mailed before the change (to a mailbox someone else may
   * read) must not be able to undo it.
   */
  async setPassword(id: number, passwordHash: string, changedAt = new Date()): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      await tx
        .updateTable('users')
        .set({ password_hash: passwordHash, password_changed_at: changedAt })
        .where('id', '=', id)
        .execute();
      await tx
        .updateTable('user_tokens')
        .set({ expires_at: changedAt })
        .where('user_id', '=', id)
        .where('purpose', 'in', ['RESET_PASSWORD', 'SET_PASSWORD'])
        .where('used_at', 'is', null)
        .where('expires_at', '>', changedAt)
        .execute();
    });
  }

  /** Changes the status only if it is still `from`: two admins clicking at once cannot both act. */
  async updateStatusIf(id: number, from: UserStatus[], changes: UserUpdate & { status: UserStatus }) {
    const result = await this.db
      .updateTable('users')
      .set(changes)
      .where('id', '=', id)
      .where('status', 'in', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Users with their organization, pending approval first, newest first within a status. */
  findAllWithOrganization(filter: {
    status?: UserStatus | undefined;
    search?: string | undefined;
    limit: number;
    offset: number;
  }) {
    let query = this.db
      .selectFrom('users')
      .innerJoin('organizations', 'organizations.id', 'users.organization_id')
      .select([
        'users.id',
        'users.email',
        'users.status',
        'users.role',
        'users.is_admin',
        'users.created_at',
        'users.email_verified_at',
        'users.last_active_at',
        'organizations.id as organization_id',
        'organizations.name as organization_name',
        'organizations.link as organization_link',
        'organizations.type as organization_type',
      ]);
    if (filter.status) query = query.where('users.status', '=', filter.status);
    if (filter.search) {
      const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([eb('users.email', 'ilike', pattern), eb('organizations.name', 'ilike', pattern)]),
      );
    }
    return query
      .orderBy((eb) => eb.case().when('users.status', '=', 'PENDING_APPROVAL').then(0).else(1).end())
      .orderBy('users.created_at', 'desc')
      .orderBy('users.id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
  }
}
