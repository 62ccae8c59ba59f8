import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { DEFAULT_CRAWL_OPTIONS, crawlOptionsFromConfig } from '../crawler/crawl-options.ts';
import { decodeHtml, extractPage } from '../crawler/html-extract.ts';
import { safeFetch } from '../crawler/safe-fetch.ts';
import { normalizeUrl } from '../crawler/url-normalize.ts';
import type {
  ExtractionAnalysis,
  ExtractionAnalyzer,
  FaceSightingInput,
  ImageOnPage,
  PageText,
  ResultInput,
  NameAssessment,
} from '../extractor/analysis-types.ts';
import { facePositionAmong } from '../extractor/face-position.ts';
import { matchThresholdOf, similarity } from '../face/similarity.ts';
import { newPublicId } from '../lib/secure-token.ts';
import { mailTemplates } from '../mail/mail-templates.ts';
import type {
  DataExtractionRepository,
  FaceOnPage,
  NewExtractionResult,
  SearchResultToAnalyse,
} from '../repositories/data-extraction.repository.ts';
import { matchedFaceOf } from '../repositories/search.repository.ts';
import { FaceModelMismatchError } from './face-index.service.ts';
import type { MailService } from './mail.service.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { BlobStore } from '../lib/blob-store.ts';
import { type FaceHitSearch, type PossibleMinorFaces, visibleFaceHits } from './visible-face-hits.ts';

/** Where the result's face stands among the faces of its photo (the caption may say who stands where). */
function positionInPhoto(row: SearchResultToAnalyse, spans: Map<number, { x: number; width: number }[]>) {
  if (row.face_box_x === null || row.face_box_width === null || row.image_id === null) return undefined;
  const inPhoto = spans.get(row.image_id) ?? [];
  return facePositionAmong({ x: row.face_box_x, width: row.face_box_width }, inPhoto);
}

export interface ExtractionJobPayload {
  extractionId: number;
}

/** The face index as the job needs it (FaceIndexService). */
export interface FaceLookup extends FaceHitSearch {
  /** The descriptor model searches use now; faces of another model are not looked up. */
  activeModelId(): Promise<string>;
}

/** Attempts of the job before the extraction is marked FAILED. */
export const EXTRACTION_MAX_ATTEMPTS = 3;
/** Other faces looked up per result page, and pages kept per face. */
const MAX_FACES_PER_PAGE = 12;
const MAX_SIGHTINGS_PER_FACE = 5;
const FACE_INDEX_LIMIT = 20;
const PROGRESS_INTERVAL_MS = 250;

