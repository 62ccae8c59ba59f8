import { sql, type Kysely } from 'kysely';

// Each stored score keeps the id of the face model that computed it. A model switch moves stored results,
// alerts and their copies to the faces that replace theirs (previous_face_id) but cannot re-score them,
// so a score's band must be read on its own model's scale (contract/src/match-score.ts): a previous
// model's 0.94 is a weak match, the shipped model's a certain one.
//
// Rows stored before this column get the model of the face they name when they cannot have been moved
// there: only faces made by a reindex (previous_face_id) receive moved rows, and a row scored after that
// face's model became active was scored by it (a search's results when it ran, a copy's when its search
// ran, an alert when it was raised). The rest (possibly moved at an earlier switch, a copy whose search is
// gone, rows naming no face any more) stay null: scored by a model no longer known.
const SCORED_AT: ReadonlyArray<{ table: string; scoredAt: string; from: string; join: string }> = [
  {
    table: 'search_results',
    scoredAt: 's.created_at',
    from: 'searches s',
    join: 's.id = t.search_id',
  },
  {
    table: 'saved_search_results',
    scoredAt: 's.created_at',
    from: 'saved_searches c left join searches s on s.id = c.search_id',
    join: 'c.id = t.saved_search_id',
  },
  {
    table: 'data_extraction_results',
    scoredAt: 's.created_at',
    from: 'data_extractions c left join searches s on s.id = c.search_id',
    join: 'c.id = t.extraction_id',
  },
  { table: 'face_alerts', scoredAt: 't.created_at', from: '', join: 'true' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, scoredAt, from, join } of SCORED_AT) {
    await sql`alter table ${sql.table(table)} add column if not exists score_model_id text`.execute(db);
    await sql`
      update ${sql.table(table)} t set score_model_id = f.model_id
      from faces f${sql.raw(from ? `, ${from}` : '')}
      where f.id = t.face_id and ${sql.raw(join)} and t.score_model_id is null
        and (f.previous_face_id is null or coalesce(${sql.raw(scoredAt)} >= (
          select m.activated_at from face_models m where m.model_id = f.model_id), false))
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of SCORED_AT) {
    await sql`alter table ${sql.table(table)} drop column if exists score_model_id`.execute(db);
  }
}
