import type { Db } from '../db/database.ts';

export interface AuditEntry {
  actorUserId: number | null;
  organizationId: number | null;
  action: string;
  target?: string;
  detail?: Record<string, unknown>;
  ip?: string | null;
}

export class AuditRepository {
  constructor(private readonly db: Db) {}

  async insert(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        actor_user_id: entry.actorUserId,
        organization_id: entry.organizationId,
        action: entry.action,
        target: entry.target ?? null,
        detail: JSON.stringify(entry.detail ?? {}),
        ip: entry.ip ?? null,
      })
      .execute();
  }
}