function toDescriptor(bytes: Buffer): Float32Array {
  // Copied: a Buffer's offset inside its pool need not be a multiple of 4.
  const copy = new Uint8Array(bytes);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/**
 * The data-extractor.run job (spec 001 §2 AI data extractor): loads the pages around each result of the
 * search, finds the other faces on them and where else those faces appear, hands the texts to the
 * analysis, stores who the person is (flags, evidence, connections) and tells the organization.
 *
 * Idempotent and safe under two workers (a stale job claimed again while its first worker still runs):
 * only the first run to finish stores its results, and the mails go out once.
 */
export class ExtractionPipeline {
  constructor(
    private readonly extractions: DataExtractionRepository,
    private readonly faces: FaceLookup,
    private readonly analyzer: ExtractionAnalyzer,
    private readonly mail: MailService,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    /** Thumbnails of indexed images. */
    private readonly blobs: BlobStore,
    /** Which organizations may see faces flagged as possible minors. */
    private readonly minorGate: Pick<MinorGateService, 'isLawEnforcement'>,
    /** Which indexed faces are flagged (SearchRepository). */
    private readonly minors: PossibleMinorFaces,
  ) {}

  async runJob(payload: unknown): Promise<void> {
    const { extractionId } = payload as ExtractionJobPayload;
    const extraction = await this.extractions.findForJob(extractionId);
    // Deleted before the job ran.
    if (!extraction) return;
    if (extraction.state === 'PENDING') {
      const attempt = await this.extractions.startAttempt(extractionId);
      try {
        await this.extract(extractionId, extraction.search_id, extraction.organization_id);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (attempt >= EXTRACTION_MAX_ATTEMPTS) {
          this.log.error({ err: error, extractionId }, 'data extraction failed for good');
          await this.extractions.markFailed(extractionId, message);
          return;
        }
        throw error;
      }
    }
    // The owner and the subscribers hear of it once, even when a retry runs after the results were stored.
    await this.notify(extractionId);
  }

  private async extract(
    extractionId: number,
    searchId: number | null,
    organizationId: number,
  ): Promise<void> {
    // The results read, and the faces seen with the subject looked up in the index as a search of them
    // would be: faces flagged as possible minors only for verified law enforcement (issue 13).
    const minorsAllowed = await this.minorGate.isLawEnforcement(organizationId);
    // No search left: only a search stored before searches were kept for the copies waiting for them (a
    // search is not deleted, by hand or with its user, while an extraction of it is PENDING).
    const rows =
      searchId === null ? [] : await this.extractions.findSearchResultsToAnalyse(searchId, minorsAllowed);
    const { inputs, sightings } = await this.gather(extractionId, rows, minorsAllowed);
    const analysis = await this.analyzer.analyze(inputs, sightings);
    const stored = await this.extractions.complete(extractionId, {
      results: await this.toResults(rows, analysis),
      wikipedia: analysis.wikipedia,
      bestName: analysis.bestName,
      namesFound: analysis.namesFound,
    });
    if (!stored) this.log.info({ extractionId }, 'data extraction finished by another worker or deleted');
  }

  /** The texts of every result and the sightings of the other faces on its page, with progress. */
  private async gather(extractionId: number, rows: readonly SearchResultToAnalyse[], minorsAllowed: boolean) {
    const pageIds = [...new Set(rows.flatMap((row) => (row.page_id === null ? [] : [row.page_id])))];
    const faceIds = [...new Set(rows.flatMap((row) => (row.face_id === null ? [] : [row.face_id])))];
    // Two queries for the whole search, not two per result.
    const imageIds = [...new Set(rows.flatMap((row) => (row.image_id === null ? [] : [row.image_id])))];
    // Only faces of the model searches use are compared (while a reindex runs, the faces of the model it
    // builds sit beside them; vectors of two models are never compared).
    const model = await this.faces.activeModelId();
    const [facesOnPages, ownFaces, captioned, faceSpans] = await Promise.all([
      // One more than kept: the result's own face is among them.
      this.extractions.findFacesOnPages(pageIds, MAX_FACES_PER_PAGE + 1, model),
      this.extractions.findFaceDescriptors(faceIds),
      this.extractions.findCaptionedOccurrences(imageIds),
      this.extractions.findFaceSpansOfImages(imageIds, model),
    ]);
    const ownDescriptors = new Map(
      ownFaces
        .filter((face) => face.model_id === model)
        .map((face) => [face.id, toDescriptor(face.descriptor)]),
    );
    const appearances = new Map<number, Promise<FaceSightingInput[]>>();
    const inputs: ResultInput[] = [];
    const sightings: FaceSightingInput[] = [];
    let lastProgress = 0;
    await this.extractions.setProgress(extractionId, 0, rows.length);
    for (const [index, row] of rows.entries()) {
      const { page, image } = await this.textsOf(row);
      // A home page or a listing shows the photo as a teaser, without the caption its article gives it:
      // that caption says who is in the photo.
      const article = row.image_id === null ? undefined : captioned.get(row.image_id);
      const teaser =
        row.page_id !== null && !image.caption && article !== undefined && article.page_id !== row.page_id;
      if (teaser) {
        image.caption = article.caption;
        image.captionUrl = article.page_url;
      }
      inputs.push({
        key: row.record_hash,
        page,
        image,
        similarity: row.similarity,
        crawledAt: row.crawled_at,
        teaser,
        facePosition: positionInPhoto(row, faceSpans),
      });
      if (row.page_id !== null) {
        // Faces seen with the subject: in the same photo, or in another captioned figure of the same
        // article; never the other teasers of a listing.
        const others = (facesOnPages.get(row.page_id) ?? [])
          .filter((face) => face.id !== row.face_id)
          .filter((face) => face.image_id === row.image_id || (face.captioned && Boolean(row.caption)))
          .filter((face) => minorsAllowed || face.possible_minor !== true)
          .slice(0, MAX_FACES_PER_PAGE);
        const own = row.face_id === null ? undefined : ownDescriptors.get(row.face_id);
        sightings.push(...(await this.sightingsOf(row, others, own, { model, minorsAllowed }, appearances)));
      }
      if (Date.now() - lastProgress >= PROGRESS_INTERVAL_MS || index === rows.length - 1) {
        lastProgress = Date.now();
        await this.extractions.setProgress(extractionId, index + 1, rows.length);
      }
    }
    return { inputs, sightings };
  }

  private async toResults(
    rows: readonly SearchResultToAnalyse[],
    analysis: ExtractionAnalysis,
  ): Promise<NewExtractionResult[]> {
    const byKey = new Map(analysis.results.map((result) => [result.key, result]));
    const results: NewExtractionResult[] = [];
    for (const row of rows) {
      const found = byKey.get(row.record_hash);
      results.push({
        hashedId: newPublicId(),
        recordHash: row.record_hash,
        rank: row.rank,
        similarity: row.similarity,
        scoreModel: row.score_model_id,
        imageUrl: row.image_url,
        sourceUrl: row.source_url,
        sourceTitle: row.source_title,
        crawledAt: row.crawled_at,
        thumbnail: await this.readThumbnail(row.thumbnail_path),
        faceId: row.face_id === null ? null : Number(row.face_id),
        goneFaceWasMinor: row.gone_face_was_minor,
        ...matchedFaceOf(row),
        personName: found?.personName ?? '',
        personDesc: found?.personDesc ?? '',
        politician: found?.politician ?? false,
        sanctions: found?.sanctions ?? false,
        criminal: found?.criminal ?? false,
        alternativeNames: found?.alternativeNames ?? [],
        evidence: found?.evidence ?? [],
        connections: (found?.connections ?? []).map((connection) => ({
          hashedId: newPublicId(),
          ...connection,
        })),
      });
    }
    return results;
  }

  /**
   * A result renamed by hand: what its page (from the index, or fetched again) and the watch-lists say
   * about the new name, so that its flags and evidence are the new name's and not the old one's.
   */
  async assessName(
    searchId: number | null,
    result: { record_hash: string; source_url: string; image_url: string; source_title: string },
    personName: string,
    base: Pick<ResultInput, 'similarity' | 'crawledAt'>,
  ): Promise<NameAssessment> {
    const [indexed] =
      searchId === null
        ? []
        : // A result the extraction already holds: only its page's texts are read again.
          await this.extractions.findSearchResultsToAnalyse(searchId, true, result.record_hash);
    let texts: { page: PageText; image: ImageOnPage };
    if (indexed) texts = await this.textsOf(indexed);
    else {
      // The search is gone (or the result removed from it): the page is read again.
      const fetched = await this.refetchPage(result.source_url, result.image_url);
      texts = {
        page: {
          url: result.source_url,
          title: fetched?.title || result.source_title,
          text: fetched?.text ?? '',
        },
        image: fetched?.image ?? { imageUrl: result.image_url, alt: '', caption: '', nearbyText: '' },
      };
    }
    return this.analyzer.assessName({ key: result.record_hash, ...texts, ...base }, personName);
  }

  /** The page and image texts of a result: from the index, or fetched again when the page is gone. */
  private async textsOf(row: SearchResultToAnalyse): Promise<{ page: PageText; image: ImageOnPage }> {
    const image: ImageOnPage = {
      imageUrl: row.image_url,
      alt: row.alt ?? '',
      caption: row.caption ?? '',
      nearbyText: row.nearby_text ?? '',
    };
    if (row.page_id !== null) {
      return {
        page: { url: row.source_url, title: row.page_title ?? row.source_title, text: row.page_text ?? '' },
        image,
      };
    }
    const fetched = await this.refetchPage(row.source_url, row.image_url);
    return {
      page: { url: row.source_url, title: fetched?.title || row.source_title, text: fetched?.text ?? '' },
      image: fetched?.image ?? image,
    };
  }

  /**
   * Loads a page again with the crawler's guards (SSRF refusal, timeouts, size caps) and extracts its
   * text and the texts around the image. A page that cannot be read leaves the result with its title.
   */
  private async refetchPage(pageUrl: string, imageUrl: string) {
    const options = { ...DEFAULT_CRAWL_OPTIONS, ...crawlOptionsFromConfig(this.config) };
    try {
      const port = new URL(pageUrl).port;
      const result = await safeFetch(pageUrl, {
        userAgent: options.userAgent,
        allowPrivate: options.allowPrivate,
        trustedAddresses: this.config.crawl.trustedAddresses,
        // The page was crawled from this port once: the admin's seed allowed it.
        allowedPorts: port ? [Number(port)] : [],
        connectTimeoutMs: options.connectTimeoutMs,
        totalTimeoutMs: options.totalTimeoutMs,
        maxBytes: options.maxHtmlBytes,
        maxRedirects: options.maxRedirects,
        accept: 'text/html,application/xhtml+xml',
        acceptContentType: (type) => type === 'text/html' || type === 'application/xhtml+xml',
      });
      if (result.status < 200 || result.status >= 300) return undefined;
      const extracted = extractPage(
        decodeHtml(result.body, result.headers['content-type'] as string | undefined),
        result.url,
        {
          maxTextChars: options.maxTextChars,
          maxNearbyChars: options.maxNearbyChars,
          maxImages: options.maxImagesPerPage,
          productToken: options.productToken,
        },
      );
      // A page that now asks not to be indexed is not read either.
      if (extracted.robots.noindex) return undefined;
      const wanted = normalizeUrl(imageUrl) ?? imageUrl;
      const found = extracted.images.find((img) => img.url === wanted);
      return {
        title: extracted.title,
        text: extracted.text,
        image: found
          ? { imageUrl, alt: found.alt, caption: found.caption, nearbyText: found.nearbyText }
          : undefined,
      };
    } catch (error) {
      this.log.warn({ err: error, url: pageUrl }, 'data extractor could not fetch a page again');
      return undefined;
    }
  }

  /**
   * The other faces on a result's page, each looked up in the face index: every other page that shows
   * the same face may say who it is ("seen with" by face). Lookups are shared by the whole job.
   */
  private async sightingsOf(
    row: SearchResultToAnalyse,
    others: readonly FaceOnPage[],
    ownDescriptor: Float32Array | undefined,
    lookup: { model: string; minorsAllowed: boolean },
    appearances: Map<number, Promise<FaceSightingInput[]>>,
  ): Promise<FaceSightingInput[]> {
    const { model } = lookup;
    const found: FaceSightingInput[] = [];
    for (const face of others) {
      if (face.model_id !== model) continue;
      const descriptor = toDescriptor(face.descriptor);
      // The subject again (a second photo of them on the page) is not a connection.
      if (ownDescriptor && similarity(ownDescriptor, descriptor) >= matchThresholdOf(model)) continue;
      let pages = appearances.get(face.id);
      if (!pages) {
        pages = this.appearancesOf(face.id, face.image_id, descriptor, lookup);
        appearances.set(face.id, pages);
      }
      for (const sighting of await pages) {
        if (sighting.page.url === row.source_url) continue;
        found.push({ ...sighting, resultKey: row.record_hash });
      }
    }
    return found;
  }

  private async appearancesOf(
    faceId: number,
    imageId: number,
    descriptor: Float32Array,
    { model, minorsAllowed }: { model: string; minorsAllowed: boolean },
  ): Promise<FaceSightingInput[]> {
    let hits: Array<{ faceId: number; similarity: number }>;
    try {
      hits = await visibleFaceHits(this.faces, this.minors, descriptor, {
        model,
        limit: FACE_INDEX_LIMIT,
        minSimilarity: matchThresholdOf(model),
        minorsAllowed,
      });
    } catch (error) {
      // A reindex switched models during the job: this face is only looked up on its own pages.
      if (!(error instanceof FaceModelMismatchError)) throw error;
      hits = [];
    }
    const faceIds = [...new Set([faceId, ...hits.map((hit) => hit.faceId)])];
    const pages = await this.extractions.findFaceAppearances(faceIds, MAX_SIGHTINGS_PER_FACE);
    return pages.map((a) => ({
      resultKey: '',
      page: { url: a.url, title: a.title, text: a.text },
      image: { imageUrl: a.image_url, alt: a.alt, caption: a.caption, nearbyText: a.nearby_text },
      face: { faceId, imageId },
    }));
  }

  private async readThumbnail(relative: string | null): Promise<Buffer | null> {
    if (!relative) return null;
    // A thumbnail gone from the index (re-crawl, opt-out) leaves the result without one.
    return this.blobs.get(relative);
  }

  /**
   * E-mails the owner and the organization's newsletter subscribers that the extraction is done. The
   * e-mails are queued in the transaction that records the announcement: two workers finishing together
   * send it once, and a worker killed in the middle leaves it to the next run (issue 8).
   */
  private async notify(extractionId: number): Promise<void> {
    await this.extractions.announce(extractionId, async (row, recipients, jobs) => {
      const link = `${this.config.publicUrl}/data-extractor/${row.hashed_id}`;
      const owner = recipients.find((r) => r.id === row.user_id);
      for (const recipient of recipients) {
        await this.mail.queueWith(
          jobs,
          recipient.email,
          recipient.id === row.user_id
            ? mailTemplates.extractionDone(row.name, row.result_count, link)
            : mailTemplates.extractionDoneForTeam(row.name, owner?.email ?? null, link),
          row.organization_id,
        );
      }
    });
  }
}
