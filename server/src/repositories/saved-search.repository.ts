import { inTransaction, type Db } from '../db/database.ts';
import type { SavedSearchStatus, SearchType } from '../db/schema.ts';
import { insertWithJob, type NewJob } from './job.repository.ts';
import { keptFacePictures, type KeptFacePictures } from './kept-face-pictures.ts';
import { containing, pageWithTotal } from './list-query.ts';
import { deleteSearchNoLongerNeeded, storedFaceVisible, storedResultVisible } from './search.repository.ts';
import {
  matchedFaceColumns,
  type FaceBox,
  type ImageSize,
  type MatchedFaceColumns,
} from './search.repository.ts';

/**
 * Whose saved searches a read may see: one organization's (every user call), or every organization's
 * (the admin's read-only pages). Spelled out so that no caller widens a query by leaving a field out.
 */
export type SavedSearchScope = number | 'all-organizations';

export interface SavedSearchListFilter {
  organizationId: SavedSearchScope;
  status?: SavedSearchStatus | undefined;
  search?: string | undefined;
  offset: number;
  limit: number;
}

export interface NewSavedSearchResult {
  recordHash: string;
  rank: number;
  groupKey: string;
  similarity: number;
  scoreModel: string | null;
  quality: number | null;
  imageUrl: string;
  sourceUrl: string;
  sourceTitle: string;
  crawledAt: Date;
  thumbnail: Buffer | null;
  /** The indexed face the result shows, for the minors rule on every read. */
  faceId: number | null;
  /** Whether that face was a possible minor when it left the index (the rule's memory of it). */
  goneFaceWasMinor: boolean;
  faceBox: FaceBox | null;
  imageSize: ImageSize | null;
}

/** A search result to copy, with where its thumbnail file is and the quality of its face. */
export interface SearchResultToCopy extends MatchedFaceColumns {
  record_hash: string;
  face_id: number | null;
  gone_face_was_minor: boolean;
  rank: number;
  group_key: string;
  similarity: number;
  score_model_id: string | null;
  quality: number | null;
  image_url: string;
  source_url: string;
  source_title: string;
  crawled_at: Date;
  thumbnail_path: string | null;
}

/** Which copied results a reader may see: the minors rule of live results (storedFaceVisible). */
const copiedResultVisible = (minorsAllowed: boolean) =>
  storedFaceVisible('saved_search_results', minorsAllowed);

const LIST_COLUMNS = [
  'id',
  'hashed_id',
  'name',
  'description',
  'type',
  'status',
  'result_count',
  'duration_ms',
  'created_at',
  'completed_at',
] as const;

const RESULT_COLUMNS = [
  'saved_search_results.id',
  'saved_search_results.record_hash',
  'saved_search_results.rank',
  'saved_search_results.group_key',
  'saved_search_results.similarity',
  'saved_search_results.score_model_id',
  'saved_search_results.quality',
  'saved_search_results.image_url',
  'saved_search_results.source_url',
  'saved_search_results.source_title',
  'saved_search_results.crawled_at',
  'saved_search_results.face_box_x',
  'saved_search_results.face_box_y',
  'saved_search_results.face_box_width',
  'saved_search_results.face_box_height',
  'saved_search_results.image_width',
  'saved_search_results.image_height',
] as const;

