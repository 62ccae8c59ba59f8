import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { vectorFromBytes, vectorToBytes } from '../face/index/face-index.ts';
import { lockFaceIndexLog } from './face-vector.repository.ts';
import { keepMinorFlagsOfFacesGoing, markOptedOutFacesGoing } from './search.repository.ts';

// Ten parameters a row: 500 rows stay far below PostgreSQL's 65,535 bind parameters.
const ROWS_PER_INSERT = 500;

export interface PageRecord {
  url: string;
  title: string;
  text: string;
  lang: string | null;
  contentHash: string;
  crawledAt: Date;
}

export interface ImageRecord {
  contentHash: string;
  phash: string | null;
  width: number | null;
  height: number | null;
  mimeType: string | null;
  thumbnailPath: string | null;
  faceCount: number;
  indexedAt: Date;
}

export interface OccurrenceRecord {
  imageId: number;
  pageId: number;
  imageUrl: string;
  alt: string;
  caption: string;
  nearbyText: string;
  seenAt: Date;
}

/** Where an image not stored yet was seen; it becomes an occurrence once the image is stored. */
export type PendingOccurrenceRecord = Omit<OccurrenceRecord, 'imageId'>;

export interface FaceRecord {
  imageId: number;
  box: { x: number; y: number; width: number; height: number };
  score: number;
  quality: number;
  /** L2-normalised; stored as float32 little-endian bytes. */
  descriptor: Float32Array;
  modelId: string;
  /** The face of the previous model this one replaces (a reindex); see migration 0011. */
  previousFaceId?: number | null;
  /** The age estimate's verdict (face/age/possible-minor.ts), stored for the index's minors filter. */
  possibleMinor?: boolean | null;
}

/** A face as an opt-out deals with it: where it is, and its descriptor of its model. */
export interface FaceInImage {
  id: number;
  imageId: number;
  box: { x: number; y: number; width: number; height: number };
  descriptor: Float32Array;
  modelId: string;
}

/** An opt-out with what a face of another model needs to inherit it. */
export interface OptOutRecord {
  id: number;
  descriptor: Float32Array;
  reason: string;
  createdBy: number | null;
  /** The opt-out this one was re-derived from (for another model), or null for an original one. */
  derivedFrom: number | null;
}

export interface StoredDescriptor {
  id: number;
  descriptor: Float32Array;
}

function descriptorBytes(descriptor: Float32Array): Buffer {
  return Buffer.from(vectorToBytes(descriptor));
}

/**
 * The public web as indexed: pages, images (one row per distinct content), where each image was seen,
 * the faces found in images, the change log the vector indexes follow, and the opt-out list.
 */
export class WebIndexRepository {
  constructor(private readonly db: Db) {}

