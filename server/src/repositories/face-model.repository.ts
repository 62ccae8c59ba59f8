import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { vectorFromBytes } from '../face/index/face-index.ts';
import { WebIndexRepository } from './web-index.repository.ts';
import { keepMinorFlagsOfFacesGoing, ROWS_SHOWING_FACES } from './search.repository.ts';

/** Tables whose rows keep the faces an analyst added (`added_face_ids`). */
const ADDED_FACE_TABLES = ['searches', 'saved_searches', 'face_watches'] as const;

export interface FaceModelRow {
  modelId: string;
  dimensions: number;
  state: 'active' | 'building' | 'retired';
  cursorImageId: number;
  imagesDone: number;
  imagesUnavailable: number;
  facesAdded: number;
  facesRefused: number;
  startedAt: Date;
  activatedAt: Date | null;
}

/** An indexed image as a reindex needs it: its content and every address it was seen at, latest first. */
export interface ImageToReindex {
  id: number;
  contentHash: string;
  urls: string[];
}

export interface StoredFace {
  id: number;
  imageId: number;
  box: { x: number; y: number; width: number; height: number };
  descriptor: Float32Array;
}

/** What one image added to a reindex, counted on the building model's row. */
export interface ReindexStep {
  /** The image the cursor moves to; absent for an image fetched again after its site did not answer. */
  cursorImageId?: number;
  /** Its bytes cannot be had any more. */
  unavailable: boolean;
  /** Its site did not answer for now: listed, to be fetched again before the switch. */
  unreachable?: boolean;
  facesAdded: number;
  facesRefused: number;
}

/** Faces deleted per statement when a retired model's rows are removed. */
const RETIRE_BATCH = 5_000;

function toRow(row: {
  model_id: string;
  dimensions: number;
  state: FaceModelRow['state'];
  cursor_image_id: number;
  images_done: number;
  images_unavailable: number;
  faces_added: number;
  faces_refused: number;
  started_at: Date;
  activated_at: Date | null;
}): FaceModelRow {
  return {
    modelId: row.model_id,
    dimensions: row.dimensions,
    state: row.state,
    cursorImageId: row.cursor_image_id,
    imagesDone: row.images_done,
    imagesUnavailable: row.images_unavailable,
    facesAdded: row.faces_added,
    facesRefused: row.faces_refused,
    startedAt: row.started_at,
    activatedAt: row.activated_at,
  };
}

/**
 * The descriptor models (face_models) and the per-model work of a reindex: which images are left, the
 * faces each model has in them, the switch from one model to the next and the removal of the old rows.
 */
export class FaceModelRepository {
  constructor(private readonly db: Db) {}

  /** Runs `work` in one transaction, with this repository and the web index bound to it. */
  transaction<T>(
    work: (models: FaceModelRepository, webIndex: WebIndexRepository) => Promise<T>,
  ): Promise<T> {
    return this.db
      .transaction()
      .execute((tx) => work(new FaceModelRepository(tx), new WebIndexRepository(tx)));
  }

  async findActive(): Promise<FaceModelRow | undefined> {
    const row = await this.db
      .selectFrom('face_models')
      .selectAll()
      .where('state', '=', 'active')
      .executeTakeFirst();
    return row && toRow(row);
  }

  async findBuilding(): Promise<FaceModelRow | undefined> {
    const row = await this.db
      .selectFrom('face_models')
      .selectAll()
      .where('state', '=', 'building')
      .executeTakeFirst();
    return row && toRow(row);
  }

