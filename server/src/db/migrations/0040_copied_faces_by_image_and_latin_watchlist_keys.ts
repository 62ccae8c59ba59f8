import { sql, type Kysely } from 'kysely';
import { nameKeys } from '../../extractor/name-match.ts';

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
  await recomputeWatchlistKeys(db);
}

const BATCH = 1_000;

/** Greek (polytonic too) and Cyrillic letters: only names written with them have keys that changed. */
const GREEK_OR_CYRILLIC = '[\u0370-\u03FF\u1F00-\u1FFF\u0400-\u052F]';

/**
 * The keys of entries named in Greek or Cyrillic letters as nameKeys computes them now, written where they
 * differ, a batch at a time (a list of Latin names is only read through an index-free filter, not rewritten).
 */
async function recomputeWatchlistKeys(db: Kysely<unknown>): Promise<void> {
  for (let after = 0; ;) {
    const { rows } = await sql<{ id: number; name: string; aliases: string[]; name_keys: string[] }>`
      select id, name, aliases, name_keys from watchlist_entries
       where id > ${after}
         and (name ~ ${GREEK_OR_CYRILLIC} or array_to_string(aliases, ' ') ~ ${GREEK_OR_CYRILLIC})
       order by id limit ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const changed = rows.flatMap((row) => {
      const keys = nameKeys([row.name, ...row.aliases]);
      return keys.join('\n') === row.name_keys.join('\n') ? [] : [{ id: Number(row.id), keys }];
    });
    if (changed.length > 0) {
      await sql`
        update watchlist_entries e
           set name_keys = array(select jsonb_array_elements_text(v.keys))
          from jsonb_to_recordset(${JSON.stringify(changed)}::jsonb) as v(id bigint, keys jsonb)
         where e.id = v.id`.execute(db);
    }
    after = Number(rows[rows.length - 1]!.id);
  }
}

export async function down(): Promise<void> {
  // The faces found and the keys computed are right under the previous schema too: nothing to undo.
}
