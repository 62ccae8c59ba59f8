import { sql, type Kysely } from 'kysely';

// Review by the platform of faces the minors gate refused (issue 13). An organization that is not verified
// law enforcement asks with a reason; the face crop (only the crop, AES-256-GCM under a key derived from
// the query-face key, never the photo) waits in the admins' queue. An admin approves one search of that
// face or refuses (final); either way the crop is deleted (crop = null), and the retention sweep deletes
// it from reviews left undecided for 7 days (status EXPIRED).
// - face_fingerprint: a keyed hash of the face's descriptor and model (QueryFaceTokens.fingerprint), so
//   the approval is bound to that face, also when the photo is uploaded again after the token expired;
// - search_used_at: when the one approved search was made (an approval is used once).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table minor_reviews (
      id serial primary key,
      organization_id integer not null references organizations(id) on delete cascade,
      requested_by integer references users(id) on delete set null,
      face_fingerprint text not null,
      reason text not null check (length(trim(reason)) > 0),
      crop bytea,
      status text not null default 'PENDING'
        check (status in ('PENDING', 'APPROVED', 'REFUSED', 'EXPIRED')),
      created_at timestamptz not null default now(),
      decided_at timestamptz,
      decided_by integer references users(id) on delete set null,
      decision_reason text,
      search_used_at timestamptz,
      check (status = 'PENDING' or crop is null),
      check (search_used_at is null or status = 'APPROVED')
    );
    create index minor_reviews_face_idx on minor_reviews (organization_id, face_fingerprint);
    create index minor_reviews_status_idx on minor_reviews (status, created_at);
    -- At most one open review (pending, or approved and not used) per face and organization.
    create unique index minor_reviews_open_idx on minor_reviews (organization_id, face_fingerprint)
      where status = 'PENDING' or (status = 'APPROVED' and search_used_at is null);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table minor_reviews;`.execute(db);
}
