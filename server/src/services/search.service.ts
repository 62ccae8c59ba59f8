import { answeredSimilarity } from '@osint/contract/match-score';
import {
  defaultSaveName,
  MAX_UPLOAD_MEGAPIXELS,
  SEARCH_MESSAGES,
  type SearchHistoryItem,
  type SearchResult,
  type UploadImageResponse,
} from '@osint/contract/search';
import { createHash, randomBytes } from 'node:crypto';
import type { SearchType } from '../db/schema.ts';
import { NEAR_DUPLICATE_MAX_DISTANCE, hammingDistance } from '../crawler/perceptual-hash.ts';
import { isPossibleMinor } from '../face/age/possible-minor.ts';
import {
  cropFacesJpeg,
  ImageDecodeError,
  type ImageFormat,
  MAX_UPLOAD_PIXELS,
  sniffImageFormat,
} from '../face/image-decode.ts';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import {
  faceSizePx,
  isSearchableFace,
  isSmallQueryFace,
  meanDescriptor,
  MIN_QUERY_FACE_PX,
  RELIABLE_QUERY_FACE_PX,
  matchThresholdOf,
} from '../face/similarity.ts';
import { isCropOf, joinCropDigests, normaliseFace } from '../lib/face-image.ts';
import { badRequest, conflict, HttpError, notFound } from '../lib/http-error.ts';
import { searchReportFileName } from '../reports/saved-search-report.ts';
import type { ReportRenderer } from './report-renderer.ts';
import type {
  FaceSighting,
  NewSearchResult,
  SearchRepository,
  StoredSearchResult,
} from '../repositories/search.repository.ts';
import { AuditRepository } from '../repositories/audit.repository.ts';
import { ApprovalsUsedMeanwhile } from '../repositories/minor-review.repository.ts';
import type { OrganizationRepository } from '../repositories/organization.repository.ts';
import type { AccessService } from './access.service.ts';
import type { ImageUrlSource } from './image-url-fetcher.ts';
import type { MinorGateAdmission, MinorGateService } from './minor-gate.service.ts';
import type { MinorReviewService } from './minor-review.service.ts';
import { FaceModelMismatchError, type FaceIndexService } from './face-index.service.ts';
import type { QueryFaceTokens } from './query-face-token.ts';
import type { AuthUser } from './session.service.ts';
import { visibleFaceHits } from './visible-face-hits.ts';
import type { BlobStore } from '../lib/blob-store.ts';

/** Spec 001 §1: query photos of at most 1.5 MB. */
export const MAX_UPLOAD_BYTES = 1.5 * 1024 * 1024;
export const UPLOAD_TOO_BIG_MESSAGE = 'File is too big. Please upload smaller image.';
const MAX_INDEX_HITS = 500;
const MAX_RESULTS = 1000;

/** One result as the API answers it. */
export type SearchResultView = SearchResult;

export interface SearchAnswer {
  results: SearchResultView[];
  time: number;
  numberOfResults: number;
  searchHash: string;
}

/** GET /api/search/{searchHash}: the answer of POST /api/search, with what the page needs to reopen it. */
export interface StoredSearchAnswer extends SearchAnswer {
  type: SearchType;
  createdAt: string;
  /** URL of the searched face, or null when the search was run without it. */
  image: string | null;
  /** Results chosen to search again with, searched together with that face. */
  addedFaceCount: number;
  /** Other uploaded faces of the person (other photos) searched together with that face. */
  otherFaceCount: number;
}

/** The pictures and indexed faces a search keeps of what it searched with. */
export interface KeptSearchFaces {
  /** The chosen face's crop (base64 JPEG) as the upload answered it: the searched face the search shows. */
  faceImage?: string | undefined;
  /** The other searched faces' crops, as the upload answered them (needs `faceImage`). */
  otherFaceImages?: readonly string[] | undefined;
  /** Indexed faces among the searched ones (results chosen to search again with). */
  addedFaceIds?: readonly number[] | undefined;
}