  /** Runs `work` in one transaction with a repository bound to it. */
  transaction<T>(work: (repository: WebIndexRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((tx) => work(new WebIndexRepository(tx)));
  }

  /**
   * Takes the lock every writer of face_index_log holds until its transaction ends: log rows then
   * commit in seq order (what the vector indexes rely on), and the opt-out check and the face insert
   * of the indexer are atomic against a concurrent opt-out, which takes it too.
   */
  async lockFaceIndexLog(): Promise<void> {
    await lockFaceIndexLog(this.db);
  }

  // ------------------------------------------------------------------------------------------ pages

  /** Inserts or refreshes a page; first_crawled_at stays what it was. Returns the page id. */
  async upsertPage(page: PageRecord): Promise<number> {
    const row = await this.db
      .insertInto('pages')
      .values({
        url: page.url,
        title: page.title,
        text: page.text,
        lang: page.lang,
        content_hash: page.contentHash,
        first_crawled_at: page.crawledAt,
        last_crawled_at: page.crawledAt,
      })
      .onConflict((oc) =>
        oc.column('url').doUpdateSet((eb) => ({
          title: eb.ref('excluded.title'),
          text: eb.ref('excluded.text'),
          lang: eb.ref('excluded.lang'),
          content_hash: eb.ref('excluded.content_hash'),
          last_crawled_at: eb.ref('excluded.last_crawled_at'),
        })),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async findPageIdsByUrls(urls: readonly string[]): Promise<Map<string, number>> {
    if (urls.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('pages')
      .select(['id', 'url'])
      .where('url', 'in', [...urls])
      .execute();
    return new Map(rows.map((row) => [row.url, row.id]));
  }

  /**
   * Deletes a page with where it showed images (its image_occurrences and pending_image_occurrences go by
   * their foreign keys' cascade). Returns whether it was indexed.
   */
  async deletePageByUrl(url: string): Promise<boolean> {
    const result = await this.db.deleteFrom('pages').where('url', '=', url).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  findPageByUrl(url: string) {
    return this.db.selectFrom('pages').selectAll().where('url', '=', url).executeTakeFirst();
  }

  // ----------------------------------------------------------------------------------------- images

  /** True when these bytes were stored and analysed by an earlier crawl. */
  async isAnalysedContent(contentHash: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('images')
      .select('id')
      .where('content_hash', '=', contentHash)
      .where('analyzed_at', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async findImageIdByContentHash(contentHash: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('images')
      .select('id')
      .where('content_hash', '=', contentHash)
      .executeTakeFirst();
    return row?.id;
  }

  findImageByContentHash(contentHash: string) {
    return this.db
      .selectFrom('images')
      .selectAll()
      .where('content_hash', '=', contentHash)
      .executeTakeFirst();
  }

  /** Inserts a new image; undefined when another writer stored the same content first. */
  async insertImage(image: ImageRecord): Promise<number | undefined> {
    const row = await this.db
      .insertInto('images')
      .values({
        content_hash: image.contentHash,
        phash: image.phash,
        width: image.width,
        height: image.height,
        mime_type: image.mimeType,
        thumbnail_path: image.thumbnailPath,
        face_count: image.faceCount,
        first_indexed_at: image.indexedAt,
        analyzed_at: image.indexedAt,
      })
      .onConflict((oc) => oc.column('content_hash').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }

  /** For each image URL, the image it showed when last seen anywhere (an earlier crawl). */
  async findImageIdsByUrls(imageUrls: readonly string[]): Promise<Map<string, number>> {
    if (imageUrls.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('image_occurrences')
      .select(['image_url', 'image_id'])
      .distinctOn('image_url')
      .where('image_url', 'in', [...imageUrls])
      .orderBy('image_url')
      .orderBy('last_seen_at', 'desc')
      .execute();
    return new Map(rows.map((row) => [row.image_url, row.image_id]));
  }

  // ------------------------------------------------------------------------------------ occurrences

  /**
   * Records where images were seen. A known (image URL, page) keeps its first_seen_at and gets the
   * latest context and image (the bytes behind a URL can change).
   */
  async upsertOccurrences(occurrences: readonly OccurrenceRecord[]): Promise<void> {
    const unique = new Map<string, OccurrenceRecord>();
    for (const o of occurrences) unique.set(`${o.pageId} ${o.imageUrl}`, o);
    const rows = [...unique.values()];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await this.db
        .insertInto('image_occurrences')
        .values(
          rows.slice(start, start + ROWS_PER_INSERT).map((o) => ({
            image_id: o.imageId,
            page_id: o.pageId,
            image_url: o.imageUrl,
            alt: o.alt,
            caption: o.caption,
            nearby_text: o.nearbyText,
            first_seen_at: o.seenAt,
            last_seen_at: o.seenAt,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['image_url', 'page_id']).doUpdateSet((eb) => ({
            image_id: eb.ref('excluded.image_id'),
            alt: eb.ref('excluded.alt'),
            caption: eb.ref('excluded.caption'),
            nearby_text: eb.ref('excluded.nearby_text'),
            last_seen_at: eb.ref('excluded.last_seen_at'),
          })),
        )
        .execute();
    }
  }

  /** Forgets the images a page no longer shows. */
  async deleteOccurrencesOfPageExcept(pageId: number, keepImageUrls: readonly string[]): Promise<void> {
    let query = this.db.deleteFrom('image_occurrences').where('page_id', '=', pageId);
    if (keepImageUrls.length > 0) query = query.where('image_url', 'not in', [...keepImageUrls]);
    await query.execute();
  }

  /** Replaces the pending occurrences a page recorded when it was last indexed (by `crawlId`'s crawl). */
  async replacePendingOccurrencesOfPage(
    pageId: number,
    crawlId: string | null,
    occurrences: readonly PendingOccurrenceRecord[],
  ): Promise<void> {
    await this.db.deleteFrom('pending_image_occurrences').where('page_id', '=', pageId).execute();
    const unique = new Map(occurrences.map((o) => [o.imageUrl, o]));
    const rows = [...unique.values()];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await this.db
        .insertInto('pending_image_occurrences')
        .values(
          rows.slice(start, start + ROWS_PER_INSERT).map((o) => ({
            image_url: o.imageUrl,
            page_id: pageId,
            alt: o.alt,
            caption: o.caption,
            nearby_text: o.nearbyText,
            seen_at: o.seenAt,
            crawl_id: crawlId,
          })),
        )
        .execute();
    }
  }

  /**
   * Removes the pending occurrences `crawlId` recorded (and those recorded before crawls were noted, see
   * migration 0041) whose image no crawl will fetch: of `imageUrl` only, or of every image. An image queued
   * (or being fetched) in a crawl that has not ended DONE keeps its rows, since that crawl may still store
   * it; a stopped or failed crawl can be resumed. Frontier rows without a crawls row (a crawl run outside
   * the product) count as live. Returns how many rows went.
   */
  async deletePendingOccurrencesOfUnfetchedImages(crawlId: string, imageUrl?: string): Promise<number> {
    let query = this.db
      .deleteFrom('pending_image_occurrences as p')
      .where((eb) => eb.or([eb('p.crawl_id', '=', crawlId), eb('p.crawl_id', 'is', null)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('crawl_frontier as f')
              .leftJoin('crawls as c', 'c.public_id', 'f.crawl_id')
              .select(sql`1`.as('queued'))
              .whereRef('f.url', '=', 'p.image_url')
              // Written out (not bound) so that the planner can use the partial index of migration 0041.
              .where(sql<boolean>`f.kind = 'image' and f.state in ('queued', 'claimed')`)
              .where((inner) => inner.or([inner('c.status', 'is', null), inner('c.status', '<>', 'DONE')])),
          ),
        ),
      );
    if (imageUrl !== undefined) query = query.where('p.image_url', '=', imageUrl);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Removes and returns the pending occurrences of an image URL (the image is being stored). */
  async deletePendingOccurrences(imageUrl: string): Promise<PendingOccurrenceRecord[]> {
    const rows = await this.db
      .deleteFrom('pending_image_occurrences')
      .where('image_url', '=', imageUrl)
      .returningAll()
      .execute();
    return rows.map((row) => ({
      pageId: row.page_id,
      imageUrl: row.image_url,
      alt: row.alt,
      caption: row.caption,
      nearbyText: row.nearby_text,
      seenAt: row.seen_at,
    }));
  }

  findOccurrencesOfImage(imageId: number) {
    return this.db
      .selectFrom('image_occurrences')
      .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
      .selectAll('image_occurrences')
      .select(['pages.url as page_url', 'pages.title as page_title'])
      .where('image_occurrences.image_id', '=', imageId)
      .orderBy('image_occurrences.id')
      .execute();
  }

  // ------------------------------------------------------------------------------------------ faces

  /** Inserts faces and their `add` log rows; call inside a transaction holding lockFaceIndexLog(). */
  async insertFaces(faces: readonly FaceRecord[]): Promise<number[]> {
    if (faces.length === 0) return [];
    const rows = await this.db
      .insertInto('faces')
      .values(
        faces.map((face) => ({
          image_id: face.imageId,
          box_x: face.box.x,
          box_y: face.box.y,
          box_width: face.box.width,
          box_height: face.box.height,
          score: face.score,
          quality: face.quality,
          descriptor: descriptorBytes(face.descriptor),
          model_id: face.modelId,
          previous_face_id: face.previousFaceId ?? null,
          possible_minor: face.possibleMinor ?? null,
        })),
      )
      .returning('id')
      .execute();
    const ids = rows.map((row) => row.id);
    await this.appendIndexLog(ids, 'add');
    return ids;
  }

  /**
   * Deletes opted-out faces with the alerts they raised (and the alerts' copies showing them), logs their
   * `remove` and lowers their images' face counts (for faces of the active model, which the counts are
   * of); call inside a transaction holding lockFaceIndexLog(). Returns the faces that existed.
   */
  async deleteOptedOutFaces(faceIds: readonly number[]): Promise<FaceInImage[]> {
    if (faceIds.length === 0) return [];
    const ids = sql<boolean>`face_id = any(${[...faceIds]}::bigint[])`;
    await this.db.deleteFrom('face_alerts').where(ids).execute();
    await this.db.deleteFrom('face_alert_copies').where(ids).execute();
    await keepMinorFlagsOfFacesGoing(this.db, faceIds);
    await markOptedOutFacesGoing(this.db, faceIds);
    const deleted = await this.db
      .deleteFrom('faces')
      .where('id', 'in', [...faceIds])
      .returning(['id', 'image_id', 'box_x', 'box_y', 'box_width', 'box_height', 'descriptor', 'model_id'])
      .execute();
    const active = await this.findActiveModelId();
    const perImage = new Map<number, number>();
    for (const row of deleted) {
      if (row.model_id === active) perImage.set(row.image_id, (perImage.get(row.image_id) ?? 0) + 1);
    }
    for (const [imageId, count] of perImage) {
      await this.db
        .updateTable('images')
        .set((eb) => ({ face_count: sql<number>`greatest(${eb.ref('face_count')} - ${count}, 0)` }))
        .where('id', '=', imageId)
        .execute();
    }
    await this.appendIndexLog(
      deleted.map((row) => row.id),
      'remove',
    );
    return deleted.map(toFaceInImage);
  }

  /** Which of these thumbnail keys an image still names (the one-time import of an old DATA_DIR). */
  async findNamedThumbnailPaths(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('images')
      .select('thumbnail_path')
      .where('thumbnail_path', 'in', [...paths])
      .execute();
    return new Set(rows.flatMap((r) => (r.thumbnail_path ? [r.thumbnail_path] : [])));
  }

  /**
   * Forgets the thumbnails of those images that have no face left (an opt-out removed their last one):
   * nothing may show the person any more. Returns the thumbnail files to delete (relative to DATA_DIR).
   */
  async releaseOrphanedThumbnails(imageIds: readonly number[]): Promise<string[]> {
    if (imageIds.length === 0) return [];
    const orphaned = await this.db
      .selectFrom('images')
      .select(['id', 'thumbnail_path'])
      .where('id', 'in', [...imageIds])
      .where('thumbnail_path', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('faces').select('faces.id').whereRef('faces.image_id', '=', 'images.id'))),
      )
      .execute();
    if (orphaned.length === 0) return [];
    // RETURNING would give the new (null) path: the files are named from the rows read above.
    await this.db
      .updateTable('images')
      .set({ thumbnail_path: null })
      .where(
        'id',
        'in',
        orphaned.map((row) => row.id),
      )
      .execute();
    return orphaned.flatMap((row) => (row.thumbnail_path ? [row.thumbnail_path] : []));
  }

  /** The faces of models other than `modelId` in the given images (while a reindex builds a model). */
  async findFacesOfOtherModels(imageIds: readonly number[], modelId: string): Promise<FaceInImage[]> {
    if (imageIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('faces')
      .select(['id', 'image_id', 'box_x', 'box_y', 'box_width', 'box_height', 'descriptor', 'model_id'])
      .where('image_id', 'in', [...imageIds])
      .where('model_id', '<>', modelId)
      .orderBy('id')
      .execute();
    return rows.map(toFaceInImage);
  }

  /** The descriptor model searches use (face_models, migration 0011). */
  async findActiveModelId(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('face_models')
      .select('model_id')
      .where('state', '=', 'active')
      .executeTakeFirst();
    return row?.model_id;
  }

  async findFaceById(faceId: number) {
    const row = await this.db
      .selectFrom('faces')
      .select(['id', 'image_id', 'descriptor', 'model_id', 'box_width', 'box_height'])
      .where('id', '=', faceId)
      .executeTakeFirst();
    return row && { ...row, descriptor: vectorFromBytes(row.descriptor) };
  }

  findFacesOfImage(imageId: number) {
    return this.db
      .selectFrom('faces')
      .select(['id', 'box_x', 'box_y', 'box_width', 'box_height', 'score', 'quality', 'model_id'])
      .where('image_id', '=', imageId)
      .orderBy('id')
      .execute();
  }

  /** Descriptors of one model with id > afterId, ascending: a keyset scan in batches. */
  async findDescriptorsAfter(modelId: string, afterId: number, limit: number): Promise<StoredDescriptor[]> {
    const rows = await this.db
      .selectFrom('faces')
      .select(['id', 'descriptor'])
      .where('model_id', '=', modelId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: row.id, descriptor: vectorFromBytes(row.descriptor) }));
  }

  async hasAnyFace(): Promise<boolean> {
    const row = await this.db.selectFrom('faces').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  private async appendIndexLog(faceIds: readonly number[], op: 'add' | 'remove'): Promise<void> {
    for (let start = 0; start < faceIds.length; start += ROWS_PER_INSERT) {
      await this.db
        .insertInto('face_index_log')
        .values(faceIds.slice(start, start + ROWS_PER_INSERT).map((faceId) => ({ face_id: faceId, op })))
        .execute();
    }
  }

  // -------------------------------------------------------------------------------------- opt-outs

  async findOptOutDescriptors(modelId: string): Promise<Float32Array[]> {
    const rows = await this.db
      .selectFrom('face_opt_outs')
      .select('descriptor')
      .where('model_id', '=', modelId)
      .execute();
    return rows.map((row) => vectorFromBytes(row.descriptor));
  }

  /** Every opt-out of one model, re-derived ones included. */
  async findOptOutsOfModel(modelId: string): Promise<OptOutRecord[]> {
    const rows = await this.db
      .selectFrom('face_opt_outs')
      .select(['id', 'descriptor', 'reason', 'created_by', 'derived_from'])
      .where('model_id', '=', modelId)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      descriptor: vectorFromBytes(row.descriptor),
      reason: row.reason,
      createdBy: row.created_by,
      derivedFrom: row.derived_from,
    }));
  }

  async insertOptOut(optOut: {
    descriptor: Float32Array;
    modelId: string;
    reason: string;
    createdBy: number | null;
    /** For an opt-out re-derived for another model: the original opt-out. */
    derivedFrom?: number | null;
  }): Promise<number> {
    const row = await this.db
      .insertInto('face_opt_outs')
      .values({
        descriptor: descriptorBytes(optOut.descriptor),
        model_id: optOut.modelId,
        reason: optOut.reason,
        created_by: optOut.createdBy,
        derived_from: optOut.derivedFrom ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Newest first, with the e-mail of the admin who added each; re-derived copies are not listed. */
  findOptOuts(page: { limit: number; offset: number }) {
    return this.db
      .selectFrom('face_opt_outs')
      .leftJoin('users', 'users.id', 'face_opt_outs.created_by')
      .where('face_opt_outs.derived_from', 'is', null)
      .select([
        'face_opt_outs.id',
        'face_opt_outs.model_id',
        'face_opt_outs.reason',
        'face_opt_outs.created_at',
        'users.email as created_by_email',
      ])
      .orderBy('face_opt_outs.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }
}

function toFaceInImage(row: {
  id: number;
  image_id: number;
  box_x: number;
  box_y: number;
  box_width: number;
  box_height: number;
  descriptor: Buffer;
  model_id: string;
}): FaceInImage {
  return {
    id: row.id,
    imageId: row.image_id,
    box: { x: row.box_x, y: row.box_y, width: row.box_width, height: row.box_height },
    descriptor: vectorFromBytes(row.descriptor),
    modelId: row.model_id,
  };
}
