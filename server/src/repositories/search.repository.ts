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
      .where('faces.id', 'in', [...faceIds])
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

  insertSearch(search: {
    hashedId: string;
    organizationId: number;
    userId: number;
    type: SearchType;
    durationMs: number;
    results: NewSearchResult[];
  }) {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .insertInto('searches')
        .values({
          hashed_id: search.hashedId,
          organization_id: search.organizationId,
          user_id: search.userId,
          type: search.type,
          duration_ms: search.durationMs,
          result_count: search.results.length,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // Batches keep each statement under PostgreSQL's 65535-parameter limit.
      for (let i = 0; i < search.results.length; i += 500) {
        await tx
          .insertInto('search_results')
          .values(
            search.results.slice(i, i + 500).map((r) => ({
              search_id: row.id,
              record_hash: r.recordHash,
              rank: r.rank,
              face_id: r.faceId,
              image_id: r.imageId,
              group_key: r.groupKey,
              similarity: r.similarity,
              image_url: r.imageUrl,
              source_url: r.sourceUrl,
              source_title: r.sourceTitle,
              crawled_at: r.crawledAt,
            })),
          )
          .execute();
      }
      return row.id;
    });
  }

  findResultIds(searchId: number) {
    return this.db
      .selectFrom('search_results')
      .select(['id', 'record_hash'])
      .where('search_id', '=', searchId)
      .orderBy('rank')
      .execute();
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

  findThumbnailPath(imageId: number) {
    return this.db.selectFrom('images').select('thumbnail_path').where('id', '=', imageId).executeTakeFirst();
  }
}