/** The photo types an upload may be: JPG, PNG, BMP or TIFF (spec 001 §1). */
const UPLOAD_FORMATS: ReadonlySet<ImageFormat> = new Set<ImageFormat>(['jpeg', 'png', 'bmp', 'tiff']);

const DECODE_MESSAGES: Record<ImageDecodeError['code'], string> = {
  UNSUPPORTED_FORMAT: SEARCH_MESSAGES.unsupportedFile,
  TOO_MANY_PIXELS: `The image has too many pixels to be processed (at most ${MAX_UPLOAD_MEGAPIXELS}, such as 4096 × 4096). Please upload a smaller image.`,
  CORRUPT: 'The image could not be read. It may be damaged; please upload a different one.',
};

export class SearchService {
  constructor(
    private readonly engine: LazyFaceEngine,
    private readonly index: FaceIndexService,
    private readonly tokens: QueryFaceTokens,
    private readonly searches: SearchRepository,
    private readonly access: AccessService,
    private readonly socialMediaHosts: readonly string[],
    /** Thumbnails of indexed images. */
    private readonly blobs: BlobStore,
    private readonly audit: AuditRepository,
    private readonly organizations: OrganizationRepository,
    private readonly minorGate: MinorGateService,
    private readonly minorReviews: Pick<MinorReviewService, 'latestOfFaces'>,
    private readonly imageUrls: ImageUrlSource,
    private readonly reports: ReportRenderer,
  ) {}

  /** Finds the faces of an uploaded photo. The photo is analysed in memory and never stored. */
  async uploadImage(user: AuthUser, base64: string): Promise<UploadImageResponse> {
    await this.access.require(user);
    return this.detectFaces(user, Buffer.from(base64.replace(/^data:[^,]*,/, ''), 'base64'));
  }

  /**
   * Finds the faces of the photo at `url`, fetched by the server (spec 001 §2 /search/{imageUrl}): the
   * same answer and errors as an upload of that photo. The photo is analysed in memory and never stored.
   */
  async uploadImageUrl(user: AuthUser, url: string): Promise<UploadImageResponse> {
    await this.access.require(user);
    return this.detectFaces(user, await this.imageUrls.bytesOf(url));
  }

  private async detectFaces(user: AuthUser, image: Buffer): Promise<UploadImageResponse> {
    if (image.length > MAX_UPLOAD_BYTES) throw new HttpError(413, UPLOAD_TOO_BIG_MESSAGE);
    // Told from the bytes, as the decoder does: the engine reads WebP and GIF too (crawled photos), but an
    // upload is one of the types users are told (spec 001 §1), as the search page already enforces.
    const format = sniffImageFormat(image);
    if (format === null || !UPLOAD_FORMATS.has(format)) throw badRequest(DECODE_MESSAGES.UNSUPPORTED_FORMAT);
    const engine = await this.engine.get();
    let analysis;
    try {
      // The detector looks for faces down to the searchable size (on tiles in large photos); it also
      // finds smaller ones, down to ~6 % of the photo's longer side, so they can be reported as too small.
      // Organizations take turns in the face workers' queue, within the upload's pixel budget.
      analysis = await engine.analyze(image, {
        minFaceSize: MIN_QUERY_FACE_PX,
        maxPixels: MAX_UPLOAD_PIXELS,
        organizationId: user.organizationId,
      });
    } catch (error) {
      if (error instanceof ImageDecodeError) throw badRequest(DECODE_MESSAGES[error.code]);
      throw error;
    }
    // Decided on the box as reported, so that the answer is consistent with itself.
    const found = analysis.faces.map((face) => ({ face, box: wholePixels(face.box) }));
    const searchable = found.filter(({ box }) => isSearchableFace(box));
    // Largest first, as smallFaceSizes and smallFaceBoxes list them.
    const tooSmall = found
      .filter(({ box }) => !isSearchableFace(box))
      .sort((a, b) => faceSizePx(b.box) - faceSizePx(a.box));
    const crops = await cropFacesJpeg(
      image,
      searchable.map(({ face }) => face.box),
    );
    const minorsSearchable = await this.minorGate.isLawEnforcement(user.organizationId);
    const faces = await Promise.all(
      searchable.map(async ({ face, box }, i) => {
        const possibleMinor = isPossibleMinor(face.age);
        return {
          hash: await this.tokens.seal({
            descriptor: face.descriptor,
            modelId: engine.modelId,
            organizationId: user.organizationId,
            userId: user.id,
            possibleMinor,
            // A crop sent back for a platform review must be this one.
            cropSha256: createHash('sha256').update(crops[i]!).digest(),
          }),
          base64: crops[i]!.toString('base64'),
          box,
          small: isSmallQueryFace(box),
          possibleMinor,
          fingerprint:
            possibleMinor && !minorsSearchable
              ? await this.tokens.fingerprint({ descriptor: face.descriptor, modelId: engine.modelId })
              : null,
        };
      }),
    );
    // The platform's review of each refused face, when one was asked (also for a photo uploaded again).
    const reviews = await this.minorReviews.latestOfFaces(
      user.organizationId,
      faces.flatMap((face) => (face.fingerprint ? [face.fingerprint] : [])),
    );
    return {
      faces: faces.map(({ fingerprint, ...face }) => ({
        ...face,
        review: fingerprint ? (reviews.get(fingerprint) ?? null) : null,
      })),
      smallFaceCount: tooSmall.length,
      smallFaceSizes: tooSmall.map(({ box }) => faceSizePx(box)),
      smallFaceBoxes: tooSmall.map(({ box }) => box),
      minFaceSize: MIN_QUERY_FACE_PX,
      reliableFaceSize: RELIABLE_QUERY_FACE_PX,
      minorsSearchable,
    };
  }

