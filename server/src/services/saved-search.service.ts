import { answeredSimilarity } from '@osint/contract/match-score';
import {
  SAVE_NAME_MAX_LENGTH,
  SAVE_NAME_TOO_LONG,
  defaultSaveName,
  type SavedSearch,
  type SavedSearchListResponse,
  type SavedSearchResultsResponse,
} from '@osint/contract/search';
import type { SavedSearchStatus } from '../db/schema.ts';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import { searchedFacePicture } from '../lib/face-image.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import { newPublicId } from '../lib/secure-token.ts';
import { savedSearchReportFileName } from '../reports/saved-search-report.ts';
import type { ReportRenderer } from './report-renderer.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type {
  NewSavedSearchResult,
  SavedSearchRepository,
  SavedSearchScope,
} from '../repositories/saved-search.repository.ts';
import {
  matchedFaceForReport,
  matchedFaceOf,
  type SearchRepository,
} from '../repositories/search.repository.ts';
import type { AccessService } from './access.service.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { AuthUser } from './session.service.ts';
import type { BlobStore } from '../lib/blob-store.ts';

export interface SaveSearchRequest {
  name: string;
  description: string;
  /** The searchHash of the search to keep. */
  hash: string;
  /** JPEG (or PNG) of the searched face, base64. */
  image: string;
}

export interface SaveSearchJobPayload {
  savedSearchId: number;
}

export interface SavedSearchListQuery {
  pageNumber: number;
  pageSize: number;
  status?: SavedSearchStatus | undefined;
  search?: string | undefined;
}

type SavedSearchRow = Awaited<ReturnType<SavedSearchRepository['findPage']>>['rows'][number];

/** Where a viewer reads the pictures of a saved search: the user calls, or their admin variant. */
type ImagePrefix = '/api/saved-search' | '/api/admin/saved-search';

/**
 * A saved search as its list shows it; `resultCount`: the results its reader may see (the stored count
 * includes those flagged as possible minors, which an organization that is not verified may not see).
 */
function toListItem(
  row: SavedSearchRow,
  resultCount: number,
  prefix: ImagePrefix = '/api/saved-search',
): SavedSearch {
  return {
    id: row.id,
    hash: row.hashed_id,
    name: row.name,
    description: row.description,
    createdAt: row.created_at.toISOString(),
    image: `${prefix}/image/${row.id}`,
    status: row.status,
    type: row.type,
    resultCount,
    ...(prefix === '/api/admin/saved-search' ? { organizationName: row.organization_name } : {}),
  };
}

/**
 * Saved searches: a search's result set kept under a name and a note, as a copy (results and
 * thumbnails) that a job makes, so later crawls, opt-outs and removals do not change it. Every call is
 * bounded to the caller's organization: another organization's ids are simply not found.
 */
export class SavedSearchService {
  constructor(
    private readonly savedSearches: SavedSearchRepository,
    private readonly searches: SearchRepository,
    private readonly access: AccessService,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
    /** Thumbnails of indexed images. */
    private readonly blobs: BlobStore,
    private readonly minorGate: Pick<MinorGateService, 'isLawEnforcement'>,
    private readonly reports: ReportRenderer,
  ) {}

