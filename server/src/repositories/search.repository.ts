import { sql } from 'kysely';
import { inTransaction, type Db } from '../db/database.ts';
import type { SearchType } from '../db/schema.ts';
import { vectorFromBytes } from '../face/index/face-index.ts';
import { keptFacePictures, type KeptFacePictures } from './kept-face-pictures.ts';

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
  faceBox: FaceBox;
  imageSize: ImageSize | null;
}

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ImageSize {
  width: number;
  height: number;
}

export interface NewSearchResult {
  recordHash: string;
  rank: number;
  faceId: number;
  imageId: number;
  groupKey: string;
  similarity: number;
  /** The face model that computed `similarity`; null when not known (contract/src/match-score.ts). */
  scoreModel: string | null;
  imageUrl: string;
  sourceUrl: string;
  sourceTitle: string;
  crawledAt: Date;
  faceBox: FaceBox | null;
  imageSize: ImageSize | null;
}

/** The six columns that keep a result's matched face (search_results and saved_search_results). */
export interface MatchedFaceColumns {
  face_box_x: number | null;
  face_box_y: number | null;
  face_box_width: number | null;
  face_box_height: number | null;
  image_width: number | null;
  image_height: number | null;
}

/** The matched face's box and image size of a stored result, or nulls when it was stored without them. */
export function matchedFaceOf(row: MatchedFaceColumns): {
  faceBox: FaceBox | null;
  imageSize: ImageSize | null;
} {
  const { face_box_x: x, face_box_y: y, face_box_width: width, face_box_height: height } = row;
  return {
    faceBox: x === null || y === null || width === null || height === null ? null : { x, y, width, height },
    imageSize:
      row.image_width === null || row.image_height === null
        ? null
        : { width: row.image_width, height: row.image_height },
  };
}

/** The matched face as the reports outline it, or null when the result was stored without it. */
export function matchedFaceForReport(row: MatchedFaceColumns) {
  const { faceBox, imageSize } = matchedFaceOf(row);
  return faceBox && imageSize ? { box: faceBox, imageSize } : null;
}

/** The columns of a result's matched face, to store. */
export function matchedFaceColumns(face: {
  faceBox: FaceBox | null;
  imageSize: ImageSize | null;
}): MatchedFaceColumns {
  return {
    face_box_x: face.faceBox?.x ?? null,
    face_box_y: face.faceBox?.y ?? null,
    face_box_width: face.faceBox?.width ?? null,
    face_box_height: face.faceBox?.height ?? null,
    image_width: face.imageSize?.width ?? null,
    image_height: face.imageSize?.height ?? null,
  };
}

/** A stored result as the search's own pages read it back (removed results left out). */
export type StoredSearchResult = NewSearchResult & { id: number };

/**
 * The tables whose rows show one indexed face (`face_id`): a model switch carries them over to the face
 * that replaces theirs, and they stay when it goes (face_id then null or dangling).
 */
export const ROWS_SHOWING_FACES = [
  'search_results',
  'saved_search_results',
  'data_extraction_results',
  'data_extraction_connections',
  'face_alerts',
  'face_alert_copies',
] as const;

/**
 * Whether a stored row of ROWS_SHOWING_FACES (`table`, or its alias) may be shown to an organization: never
 * when its face was opted out; else always where `minorsAllowed` (it is verified law enforcement), else only when the index does not flag its face
 * as a possible minor, nor did when the face left the index (gone_face_was_minor). Searches and watches of
 * other organizations never return such faces; this keeps what they stored (search results, copies, face
 * alerts) to the same rule when an organization's verification is withdrawn, or a face is flagged
 * afterwards.
 */
export function storedFaceVisible(table: string, minorsAllowed: boolean) {
  // A row whose face was opted out is shown to nobody.
  const optedOut = sql.ref(`${table}.gone_face_opted_out`);
  return minorsAllowed
    ? sql<boolean>`(not ${optedOut})`
    : sql<boolean>`(not ${optedOut} and not ${sql.ref(`${table}.gone_face_was_minor`)} and not exists (
        select 1 from faces where faces.id = ${sql.ref(`${table}.face_id`)} and faces.possible_minor))`;
}

/**
 * Called before opted-out faces are deleted: the stored rows that show one are marked, so that no read
 * shows them again, nor copies them into a saved search or an extraction (storedFaceVisible).
 */