  /**
   * Searches the index for the chosen faces of one person (their descriptors are averaged), keeps the
   * sightings of the requested kind of source, groups copies of the same photo, and stores the result
   * set for the organization.
   */
  async search(
    user: AuthUser,
    hashes: string[],
    type: SearchType,
    kept: KeptSearchFaces = {},
  ): Promise<SearchAnswer> {
    const access = await this.access.require(user);
    const { faceImage, otherFaceImages = [], addedFaceIds = [] } = kept;
    // Read before searching: an unreadable image is refused before anything is stored or counted.
    const faceJpeg = faceImage ? await normaliseFace(faceImage) : null;
    const otherJpegs = await Promise.all(otherFaceImages.map((image) => normaliseFace(image)));
    const started = performance.now();
    const faces = await Promise.all(hashes.map((hash) => this.tokens.open(hash, user.organizationId)));
    const model = faces[0]?.modelId;
    // Faces of two descriptor models (uploads on both sides of a reindex's switch) cannot be averaged.
    if (faces.length === 0 || faces.some((face) => !face || face.modelId !== model)) throw faceGone();
    // Each picture kept must be the crop of another of the searched faces (as the upload cropped it; the
    // same photo added twice gives two faces with one crop), and the other faces' pictures come with the
    // one shown.
    if (
      (otherFaceImages.length > 0 && !faceImage) ||
      !eachPictureOfAnotherFace(
        faces.map((face) => face!),
        [...(faceImage ? [faceImage] : []), ...otherFaceImages],
      )
    ) {
      throw badRequest(SEARCH_MESSAGES.faceImageMismatch);
    }
    const gate = await this.minorGate.admit(
      user,
      await Promise.all(
        faces.filter((face) => face!.possibleMinor).map((face) => this.tokens.fingerprint(face!)),
      ),
    );
    const query = meanDescriptor(faces.map((face) => face!.descriptor));
    let hits;
    const sightingsByFace = new Map<number, FaceSighting[]>();
    try {
      hits = await this.indexHits(
        query,
        model!,
        gate.decision === 'search-minor' || (await this.minorGate.isLawEnforcement(user.organizationId)),
        // Faces seen on pages of the search's kind (social media or not): faces of the other kind must not
        // fill the index's limit and leave a person's few social-media faces out. Their sightings are kept
        // for the results.
        async (faceIds) => {
          const unread = faceIds.filter((id) => !sightingsByFace.has(id));
          for (const id of unread) sightingsByFace.set(id, []);
          for (const sighting of await this.sightingsOfKind(unread, type))
            sightingsByFace.get(sighting.faceId)!.push(sighting);
          return new Set(faceIds.filter((id) => sightingsByFace.get(id)!.length > 0));
        },
      );
    } catch (error) {
      // An upload analysed before a reindex switched models: its descriptor is not comparable any more.
      if (error instanceof FaceModelMismatchError) throw faceGone();
      throw error;
    }
    const similarityByFace = new Map(hits.map((hit) => [hit.faceId, hit.similarity]));
    const sightings = hits
      .flatMap((hit) => sightingsByFace.get(hit.faceId) ?? [])
      .sort(
        (a, b) =>
          similarityByFace.get(b.faceId)! - similarityByFace.get(a.faceId)! ||
          a.firstSeenAt.getTime() - b.firstSeenAt.getTime() ||
          a.sourceUrl.localeCompare(b.sourceUrl),
      )
      .slice(0, MAX_RESULTS);
    const groups = groupSamePhotos(sightings);
    // One call for every result's random record hash (12 bytes each) instead of one call per result.
    const random = randomBytes(12 * sightings.length);
    const results: NewSearchResult[] = sightings.map((s, rank) => ({
      recordHash: random.subarray(12 * rank, 12 * rank + 12).toString('base64url'),
      rank,
      faceId: s.faceId,
      imageId: s.imageId,
      groupKey: groups.get(s.imageId)!,
      // As stored (a 4-byte real): the first answer, the reopened page and the report show one score.
      similarity: Math.fround(similarityByFace.get(s.faceId)!),
      scoreModel: model!,
      imageUrl: s.imageUrl,
      sourceUrl: s.sourceUrl,
      sourceTitle: s.sourceTitle,
      crawledAt: s.firstSeenAt,
      faceBox: s.faceBox,
      imageSize: s.imageSize,
    }));
    const hashedId = randomBytes(12).toString('base64url');
    const time = Math.round(performance.now() - started);
    const stored = {
      hashedId,
      organizationId: user.organizationId,
      userId: user.id,
      type,
      durationMs: time,
      faceImage: faceJpeg,
      cropDigests: joinCropDigests(faces.map((face) => face!.cropSha256)),
      possibleMinor: faces.some((face) => face!.possibleMinor),
      addedFaceIds,
      otherFaceImages: otherJpegs,
      results,
    };
    let ids;
    try {
      // An approval is used up only by a search that is stored, with the audit entries that name it.
      ids = await this.searches.insertSearch(stored, async (tx) => {
        const reviewIds = await this.minorGate.useApprovals(tx, user, gate);
        await this.auditSearch(new AuditRepository(tx), user, stored, gate.decision, reviewIds);
      });
    } catch (error) {
      // Another search of the face used its approval since the gate admitted this one.
      if (error instanceof ApprovalsUsedMeanwhile) return this.minorGate.refuse(user);
      throw error;
    }
    return {
      results: results.map((r) => resultView({ ...r, id: ids.get(r.recordHash)! }, access.restricted)),
      time,
      numberOfResults: results.length,
      searchHash: hashedId,
    };
  }

