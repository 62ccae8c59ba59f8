import { answeredSimilarity } from '@osint/contract/match-score';
import type { FaceAlert, FaceWatch } from '@osint/contract/face-alerts';
import { SEARCH_MESSAGES } from '@osint/contract/search';
import type { FaceAlertStatus, SearchType } from '../db/schema.ts';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { badRequest, HttpError, notFound } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { FaceWatchRepository } from '../repositories/face-watch.repository.ts';
import type { KeptFacePictures } from '../repositories/kept-face-pictures.ts';
import type { SavedSearchRepository } from '../repositories/saved-search.repository.ts';
import type { SearchRepository } from '../repositories/search.repository.ts';
import type { AccessService } from './access.service.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { SearchAnswer, SearchService } from './search.service.ts';
import { cropDigest, isCropOf, normaliseFace } from '../lib/face-image.ts';
import { readKeptFaces, searchKeptFaces, visibleIndexedFaces, watchedDescriptorOf } from './kept-faces.ts';
import type { AuthUser } from './session.service.ts';

const DAY_MS = 86_400_000;
/** A watch ends after this many days unless renewed. */
export const DEFAULT_WATCH_DAYS = 90;
/** Longest a watch may run before it must be renewed. */
export const MAX_WATCH_DAYS = 365;
/** Active watches an organization may keep, per seat of its plan. */
export const WATCHES_PER_SEAT = 50;

export const WATCH_LIMIT_MESSAGE =
  'Your organization watches as many faces as its plan allows. End a watch before starting another.';

/** The descriptor of a watch is sealed bound to its organization: copied elsewhere, it does not open. */
export const watchBinding = (organizationId: number) => `face-watch:${organizationId}`;

/**
 * Watched faces of an organization and the alerts they raised (issue 17). The matching itself is
 * FaceWatchMatcher's, in the worker.
 */
export class FaceWatchService {
  constructor(
    private readonly watches: FaceWatchRepository,
    private readonly searches: SearchRepository,
    private readonly savedSearches: SavedSearchRepository,
    private readonly tokens: QueryFaceTokens,
    private readonly engine: LazyFaceEngine,
    private readonly access: AccessService,
    private readonly minorGate: MinorGateService,
    private readonly audit: AuditRepository,
    private readonly search: Pick<SearchService, 'search'>,
  ) {}