export async function markOptedOutFacesGoing(db: Db, faceIds: readonly number[]): Promise<void> {
  if (faceIds.length === 0) return;
  for (const table of ROWS_SHOWING_FACES) {
    await sql`update ${sql.table(table)} set gone_face_opted_out = true where face_id = any(${[...faceIds]}::bigint[])`.execute(
      db,
    );
  }
}

/**
 * Called before faces are deleted (an opt-out, a retired model's faces): the rows that show one flagged as
 * a possible minor keep that flag, so the minors rule still hides them when the face is gone.
 */
export async function keepMinorFlagsOfFacesGoing(db: Db, faceIds: readonly number[]): Promise<void> {
  if (faceIds.length === 0) return;
  const minors = await db
    .selectFrom('faces')
    .select('id')
    .where(sql<boolean>`id = any(${[...faceIds]}::bigint[])`)
    .where('possible_minor', '=', true)
    .execute();
  if (minors.length === 0) return;
  const ids = minors.map((face) => Number(face.id));
  for (const table of ROWS_SHOWING_FACES) {
    await sql`update ${sql.table(table)} set gone_face_was_minor = true where face_id = any(${ids}::bigint[])`.execute(
      db,
    );
  }
}

/**
 * Whether a saved search or a data extraction still waits to copy the search's results (its `id` column
 * given): such a search is not deleted, by hand or with its user.
 */
export function searchStillNeeded(searchIdColumn: string) {
  return sql<boolean>`(
    exists (select 1 from saved_searches where search_id = ${sql.ref(searchIdColumn)} and status = 'PENDING')
    or exists (select 1 from data_extractions where search_id = ${sql.ref(searchIdColumn)} and state = 'PENDING'))`;
}

/**
 * Deletes a search kept only for the copies that were waiting for it (its user was deleted meanwhile), once
 * the last of them has its results. Called in the transaction that completes a copy.
 */
export async function deleteSearchNoLongerNeeded(db: Db, searchId: number | null): Promise<void> {
  if (searchId === null) return;
  await db
    .deleteFrom('searches')
    .where('id', '=', searchId)
    .where('user_id', 'is', null)
    .where(sql<boolean>`not ${searchStillNeeded('searches.id')}`)
    .execute();
}

/** Which stored results (`search_results` rows) an organization may see (storedFaceVisible). */
export function storedResultVisible(minorsAllowed: boolean) {
  return storedFaceVisible('search_results', minorsAllowed);
}

/** Sightings read per face: a search keeps at most 1,000 results in all. */
export const MAX_SIGHTINGS_PER_FACE = 1000;

export class SearchRepository {
  constructor(private readonly db: Db) {}

