import { sql, type Kysely } from 'kysely';

// Logs that forget (spec 000 §9: system logs at most 90 days, anonymised; billing and admin records 7
// years). The retention sweep anonymises old audit entries in one statement: the IP address goes, the
// actor's e-mail becomes a stable pseudonym and the link to the user's row goes (anonymised_at says when).
// The append-only trigger lets exactly that change through, and only when the sweep's transaction has set
// `osint.audit_anonymise`; every other update, delete or truncate is still refused.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table audit_log add column anonymised_at timestamptz;
    create index audit_log_not_anonymised_idx on audit_log (at) where anonymised_at is null;

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
