import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SearchType } from '../db/schema.ts';

/** Where an indexed face was seen: one row per page that shows the image. */
export interface FaceSighting {
  faceId: number;
  imageId: number;
  contentHash: string;
  phash: string | null;
  imageUrl: string;
  sourceUrl: string;
  sourceTitle: string;
  firstSeenAt: Date;
}

export interface NewSearchResult {
  recordHash: string;
  rank: number;
  faceId: number;
  imageId: number;
  groupKey: string;
  similarity: number;
  imageUrl: string;
  sourceUrl: string;
  sourceTitle: string;
  crawledAt: Date;
}

export class SearchRepository {
  constructor(private readonly db: Db) {}

  async findSightings(faceIds: readonly number[]): Promise<FaceSighting[]> {
    if (faceIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('faces')
      .innerJoin('images', 'images.id', 'faces.image_id')
      .innerJoin('image_occurrences as occ', 'occ.image_id', 'images.id')
      .innerJoin('pages', 'pages.id', 'occ.page_id')
      .select([
        'faces.id as face_id',
        'images.id as image_id',
        'images.content_hash',
        'images.phash',
        'occ.image_url',
        'occ.first_seen_at',
        'pages.url as page_url',
        'pages.title as page_title',
      ])
      // One array parameter instead of one per face: far less for PostgreSQL to parse and plan.
      .where(sql<boolean>`faces.id = any(${[...faceIds]}::bigint[])`)
      .execute();
    return rows.map((row) => ({
      faceId: row.face_id,
      imageId: row.image_id,
      contentHash: row.content_hash,
      phash: row.phash,
      imageUrl: row.image_url,
      sourceUrl: row.page_url,
      sourceTitle: row.page_title,
      firstSeenAt: row.first_seen_at,
    }));
  }

  /**
   * Stores a search and its result rows in one statement (atomic without a transaction): the rows go
   * as one array per column through unnest, a handful of parameters instead of eleven per row, which
   * PostgreSQL parses and plans in a fraction of the time. Answers the stored rows' ids by record hash.
   */
  async insertSearch(search: {
    hashedId: string;
    organizationId: number;
    userId: number;
    type: SearchType;
    durationMs: number;
    results: NewSearchResult[];
  }): Promise<Map<string, number>> {
    const r = search.results;
    const { rows } = await sql<{ id: number; record_hash: string }>`
      with search as (
        insert into searches (hashed_id, organization_id, user_id, type, duration_ms, result_count)
        values (${search.hashedId}, ${search.organizationId}, ${search.userId}, ${search.type},
                ${search.durationMs}, ${r.length})
        returning id
      )
      insert into search_results (search_id, record_hash, rank, face_id, image_id, group_key, similarity,
                                  image_url, source_url, source_title, crawled_at)
      select search.id, row.*
      from search, unnest(
        ${r.map((x) => x.recordHash)}::text[], ${r.map((x) => x.rank)}::int[],
        ${r.map((x) => x.faceId)}::bigint[], ${r.map((x) => x.imageId)}::int[],
        ${r.map((x) => x.groupKey)}::text[], ${r.map((x) => x.similarity)}::real[],
        ${r.map((x) => x.imageUrl)}::text[], ${r.map((x) => x.sourceUrl)}::text[],
        ${r.map((x) => x.sourceTitle)}::text[], ${r.map((x) => x.crawledAt.toISOString())}::timestamptz[]
      ) as row
      returning id, record_hash`.execute(this.db);
    return new Map(rows.map((row) => [row.record_hash, row.id]));
  }

  findByHashedId(hashedId: string, organizationId: number) {
    return this.db
      .selectFrom('searches')
      .selectAll()
      .where('hashed_id', '=', hashedId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  async markResultsRemoved(searchId: number, recordHashes: readonly string[]): Promise<number> {
    if (recordHashes.length === 0) return 0;
    const result = await this.db
      .updateTable('search_results')
      .set({ removed_at: new Date() })
      .where('search_id', '=', searchId)
      .where('record_hash', 'in', [...recordHashes])
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * The thumbnail of an indexed image, only if one of the organization's searches returned that image:
   * thumbnails are shown with results, and image ids (sequential) must not open the whole index.
   */
  findThumbnailPathForOrganization(imageId: number, organizationId: number) {
    return this.db
      .selectFrom('images')
      .select('thumbnail_path')
      .where('id', '=', imageId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('search_results')
            .innerJoin('searches', 'searches.id', 'search_results.search_id')
            .select('search_results.id')
            .where('search_results.image_id', '=', imageId)
            .where('searches.organization_id', '=', organizationId),
        ),
      )
      .executeTakeFirst();
  }
}
