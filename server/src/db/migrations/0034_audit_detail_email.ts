import { sql, type Kysely } from 'kysely';

// The audit sweep also pseudonymises the e-mail address an entry names in its detail (the person invited,
// removed, blocked, or whose sign-in failed), as it does the actor's: the append-only trigger lets the
// sweep change `detail.email`, and only into a pseudonym; every other key of `detail` stays as written.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and new.id = old.id
        and new.at = old.at
        and new.action = old.action
        and new.target is not distinct from old.target
        and new.detail = old.detail
        and new.ip is not distinct from old.ip
        and new.actor_email is not distinct from old.actor_email
        and new.anonymised_at is not distinct from old.anonymised_at
        and (new.actor_user_id is not distinct from old.actor_user_id or new.actor_user_id is null)
        and (new.organization_id is not distinct from old.organization_id or new.organization_id is null)
      then
        return new;
      end if;
      if tg_op = 'UPDATE'
        and current_setting('osint.audit_anonymise', true) = 'on'
        and old.anonymised_at is null
        and new.anonymised_at is not null
        and new.id = old.id
        and new.at = old.at
        and new.action = old.action
        and new.target is not distinct from old.target
        and new.detail - 'email' = old.detail - 'email'
        and (new.detail ->> 'email' is not distinct from old.detail ->> 'email'
          or (old.detail ->> 'email' is not null and new.detail ->> 'email' like 'pseudonym:%'))
        and new.ip is null
        and new.actor_user_id is null
        and (new.actor_email is null or new.actor_email like 'pseudonym:%')
        and new.organization_id is not distinct from old.organization_id
      then
        return new;
      end if;
      raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
    end;
    $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE'
        and new.id = old.id
        and new.at = old.at
        and new.action = old.action
        and new.target is not distinct from old.target
        and new.detail = old.detail
        and new.ip is not distinct from old.ip
        and new.actor_email is not distinct from old.actor_email
        and new.anonymised_at is not distinct from old.anonymised_at
        and (new.actor_user_id is not distinct from old.actor_user_id or new.actor_user_id is null)
        and (new.organization_id is not distinct from old.organization_id or new.organization_id is null)
      then
        return new;
      end if;
      if tg_op = 'UPDATE'
        and current_setting('osint.audit_anonymise', true) = 'on'
        and old.anonymised_at is null
        and new.anonymised_at is not null
        and new.id = old.id
        and new.at = old.at
        and new.action = old.action
        and new.target is not distinct from old.target
        and new.detail = old.detail
        and new.ip is null
        and new.actor_user_id is null
        and (new.actor_email is null or new.actor_email like 'pseudonym:%')
        and new.organization_id is not distinct from old.organization_id
      then
        return new;
      end if;
      raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
    end;
    $$;
  `.execute(db);
}
