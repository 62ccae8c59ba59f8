import { type RawBuilder, sql } from 'kysely';
import { inForceFirst } from './billing-plan.repository.ts';
import { keptFacePictures, type KeptFacePictures } from './kept-face-pictures.ts';
import { SeatRepository } from './seat.repository.ts';
import type { Db } from '../db/database.ts';
import type { FaceAlertStatus, SearchType } from '../db/schema.ts';
import { type FaceBox, type ImageSize, storedFaceVisible } from './search.repository.ts';

/** Ended watches the list keeps showing, the last ended first. */
export const ENDED_WATCHES_LISTED = 200;

/** The columns that end a watch: its descriptor and face crop are deleted (a check of the table requires it). */
function endedWatch(at: Date | RawBuilder<Date>) {
  return {
    ended_at: at,
    descriptor_sealed: null,
    face_image: null,
    other_face_images: [],
    added_face_ids: [],
    changed_at: at,
  };
}

export interface FaceWatchRow {
  id: number;
  organizationId: number;
  userId: number | null;
  name: string;
  note: string;
  type: SearchType;
  modelId: string;
  muted: boolean;
  createdAt: Date;
  endsAt: Date;
  endedAt: Date | null;
  hasFaceImage: boolean;
  alertCount: number;
  newAlertCount: number;
}

/** An active watch as the matcher needs it: its sealed descriptor and who to tell. */
export interface ActiveFaceWatch {
  id: number;
  organizationId: number;
  descriptorSealed: Buffer;
  modelId: string;
  type: SearchType;
  createdAt: Date;
  /** Muted: alerts are still recorded, nobody is e-mailed. */
  muted: boolean;
  /** The watched face was flagged as a possible minor: it raises alerts for verified law enforcement only. */
  possibleMinor: boolean;
}

/** What an organization may be alerted of now. */
export interface AlertStanding {
  /**
   * May use the product now, as AccessService decides for its users: a plan in force (`inForceFirst`), or
   * the platform's own organization, whose admins work without one. Otherwise watches raise nothing.
   */
  inService: boolean;
  /** Verified law enforcement: possible minors may raise its alerts. */
  lawEnforcement: boolean;
}

/** A face the log added, with the image and the page it was first seen on. */
export interface NewlyIndexedFace {
  seq: number;
  at: Date;
  faceId: number;
  descriptor: Buffer;
  modelId: string;
  possibleMinor: boolean | null;
  /**
   * Set on faces a reindex wrote (logged before their model became the active one, whether or not the old
   * model had a face there): images indexed before, so not a new sighting.
   */
  rederived: boolean;
  imageId: number;
  phash: string | null;
  firstIndexedAt: Date;
  box: FaceBox;
  imageSize: ImageSize | null;
  imageUrl: string | null;
  sourceUrl: string | null;
  sourceTitle: string;
}

export interface FaceAlertRow {
  id: number;
  watchId: number;
  imageId: number;
  sourceUrl: string;
  imageUrl: string;
  sourceTitle: string;
  similarity: number;
  scoreModel: string | null;
  faceBox: FaceBox;
  imageSize: ImageSize | null;
  createdAt: Date;
  status: FaceAlertStatus;
  copies: { imageId: number; imageUrl: string; sourceUrl: string }[];
}

export interface NewFaceAlert {
  watchId: number;
  organizationId: number;
  face: NewlyIndexedFace;
  similarity: number;
}

/**
 * Watched faces, their alerts and the matcher's position in face_index_log. Every read of watches and
 * alerts names the organization; only the matcher (which works for every organization) reads across them.
 */
