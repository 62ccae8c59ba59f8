import { sql, type Kysely } from 'kysely';
import { recomputeWatchlistKeys } from '../watchlist-keys.ts';

// Two repairs of what was stored before:
//
// 1. Copied results (saved searches', extractions') that 0036 could not give their face, because the search
//    they were copied from is gone, find it through their image: an indexed image shown at the copy's
//    image address, and its face at the copy's face box (rounded as copies keep it). A copy kept without a
//    box takes the image's face only when the image has one face. The minors rule then applies to them.
// 2. Watch-list entries imported before names were compared in Latin letters kept Cyrillic and Greek lookup
//    keys: a name found on a page (whose keys are Latin now) never found them. Their keys are computed
//    again, as an import computes them now.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['saved_search_results', 'data_extraction_results']) {
    await sql`
      update ${sql.table(table)} copy set face_id = (
        select f.id from image_occurrences occ join faces f on f.image_id = occ.image_id
         where occ.image_url = copy.image_url
           and abs(f.box_x - copy.face_box_x) <= 1 and abs(f.box_y - copy.face_box_y) <= 1
           and abs(f.box_width - copy.face_box_width) <= 1 and abs(f.box_height - copy.face_box_height) <= 1
         order by f.id desc limit 1)
       where copy.face_id is null and copy.face_box_x is not null`.execute(db);
    await sql`
      update ${sql.table(table)} copy set face_id = (
        select min(f.id) from image_occurrences occ join faces f on f.image_id = occ.image_id
         where occ.image_url = copy.image_url
        having count(distinct f.id) = 1)
       where copy.face_id is null and copy.face_box_x is null`.execute(db);
  }
  await recomputeWatchlistKeys(db, GREEK_OR_CYRILLIC);
}

/** Greek (polytonic too) and Cyrillic letters: only names written with them have keys that changed. */
const GREEK_OR_CYRILLIC = '[\u0370-\u03FF\u1F00-\u1FFF\u0400-\u052F]';

export async function down(): Promise<void> {
  // The faces found and the keys computed are right under the previous schema too: nothing to undo.
}