  /** Which of these faces the age estimate flagged as possibly under 18 when they were indexed. */
  async possibleMinorFaceIds(faceIds: readonly number[]): Promise<Set<number>> {
    if (faceIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('faces')
      .select('id')
      .where(sql<boolean>`id = any(${[...faceIds]}::bigint[])`)
      .where('possible_minor', '=', true)
      .execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * The pages these faces were seen on: for each face its first `perFace` sightings (the oldest first), so
   * a photo used on every page of a site (a byline, a header) cannot bring tens of thousands of rows when a
   * search keeps 1,000 results in all.
   */
  async findSightings(faceIds: readonly number[], perFace = MAX_SIGHTINGS_PER_FACE): Promise<FaceSighting[]> {
    if (faceIds.length === 0) return [];
    const ranked = this.db
      .selectFrom('faces')
      .innerJoin('images', 'images.id', 'faces.image_id')
      .innerJoin('image_occurrences as occ', 'occ.image_id', 'images.id')
      .innerJoin('pages', 'pages.id', 'occ.page_id')
      .select([
        sql<number>`row_number() over (partition by faces.id order by occ.first_seen_at, pages.url, occ.id)`.as(
          'nth',
        ),
        'faces.id as face_id',
        'images.id as image_id',
        'images.content_hash',
        'images.phash',
        'occ.image_url',
        'occ.first_seen_at',
        'pages.url as page_url',
        'pages.title as page_title',
        'faces.box_x',
        'faces.box_y',
        'faces.box_width',
        'faces.box_height',
        'images.width as image_width',
        'images.height as image_height',
      ])
      // One array parameter instead of one per face: far less for PostgreSQL to parse and plan.
      .where(sql<boolean>`faces.id = any(${[...faceIds]}::bigint[])`);
    const rows = await this.db.selectFrom(ranked.as('s')).selectAll().where('s.nth', '<=', perFace).execute();
    return rows.map((row) => ({
      faceId: row.face_id,
      imageId: row.image_id,
      contentHash: row.content_hash,
      phash: row.phash,
      imageUrl: row.image_url,
      sourceUrl: row.page_url,
      sourceTitle: row.page_title,
      firstSeenAt: row.first_seen_at,
      // Whole pixels: the box is drawn on the image, where a fraction of a pixel means nothing.
      faceBox: {
        x: Math.round(row.box_x),
        y: Math.round(row.box_y),
        width: Math.round(row.box_width),
        height: Math.round(row.box_height),
      },
      imageSize:
        row.image_width && row.image_height ? { width: row.image_width, height: row.image_height } : null,
    }));
  }

  /**
   * Stores a search and its result rows in one statement (atomic without a transaction): the rows go
   * as one array per column through unnest, a handful of parameters instead of eleven per row, which
   * PostgreSQL parses and plans in a fraction of the time. Answers the stored rows' ids by record hash.
   */
  /**
   * Stores a search with its results; `alongside` runs in the same transaction (what the search uses up,
   * its audit entries), so the search and they are stored together or not at all.
   */
  async insertSearch(
    search: {
      hashedId: string;
      organizationId: number;
      userId: number;
      type: SearchType;
      durationMs: number;
      faceImage: Buffer | null;
      cropDigests: Buffer | null;
      possibleMinor: boolean;
      /** Indexed faces searched with the uploaded or kept ones (chosen results); none by default. */
      addedFaceIds?: readonly number[] | undefined;
      /** Crops of the other searched faces of the person (beside `faceImage`); none by default. */
      otherFaceImages?: readonly Buffer[] | undefined;
      results: NewSearchResult[];
    },
    alongside: (tx: Db) => Promise<void> = async () => undefined,
  ): Promise<Map<string, number>> {
    const r = search.results;
    const statement = sql<{ id: number; record_hash: string }>`
      with search as (
        insert into searches (hashed_id, organization_id, user_id, type, duration_ms, result_count,
                              face_image, crop_digests, possible_minor, added_face_ids, other_face_images)
        values (${search.hashedId}, ${search.organizationId}, ${search.userId}, ${search.type},
                ${search.durationMs}, ${r.length}, ${search.faceImage}, ${search.cropDigests},
                ${search.possibleMinor}, ${[...(search.addedFaceIds ?? [])]}::bigint[],
                ${[...(search.otherFaceImages ?? [])]}::bytea[])
        returning id
      )
      insert into search_results (search_id, record_hash, rank, face_id, image_id, group_key, similarity,
                                  score_model_id, image_url, source_url, source_title, crawled_at, face_box_x,
                                  face_box_y, face_box_width, face_box_height, image_width, image_height)
      select search.id, row.*
      from search, unnest(
        ${r.map((x) => x.recordHash)}::text[], ${r.map((x) => x.rank)}::int[],
        ${r.map((x) => x.faceId)}::bigint[], ${r.map((x) => x.imageId)}::int[],
        ${r.map((x) => x.groupKey)}::text[], ${r.map((x) => x.similarity)}::real[],
        ${r.map((x) => x.scoreModel)}::text[], ${r.map((x) => x.imageUrl)}::text[], ${r.map((x) => x.sourceUrl)}::text[],
        ${r.map((x) => x.sourceTitle)}::text[], ${r.map((x) => x.crawledAt.toISOString())}::timestamptz[],
        ${r.map((x) => x.faceBox?.x ?? null)}::int[], ${r.map((x) => x.faceBox?.y ?? null)}::int[],
        ${r.map((x) => x.faceBox?.width ?? null)}::int[], ${r.map((x) => x.faceBox?.height ?? null)}::int[],
        ${r.map((x) => x.imageSize?.width ?? null)}::int[], ${r.map((x) => x.imageSize?.height ?? null)}::int[]
      ) as row
      returning id, record_hash`;
    return inTransaction(this.db, async (tx) => {
      const { rows } = await statement.execute(tx);
      await alongside(tx);
      return new Map(rows.map((row) => [row.record_hash, row.id]));
    });
  }

  /** The organization's search (without its face image, which only its own call reads). */
  findByHashedId(hashedId: string, organizationId: number) {
    return this.db
      .selectFrom('searches')
      .select(['id', 'hashed_id', 'organization_id', 'user_id', 'type', 'duration_ms', 'result_count'])
      .select(['created_at', 'possible_minor', sql<boolean>`face_image is not null`.as('has_face_image')])
      .select(['added_face_ids', sql<number>`cardinality(other_face_images)`.as('other_face_count')])
      .where('hashed_id', '=', hashedId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
  }

  /** What shows which face a search was run on: the picture kept with it and its faces' crop digests. */
  async findSearchedFace(
    searchId: number,
  ): Promise<{ faceImage: Buffer | null; cropDigests: Buffer | null } | undefined> {
    const row = await this.db
      .selectFrom('searches')
      .select(['face_image', 'crop_digests'])
      .where('id', '=', searchId)
      .executeTakeFirst();
    // Deleted since it was found (by its owner, or by retention).
    if (!row) return undefined;
    // PGlite answers bytea as a plain Uint8Array.
    const buffer = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes) : null);
    return { faceImage: buffer(row.face_image), cropDigests: buffer(row.crop_digests) };
  }

  /** Every face the organization's search kept: its pictures and the indexed faces it added. */
  async findKeptFaces(hashedId: string, organizationId: number): Promise<KeptFacePictures> {
    const row = await this.db
      .selectFrom('searches')
      .select(['face_image', 'other_face_images', 'added_face_ids'])
      .where('hashed_id', '=', hashedId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return keptFacePictures(row?.face_image ?? null, row);
  }

  async findFaceImage(hashedId: string, organizationId: number): Promise<Buffer | null> {
    const row = await this.db
      .selectFrom('searches')
      .select('face_image')
      .where('hashed_id', '=', hashedId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.face_image ?? null;
  }

  /**
   * The search's results still shown (not removed; faces flagged as possible minors only where
   * `minorsAllowed`), in rank order; with `ids`, only those of them.
   */
  async findResults(
    searchId: number,
    minorsAllowed: boolean,
    ids?: readonly number[],
  ): Promise<StoredSearchResult[]> {
    let query = this.db
      .selectFrom('search_results')
      .selectAll()
      .where('search_id', '=', searchId)
      .where('removed_at', 'is', null)
      .where(storedResultVisible(minorsAllowed));
    if (ids) query = query.where(sql<boolean>`id = any(${[...ids]}::int[])`);
    const rows = await query.orderBy('rank').execute();
    return rows.map((row) => ({
      id: row.id,
      recordHash: row.record_hash,
      rank: row.rank,
      faceId: row.face_id ?? 0,
      imageId: row.image_id ?? 0,
      groupKey: row.group_key,
      similarity: row.similarity,
      scoreModel: row.score_model_id,
      imageUrl: row.image_url,
      sourceUrl: row.source_url,
      sourceTitle: row.source_title,
      crawledAt: row.crawled_at,
      ...matchedFaceOf(row),
    }));
  }

  /**
   * A page of the organization's searches, newest first, with the e-mail of who ran each and the number
   * of results reopening one shows (as `findResults` with `minorsAllowed`).
   */
  async findPage(organizationId: number, offset: number, limit: number, minorsAllowed: boolean) {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('searches')
        .leftJoin('users', 'users.id', 'searches.user_id')
        .select([
          'searches.hashed_id',
          'searches.type',
          'searches.created_at',
          'searches.result_count',
          'users.email',
          sql<boolean>`searches.face_image is not null`.as('has_face_image'),
          // Results the analyst removed are not counted: the history says what reopening shows.
          sql<number>`(select count(*) from search_results
                       where search_results.search_id = searches.id and search_results.removed_at is null
                         and ${storedResultVisible(minorsAllowed)})::int`.as('shown_count'),
        ])
        .where('searches.organization_id', '=', organizationId)
        .orderBy('searches.created_at', 'desc')
        .orderBy('searches.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('searches')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.count) };
  }

  /**
   * Deletes the organization's search (its results go with it): 'deleted'; 'not-found' when there is
   * none; 'still-needed', deleting nothing, while a PENDING saved search or extraction has yet to read
   * its results (their jobs read them from the search, whose deletion would leave them nothing).
   */
  async delete(hashedId: string, organizationId: number): Promise<'deleted' | 'not-found' | 'still-needed'> {
    return this.db.transaction().execute(async (tx) => {
      // Locked first: a saved search or extraction of it being inserted holds a lock on the row (its
      // foreign key's) until it commits, so the check below, a statement later, sees it.
      const search = await tx
        .selectFrom('searches')
        .select('id')
        .where('hashed_id', '=', hashedId)
        .where('organization_id', '=', organizationId)
        .forUpdate()
        .executeTakeFirst();
      if (!search) return 'not-found';
      const needed = await tx
        .selectFrom('searches')
        .select(searchStillNeeded('searches.id').as('needed'))
        .where('id', '=', search.id)
        .executeTakeFirst();
      if (needed?.needed) return 'still-needed';
      await tx.deleteFrom('searches').where('id', '=', search.id).execute();
      return 'deleted';
    });
  }

  /** Results of the search still shown (as `findResults` gives them). */
  async countShownResults(searchId: number, minorsAllowed: boolean): Promise<number> {
    const row = await this.db
      .selectFrom('search_results')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('search_id', '=', searchId)
      .where('removed_at', 'is', null)
      .where(storedResultVisible(minorsAllowed))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * The face ids of some of the search's results still shown (as `findResults` gives them), by record hash.
   * A result whose face is gone (opt-out, takedown) is absent.
   */
  async findResultFaceIds(
    searchId: number,
    recordHashes: readonly string[],
    minorsAllowed: boolean,
  ): Promise<Map<string, number>> {
    if (recordHashes.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('search_results')
      .select(['record_hash', 'face_id'])
      .where('search_id', '=', searchId)
      .where('record_hash', 'in', [...recordHashes])
      .where('removed_at', 'is', null)
      .where('face_id', 'is not', null)
      .where(storedResultVisible(minorsAllowed))
      .execute();
    return new Map(rows.map((row) => [row.record_hash, Number(row.face_id)]));
  }

  /**
   * Indexed faces as a query takes them: the descriptor's model and vector, and the age estimate's flag
   * (null: indexed before the age estimate). Faces that no longer exist are absent.
   */
  async findIndexedFaces(
    faceIds: readonly number[],
  ): Promise<{ id: number; modelId: string; vector: Float32Array; possibleMinor: boolean | null }[]> {
    if (faceIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('faces')
      .select(['id', 'model_id', 'descriptor', 'possible_minor'])
      .where(sql<boolean>`id = any(${[...faceIds]}::bigint[])`)
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      modelId: row.model_id,
      vector: vectorFromBytes(row.descriptor),
      possibleMinor: row.possible_minor,
    }));
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
  findThumbnailPathForOrganization(imageId: number, organizationId: number, minorsAllowed: boolean) {
    return (
      this.db
        .selectFrom('images')
        .select('thumbnail_path')
        .where('id', '=', imageId)
        // Images the organization's searches returned, or that its face alerts show (issue 17).
        .where(({ exists, or, selectFrom }) =>
          or([
            exists(
              selectFrom('search_results')
                .innerJoin('searches', 'searches.id', 'search_results.search_id')
                .select('search_results.id')
                .where('search_results.image_id', '=', imageId)
                .where('searches.organization_id', '=', organizationId)
                .where(storedResultVisible(minorsAllowed)),
            ),
            exists(
              selectFrom('face_alerts')
                .select('face_alerts.id')
                .where('face_alerts.image_id', '=', imageId)
                .where('face_alerts.organization_id', '=', organizationId)
                .where(storedFaceVisible('face_alerts', minorsAllowed)),
            ),
            exists(
              selectFrom('face_alert_copies')
                .innerJoin('face_alerts', 'face_alerts.id', 'face_alert_copies.alert_id')
                .select('face_alert_copies.id')
                .where('face_alert_copies.image_id', '=', imageId)
                .where('face_alerts.organization_id', '=', organizationId)
                .where(storedFaceVisible('face_alerts', minorsAllowed))
                .where(storedFaceVisible('face_alert_copies', minorsAllowed)),
            ),
          ]),
        )
        .executeTakeFirst()
    );
  }
}
