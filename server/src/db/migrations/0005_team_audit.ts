import { sql, type Kysely } from 'kysely';

// Teams and the audit trail.
// - users: who invited a user, when the provider blocked one.
// - audit_log: the actor's e-mail is kept with the entry, so an entry still names its actor after the
//   account is deleted; indexes for the admin filters; and the table becomes append-only: a trigger
//   refuses DELETE, TRUNCATE and every UPDATE except the one the foreign keys make when an actor or an
//   organization is deleted (setting that id to null).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table users add column invited_by integer references users(id) on delete set null;
    alter table users add column blocked_at timestamptz;
    create index users_access_idx on users (organization_id) where has_access;

    alter table audit_log add column actor_email text;
    update audit_log set actor_email = users.email from users where users.id = audit_log.actor_user_id;
    create index audit_log_at_idx on audit_log (at);
    create index audit_log_actor_idx on audit_log (actor_user_id, at);
    create index audit_log_action_idx on audit_log (action, at);

    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and new.id = old.id
        and new.at = old.at
        and new.action = old.action
        and new.target is not distinct from old.target
        and new.detail = old.detail
        and new.ip is not distinct from old.ip
        and new.actor_email is not distinct from old.actor_email
        and (new.actor_user_id is not distinct from old.actor_user_id or new.actor_user_id is null)
        and (new.organization_id is not distinct from old.organization_id or new.organization_id is null)
      then
        return new;
      end if;
      raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
    end;
    $$;
    create trigger audit_log_append_only_rows before update or delete on audit_log
      for each row execute function audit_log_append_only();
    create trigger audit_log_append_only_truncate before truncate on audit_log
      for each statement execute function audit_log_append_only();
  `.execute(db);
}