export class SavedSearchRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a PENDING saved search and, in the same transaction, the job `jobOf` makes of its id. */
  async insert(
    row: {
      hashedId: string;
      organizationId: number;
      userId: number;
      searchId: number;
      name: string;
      description: string;
      type: SearchType;
      durationMs: number;
      image: Buffer;
      possibleMinor: boolean;
      /** Results the analyst had added to the searched face (a search searched again). */
      addedFaceCount: number;
      /** Other uploaded faces of the person its search was searched with. */
      otherFaceCount: number;
      /** The search's other face pictures and added faces, kept so that a watch of the copy watches them. */
      kept: Pick<KeptFacePictures, 'otherFaceImages' | 'addedFaceIds'>;
    },
    jobOf: (id: number) => NewJob,
  ): Promise<number> {
    return insertWithJob(
      this.db,
      async (tx) => {
        const inserted = await tx
          .insertInto('saved_searches')
          .values({
            hashed_id: row.hashedId,
            organization_id: row.organizationId,
            user_id: row.userId,
            search_id: row.searchId,
            name: row.name,
            description: row.description,
            type: row.type,
            duration_ms: row.durationMs,
            image: row.image,
            possible_minor: row.possibleMinor,
            added_face_count: row.addedFaceCount,
            other_face_count: row.otherFaceCount,
            other_face_images: row.kept.otherFaceImages,
            added_face_ids: row.kept.addedFaceIds,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return inserted.id;
      },
      jobOf,
    );
  }

  async findPage(filter: SavedSearchListFilter) {
    let query = this.db.selectFrom('saved_searches');
    const scope = filter.organizationId;
    // Qualified: the page joins the organizations, which have a name too.
    if (scope !== 'all-organizations') query = query.where('saved_searches.organization_id', '=', scope);
    if (filter.status) query = query.where('saved_searches.status', '=', filter.status);
    if (filter.search) {
      const pattern = containing(filter.search);
      query = query.where((eb) =>
        eb.or([
          eb('saved_searches.name', 'ilike', pattern),
          eb('saved_searches.description', 'ilike', pattern),
        ]),
      );
    }
    return pageWithTotal(
      query,
      query
        .innerJoin('organizations', 'organizations.id', 'saved_searches.organization_id')
        .select(LIST_COLUMNS.map((column) => `saved_searches.${column}` as const))
        .select('organizations.name as organization_name')
        .orderBy('saved_searches.created_at', 'desc')
        .orderBy('saved_searches.id', 'desc')
        .offset(filter.offset)
        .limit(filter.limit)
        .execute(),
    );
  }

  findById(id: number, organizationId: SavedSearchScope) {
    let query = this.db
      .selectFrom('saved_searches')
      .select([...LIST_COLUMNS, 'organization_id', 'user_id', 'search_id'])
      .select(['added_face_count', 'other_face_count'])
      .where('id', '=', id);
    if (organizationId !== 'all-organizations') query = query.where('organization_id', '=', organizationId);
    return query.executeTakeFirst();
  }

  findByHashedId(hashedId: string, organizationId: SavedSearchScope) {
    let query = this.db
      .selectFrom('saved_searches')
      .innerJoin('organizations', 'organizations.id', 'saved_searches.organization_id')
      .select(LIST_COLUMNS.map((column) => `saved_searches.${column}` as const))
      .select([
        'saved_searches.organization_id',
        'saved_searches.user_id',
        'saved_searches.search_id',
        'saved_searches.possible_minor',
        'organizations.name as organization_name',
      ])
      .where('saved_searches.hashed_id', '=', hashedId);
    if (organizationId !== 'all-organizations')
      query = query.where('saved_searches.organization_id', '=', organizationId);
    return query.executeTakeFirst();
  }

  /** For the save job, which runs outside any request: by id alone. */
  findForJob(id: number) {
    return this.db
      .selectFrom('saved_searches')
      .select(['id', 'search_id', 'status', 'organization_id'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async findImage(id: number, organizationId: SavedSearchScope): Promise<Buffer | undefined> {
    let query = this.db.selectFrom('saved_searches').select('image').where('id', '=', id);
    if (organizationId !== 'all-organizations') query = query.where('organization_id', '=', organizationId);
    const row = await query.executeTakeFirst();
    return row?.image;
  }

  /** Every face the organization's saved search kept of its search: pictures and added indexed faces. */
  async findKeptFaces(id: number, organizationId: number): Promise<KeptFacePictures> {
    const row = await this.db
      .selectFrom('saved_searches')
      .select(['image', 'other_face_images', 'added_face_ids'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return keptFacePictures(row?.image ?? null, row);
  }

  /** A saved search's results its reader may see (`minorsAllowed`: storedFaceVisible), in rank order. */
  findResults(savedSearchId: number, minorsAllowed: boolean) {
    return this.db
      .selectFrom('saved_search_results')
      .select(RESULT_COLUMNS)
      .where('saved_search_id', '=', savedSearchId)
      .where(copiedResultVisible(minorsAllowed))
      .orderBy('rank')
      .execute();
  }

  /**
   * How many results of these saved searches their reader may see (`minorsAllowed`); a saved search
   * without any is missing from the map. The stored `result_count` counts every kept result.
   */
  async countShownResults(savedSearchIds: readonly number[], minorsAllowed: boolean) {
    if (savedSearchIds.length === 0) return new Map<number, number>();
    const rows = await this.db
      .selectFrom('saved_search_results')
      .select(['saved_search_id', (eb) => eb.fn.countAll<string>().as('count')])
      .where('saved_search_id', 'in', [...savedSearchIds])
      .where(copiedResultVisible(minorsAllowed))
      .groupBy('saved_search_id')
      .execute();
    return new Map(rows.map((row) => [row.saved_search_id, Number(row.count)]));
  }

  /**
   * Results by id, only those of the organization's saved searches that its reader may see, with their
   * saved search.
   */
  findResultsByIds(ids: readonly number[], organizationId: SavedSearchScope, minorsAllowed: boolean) {
    if (ids.length === 0) return Promise.resolve([]);
    let query = this.db
      .selectFrom('saved_search_results')
      .innerJoin('saved_searches', 'saved_searches.id', 'saved_search_results.saved_search_id')
      .select([...RESULT_COLUMNS, 'saved_search_results.saved_search_id', 'saved_search_results.thumbnail'])
      .where('saved_search_results.id', 'in', [...ids])
      .where(copiedResultVisible(minorsAllowed));
    if (organizationId !== 'all-organizations') {
      query = query.where('saved_searches.organization_id', '=', organizationId);
    }
    return query.orderBy('saved_search_results.rank').execute();
  }

  async findResultThumbnail(
    resultId: number,
    organizationId: SavedSearchScope,
    minorsAllowed: boolean,
  ): Promise<Buffer | null | undefined> {
    let query = this.db
      .selectFrom('saved_search_results')
      .innerJoin('saved_searches', 'saved_searches.id', 'saved_search_results.saved_search_id')
      .select('saved_search_results.thumbnail')
      .where('saved_search_results.id', '=', resultId)
      .where(copiedResultVisible(minorsAllowed));
    if (organizationId !== 'all-organizations')
      query = query.where('saved_searches.organization_id', '=', organizationId);
    const row = await query.executeTakeFirst();
    return row?.thumbnail;
  }

  /** The live search's results still shown (not removed), in rank order, for the save job to copy. */
  async findSearchResultsToCopy(searchId: number, minorsAllowed: boolean): Promise<SearchResultToCopy[]> {
    return this.db
      .selectFrom('search_results')
      .leftJoin('faces', 'faces.id', 'search_results.face_id')
      .leftJoin('images', 'images.id', 'search_results.image_id')
      .select([
        'search_results.record_hash',
        'search_results.face_id',
        'search_results.gone_face_was_minor',
        'search_results.rank',
        'search_results.group_key',
        'search_results.similarity',
        'search_results.score_model_id',
        'faces.quality',
        'search_results.image_url',
        'search_results.source_url',
        'search_results.source_title',
        'search_results.crawled_at',
        'search_results.face_box_x',
        'search_results.face_box_y',
        'search_results.face_box_width',
        'search_results.face_box_height',
        'search_results.image_width',
        'search_results.image_height',
        'images.thumbnail_path',
      ])
      .where('search_results.search_id', '=', searchId)
      .where('search_results.removed_at', 'is', null)
      .where(storedResultVisible(minorsAllowed))
      .orderBy('search_results.rank')
      .execute();
  }

  /**
   * Marks a PENDING saved search COMPLETED and stores the copied results, replacing whatever an earlier
   * attempt left (a retried job starts over). The state change comes first and locks the row: of two runs
   * of the same job (a stale claim taken over), the second waits, finds it COMPLETED and stores nothing
   * (false), so the results, their ids and the user's removals stay. False too when it was deleted.
   */
  async complete(savedSearchId: number, results: NewSavedSearchResult[]): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      const claimed = await tx
        .updateTable('saved_searches')
        .set({ status: 'COMPLETED', result_count: results.length, completed_at: new Date() })
        .where('id', '=', savedSearchId)
        .where('status', '=', 'PENDING')
        .returning(['id', 'search_id'])
        .executeTakeFirst();
      if (!claimed) return false;
      await deleteSearchNoLongerNeeded(tx, claimed.search_id);
      await tx.deleteFrom('saved_search_results').where('saved_search_id', '=', savedSearchId).execute();
      // Batches keep statements (and their thumbnails) a reasonable size.
      for (let i = 0; i < results.length; i += 100) {
        await tx
          .insertInto('saved_search_results')
          .values(
            results.slice(i, i + 100).map((r) => ({
              saved_search_id: savedSearchId,
              record_hash: r.recordHash,
              rank: r.rank,
              group_key: r.groupKey,
              similarity: r.similarity,
              score_model_id: r.scoreModel,
              quality: r.quality,
              image_url: r.imageUrl,
              source_url: r.sourceUrl,
              source_title: r.sourceTitle,
              crawled_at: r.crawledAt,
              thumbnail: r.thumbnail,
              face_id: r.faceId,
              gone_face_was_minor: r.goneFaceWasMinor,
              ...matchedFaceColumns(r),
            })),
          )
          .execute();
      }
      return true;
    });
  }

  async update(id: number, organizationId: number, name: string, description: string): Promise<boolean> {
    const result = await this.db
      .updateTable('saved_searches')
      .set({ name, description })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: number, organizationId: number): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      const deleted = await tx
        .deleteFrom('saved_searches')
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .returning('search_id')
        .executeTakeFirst();
      if (!deleted) return false;
      await deleteSearchNoLongerNeeded(tx, deleted.search_id);
      return true;
    });
  }

  /**
   * Deletes results of one saved search that its editor may see (`minorsAllowed`) and keeps its count;
   * returns how many are left for that editor. The saved search's row is locked first, so removals of its
   * results take turns: each counts what the one before left (counted side by side, each would miss the
   * other's deletion and store a count one too high).
   */
  async deleteResults(savedSearchId: number, resultIds: readonly number[], minorsAllowed: boolean) {
    return inTransaction(this.db, async (tx) => {
      await tx
        .selectFrom('saved_searches')
        .select('id')
        .where('id', '=', savedSearchId)
        .forUpdate()
        .executeTakeFirst();
      const deleted = await tx
        .deleteFrom('saved_search_results')
        .where('saved_search_id', '=', savedSearchId)
        .where('id', 'in', [...resultIds])
        .where(copiedResultVisible(minorsAllowed))
        .executeTakeFirst();
      const kept = await tx
        .selectFrom('saved_search_results')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('saved_search_id', '=', savedSearchId)
        .executeTakeFirstOrThrow();
      await tx
        .updateTable('saved_searches')
        .set({ result_count: Number(kept.count) })
        .where('id', '=', savedSearchId)
        .execute();
      const repository = new SavedSearchRepository(tx);
      const shown = await repository.countShownResults([savedSearchId], minorsAllowed);
      return { removed: Number(deleted.numDeletedRows), remaining: shown.get(savedSearchId) ?? 0 };
    });
  }

  findOrganizationName(organizationId: number) {
    return this.db
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', organizationId)
      .executeTakeFirst();
  }
}