  /**
   * POST /api/watches: the face of a search token (`faceHash`), or the searched face of a stored search or
   * a saved search (`searchHash`: either one's hash).
   */
  async create(
    user: AuthUser,
    input: {
      name: string;
      note?: string | undefined;
      type?: SearchType | undefined;
      faceHash?: string | undefined;
      searchHash?: string | undefined;
      endsAt?: string | undefined;
      /** The face's crop (base64 JPEG) as the upload answered it, with a faceHash. */
      faceImage?: string | undefined;
    },
  ): Promise<{ id: number }> {
    const access = await this.access.require(user);
    const name = input.name.trim();
    if (!name) throw badRequest('Please give the watch a name.');
    if (!input.faceHash === !input.searchHash) throw badRequest('Give either faceHash or searchHash.');
    const endsAt = this.endDate(input.endsAt);
    const uploadedCrop = input.faceImage ? await normaliseFace(input.faceImage) : null;
    const face = input.faceHash
      ? await this.faceOfToken(user, input.faceHash, input.faceImage)
      : await this.faceOfSearch(user, input.searchHash!);
    // Possible minors are watched only by organizations that may search them (the minors gate).
    await this.minorGate.admitWatch(user, face.possibleMinor);
    const limit = (access.plan?.seat_limit ?? 1) * WATCHES_PER_SEAT;
    const id = await this.watches.insertWatchWithinLimit(limit, {
      organizationId: user.organizationId,
      userId: user.id,
      name,
      note: input.note?.trim() ?? '',
      type: input.type ?? face.type,
      descriptorSealed: await this.tokens.sealStored(face.descriptor, watchBinding(user.organizationId)),
      kept: face.kept ?? { faceImage: uploadedCrop, otherFaceImages: [], addedFaceIds: [] },
      modelId: face.modelId,
      possibleMinor: face.possibleMinor,
      endsAt,
    });
    if (id === null) throw new HttpError(409, WATCH_LIMIT_MESSAGE);
    // Who started watching, until when; never the face.
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'face-watch.created',
      target: `face-watch:${id}`,
      detail: { from: face.from, endsAt: endsAt.toISOString() },
    });
    return { id };
  }

  async list(user: AuthUser): Promise<{ results: FaceWatch[] }> {
    await this.access.require(user);
    const rows = await this.watches.listWatches(
      user.organizationId,
      await this.minorGate.isLawEnforcement(user.organizationId),
    );
    return {
      results: rows.map((row) => ({
        id: row.id,
        name: row.name,
        note: row.note,
        type: row.type,
        muted: row.muted,
        createdAt: row.createdAt.toISOString(),
        endsAt: row.endsAt.toISOString(),
        endedAt: row.endedAt?.toISOString() ?? null,
        image: row.hasFaceImage ? `/api/watches/${row.id}/image` : null,
        alertCount: row.alertCount,
        newAlertCount: row.newAlertCount,
      })),
    };
  }

  /** PATCH /api/watches/{id}: mute or unmute, renew (a new end date). */
  async update(
    user: AuthUser,
    id: number,
    change: { muted?: boolean | undefined; endsAt?: string | undefined },
  ): Promise<void> {
    await this.access.require(user);
    const endsAt = change.endsAt === undefined ? undefined : this.endDate(change.endsAt);
    if (!(await this.watches.updateWatch(id, user.organizationId, { muted: change.muted, endsAt }))) {
      throw notFound('Watch not found.');
    }
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'face-watch.changed',
      target: `face-watch:${id}`,
      detail: {
        ...(change.muted !== undefined ? { muted: change.muted } : {}),
        ...(endsAt ? { endsAt: endsAt.toISOString() } : {}),
      },
    });
  }

  /** DELETE /api/watches/{id}: ends the watch and deletes its descriptor; its alerts stay. */
  async end(user: AuthUser, id: number): Promise<void> {
    await this.access.require(user);
    if (!(await this.watches.endWatch(id, user.organizationId))) throw notFound('Watch not found.');
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'face-watch.ended',
      target: `face-watch:${id}`,
    });
  }

  /** GET /api/watches/{id}/image */
  async faceImage(user: AuthUser, id: number): Promise<Buffer> {
    await this.access.require(user);
    const image = await this.watches.findFaceImage(id, user.organizationId);
    if (!image) throw notFound('Image not found.');
    return image;
  }

  /**
   * POST /api/watches/{id}/search ("Save as search" on the alerts page): searches the watched face now, as
   * an upload of it would, so the analyst can save, report or extract from a regular search.
   */
  async searchNow(user: AuthUser, id: number): Promise<SearchAnswer> {
    await this.access.require(user);
    const watch = await this.watches.findActiveWatch(id, user.organizationId);
    if (!watch?.descriptor_sealed) throw notFound('Watch not found.');
    const kept = await this.watches.findKeptFaces(id, user.organizationId);
    // A watch of several faces of the person is searched as its search was: with every face, each read
    // again from its picture, so that the new search keeps them all (to search again, report, watch).
    if (kept.faceImage && (kept.otherFaceImages.length > 0 || kept.addedFaceIds.length > 0)) {
      const { modelId, shown, faces, minorsAllowed } = await this.readFaces(user, kept, watch.possible_minor);
      return searchKeptFaces(
        { tokens: this.tokens, search: this.search },
        user,
        modelId,
        { shown, others: faces.others, indexed: visibleIndexedFaces(faces, minorsAllowed) },
        watch.type,
      );
    }
    const descriptor = await this.tokens.openStored(
      watch.descriptor_sealed,
      watchBinding(user.organizationId),
    );
    if (!descriptor) throw badRequest(SEARCH_MESSAGES.faceGone);
    const crop = kept.faceImage?.toString('base64');
    const token = await this.tokens.seal({
      descriptor,
      modelId: watch.model_id,
      organizationId: user.organizationId,
      userId: user.id,
      possibleMinor: watch.possible_minor,
      // The watch's picture is this face's: the search keeps it as the searched face.
      cropSha256: crop === undefined ? undefined : cropDigest(crop),
    });
    return this.search.search(user, [token], watch.type, { faceImage: crop });
  }

  /** GET /api/alerts. Trial plans see where a face was found, not the original sources (as in search). */
  async alerts(
    user: AuthUser,
    query: { pageNumber: number; pageSize: number; watchId?: number | undefined; status?: FaceAlertStatus },
  ): Promise<{ results: FaceAlert[]; totalResultCount: number }> {
    const access = await this.access.require(user);
    const { rows, total } = await this.watches.findAlerts({
      organizationId: user.organizationId,
      minorsAllowed: await this.minorGate.isLawEnforcement(user.organizationId),
      watchId: query.watchId,
      status: query.status,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
    });
    const hidden = access.restricted;
    return {
      totalResultCount: total,
      results: rows.map((row) => ({
        id: row.id,
        watchId: row.watchId,
        sourceUrl: hidden ? null : row.sourceUrl,
        imageUrl: hidden ? null : row.imageUrl,
        thumbnailUrl: `/api/thumbnails/${row.imageId}`,
        sourceTitle: row.sourceTitle,
        similarity: answeredSimilarity(row.similarity),
        scoreModel: row.scoreModel,
        faceBox: row.faceBox,
        imageSize: row.imageSize,
        createdAt: row.createdAt.toISOString(),
        status: row.status,
        copies: row.copies.map((copy) => ({
          thumbnailUrl: `/api/thumbnails/${copy.imageId}`,
          imageUrl: hidden ? null : copy.imageUrl,
          sourceUrl: hidden ? null : copy.sourceUrl,
        })),
      })),
    };
  }

  /** POST /api/alerts/seen: the analyst viewed these alerts (audited). */
  async markSeen(user: AuthUser, ids: number[]): Promise<{ updated: number }> {
    await this.access.require(user);
    const updated = await this.watches.markSeen([...new Set(ids)], user.organizationId);
    if (updated > 0) {
      await this.audit.insert({
        actorUserId: user.id,
        organizationId: user.organizationId,
        action: 'face-alert.viewed',
        detail: { alerts: updated },
      });
    }
    return { updated };
  }

  async removeAlert(user: AuthUser, id: number): Promise<void> {
    await this.access.require(user);
    if (!(await this.watches.removeAlert(id, user.organizationId))) throw notFound('Alert not found.');
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'face-alert.removed',
      target: `face-alert:${id}`,
    });
  }

  private endDate(value: string | undefined): Date {
    const now = Date.now();
    if (value === undefined) return new Date(now + DEFAULT_WATCH_DAYS * DAY_MS);
    const date = new Date(value);
    if (Number.isNaN(date.getTime()) || date.getTime() <= now) {
      throw badRequest('The end date must be a date in the future.');
    }
    if (date.getTime() > now + MAX_WATCH_DAYS * DAY_MS) {
      throw badRequest(`A watch runs at most ${MAX_WATCH_DAYS} days; renew it later.`);
    }
    return date;
  }

  /** An uploaded face; a picture sent with it must be that face's crop (a search's face keeps its own). */
  private async faceOfToken(user: AuthUser, faceHash: string, faceImage: string | undefined) {
    const face = await this.tokens.open(faceHash, user.organizationId);
    if (!face) throw badRequest(SEARCH_MESSAGES.faceGone);
    if (faceImage && !isCropOf(face, faceImage)) throw badRequest(SEARCH_MESSAGES.faceImageMismatch);
    return { ...face, type: 'OSINT' as SearchType, kept: undefined, from: 'upload' };
  }

  /**
   * The searched faces of a stored search, or of a saved search (whose copy keeps them even after the
   * search itself is gone): both keep pictures, not descriptors, so each is analysed again with the active
   * model. A search of several faces of the person (other photos, results added by searching again) is
   * watched as it searched: the mean of all its faces, which the watch keeps to read them again after a
   * change of model.
   */
  private async faceOfSearch(user: AuthUser, searchHash: string) {
    const search = await this.searches.findByHashedId(searchHash, user.organizationId);
    const saved = search
      ? undefined
      : await this.savedSearches.findByHashedId(searchHash, user.organizationId);
    const of = search ?? saved;
    if (!of) throw notFound('Search not found.');
    const kept = search
      ? await this.searches.findKeptFaces(searchHash, user.organizationId)
      : await this.savedSearches.findKeptFaces(saved!.id, user.organizationId);
    if (!kept.faceImage) {
      throw badRequest('This search was run without its face: watch the face from a new upload.');
    }
    const { modelId, shown, faces, minorsAllowed } = await this.readFaces(user, kept, of.possible_minor);
    return {
      ...watchedDescriptorOf(shown, faces, minorsAllowed),
      modelId,
      type: of.type,
      from: search ? 'search' : 'saved-search',
    };
  }

  /**
   * Kept faces read again under the active model for the user's organization, which may see possible
   * minors among the added indexed faces only if `minorsAllowed` (as searching them again decides: an
   * added result flagged since is left out for an organization that may not search one).
   */
  private async readFaces(user: AuthUser, kept: KeptFacePictures, flaggedAtUpload: boolean) {
    const engine = await this.engine.get();
    const faces = await readKeptFaces(engine, this.searches, kept, {
      organizationId: user.organizationId,
      flaggedAtUpload,
    });
    if (!faces.shown) throw badRequest(SEARCH_MESSAGES.faceGone);
    const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
    return { modelId: engine.modelId, shown: faces.shown, faces, minorsAllowed };
  }
}
