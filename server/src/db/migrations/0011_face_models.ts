import { sql, type Kysely } from 'kysely';

// Face engine v2: descriptor models change, and vectors of two models are never comparable.
// - face_models: the model searches use ('active', exactly one once the product has started), the one
//   `npm run reindex` is building beside it ('building', at most one, with its resumable cursor), and
//   the ones a switch left behind ('retired'). An install that already has faces starts on their model
//   (the most common one), so it keeps searching them until a reindex switches; an empty install gets
//   the shipped model at its first start (FaceModelService).
// - faces.previous_face_id: the face of the previous model that a reindexed face replaces (same image,
//   overlapping box), so references to faces (search_results.face_id) move to the new model at the switch.
// - search_results_face_idx: the old model's faces are deleted after the switch (each deletion checks the
//   results that reference the face), and the switch moves results to the faces that replace theirs.
// - face_opt_outs.derived_from: an opt-out re-derived for another model from an existing one (the same
//   person's face analysed again with that model); listed under the opt-out it comes from.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table face_models (
      model_id text primary key,
      dimensions integer not null check (dimensions > 0),
      state text not null check (state in ('active', 'building', 'retired')),
      cursor_image_id integer not null default 0,
      images_done integer not null default 0,
      images_unavailable integer not null default 0,
      faces_added integer not null default 0,
      faces_refused integer not null default 0,
      started_at timestamptz not null default now(),
      activated_at timestamptz,
      retired_at timestamptz
    );
    create unique index face_models_one_active_idx on face_models (state) where state = 'active';
    create unique index face_models_one_building_idx on face_models (state) where state = 'building';

    insert into face_models (model_id, dimensions, state, activated_at)
    select model_id, octet_length(descriptor) / 4, 'active', now()
    from faces
    group by model_id, octet_length(descriptor)
    order by count(*) desc
    limit 1;

    alter table faces add column previous_face_id bigint;
    -- Deleting a model's faces checks search_results' foreign key for each face, and the switch moves
    -- results by face: both look search results up by face.
    create index search_results_face_idx on search_results (face_id);
    alter table face_opt_outs add column derived_from integer references face_opt_outs(id) on delete cascade;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table face_opt_outs drop column derived_from;
    drop index search_results_face_idx;
    alter table faces drop column previous_face_id;
    drop table face_models;
  `.execute(db);
}
