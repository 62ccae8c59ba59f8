import { sql, type Kysely } from 'kysely';

// Face alerts (issue 17): an organization watches a face and is told when a newly indexed image shows it.
// - face_watches: the watched face's descriptor, sealed with the query-face key (AES-256-GCM) like query
//   tokens: biometric data the organization chose to keep. Ending a watch deletes the descriptor
//   (descriptor_sealed null) and its face crop (face_image, kept to show and to search the face again);
//   `changed_at` tells the matcher to reload its matrix.
// - face_alerts: one per (watch, photo): the first image of the photo with its page, box and similarity;
//   copies of the same photo elsewhere (perceptual hash) are face_alert_copies of that alert. Both follow
//   their face: a face removed (opt-out, takedown) takes its alerts and copies with it.
// - face_watch_cursor: the matcher's position in face_index_log, one row, advanced in the transaction
//   that writes the alerts of the entries it passed (exactly once, whatever crashes).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table face_watches (
      id serial primary key,
      organization_id integer not null references organizations(id) on delete cascade,
      user_id integer references users(id) on delete set null,
      name text not null,
      note text not null default '',
      type text not null default 'OSINT' check (type in ('OSINT', 'SOCIAL_MEDIA_SEARCH')),
      descriptor_sealed bytea,
      face_image bytea,
      model_id text not null,
      possible_minor boolean not null default false,
      muted boolean not null default false,
      created_at timestamptz not null default now(),
      ends_at timestamptz not null,
      ended_at timestamptz,
      notified_at timestamptz,
      changed_at timestamptz not null default now(),
      check (ended_at is null or (descriptor_sealed is null and face_image is null))
    );
    create index face_watches_organization_idx on face_watches (organization_id);
    create index face_watches_active_idx on face_watches (id) where ended_at is null;

    create table face_alerts (
      id serial primary key,
      watch_id integer not null references face_watches(id) on delete cascade,
      organization_id integer not null references organizations(id) on delete cascade,
      face_id bigint not null references faces(id) on delete cascade,
      image_id integer not null references images(id) on delete cascade,
      phash text,
      similarity real not null,
      image_url text not null,
      source_url text not null,
      source_title text not null default '',
      first_indexed_at timestamptz not null,
      face_box_x integer not null,
      face_box_y integer not null,
      face_box_width integer not null,
      face_box_height integer not null,
      image_width integer,
      image_height integer,
      status text not null default 'NEW' check (status in ('NEW', 'SEEN')),
      log_seq bigint not null,
      created_at timestamptz not null default now(),
      unique (watch_id, image_id)
    );
    create index face_alerts_organization_idx on face_alerts (organization_id, created_at desc);
    create index face_alerts_face_idx on face_alerts (face_id);

    create table face_alert_copies (
      id serial primary key,
      alert_id integer not null references face_alerts(id) on delete cascade,
      face_id bigint not null references faces(id) on delete cascade,
      image_id integer not null references images(id) on delete cascade,
      image_url text not null,
      source_url text not null,
      created_at timestamptz not null default now(),
      unique (alert_id, image_id)
    );
    create index face_alert_copies_face_idx on face_alert_copies (face_id);

    create table face_watch_cursor (
      id integer primary key check (id = 1),
      seq bigint not null,
      log_at timestamptz,
      updated_at timestamptz not null default now()
    );
    -- Faces indexed before the feature existed are nobody's news: the matcher starts at the log's end.
    insert into face_watch_cursor (id, seq) select 1, coalesce(max(seq), 0) from face_index_log;
  `.execute(db);
}
