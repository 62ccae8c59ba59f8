import { sql, type Kysely } from 'kysely';
import { nameKeys } from '../extractor/name-match.ts';

const BATCH = 1_000;

/**
 * Computes again, as an import computes them now, the lookup keys of the watch-list entries whose name or
 * an alias matches `pattern` (a PostgreSQL regular expression), and writes those that differ, a batch at a
 * time. For migrations that change how keys are made: entries whose keys would not change are only read
 * through the filter, not rewritten.
 */
export async function recomputeWatchlistKeys(db: Kysely<unknown>, pattern: string): Promise<void> {
  for (let after = 0; ;) {
    const { rows } = await sql<{ id: number; name: string; aliases: string[]; name_keys: string[] }>`
      select id, name, aliases, name_keys from watchlist_entries
       where id > ${after}
         and (name ~ ${pattern} or array_to_string(aliases, ' ') ~ ${pattern})
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