export class FaceWatchRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: FaceWatchRepository, db: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((tx) => work(new FaceWatchRepository(tx), tx));
  }

  /**
   * Inserts the watch unless the organization already has `limit` active ones; null then. The
   * organization's row is locked for the count and the insert, so parallel requests cannot pass the limit
   * together.
   */
  async insertWatchWithinLimit(
    limit: number,
    watch: {
      organizationId: number;
      userId: number;
      name: string;
      note: string;
      type: SearchType;
      descriptorSealed: Buffer;
      /** The watched faces' pictures (the shown one is also the watch's image) and added indexed faces. */
      kept: KeptFacePictures;
      modelId: string;
      possibleMinor: boolean;
      endsAt: Date;
    },
  ): Promise<number | null> {
    return this.db.transaction().execute(async (tx) => {
      await tx
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', watch.organizationId)
        .forUpdate()
        .executeTakeFirst();
      const active = await tx
        .selectFrom('face_watches')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('organization_id', '=', watch.organizationId)
        .where('ended_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(active.count) >= limit) return null;
      const row = await tx
        .insertInto('face_watches')
        .values({
          organization_id: watch.organizationId,
          user_id: watch.userId,
          name: watch.name,
          note: watch.note,
          type: watch.type,
          descriptor_sealed: watch.descriptorSealed,
          face_image: watch.kept.faceImage,
          other_face_images: watch.kept.otherFaceImages,
          added_face_ids: watch.kept.addedFaceIds,
          model_id: watch.modelId,
          possible_minor: watch.possibleMinor,
          ends_at: watch.endsAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    });
  }

  /**
   * The organization's watches with the counts of the alerts it may see (storedFaceVisible): every
   * active one (at most 50 a seat) and the ENDED_WATCHES_LISTED last ended, so that watches made and
   * ended over the years do not make the list (and its counts) grow without end.
   */
  async listWatches(organizationId: number, minorsAllowed: boolean): Promise<FaceWatchRow[]> {
    const visible = storedFaceVisible('a', minorsAllowed);
    const rows = await this.db
      .selectFrom('face_watches as w')
      .select([
        'w.id',
        'w.organization_id',
        'w.user_id',
        'w.name',
        'w.note',
        'w.type',
        'w.model_id',
        'w.muted',
        'w.created_at',
        'w.ends_at',
        'w.ended_at',
        sql<boolean>`w.face_image is not null`.as('has_face_image'),
        sql<string>`(select count(*) from face_alerts a where a.watch_id = w.id and ${visible})`.as(
          'alert_count',
        ),
        sql<string>`(select count(*) from face_alerts a
                     where a.watch_id = w.id and a.status = 'NEW' and ${visible})`.as('new_alert_count'),
      ])
      .where('w.organization_id', '=', organizationId)
      .where((eb) =>
        eb.or([
          eb('w.ended_at', 'is', null),
          eb(
            'w.id',
            'in',
            eb
              .selectFrom('face_watches as e')
              .select('e.id')
              .where('e.organization_id', '=', organizationId)
              .where('e.ended_at', 'is not', null)
              .orderBy('e.ended_at', 'desc')
              .orderBy('e.id', 'desc')
              .limit(ENDED_WATCHES_LISTED),
          ),
        ]),
      )
      .orderBy('w.ended_at', (ob) => ob.desc().nullsFirst())
      .orderBy('w.id', 'desc')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      userId: row.user_id,
      name: row.name,
      note: row.note,
      type: row.type,
      modelId: row.model_id,
      muted: row.muted,
      createdAt: row.created_at,
      endsAt: row.ends_at,
      endedAt: row.ended_at,
      hasFaceImage: row.has_face_image,
      alertCount: Number(row.alert_count),
      newAlertCount: Number(row.new_alert_count),
    }));
  }

  /** An active watch of the organization, with what searching its face again needs. */
  async findActiveWatch(id: number, organizationId: number) {
    return this.db
      .selectFrom('face_watches')
      .select(['id', 'descriptor_sealed', 'model_id', 'possible_minor', 'type'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
  }

  /** Every face the organization's watch keeps: pictures and added indexed faces (none once ended). */
  async findKeptFaces(id: number, organizationId: number): Promise<KeptFacePictures> {
    const row = await this.db
      .selectFrom('face_watches')
      .select(['face_image', 'other_face_images', 'added_face_ids'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return keptFacePictures(row?.face_image ?? null, row);
  }

  /** The watched face's crop, of a watch of the organization. */
  async findFaceImage(id: number, organizationId: number): Promise<Buffer | null> {
    const row = await this.db
      .selectFrom('face_watches')
      .select('face_image')
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.face_image ?? null;
  }

  /** Ends a watch of the organization and deletes its descriptor; false when there is no such active watch. */
  async endWatch(id: number, organizationId: number): Promise<boolean> {
    const result = await this.db
      .updateTable('face_watches')
      .set(endedWatch(sql<Date>`now()`))
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Ends every active watch a user created, deleting their descriptors and face crops: called when the user
   * is deleted with their work, so that a face they chose to watch is not kept, nor matched, after them.
   * Returns the ended watches' ids.
   */
  async endWatchesOfUser(userId: number): Promise<number[]> {
    const rows = await this.db
      .updateTable('face_watches')
      .set(endedWatch(sql<Date>`now()`))
      .where('user_id', '=', userId)
      .where('ended_at', 'is', null)
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  async updateWatch(
    id: number,
    organizationId: number,
    change: { muted?: boolean | undefined; endsAt?: Date | undefined },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('face_watches')
      .set({
        ...(change.muted !== undefined ? { muted: change.muted } : {}),
        ...(change.endsAt ? { ends_at: change.endsAt } : {}),
        changed_at: sql`now()`,
      })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * A watch's descriptor computed again under another model (after a reindex), from its own crop. Only
   * the matcher calls it, for any organization's active watch.
   */
  async rederiveWatch(
    id: number,
    change: { descriptorSealed: Buffer; modelId: string; possibleMinor: boolean },
  ): Promise<void> {
    await this.db
      .updateTable('face_watches')
      .set({
        descriptor_sealed: change.descriptorSealed,
        model_id: change.modelId,
        possible_minor: change.possibleMinor,
        changed_at: sql`now()`,
      })
      .where('id', '=', id)
      .where('ended_at', 'is', null)
      .execute();
  }

  /** Ends every watch past its end date (deleting descriptors); returns how many. */
  async endExpired(now: Date): Promise<number> {
    const result = await this.db
      .updateTable('face_watches')
      .set(endedWatch(now))
      .where('ended_at', 'is', null)
      .where('ends_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** What changes when watches do: the matcher reloads its matrix when this differs from last time. */
  async watchesVersion(): Promise<string> {
    const row = await this.db
      .selectFrom('face_watches')
      .select([(eb) => eb.fn.countAll<string>().as('count'), (eb) => eb.fn.max('changed_at').as('changed')])
      .executeTakeFirstOrThrow();
    return `${row.count}:${row.changed ? new Date(row.changed).getTime() : 0}`;
  }

  /** Active watches of every organization (the matcher's matrix). */
  async activeWatches(): Promise<ActiveFaceWatch[]> {
    const rows = await this.db
      .selectFrom('face_watches as w')
      .select([
        'w.id',
        'w.organization_id',
        'w.descriptor_sealed',
        'w.model_id',
        'w.type',
        'w.created_at',
        'w.muted',
        'w.possible_minor',
      ])
      .where('w.ended_at', 'is', null)
      .where('w.descriptor_sealed', 'is not', null)
      .orderBy('w.id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      descriptorSealed: row.descriptor_sealed!,
      modelId: row.model_id,
      type: row.type,
      createdAt: row.created_at,
      muted: row.muted,
      possibleMinor: row.possible_minor,
    }));
  }

  /**
   * The standing of these organizations at `at`, read when a match is found rather than with the cached
   * watches: a plan that ended, a verification withdrawn or an owner blocked since counts at once.
   */
  async alertStanding(organizationIds: readonly number[], at: Date): Promise<Map<number, AlertStanding>> {
    const standing = new Map<number, AlertStanding>();
    if (organizationIds.length === 0) return standing;
    const organizations = await this.db
      .selectFrom('organizations')
      .select(['id', 'law_enforcement_verified_at'])
      .where('id', 'in', [...organizationIds])
      .execute();
    const withPlan = await inForceFirst(
      this.db
        .selectFrom('billing_plans')
        .select('billing_plans.organization_id')
        .where('billing_plans.organization_id', 'in', [...organizationIds]),
      at,
    ).execute();
    const admins = await this.db
      .selectFrom('users')
      .select('organization_id')
      .where('organization_id', 'in', [...organizationIds])
      .where('is_admin', '=', true)
      .execute();
    // An organization whose owner a platform admin blocked is suspended: its watches raise nothing.
    const suspended = await new SeatRepository(this.db).withOwnerBlocked(organizationIds);
    const inService = new Set(
      [
        ...withPlan.map((plan) => plan.organization_id),
        ...admins.map((admin) => admin.organization_id),
      ].filter((id) => !suspended.has(id)),
    );
    for (const organization of organizations) {
      standing.set(organization.id, {
        inService: inService.has(organization.id),
        lawEnforcement: organization.law_enforcement_verified_at !== null,
      });
    }
    return standing;
  }

  /** Locks the matcher's cursor row for this transaction: one matcher at a time, others skip. */
  async lockCursor(): Promise<{ seq: number } | undefined> {
    const result = await sql<{ seq: string | number }>`
      select seq from face_watch_cursor where id = 1 for update skip locked`.execute(this.db);
    const row = result.rows[0];
    return row ? { seq: Number(row.seq) } : undefined;
  }

  async advanceCursor(seq: number, logAt: Date | null): Promise<void> {
    await this.db
      .updateTable('face_watch_cursor')
      .set({ seq, ...(logAt ? { log_at: logAt } : {}), updated_at: sql`now()` })
      .where('id', '=', 1)
      .execute();
  }

  async cursor(): Promise<{ seq: number; logAt: Date | null } | undefined> {
    const row = await this.db
      .selectFrom('face_watch_cursor')
      .select(['seq', 'log_at'])
      .where('id', '=', 1)
      .executeTakeFirst();
    return row && { seq: Number(row.seq), logAt: row.log_at };
  }

  /** The oldest log entry the matcher has not passed yet (undefined: it is caught up). */
  async oldestUnprocessedEntry(afterSeq: number): Promise<{ seq: number; at: Date } | undefined> {
    const row = await this.db
      .selectFrom('face_index_log')
      .select(['seq', 'at'])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row && { seq: Number(row.seq), at: row.at };
  }

  /**
   * Log entries after `afterSeq` (at most `limit`): their seq and time, and for `add` entries whose face
   * still exists the face with its image and the page it was first seen on. A face deleted since (opt-out)
   * carries nothing, so it can never raise an alert.
   */
  async logSince(
    afterSeq: number,
    limit: number,
  ): Promise<{ lastSeq: number; lastAt: Date; faces: NewlyIndexedFace[] } | undefined> {
    const entries = await this.db
      .selectFrom('face_index_log')
      .select(['seq', 'face_id', 'op', 'at'])
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    if (entries.length === 0) return undefined;
    const added = entries.filter((entry) => entry.op === 'add');
    const at = new Map(added.map((entry) => [Number(entry.face_id), entry]));
    const rows =
      added.length === 0
        ? []
        : await this.db
            .selectFrom('faces as f')
            .innerJoin('images as i', 'i.id', 'f.image_id')
            .leftJoin('face_models as m', 'm.model_id', 'f.model_id')
            .select([
              'm.state as model_state',
              'm.activated_at as model_activated_at',
              'f.id',
              'f.descriptor',
              'f.model_id',
              'f.possible_minor',
              'f.previous_face_id',
              'f.box_x',
              'f.box_y',
              'f.box_width',
              'f.box_height',
              'i.id as image_id',
              'i.phash',
              'i.first_indexed_at',
              'i.width',
              'i.height',
              sql<string | null>`(select o.image_url from image_occurrences o where o.image_id = i.id
                order by o.first_seen_at, o.id limit 1)`.as('image_url'),
              sql<string | null>`(select p.url from image_occurrences o join pages p on p.id = o.page_id
                where o.image_id = i.id order by o.first_seen_at, o.id limit 1)`.as('page_url'),
              sql<string | null>`(select p.title from image_occurrences o join pages p on p.id = o.page_id
                where o.image_id = i.id order by o.first_seen_at, o.id limit 1)`.as('page_title'),
            ])
            .where(sql<boolean>`f.id = any(${added.map((entry) => Number(entry.face_id))}::bigint[])`)
            .execute();
    const last = entries.at(-1)!;
    return {
      lastSeq: Number(last.seq),
      lastAt: last.at,
      faces: rows
        .map((row) => {
          const entry = at.get(Number(row.id))!;
          return {
            seq: Number(entry.seq),
            at: entry.at,
            faceId: Number(row.id),
            descriptor: row.descriptor,
            modelId: row.model_id,
            possibleMinor: row.possible_minor,
            // Only a reindex writes faces of a model that is not active yet (crawls index with the active one).
            rederived:
              row.previous_face_id !== null ||
              row.model_state === 'building' ||
              (row.model_activated_at !== null && entry.at < row.model_activated_at),
            imageId: row.image_id,
            phash: row.phash,
            firstIndexedAt: row.first_indexed_at,
            box: { x: row.box_x, y: row.box_y, width: row.box_width, height: row.box_height },
            imageSize: row.width && row.height ? { width: row.width, height: row.height } : null,
            imageUrl: row.image_url,
            sourceUrl: row.page_url,
            sourceTitle: row.page_title ?? '',
          };
        })
        .sort((a, b) => a.seq - b.seq),
    };
  }

  /** Alerts of a watch whose photo has a perceptual hash: candidates for "same photo, another copy". */
  async alertPhashes(watchId: number): Promise<{ id: number; imageId: number; phash: string }[]> {
    const rows = await this.db
      .selectFrom('face_alerts')
      .select(['id', 'image_id', 'phash'])
      .where('watch_id', '=', watchId)
      .where('phash', 'is not', null)
      .execute();
    return rows.map((row) => ({ id: row.id, imageId: row.image_id, phash: row.phash! }));
  }

  /** Inserts an alert; undefined when the watch already has one for that image (a replay). */
  async insertAlert(alert: NewFaceAlert): Promise<number | undefined> {
    const { face } = alert;
    const row = await this.db
      .insertInto('face_alerts')
      .values({
        watch_id: alert.watchId,
        organization_id: alert.organizationId,
        face_id: face.faceId,
        image_id: face.imageId,
        phash: face.phash,
        similarity: alert.similarity,
        score_model_id: face.modelId,
        image_url: face.imageUrl ?? '',
        source_url: face.sourceUrl ?? '',
        source_title: face.sourceTitle,
        first_indexed_at: face.firstIndexedAt,
        face_box_x: Math.round(face.box.x),
        face_box_y: Math.round(face.box.y),
        face_box_width: Math.round(face.box.width),
        face_box_height: Math.round(face.box.height),
        image_width: face.imageSize?.width ?? null,
        image_height: face.imageSize?.height ?? null,
        log_seq: face.seq,
      })
      .onConflict((oc) => oc.columns(['watch_id', 'image_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }

  /** Adds a copy of an alert's photo; false when it was already there (a replay). */
  async insertCopy(alertId: number, face: NewlyIndexedFace): Promise<boolean> {
    const row = await this.db
      .insertInto('face_alert_copies')
      .values({
        alert_id: alertId,
        face_id: face.faceId,
        image_id: face.imageId,
        image_url: face.imageUrl ?? '',
        source_url: face.sourceUrl ?? '',
      })
      .onConflict((oc) => oc.columns(['alert_id', 'image_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether an image is already an alert or a copy of one for this watch (a replay must not add it again). */
  async watchHasImage(watchId: number, imageId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('face_alerts as a')
      .leftJoin('face_alert_copies as c', 'c.alert_id', 'a.id')
      .select('a.id')
      .where('a.watch_id', '=', watchId)
      .where((eb) => eb.or([eb('a.image_id', '=', imageId), eb('c.image_id', '=', imageId)]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The watch's owner to tell (null when deleted, blocked or otherwise not active, or without a seat of the
   * plan in force: a person shut out must not go on hearing where the watched face turns up), and when the
   * last message went.
   */
  async watchForDigest(watchId: number): Promise<
    | {
        organizationId: number;
        email: string | null;
        notifiedAt: Date | null;
        endedAt: Date | null;
        muted: boolean;
      }
    | undefined
  > {
    const row = await this.db
      .selectFrom('face_watches as w')
      .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'w.user_id').on('u.status', '=', 'ACTIVE'))
      .select(['w.organization_id', 'w.user_id', 'u.email', 'w.notified_at', 'w.ended_at', 'w.muted'])
      .where('w.id', '=', watchId)
      .executeTakeFirst();
    if (!row) return undefined;
    // Written to only while its author may still see the alerts (a seat of the plan in force).
    const mayRead = await new SeatRepository(this.db).withAccess(
      row.organization_id,
      row.user_id === null ? [] : [row.user_id],
    );
    return {
      organizationId: row.organization_id,
      email: row.user_id !== null && mayRead.has(row.user_id) ? row.email : null,
      notifiedAt: row.notified_at,
      endedAt: row.ended_at,
      muted: row.muted,
    };
  }

  async markNotified(watchId: number, at: Date): Promise<void> {
    await this.db.updateTable('face_watches').set({ notified_at: at }).where('id', '=', watchId).execute();
  }

  /** New alerts of a watch created after `since` that its organization may see (storedFaceVisible). */
  async countNewAlertsSince(watchId: number, since: Date, minorsAllowed: boolean): Promise<number> {
    const row = await this.db
      .selectFrom('face_alerts')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('watch_id', '=', watchId)
      .where('status', '=', 'NEW')
      .where('created_at', '>', since)
      .where(storedFaceVisible('face_alerts', minorsAllowed))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** A page of the organization's alerts it may see, with their copies (storedFaceVisible). */
  async findAlerts(filter: {
    organizationId: number;
    minorsAllowed: boolean;
    watchId?: number | undefined;
    status?: FaceAlertStatus | undefined;
    offset: number;
    limit: number;
  }): Promise<{ rows: FaceAlertRow[]; total: number }> {
    let query = this.db
      .selectFrom('face_alerts as a')
      .where('a.organization_id', '=', filter.organizationId)
      .where(storedFaceVisible('a', filter.minorsAllowed));
    if (filter.watchId !== undefined) query = query.where('a.watch_id', '=', filter.watchId);
    if (filter.status) query = query.where('a.status', '=', filter.status);
    const [rows, total] = await Promise.all([
      query
        .selectAll('a')
        .orderBy('a.created_at', 'desc')
        .orderBy('a.id', 'desc')
        .offset(filter.offset)
        .limit(filter.limit)
        .execute(),
      query.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
    ]);
    const copies =
      rows.length === 0
        ? []
        : await this.db
            .selectFrom('face_alert_copies')
            .select(['alert_id', 'image_id', 'image_url', 'source_url'])
            .where(
              'alert_id',
              'in',
              rows.map((row) => row.id),
            )
            .where(storedFaceVisible('face_alert_copies', filter.minorsAllowed))
            .orderBy('id')
            .execute();
    return {
      total: Number(total.count),
      rows: rows.map((row) => ({
        id: row.id,
        watchId: row.watch_id,
        imageId: row.image_id,
        sourceUrl: row.source_url,
        imageUrl: row.image_url,
        sourceTitle: row.source_title,
        similarity: row.similarity,
        scoreModel: row.score_model_id,
        faceBox: {
          x: row.face_box_x,
          y: row.face_box_y,
          width: row.face_box_width,
          height: row.face_box_height,
        },
        imageSize:
          row.image_width && row.image_height ? { width: row.image_width, height: row.image_height } : null,
        createdAt: row.created_at,
        status: row.status,
        copies: copies
          .filter((copy) => copy.alert_id === row.id)
          .map((copy) => ({ imageId: copy.image_id, imageUrl: copy.image_url, sourceUrl: copy.source_url })),
      })),
    };
  }

  async markSeen(ids: readonly number[], organizationId: number): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.db
      .updateTable('face_alerts')
      .set({ status: 'SEEN' })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...ids])
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async removeAlert(id: number, organizationId: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('face_alerts')
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
