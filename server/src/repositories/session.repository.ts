import type { Db } from '../db/database.ts';

export class SessionRepository {
  constructor(private readonly db: Db) {}

  async insert(session: {
    id: string;
    userId: number;
    expiresAt: Date;
    ip: string | null;
    userAgent: string | null;
  }) {
    await this.db
      .insertInto('sessions')
      .values({
        id: session.id,
        user_id: session.userId,
        expires_at: session.expiresAt,
        ip: session.ip,
        user_agent: session.userAgent,
      })
      .execute();
  }

  /** The session and its user, if the session has not passed its absolute expiry. */
  findValidWithUser(id: string) {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id as session_id',
        'sessions.last_seen_at',
        'users.id',
        'users.hashed_id',
        'users.email',
        'users.organization_id',
        'users.role',
        'users.is_admin',
        'users.status',
        'users.has_access',
        'users.newsletter',
      ])
      .where('sessions.id', '=', id)
      .where('sessions.expires_at', '>', new Date())
      .executeTakeFirst();
  }

  async touch(id: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: new Date() }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async deleteByUserId(userId: number): Promise<void> {
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  /** Ends every other session of the user: the one making the request stays signed in. */
  async deleteByUserIdExcept(userId: number, keepId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepId).execute();
  }

  /** The user's sessions that have not passed their absolute expiry, most recently used first. */
  findActiveByUserId(userId: number) {
    return this.db
      .selectFrom('sessions')
      .select(['created_at', 'last_seen_at', 'expires_at', 'ip', 'user_agent'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', new Date())
      .orderBy('last_seen_at', 'desc')
      .execute();
  }
}