  /** Who searched, when, how many results (never the photo); a minor's search and a reviewed one named. */
  private async auditSearch(
    audit: AuditRepository,
    user: AuthUser,
    search: { hashedId: string; type: SearchType; results: readonly unknown[] },
    decision: MinorGateAdmission['decision'],
    reviewIds: readonly number[],
  ): Promise<void> {
    const entry = {
      actorUserId: user.id,
      organizationId: user.organizationId,
      target: `search:${search.hashedId}`,
    };
    const detail = { type: search.type, results: search.results.length };
    await audit.insert({ ...entry, action: 'search.performed', detail });
    // A verified law-enforcement organization searched a possible minor: listed for the platform's admins.
    if (decision === 'search-minor') await audit.insert({ ...entry, action: 'search.minor', detail });
    // The one search a platform review approved (an admin judged the person an adult).
    for (const reviewId of reviewIds) {
      await audit.insert({ ...entry, action: 'search.minor_reviewed', detail: { reviewId, ...detail } });
    }
  }

  /** GET /api/search/{searchHash}: a search of the caller's organization, as its results page shows it. */
  async find(user: AuthUser, searchHash: string): Promise<StoredSearchAnswer> {
    const access = await this.access.require(user);
    const search = await this.searches.findByHashedId(searchHash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    const results = await this.searches.findResults(
      search.id,
      await this.minorGate.isLawEnforcement(user.organizationId),
    );
    return {
      results: results.map((r) => resultView(r, access.restricted)),
      time: search.duration_ms,
      numberOfResults: results.length,
      searchHash: search.hashed_id,
      type: search.type,
      createdAt: search.created_at.toISOString(),
      image: search.has_face_image ? searchImageUrl(search.hashed_id) : null,
      addedFaceCount: search.added_face_ids.length,
      otherFaceCount: search.other_face_count,
    };
  }

  /** GET /api/search/history: the organization's searches, newest first (retention deletes old ones). */
  async history(
    user: AuthUser,
    page: { pageNumber: number; pageSize: number },
  ): Promise<{ results: SearchHistoryItem[]; totalResultCount: number }> {
    await this.access.require(user);
    const { rows, total } = await this.searches.findPage(
      user.organizationId,
      (page.pageNumber - 1) * page.pageSize,
      page.pageSize,
      await this.minorGate.isLawEnforcement(user.organizationId),
    );
    return {
      results: rows.map((row) => ({
        searchHash: row.hashed_id,
        type: row.type,
        createdAt: row.created_at.toISOString(),
        userEmail: row.email,
        numberOfResults: row.shown_count,
        image: row.has_face_image ? searchImageUrl(row.hashed_id) : null,
      })),
      totalResultCount: total,
    };
  }

  /** DELETE /api/search/{searchHash}: removes a search and its results from the organization's history. */
  async remove(user: AuthUser, searchHash: string): Promise<void> {
    const outcome = await this.searches.delete(searchHash, user.organizationId);
    if (outcome === 'not-found') throw notFound('Search not found.');
    // A PENDING saved search or extraction reads the search's results in its job, later: deleting the
    // search now would leave it nothing to read (its search_id set null), and it would end COMPLETED or
    // DONE with no results. Refused until it is done, rather than copying the results in the save
    // request: the copy reads every thumbnail from the blob store (the job keeps that out of the request)
    // and an extraction reads the results for minutes; the spec defines no deletion of searches, and
    // saving (POST search/save) keeps its behaviour, with the saved copies staying as the history promises.
    if (outcome === 'still-needed') throw conflict(SEARCH_MESSAGES.stillNeeded);
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'search.deleted',
      target: `search:${searchHash}`,
    });
  }

  /** The searched face of a search of the caller's organization. */
  async faceImage(user: AuthUser, searchHash: string): Promise<Buffer> {
    const image = await this.searches.findFaceImage(searchHash, user.organizationId);
    if (!image) throw notFound('Image not found.');
    return image;
  }

  /**
   * POST /api/search/generate-report: the saved-search report of a search that need not be saved, of
   * the chosen results (all shown results when none are named).
   */
  async report(
    user: AuthUser,
    searchHash: string,
    resultIds?: number[],
  ): Promise<{ pdf: Buffer; fileName: string }> {
    const access = await this.access.require(user);
    // One of the organization's report places from the first read to the PDF (429 when none is free).
    return this.reports.admit(user.organizationId, async (draw) => {
      const search = await this.searches.findByHashedId(searchHash, user.organizationId);
      if (!search) throw notFound('Search not found.');
      const ids = resultIds && [...new Set(resultIds)];
      const minorsAllowed = await this.minorGate.isLawEnforcement(user.organizationId);
      const rows = await this.searches.findResults(search.id, minorsAllowed, ids);
      // Ids of another search, or removed ones, are not found: the report is all or nothing.
      if (ids && rows.length !== ids.length) throw notFound('Search results not found.');
      if (rows.length === 0) throw badRequest('This search has no results to report.');
      const [image, organization] = await Promise.all([
        search.has_face_image ? this.searches.findFaceImage(searchHash, user.organizationId) : null,
        this.organizations.findById(user.organizationId),
      ]);
      const name = defaultSaveName(search.created_at);
      const generatedAt = new Date();
      const pdf = await draw.savedSearch({
        organizationName: organization?.name ?? '',
        preparedBy: user.email,
        generatedAt,
        restricted: access.restricted,
        savedSearch: {
          saved: false,
          name,
          description: '',
          type: search.type,
          createdAt: search.created_at,
          image,
          // Without chosen ids the rows are already every shown result.
          resultCount: ids ? await this.searches.countShownResults(search.id, minorsAllowed) : rows.length,
          addedFaceCount: search.added_face_ids.length,
          otherFaceCount: search.other_face_count,
        },
        results: await Promise.all(
          rows.map(async (row) => ({
            similarity: row.similarity,
            scoreModel: row.scoreModel,
            crawledAt: row.crawledAt,
            sourceTitle: row.sourceTitle,
            imageUrl: row.imageUrl,
            sourceUrl: row.sourceUrl,
            thumbnail: row.imageId
              ? await this.thumbnailOf(row.imageId, user.organizationId, minorsAllowed).catch(() => null)
              : null,
            face: row.faceBox && row.imageSize ? { box: row.faceBox, imageSize: row.imageSize } : null,
          })),
        ),
      });
      await this.audit.insert({
        actorUserId: user.id,
        organizationId: user.organizationId,
        action: 'search.report',
        target: `search:${searchHash}`,
        detail: { results: rows.length },
      });
      return { pdf, fileName: searchReportFileName(name, generatedAt) };
    });
  }

  async removeRecords(
    user: AuthUser,
    searchHash: string,
    recordHashes: string[],
  ): Promise<{ removed: number }> {
    const search = await this.searches.findByHashedId(searchHash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    return { removed: await this.searches.markResultsRemoved(search.id, recordHashes) };
  }

  /**
   * The thumbnail JPEG of an indexed image (stored relative to DATA_DIR), for users with search access
   * whose organization's searches returned the image; 404 otherwise, as for an image that does not exist.
   */
  async thumbnail(user: AuthUser, imageId: number): Promise<Buffer> {
    await this.access.require(user);
    return this.thumbnailOf(
      imageId,
      user.organizationId,
      await this.minorGate.isLawEnforcement(user.organizationId),
    );
  }

  /** The thumbnail, for a caller that has already checked search access (a report reads one per result). */
  private async thumbnailOf(
    imageId: number,
    organizationId: number,
    minorsAllowed: boolean,
  ): Promise<Buffer> {
    const row = await this.searches.findThumbnailPathForOrganization(imageId, organizationId, minorsAllowed);
    if (!row?.thumbnail_path) throw notFound('Thumbnail not found.');
    const bytes = await this.blobs.get(row.thumbnail_path);
    if (!bytes) throw notFound('Thumbnail not found.');
    return bytes;
  }

  /** The index's hits above the model's threshold that this search may return and wants, best first. */
  private indexHits(
    query: Float32Array,
    model: string,
    minorsAllowed: boolean,
    wanted: (faceIds: number[]) => Promise<Set<number>>,
  ) {
    return visibleFaceHits(this.index, this.searches, query, {
      model,
      limit: MAX_INDEX_HITS,
      minSimilarity: matchThresholdOf(model),
      minorsAllowed,
      wanted,
    });
  }

  /** Where these faces were seen, on pages of the search's kind only. */
  private async sightingsOfKind(faceIds: number[], type: SearchType) {
    const social = type === 'SOCIAL_MEDIA_SEARCH';
    return (await this.searches.findSightings(faceIds)).filter(
      (sighting) => this.isSocialMedia(sighting.sourceUrl) === social,
    );
  }

  private isSocialMedia(url: string): boolean {
    return isSocialMediaUrl(url, this.socialMediaHosts);
  }
}

