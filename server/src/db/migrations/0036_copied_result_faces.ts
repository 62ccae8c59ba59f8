import { sql, type Kysely } from 'kysely';

// Copies of search results (a saved search's, an extraction's) name the indexed face they show, as the
// search's own results do (search_results.face_id): every read of a copy then applies the minors rule of
// the moment — a face flagged as a possible minor is shown to verified law enforcement only — and not only
// the rule of the day the copy was made (an organization whose verification is withdrawn no longer sees the
// possible minors its saved searches and extractions copied). Copies made before take the face of the
// result they were copied from, where that search still exists.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table saved_search_results add column face_id bigint`.execute(db);
  await sql`alter table data_extraction_results add column face_id bigint`.execute(db);
  await copyFacesFromOriginals(db);
}

/** Copies without a face take that of the search result they were copied from, where it still exists. */
export async function copyFacesFromOriginals(db: Kysely<unknown>): Promise<void> {
  await sql`
    update saved_search_results copy set face_id = original.face_id
    from saved_searches saved, search_results original
    where saved.id = copy.saved_search_id and original.search_id = saved.search_id
      and original.record_hash = copy.record_hash and copy.face_id is null`.execute(db);
  await sql`
    update data_extraction_results copy set face_id = original.face_id
    from data_extractions extraction, search_results original
    where extraction.id = copy.extraction_id and original.search_id = extraction.search_id
      and original.record_hash = copy.record_hash and copy.face_id is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table data_extraction_results drop column face_id`.execute(db);
  await sql`alter table saved_search_results drop column face_id`.execute(db);
}
