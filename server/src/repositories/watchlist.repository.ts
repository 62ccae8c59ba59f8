import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { WatchlistEntryInput } from '../extractor/watchlist-parse.ts';

export interface WatchlistCounts {
  entryCount: number;
  politicianCount: number;
  sanctionsCount: number;
  criminalCount: number;
  skippedCount: number;
}

export interface WatchlistRow extends WatchlistCounts {
  listName: string;
  format: 'ftm' | 'csv';
  importedAt: Date;
  importedBy: string | null;
}

/** A stored entry, as the name matching reads it. */
export interface WatchlistEntryRow {
  listName: string;
  entityId: string;
  schema: string;
  name: string;
  aliases: string[];
  topics: string[];
  countries: string[];
  birthDates: string[];
  sourceUrl: string | null;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
}

const BATCH = 500;
/** An import that has not finished after this long was left by a dead process. */
const STALE_IMPORT_MS = 6 * 60 * 60_000;

/** Pre-encoded text[] literal: one representation that both PostgreSQL and PGlite accept as a parameter. */
function textArray(values: string[]) {
  const literal = `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
  return sql<string[]>`${literal}::text[]`;
}

/** Imported watch-lists and their entries (migration 0007). */
export class WatchlistRepository {
  constructor(private readonly db: Db) {}

  /**
   * Writes a new version of the list `name` beside the current one and swaps it in when every entry is
   * stored: readers see the old list until then, and a failed import leaves the old list in place.
   * Entity ids repeated in the file are kept once (counted as skipped). Null when the file held no
   * entry: the current list stays as it is.
   */
  async replaceList(
    list: { name: string; format: 'ftm' | 'csv'; importedBy: number | null },
    entries: AsyncIterable<WatchlistEntryInput>,
    skippedByReader: () => number,
  ): Promise<WatchlistRow | null> {
    await this.db
      .deleteFrom('watchlists')
      .where('state', '=', 'IMPORTING')
      .where('imported_at', '<', new Date(Date.now() - STALE_IMPORT_MS))
      .execute();
    const { id } = await this.db
      .insertInto('watchlists')
      .values({ name: list.name, format: list.format, imported_by: list.importedBy })
      .returning('id')
      .executeTakeFirstOrThrow();
    const counts = { entryCount: 0, politicianCount: 0, sanctionsCount: 0, criminalCount: 0, duplicates: 0 };
    const seen = new Set<string>();
    let batch: WatchlistEntryInput[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      await this.db
        .insertInto('watchlist_entries')
        .values(
          rows.map((e) => ({
            list_id: id,
            list_name: list.name,
            entity_id: e.entityId,
            schema: e.schema,
            name: e.name,
            aliases: textArray(e.aliases),
            topics: textArray(e.topics),
            countries: textArray(e.countries),
            birth_dates: textArray(e.birthDates),
            source_url: e.sourceUrl,
            politician: e.politician,
            sanctions: e.sanctions,
            criminal: e.criminal,
            name_keys: textArray(e.nameKeys),
          })),
        )
        .execute();
    };
    try {
      for await (const entry of entries) {
        if (seen.has(entry.entityId)) {
          counts.duplicates++;
          continue;
        }
        seen.add(entry.entityId);
        counts.entryCount++;
        if (entry.politician) counts.politicianCount++;
        if (entry.sanctions) counts.sanctionsCount++;
        if (entry.criminal) counts.criminalCount++;
        batch.push(entry);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
    } catch (error) {
      await this.db.deleteFrom('watchlists').where('id', '=', id).execute();
      throw error;
    }
    const skippedCount = skippedByReader() + counts.duplicates;
    if (counts.entryCount === 0) {
      await this.db.deleteFrom('watchlists').where('id', '=', id).execute();
      return null;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('watchlists').where('name', '=', list.name).where('state', '=', 'READY').execute();
      await trx
        .updateTable('watchlists')
        .set({
          state: 'READY',
          entry_count: counts.entryCount,
          politician_count: counts.politicianCount,
          sanctions_count: counts.sanctionsCount,
          criminal_count: counts.criminalCount,
          skipped_count: skippedCount,
          imported_at: new Date(),
        })
        .where('id', '=', id)
        .execute();
    });
    return (await this.findList(list.name))!;
  }

  private selectLists() {
    return this.db
      .selectFrom('watchlists')
      .leftJoin('users', 'users.id', 'watchlists.imported_by')
      .where('watchlists.state', '=', 'READY')
      .select([
        'watchlists.name',
        'watchlists.format',
        'watchlists.entry_count',
        'watchlists.politician_count',
        'watchlists.sanctions_count',
        'watchlists.criminal_count',
        'watchlists.skipped_count',
        'watchlists.imported_at',
        'users.email',
      ]);
  }

  private static toRow(row: {
    name: string;
    format: 'ftm' | 'csv';
    entry_count: number;
    politician_count: number;
    sanctions_count: number;
    criminal_count: number;
    skipped_count: number;
    imported_at: Date;
    email: string | null;
  }): WatchlistRow {
    return {
      listName: row.name,
      format: row.format,
      entryCount: row.entry_count,
      politicianCount: row.politician_count,
      sanctionsCount: row.sanctions_count,
      criminalCount: row.criminal_count,
      skippedCount: row.skipped_count,
      importedAt: row.imported_at,
      importedBy: row.email,
    };
  }

  async findList(name: string): Promise<WatchlistRow | undefined> {
    const row = await this.selectLists().where('watchlists.name', '=', name).executeTakeFirst();
    return row && WatchlistRepository.toRow(row);
  }

  async listAll(): Promise<WatchlistRow[]> {
    const rows = await this.selectLists().orderBy('watchlists.name').execute();
    return rows.map((row) => WatchlistRepository.toRow(row));
  }

  /** True when a list was deleted. */
  async deleteList(name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('watchlists')
      .where('name', '=', name)
      .where('state', '=', 'READY')
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async hasAnyList(): Promise<boolean> {
    const row = await this.db
      .selectFrom('watchlists')
      .where('state', '=', 'READY')
      .select('id')
      .limit(1)
      .executeTakeFirst();
    return !!row;
  }

  /**
   * Person entries of ready lists sharing at least one name key with `keys` (candidates; scored by the
   * caller). Companies and other bodies are left out here, before the limit, so that they never crowd out
   * a person.
   */
  async findPersonCandidates(keys: string[], limit = 200): Promise<WatchlistEntryRow[]> {
    if (keys.length === 0) return [];
    const rows = await this.db
      .selectFrom('watchlist_entries as e')
      .innerJoin('watchlists as w', 'w.id', 'e.list_id')
      .where('w.state', '=', 'READY')
      .where('e.schema', '=', 'Person')
      .where(sql<boolean>`e.name_keys && ${textArray(keys)}`)
      // Entries sharing the most keys first: a common first name alone must not crowd out the match.
      .orderBy(
        sql`cardinality(array(select unnest(e.name_keys) intersect select unnest(${textArray(keys)})))`,
        'desc',
      )
      .select([
        'e.list_name',
        'e.entity_id',
        'e.schema',
        'e.name',
        'e.aliases',
        'e.topics',
        'e.countries',
        'e.birth_dates',
        'e.source_url',
        'e.politician',
        'e.sanctions',
        'e.criminal',
      ])
      .orderBy('e.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      listName: r.list_name,
      entityId: r.entity_id,
      schema: r.schema,
      name: r.name,
      aliases: r.aliases,
      topics: r.topics,
      countries: r.countries,
      birthDates: r.birth_dates,
      sourceUrl: r.source_url,
      politician: r.politician,
      sanctions: r.sanctions,
      criminal: r.criminal,
    }));
  }
}