/** A page on one of the social-media hosts (or a subdomain of one): what a social-media search keeps. */
export function isSocialMediaUrl(url: string, socialMediaHosts: readonly string[]): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return socialMediaHosts.some((social) => host === social || host.endsWith(`.${social}`));
}

const searchImageUrl = (searchHash: string) => `/api/search/${searchHash}/image`;

function resultView(r: StoredSearchResult, restricted: boolean): SearchResultView {
  return {
    id: r.id,
    hash: r.recordHash,
    group: r.groupKey,
    thumbnailUrl: `/api/thumbnails/${r.imageId}`,
    // Trial plans see where a face was found, not the original sources (spec 001 §6).
    imageUrl: restricted ? null : r.imageUrl,
    sourceUrl: restricted ? null : r.sourceUrl,
    sourceTitle: r.sourceTitle,
    crawledAt: r.crawledAt.toISOString(),
    similarity: answeredSimilarity(r.similarity),
    scoreModel: r.scoreModel,
    faceBox: r.faceBox,
    imageSize: r.imageSize,
  };
}

function wholePixels(box: { x: number; y: number; width: number; height: number }) {
  return {
    x: Math.round(box.x),
    y: Math.round(box.y),
    width: Math.round(box.width),
    height: Math.round(box.height),
  };
}
const faceGone = () => badRequest(SEARCH_MESSAGES.faceGone);

