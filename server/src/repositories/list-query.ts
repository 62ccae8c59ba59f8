import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';

/**
 * The right-hand side of `column ilike …` for a search box: rows whose column contains `text`, with `%`
 * and `_` typed by the user taken as literal characters.
 */
export function containing(text: string): RawBuilder<string> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<string>`${pattern} escape '\\'`;
}

/** One page of a list and the number of rows of the whole list (`filtered` before its select and paging). */
export async function pageWithTotal<DB, TB extends keyof DB, R>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: Promise<R[]>,
): Promise<{ rows: R[]; total: number }> {
  const [rows, total] = await Promise.all([
    page,
    filtered
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .$castTo<{ count: string }>()
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.count) };
}