  /** POST /api/search/save: records the saved search as PENDING and queues the copy. */
  async save(user: AuthUser, request: SaveSearchRequest) {
    await this.access.require(user);
    const name = request.name.trim() || defaultSaveName(new Date());
    if (name.length > SAVE_NAME_MAX_LENGTH) {
      throw badRequest(SAVE_NAME_TOO_LONG, [{ field: 'name', message: SAVE_NAME_TOO_LONG }]);
    }
    const search = await this.searches.findByHashedId(request.hash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    const searched = await this.searches.findSearchedFace(search.id);
    if (!searched) throw notFound('Search not found.');
    const image = await searchedFacePicture(searched, request.image);
    const hashedId = newPublicId();
    const id = await this.savedSearches.insert(
      {
        hashedId,
        organizationId: user.organizationId,
        userId: user.id,
        searchId: search.id,
        name,
        description: request.description.trim(),
        type: search.type,
        durationMs: search.duration_ms,
        image,
        possibleMinor: search.possible_minor,
        addedFaceCount: search.added_face_ids.length,
        otherFaceCount: search.other_face_count,
        kept: await this.searches.findKeptFaces(search.hashed_id, user.organizationId),
      },
      // The copy's job, in the row's transaction: a saved search is never left PENDING without one.
      (savedSearchId) => ({
        queue: QUEUES.saveSearch,
        payload: { savedSearchId } satisfies SaveSearchJobPayload,
        uniqueKey: `saved-search:${savedSearchId}`,
        organizationId: user.organizationId,
      }),
    );
    this.queue.wake();
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'saved-search.saved',
      target: `saved-search:${id}`,
      detail: { name, searchHash: request.hash },
    });
    return { id, hash: hashedId, status: 'PENDING' as const };
  }

  /** The saved-search.save job: copies the search's remaining results and their thumbnails. */
  async runSaveJob(payload: unknown): Promise<void> {
    const { savedSearchId } = payload as SaveSearchJobPayload;
    const saved = await this.savedSearches.findForJob(savedSearchId);
    // Deleted before the job ran, or already copied by an earlier attempt.
    if (!saved || saved.status === 'COMPLETED') return;
    // Faces flagged as possible minors are copied only for law enforcement (verified when the job runs).
    const minorsAllowed = await this.minorGate.isLawEnforcement(saved.organization_id);
    // No search left: only a search stored before searches were kept for the copies waiting for them (a
    // search is not deleted, by hand or with its user, while a saved search of it is PENDING).
    const rows =
      saved.search_id === null
        ? []
        : await this.savedSearches.findSearchResultsToCopy(saved.search_id, minorsAllowed);
    const thumbnails = new Map<string, Promise<Buffer | null>>();
    const readThumbnail = (relative: string | null) => {
      if (!relative) return Promise.resolve(null);
      let read = thumbnails.get(relative);
      if (!read) {
        // A thumbnail gone from the index (re-crawl, opt-out) leaves the result without one.
        read = this.blobs.get(relative);
        thumbnails.set(relative, read);
      }
      return read;
    };
    const results: NewSavedSearchResult[] = [];
    for (const row of rows) {
      results.push({
        recordHash: row.record_hash,
        rank: row.rank,
        groupKey: row.group_key,
        similarity: row.similarity,
        scoreModel: row.score_model_id,
        quality: row.quality,
        imageUrl: row.image_url,
        sourceUrl: row.source_url,
        sourceTitle: row.source_title,
        crawledAt: row.crawled_at,
        thumbnail: await readThumbnail(row.thumbnail_path),
        faceId: row.face_id === null ? null : Number(row.face_id),
        goneFaceWasMinor: row.gone_face_was_minor,
        ...matchedFaceOf(row),
      });
    }
    // False when another run of the job completed it meanwhile (or it was deleted): that copy, and what
    // the user removed from it since, stays; this run is done too.
    await this.savedSearches.complete(savedSearchId, results);
  }

  async list(user: AuthUser, query: SavedSearchListQuery): Promise<SavedSearchListResponse> {
    const { rows, total } = await this.savedSearches.findPage({
      organizationId: user.organizationId,
      status: query.status,
      search: query.search?.trim() || undefined,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
    });
    const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
    const shown = minorsAllowed
      ? undefined
      : await this.savedSearches.countShownResults(
          rows.map((row) => row.id),
          false,
        );
    return {
      results: rows.map((row) => toListItem(row, shown ? (shown.get(row.id) ?? 0) : row.result_count)),
      totalResultCount: total,
    };
  }

  async results(user: AuthUser, hashedId: string): Promise<SavedSearchResultsResponse> {
    const access = await this.access.require(user);
    const saved = await this.savedSearches.findByHashedId(hashedId, user.organizationId);
    if (!saved) throw notFound('Saved search not found.');
    return this.resultsOf(saved, '/api/saved-search', {
      restricted: access.restricted,
      minorsAllowed: await this.minorGate.isLawEnforcement(user.organizationId),
    });
  }

  /** GET /api/admin/saved-search: every organization's saved searches, newest first, read-only. */
  async adminList(query: SavedSearchListQuery): Promise<SavedSearchListResponse> {
    const { rows, total } = await this.savedSearches.findPage({
      organizationId: 'all-organizations',
      status: query.status,
      search: query.search?.trim() || undefined,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
    });
    return {
      results: rows.map((row) => toListItem(row, row.result_count, '/api/admin/saved-search')),
      totalResultCount: total,
    };
  }

  /**
   * GET /api/admin/saved-search/{hash}: any organization's saved search with its original sources.
   * An admin reading an organization's work is recorded in the audit log.
   */
  async adminResults(
    admin: AuthUser,
    hashedId: string,
    ip: string | null,
  ): Promise<SavedSearchResultsResponse> {
    const saved = await this.savedSearches.findByHashedId(hashedId, 'all-organizations');
    if (!saved) throw notFound('Saved search not found.');
    await this.audit.insert({
      actorUserId: admin.id,
      // Filed under the organization whose work was read, as the admin's other actions on it are.
      organizationId: saved.organization_id,
      action: 'admin.saved_search.viewed',
      target: `saved-search:${saved.id}`,
      detail: { name: saved.name },
      ip,
    });
    return this.resultsOf(saved, '/api/admin/saved-search', { restricted: false, minorsAllowed: true });
  }

  async adminImage(id: number): Promise<Buffer> {
    const image = await this.savedSearches.findImage(id, 'all-organizations');
    if (!image) throw notFound('Image not found.');
    return image;
  }

  async adminResultImage(resultId: number): Promise<Buffer> {
    const thumbnail = await this.savedSearches.findResultThumbnail(resultId, 'all-organizations', true);
    if (!thumbnail) throw notFound('Image not found.');
    return thumbnail;
  }

  /**
   * A saved search's results as its reader may see them: `restricted` (a trial) without original sources;
   * unless `minorsAllowed`, without faces flagged as possible minors — the rule of the moment, as for live
   * results, not of the day the copy was made (a withdrawn verification hides what it had let in).
   */
  private async resultsOf(
    saved: SavedSearchRow,
    prefix: ImagePrefix,
    { restricted, minorsAllowed }: { restricted: boolean; minorsAllowed: boolean },
  ): Promise<SavedSearchResultsResponse> {
    const rows = await this.savedSearches.findResults(saved.id, minorsAllowed);
    return {
      ...toListItem(saved, rows.length, prefix),
      time: saved.duration_ms,
      numberOfResults: rows.length,
      results: rows.map((row) => ({
        id: row.id,
        hash: row.record_hash,
        group: row.group_key,
        thumbnailUrl: `${prefix}/results/image/${row.id}`,
        imageUrl: restricted ? null : row.image_url,
        sourceUrl: restricted ? null : row.source_url,
        sourceTitle: row.source_title,
        crawledAt: row.crawled_at.toISOString(),
        similarity: answeredSimilarity(row.similarity),
        scoreModel: row.score_model_id,
        quality: row.quality === null ? null : Math.round(row.quality * 1000) / 1000,
        ...matchedFaceOf(row),
      })),
    };
  }

  async image(user: AuthUser, id: number): Promise<Buffer> {
    const image = await this.savedSearches.findImage(id, user.organizationId);
    if (!image) throw notFound('Image not found.');
    return image;
  }

  async resultImage(user: AuthUser, resultId: number): Promise<Buffer> {
    const thumbnail = await this.savedSearches.findResultThumbnail(
      resultId,
      user.organizationId,
      await this.minorGate.isLawEnforcement(user.organizationId),
    );
    if (!thumbnail) throw notFound('Image not found.');
    return thumbnail;
  }

  async removeResults(user: AuthUser, savedSearchId: number, resultIds: number[]) {
    const saved = await this.savedSearches.findById(savedSearchId, user.organizationId);
    if (!saved) throw notFound('Saved search not found.');
    const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
    if (resultIds.length === 0) {
      const shown = await this.savedSearches.countShownResults([saved.id], minorsAllowed);
      return { removed: 0, remaining: shown.get(saved.id) ?? 0 };
    }
    return this.savedSearches.deleteResults(saved.id, resultIds, minorsAllowed);
  }

  async remove(user: AuthUser, id: number): Promise<void> {
    if (!(await this.savedSearches.delete(id, user.organizationId)))
      throw notFound('Saved search not found.');
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'saved-search.deleted',
      target: `saved-search:${id}`,
    });
  }

  async update(user: AuthUser, id: number, name: string, description: string): Promise<void> {
    const trimmed = name.trim();
    if (!trimmed) {
      throw badRequest('Name cannot be empty.', [{ field: 'name', message: 'Name cannot be empty.' }]);
    }
    if (trimmed.length > SAVE_NAME_MAX_LENGTH) {
      throw badRequest(SAVE_NAME_TOO_LONG, [{ field: 'name', message: SAVE_NAME_TOO_LONG }]);
    }
    if (!(await this.savedSearches.update(id, user.organizationId, trimmed, description.trim()))) {
      throw notFound('Saved search not found.');
    }
  }

  /** POST /api/saved-search/generate-report: a PDF of the chosen results of one saved search. */
  async report(user: AuthUser, resultIds: number[]): Promise<{ pdf: Buffer; fileName: string }> {
    const access = await this.access.require(user);
    return this.reportOf(user, resultIds, user.organizationId, access.restricted);
  }

  /**
   * POST /api/admin/saved-search/generate-report: the same report of any organization's saved search
   * (admins are never restricted), filed under that organization.
   */
  adminReport(admin: AuthUser, resultIds: number[]): Promise<{ pdf: Buffer; fileName: string }> {
    return this.reportOf(admin, resultIds, 'all-organizations', false);
  }

  private async reportOf(
    user: AuthUser,
    resultIds: number[],
    scope: SavedSearchScope,
    restricted: boolean,
  ): Promise<{ pdf: Buffer; fileName: string }> {
    // One of the requester's organization's report places from the first read to the PDF (429 when none
    // is free): an admin's reports of other organizations count for the admin's own.
    return this.reports.admit(user.organizationId, async (draw) => {
      const ids = [...new Set(resultIds)];
      // Admins read every organization's work whole; an organization, what its standing lets it see now.
      const minorsAllowed = scope === 'all-organizations' || (await this.minorGate.isLawEnforcement(scope));
      const rows = await this.savedSearches.findResultsByIds(ids, scope, minorsAllowed);
      // Ids of another organization, or deleted ones, are not found: the report is all or nothing.
      if (rows.length !== ids.length) throw notFound('Saved search results not found.');
      const savedSearchIds = new Set(rows.map((row) => row.saved_search_id));
      if (savedSearchIds.size !== 1) throw badRequest('A report covers the results of one saved search.');
      const saved = await this.savedSearches.findById(rows[0]!.saved_search_id, scope);
      const image = await this.savedSearches.findImage(rows[0]!.saved_search_id, scope);
      if (!saved || !image) throw notFound('Saved search not found.');
      const organization = await this.savedSearches.findOrganizationName(saved.organization_id);
      const generatedAt = new Date();
      const pdf = await draw.savedSearch({
        organizationName: organization?.name ?? '',
        preparedBy: user.email,
        generatedAt,
        restricted,
        savedSearch: {
          saved: true,
          name: saved.name,
          description: saved.description,
          type: saved.type,
          createdAt: saved.created_at,
          image,
          resultCount: minorsAllowed
            ? saved.result_count
            : ((await this.savedSearches.countShownResults([saved.id], false)).get(saved.id) ?? 0),
          addedFaceCount: saved.added_face_count,
          otherFaceCount: saved.other_face_count,
        },
        results: rows.map((row) => ({
          similarity: row.similarity,
          scoreModel: row.score_model_id,
          crawledAt: row.crawled_at,
          sourceTitle: row.source_title,
          imageUrl: row.image_url,
          sourceUrl: row.source_url,
          thumbnail: row.thumbnail,
          face: matchedFaceForReport(row),
        })),
      });
      await this.audit.insert({
        actorUserId: user.id,
        // Filed under the organization whose work was reported, an admin's report too.
        organizationId: saved.organization_id,
        action: 'saved-search.report',
        target: `saved-search:${saved.id}`,
        detail: { results: rows.length },
      });
      return { pdf, fileName: savedSearchReportFileName(saved.name, generatedAt) };
    });
  }
}