/**
 * Copies of one photo across sites (near-identical perceptual hashes) form one group, whose key is the
 * first image's content hash. Union-find over the result's images: a few hundred at most.
 */
function groupSamePhotos(sightings: FaceSighting[]): Map<number, string> {
  const images = [...new Map(sightings.map((s) => [s.imageId, s])).values()];
  const parent = images.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  // Each 64-bit hash read once as two 32-bit halves: comparing a pair is then two XORs and popcounts
  // (about 125,000 pairs for 500 images) instead of parsing both hashes into BigInts every time.
  const high = new Int32Array(images.length);
  const low = new Int32Array(images.length);
  // 0: no hash; 1: perceptualHash's 16 hex digits, read into high/low; 2: another form (compared slowly).
  const kind = images.map(({ phash }, i) => {
    if (!phash) return 0;
    if (!/^[0-9a-f]{16}$/i.test(phash)) return 2;
    high[i] = Number.parseInt(phash.slice(0, 8), 16) | 0;
    low[i] = Number.parseInt(phash.slice(8), 16) | 0;
    return 1;
  });
  for (let i = 0; i < images.length; i++) {
    if (kind[i] === 0) continue;
    for (let j = i + 1; j < images.length; j++) {
      if (kind[j] === 0) continue;
      const distance =
        kind[i] === 1 && kind[j] === 1
          ? popcount32(high[i]! ^ high[j]!) + popcount32(low[i]! ^ low[j]!)
          : hammingDistance(images[i]!.phash!, images[j]!.phash!);
      if (distance <= NEAR_DUPLICATE_MAX_DISTANCE) parent[root(j)] = root(i);
    }
  }
  return new Map(images.map((image, i) => [image.imageId, images[root(i)]!.contentHash.slice(0, 16)]));
}

/** Number of set bits of a 32-bit integer. */
function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Whether every picture is the crop of one of `faces`, no face's crop counted for two pictures. */
function eachPictureOfAnotherFace(
  faces: readonly { cropSha256?: Buffer | undefined }[],
  pictures: readonly string[],
): boolean {
  const unmatched = [...faces];
  return pictures.every((picture) => {
    const at = unmatched.findIndex((face) => isCropOf(face, picture));
    if (at >= 0) unmatched.splice(at, 1);
    return at >= 0;
  });
}