  /**
   * Makes `modelId` the active model unless there already is one (a fresh install's first start).
   * Concurrent callers agree: the unique index on the active state lets one insert win.
   */
  async insertActiveIfNone(modelId: string, dimensions: number): Promise<void> {
    await this.db
      .insertInto('face_models')
      .values({ model_id: modelId, dimensions, state: 'active', activated_at: new Date() })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /** Starts building `modelId` from the first image (a model built before and retired starts over). */
  async startBuilding(modelId: string, dimensions: number): Promise<void> {
    await this.db.deleteFrom('face_model_unreachable_images').where('model_id', '=', modelId).execute();
    await this.db
      .insertInto('face_models')
      .values({ model_id: modelId, dimensions, state: 'building' })
      .onConflict((oc) =>
        oc.column('model_id').doUpdateSet({
          dimensions,
          state: 'building',
          cursor_image_id: 0,
          images_done: 0,
          images_unavailable: 0,
          faces_added: 0,
          faces_refused: 0,
          started_at: new Date(),
          activated_at: null,
          retired_at: null,
        }),
      )
      .execute();
  }

  /** Gives up the model being built; its faces become leftovers that retireFaces removes. */
  async abandonBuilding(): Promise<void> {
    await this.db
      .updateTable('face_models')
      .set({ state: 'retired', retired_at: new Date() })
      .where('state', '=', 'building')
      .execute();
  }

  /** Records one more image of the reindex; call in the transaction that stored its faces. */
  async advance(modelId: string, step: ReindexStep): Promise<void> {
    const moves = step.cursorImageId !== undefined;
    if (moves && step.unreachable) {
      await this.db
        .insertInto('face_model_unreachable_images')
        .values({ model_id: modelId, image_id: step.cursorImageId! })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    await this.db
      .updateTable('face_models')
      .set((eb) => ({
        cursor_image_id: moves ? step.cursorImageId! : eb.ref('cursor_image_id'),
        images_done: sql<number>`${eb.ref('images_done')} + ${moves ? 1 : 0}`,
        images_unavailable: sql<number>`${eb.ref('images_unavailable')} + ${step.unavailable ? 1 : 0}`,
        faces_added: sql<number>`${eb.ref('faces_added')} + ${step.facesAdded}`,
        faces_refused: sql<number>`${eb.ref('faces_refused')} + ${step.facesRefused}`,
      }))
      .where('model_id', '=', modelId)
      .where('state', '=', 'building')
      .execute();
  }

  /**
   * The switch: the building model becomes the active one, the active one is retired. The time is the
   * database's, as the change log's: a face logged before it was written by the reindex (the alert matcher
   * reads it so), whatever the clocks of the machines running the reindex.
   */
  async activateBuilding(modelId: string): Promise<void> {
    const now = sql<Date>`now()`;
    await this.db
      .updateTable('face_models')
      .set({ state: 'retired', retired_at: now })
      .where('state', '=', 'active')
      .execute();
    await this.db
      .updateTable('face_models')
      .set({ state: 'active', activated_at: now })
      .where('model_id', '=', modelId)
      .where('state', '=', 'building')
      .execute();
  }

  /**
   * Takes an image off the list of those whose site did not answer, to store what it gave now; false when
   * another run took it first. Call in the transaction that stores its faces.
   */
  async claimUnreachableImage(modelId: string, imageId: number): Promise<boolean> {
    const row = await this.db
      .deleteFrom('face_model_unreachable_images')
      .where('model_id', '=', modelId)
      .where('image_id', '=', imageId)
      .returning('image_id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async countUnreachableImages(modelId: string): Promise<number> {
    const row = await this.db
      .selectFrom('face_model_unreachable_images')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('model_id', '=', modelId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The images whose site did not answer during the reindex to `modelId`, as findImagesAfter gives them. */
  async findUnreachableImages(modelId: string): Promise<ImageToReindex[]> {
    const images = await this.db
      .selectFrom('face_model_unreachable_images as u')
      .innerJoin('images', 'images.id', 'u.image_id')
      .select(['images.id', 'images.content_hash'])
      .where('u.model_id', '=', modelId)
      .orderBy('images.id')
      .execute();
    return this.withAddresses(images);
  }

  /**
   * Switching without the images whose site did not answer: they count as unavailable (their faces
   * leave the index with the old model's). Returns how many.
   */
  async giveUpUnreachableImages(modelId: string): Promise<number> {
    const given = await this.db
      .deleteFrom('face_model_unreachable_images')
      .where('model_id', '=', modelId)
      .returning('image_id')
      .execute();
    if (given.length > 0) {
      await this.db
        .updateTable('face_models')
        .set((eb) => ({ images_unavailable: sql<number>`${eb.ref('images_unavailable')} + ${given.length}` }))
        .where('model_id', '=', modelId)
        .execute();
    }
    return given.length;
  }

  // ----------------------------------------------------------------------------- images to reindex

  async countImages(afterId = 0): Promise<number> {
    const row = await this.db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', '>', afterId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Images after `afterId` in id order, each with the addresses it was seen at (latest first). */
  async findImagesAfter(afterId: number, limit: number): Promise<ImageToReindex[]> {
    const images = await this.db
      .selectFrom('images')
      .select(['id', 'content_hash'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    return this.withAddresses(images);
  }

  /** Each image with the addresses it was seen at, latest first. */
  private async withAddresses(images: { id: number; content_hash: string }[]): Promise<ImageToReindex[]> {
    if (images.length === 0) return [];
    const occurrences = await this.db
      .selectFrom('image_occurrences')
      .select(['image_id', 'image_url'])
      .where(
        'image_id',
        'in',
        images.map((image) => image.id),
      )
      .orderBy('last_seen_at', 'desc')
      .orderBy('id')
      .execute();
    const urls = new Map<number, string[]>();
    for (const o of occurrences) {
      const list = urls.get(o.image_id) ?? [];
      if (!list.includes(o.image_url)) list.push(o.image_url);
      urls.set(o.image_id, list);
    }
    return images.map((image) => ({
      id: image.id,
      contentHash: image.content_hash,
      urls: urls.get(image.id) ?? [],
    }));
  }

  /** The faces of one model in the given images, with boxes and descriptors. */
  async findFacesOfImages(imageIds: readonly number[], modelId: string): Promise<StoredFace[]> {
    if (imageIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('faces')
      .select(['id', 'image_id', 'box_x', 'box_y', 'box_width', 'box_height', 'descriptor'])
      .where('image_id', 'in', [...imageIds])
      .where('model_id', '=', modelId)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      imageId: row.image_id,
      box: { x: row.box_x, y: row.box_y, width: row.box_width, height: row.box_height },
      descriptor: vectorFromBytes(row.descriptor),
    }));
  }

  // ------------------------------------------------------------------------------------- the switch

  /**
   * Points everything that names a face at the face that replaces it under `modelId` (previous_face_id),
   * so that nothing goes with the old faces when they are retired: search results (saved searches and
   * extractions of earlier searches keep their faces), face alerts and their copies (which would otherwise
   * be deleted with their face), the faces saved and extracted copies keep for the minors rule, and the
   * faces an analyst added to a search, a saved search or a watch. A row that showed a face flagged as a
   * possible minor stays hidden from those who may not see one (gone_face_was_minor), whatever the new
   * face's own estimate says. Returns how many search results moved.
   */
  async moveFaceReferencesTo(modelId: string): Promise<number> {
    let moved = 0;
    for (const table of ROWS_SHOWING_FACES) {
      const face = sql.ref(`${table}.face_id`);
      const flagged = sql.ref(`${table}.gone_face_was_minor`);
      const result = await sql`
        update ${sql.table(table)}
        set face_id = faces.id, gone_face_was_minor = ${flagged} or coalesce(old.possible_minor, false)
        from faces join faces old on old.id = faces.previous_face_id
        where faces.previous_face_id = ${face} and faces.model_id = ${modelId}
      `.execute(this.db);
      if (table === 'search_results') moved = Number(result.numAffectedRows ?? 0);
    }
    for (const table of ADDED_FACE_TABLES) {
      // Each added face by its replacement, in order; one without a replacement stays as it was (it
      // finds no face of the active model, as before).
      await sql`
        update ${sql.table(table)} set added_face_ids = array(
          select coalesce(f.id, added.id)
          from unnest(${sql.ref(`${table}.added_face_ids`)}) with ordinality as added(id, n)
          left join faces f on f.previous_face_id = added.id and f.model_id = ${modelId}
          order by added.n)
        where cardinality(added_face_ids) > 0
      `.execute(this.db);
    }
    return moved;
  }

  /** images.face_count becomes the number of faces `modelId` has in each image. */
  async recountFaces(modelId: string): Promise<void> {
    await sql`
      update images set face_count = counted.n
      from (
        select images.id, count(faces.id)::integer as n
        from images left join faces on faces.image_id = images.id and faces.model_id = ${modelId}
        group by images.id
      ) counted
      where counted.id = images.id and images.face_count <> counted.n
    `.execute(this.db);
  }

  /**
   * Deletes up to RETIRE_BATCH faces of models other than `keep` with ids after `afterId` (a keyset walk,
   * so deleted rows are not scanned again); returns how many and the last id looked at (undefined when
   * none is left). No change-log entries: no process searches those models any more (every search reads
   * the active model first), and the index of the active model never held them.
   */
  async deleteFacesOfOtherModels(
    keep: readonly string[],
    afterId: number,
  ): Promise<{ deleted: number; lastId: number | undefined }> {
    const rows = await sql<{ id: number }>`
      select id from faces
      where id > ${afterId} and model_id <> all(${[...keep]}::text[])
      order by id
      limit ${RETIRE_BATCH}
    `.execute(this.db);
    const ids = rows.rows.map((row) => Number(row.id));
    if (ids.length === 0) return { deleted: 0, lastId: undefined };
    // Nothing adds references to these faces any more: every search and match reads the active model.
    await keepMinorFlagsOfFacesGoing(this.db, ids);
    await sql`delete from faces where id = any(${ids}::bigint[])`.execute(this.db);
    return { deleted: ids.length, lastId: Math.max(...ids) };
  }
}
