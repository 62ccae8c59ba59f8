import { SEARCH_MESSAGES } from '@osint/contract/search';
import { isPossibleMinor } from '../face/age/possible-minor.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { CrawledImage, CrawledPage, ImageOccurrence } from '../crawler/crawler.ts';
import type { AnalyzedFace, FaceEngine } from '../face/face-engine.ts';
import { pairFaces } from '../face/face-box-overlap.ts';
import { ImageDecodeError } from '../face/image-decode.ts';
import type { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { isIndexableFace, matchThresholdOf, similarity } from '../face/similarity.ts';
import { thumbnailKey, type BlobStore } from '../lib/blob-store.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type { FaceInImage, WebIndexRepository } from '../repositories/web-index.repository.ts';
import type { QueryFaceTokens } from './query-face-token.ts';

/** Faces compared per query while looking for indexed faces that match a new opt-out. */
const OPT_OUT_SCAN_BATCH = 5_000;

export interface IndexedImage {
  imageId: number;
  /** Faces added to the index (large enough, not opted out). */
  newFaces: number;
  /** Faces refused because they match an opt-out. */
  refusedFaces: number;
}

export interface OptOutResult {
  id: number;
  /** Indexed faces removed because they match the opted-out face (the face itself included). */
  removedFaces: number;
}

export interface OptOutRow {
  id: number;
  reason: string;
  modelId: string;
  createdAt: string;
  createdBy: string | null;
}

/** Postgres text cannot hold NUL; some pages contain it. */
const clean = (value: string) => value.replace(/\0/g, '');

/**
 * Turns what the crawler found into the index: pages, images (analysed once per distinct content),
 * where each image was seen, faces with their descriptors, and the change log the vector indexes
 * follow. Also keeps the opt-out rule: a face matching an opt-out is never indexed, and opting a face
 * out removes every indexed face that matches it.
 */
export class IndexerService {
  constructor(
    private readonly webIndex: WebIndexRepository,
    private readonly faceEngine: LazyFaceEngine,
    /** Thumbnails, in the database every process shares. */
    private readonly blobs: BlobStore,
    private readonly audit: AuditRepository,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    /** Faces of recent uploads, for opt-outs by photo. */
    private readonly queryFaces?: Pick<QueryFaceTokens, 'open'>,
  ) {}

  /** True while no face has been indexed (the first start's demo crawl depends on it). */
  async isIndexEmpty(): Promise<boolean> {
    return !(await this.webIndex.hasAnyFace());
  }

  /** For the crawler: bytes already analysed by an earlier crawl are not analysed again. */
  isKnownContentHash(sha256: string): Promise<boolean> {
    return this.webIndex.isAnalysedContent(sha256);
  }

  /**
   * Stores a page and links the images it shows that are already stored under the same URL; images the
   * page no longer shows are unlinked. The others are recorded as pending in the same transaction, and
   * indexImage links them when it stores the image: a crawl stopped (or crashed) before it fetched the
   * image loses no page that showed it. `crawlId` is the crawl that found the page: its pending rows go
   * when that crawl knows it will not store their image (forgetUnfetchedImages).
   */
  async indexPage(page: CrawledPage, crawlId: string | null = null): Promise<void> {
    const imageUrls = page.images.map((image) => image.url);
    await this.webIndex.transaction(async (tx) => {
      const pageId = await tx.upsertPage({
        url: page.finalUrl,
        title: clean(page.title),
        text: clean(page.text),
        lang: page.lang ?? null,
        contentHash: page.contentHash,
        crawledAt: page.fetchedAt,
      });
      await tx.deleteOccurrencesOfPageExcept(pageId, imageUrls);
      const known = await tx.findImageIdsByUrls(imageUrls);
      const seen = page.images.map((image) => ({
        pageId,
        imageUrl: image.url,
        alt: clean(image.alt),
        caption: clean(image.caption),
        nearbyText: clean(image.nearbyText),
        seenAt: page.fetchedAt,
      }));
      await tx.upsertOccurrences(
        seen.flatMap((o) => {
          const imageId = known.get(o.imageUrl);
          return imageId === undefined ? [] : [{ ...o, imageId }];
        }),
      );
      await tx.replacePendingOccurrencesOfPage(
        pageId,
        crawlId,
        seen.filter((o) => !known.has(o.imageUrl)),
      );
    });
  }

  /**
   * Forgets a page that was taken down (404, 410) or opted out (noindex, robots.txt) since it was indexed,
   * with every image occurrence it recorded: a photo it showed is no longer found through it. An image left
   * with no occurrence stays stored (its content is not analysed again if it shows up elsewhere), but
   * search shows only faces seen on a page (SearchRepository.findSightings), so it is no longer found.
   */
  async forgetPage(url: string): Promise<void> {
    await this.webIndex.deletePageByUrl(url);
  }

  /**
   * Forgets where images were seen that crawl `crawlId` will not store after all: `imageUrl` (skipped or
   * failed for good), or every image its pages showed once the crawl has ended (images it never fetched:
   * hosted elsewhere, beyond its budget). Without this, pending occurrences of such images stay forever.
   * Images still queued in a crawl that may yet run keep theirs. Returns how many were forgotten.
   */
  forgetUnfetchedImages(crawlId: string, imageUrl?: string): Promise<number> {
    return this.webIndex.deletePendingOccurrencesOfUnfetchedImages(crawlId, imageUrl);
  }

  /**
   * Stores an image and where it was seen: the pages the crawler names, and those recorded as pending
   * by indexPage (moved into image_occurrences in the same transaction). New content (the crawler
   * analysed it) goes through the face engine; content stored by an earlier crawl only gains occurrences.
   */
  async indexImage(image: CrawledImage, pages: readonly ImageOccurrence[]): Promise<IndexedImage> {
    const pageIds = await this.webIndex.findPageIdsByUrls(pages.map((p) => p.pageUrl));
    const named = pages.flatMap((p) => {
      const pageId = pageIds.get(p.pageUrl);
      return pageId === undefined
        ? []
        : [
            {
              pageId,
              imageUrl: image.url,
              alt: clean(p.alt),
              caption: clean(p.caption),
              nearbyText: clean(p.nearbyText),
              seenAt: image.fetchedAt,
            },
          ];
    });
    const link = async (tx: WebIndexRepository, imageId: number): Promise<void> => {
      const pending = await tx.deletePendingOccurrences(image.url);
      await tx.upsertOccurrences([...pending, ...named].map((o) => ({ ...o, imageId })));
    };

    const { analysis } = image;
    if (!analysis) {
      const imageId = await this.webIndex.findImageIdByContentHash(image.sha256);
      // The crawler thought it known, but no row holds it (its first copy failed to index): retry later.
      if (imageId === undefined) throw new Error(`image ${image.sha256} is not stored yet`);
      await this.webIndex.transaction((tx) => link(tx, imageId));
      return { imageId, newFaces: 0, refusedFaces: 0 };
    }

    const engine = await this.faceEngine.get();
    const detected = await this.detectFaces(engine, image);
    const indexable = detected.filter((face) => isIndexableFace(face.box));
    const thumbnailPath = await this.writeThumbnail(image.sha256, analysis.thumbnail);

    return this.webIndex.transaction(async (tx) => {
      // Under the log lock, an opt-out added by another process is either visible here or will see
      // (and remove) the faces inserted below.
      await tx.lockFaceIndexLog();
      // A reindex switched models (under the same lock) while this image was analysed: its descriptors
      // are of the old model, which nothing searches any more. The crawler retries the image, and the
      // engine of the new model analyses it.
      const active = await tx.findActiveModelId();
      if (active !== undefined && active !== engine.modelId) {
        throw new Error(`the face model changed to ${active} while the image was analysed`);
      }
      const optOuts = await tx.findOptOutDescriptors(engine.modelId);
      const threshold = matchThresholdOf(engine.modelId);
      const kept = indexable.filter(
        (face) => !optOuts.some((optOut) => similarity(optOut, face.descriptor) >= threshold),
      );
      const imageId = await tx.insertImage({
        contentHash: image.sha256,
        phash: analysis.phash,
        width: analysis.width,
        height: analysis.height,
        mimeType: image.mimeType,
        thumbnailPath,
        faceCount: kept.length,
        indexedAt: image.fetchedAt,
      });
      if (imageId === undefined) {
        // Another crawl stored the same bytes meanwhile, with its faces: only link this copy.
        const existing = await tx.findImageIdByContentHash(image.sha256);
        await link(tx, existing!);
        return { imageId: existing!, newFaces: 0, refusedFaces: 0 };
      }
      await tx.insertFaces(
        kept.map((face) => ({
          imageId,
          box: face.box,
          score: face.score,
          quality: face.quality,
          descriptor: face.descriptor,
          modelId: engine.modelId,
          possibleMinor: isPossibleMinor(face.age),
        })),
      );
      await link(tx, imageId);
      return { imageId, newFaces: kept.length, refusedFaces: indexable.length - kept.length };
    });
  }

  /**
   * Opts a face out: its descriptor joins the opt-out list and every indexed face of the same model
   * that matches it is deleted (with a `remove` in the change log), so the person disappears from
   * search now and is refused by every later crawl. The face is an indexed one (`faceId`) or one the
   * admin found in an uploaded photo (`faceHash` from upload-image: a person asking to be removed
   * usually sends a photo, not a face of the index).
   *
   * While a reindex builds another model beside the active one, the faces of that model in the same
   * images as the removed ones (overlapping boxes: the same person) are removed too, and their
   * descriptors become opt-outs of that model derived from this one: the person stays removed after the
   * switch, and crawls under the new model refuse them.
   */
  async optOutFace(request: {
    faceId?: number | undefined;
    faceHash?: string | undefined;
    reason: string;
    admin: { id: number; organizationId: number } | null;
    ip?: string | null;
  }): Promise<OptOutResult> {
    const { reason } = request;
    const adminId = request.admin?.id ?? null;
    const { descriptor, modelId, faceId } = await this.faceToOptOut(request);
    const matches = new Set(faceId === undefined ? [] : [faceId]);
    const threshold = matchThresholdOf(modelId);
    const scan = async (repository: WebIndexRepository, afterId: number): Promise<number> => {
      let lastId = afterId;
      for (;;) {
        const batch = await repository.findDescriptorsAfter(modelId, lastId, OPT_OUT_SCAN_BATCH);
        for (const candidate of batch) {
          if (similarity(descriptor, candidate.descriptor) >= threshold) matches.add(candidate.id);
        }
        if (batch.length === 0) return lastId;
        lastId = batch.at(-1)!.id;
        if (batch.length < OPT_OUT_SCAN_BATCH) return lastId;
      }
    };
    // Most of the scan runs without the lock, so crawls keep indexing meanwhile. Faces are inserted
    // under the lock, so ids grow in commit order: under the lock, only faces after the scan remain.
    const scannedUpTo = await scan(this.webIndex, 0);
    const result = await this.webIndex.transaction(async (tx) => {
      await tx.lockFaceIndexLog();
      await scan(tx, scannedUpTo);
      const id = await tx.insertOptOut({ descriptor, modelId, reason, createdBy: adminId });
      const removed = await tx.deleteOptedOutFaces([...matches]);
      await this.removeOtherModelsTwins(tx, removed, { id, modelId, reason, createdBy: adminId });
      const orphaned = await tx.releaseOrphanedThumbnails([...new Set(removed.map((f) => f.imageId))]);
      return { id, removedFaces: removed.length, orphaned };
    });
    // After the commit: a failed transaction must not have deleted thumbnails the index still names.
    await this.blobs.delete(result.orphaned).catch((error: unknown) => {
      this.log.warn({ err: error, thumbnails: result.orphaned }, 'could not delete opted-out thumbnails');
    });
    await this.audit.insert({
      actorUserId: adminId,
      organizationId: null,
      action: 'face.opt_out',
      target: faceId === undefined ? 'uploaded photo' : String(faceId),
      detail: { optOutId: result.id, removedFaces: result.removedFaces },
      ip: request.ip ?? null,
    });
    return { id: result.id, removedFaces: result.removedFaces };
  }

  private async faceToOptOut(request: {
    faceId?: number | undefined;
    faceHash?: string | undefined;
    admin: { id: number; organizationId: number } | null;
  }): Promise<{ descriptor: Float32Array; modelId: string; faceId?: number }> {
    if (request.faceHash !== undefined) {
      const face =
        request.admin && (await this.queryFaces?.open(request.faceHash, request.admin.organizationId));
      // A photo analysed before a reindex switched models: analysed again, it gives a descriptor of the
      // model the index uses now.
      const active = face && (await this.webIndex.findActiveModelId());
      if (!face || (active !== undefined && face.modelId !== active)) {
        throw badRequest(SEARCH_MESSAGES.faceGone);
      }
      return { descriptor: face.descriptor, modelId: face.modelId };
    }
    const face = request.faceId === undefined ? undefined : await this.webIndex.findFaceById(request.faceId);
    if (!face) throw notFound('Face not found.');
    return { descriptor: face.descriptor, modelId: face.model_id, faceId: face.id };
  }

  /**
   * Faces of other models in the images of `removed`, paired with them by box: each is deleted, and its
   * descriptor becomes an opt-out of its own model derived from `optOut`. Call in the opt-out's
   * transaction (it holds the log lock, so a reindex storing an image's faces runs before or after).
   */
  private async removeOtherModelsTwins(
    tx: WebIndexRepository,
    removed: readonly FaceInImage[],
    optOut: { id: number; modelId: string; reason: string; createdBy: number | null },
  ): Promise<void> {
    const others = await tx.findFacesOfOtherModels(
      [...new Set(removed.map((face) => face.imageId))],
      optOut.modelId,
    );
    if (others.length === 0) return;
    const twins: FaceInImage[] = [];
    for (const imageId of new Set(others.map((face) => face.imageId))) {
      const candidates = others.filter((face) => face.imageId === imageId);
      const pairs = pairFaces(
        candidates,
        removed.filter((face) => face.imageId === imageId),
      );
      candidates.forEach((face, i) => {
        if (pairs[i] !== undefined) twins.push(face);
      });
    }
    for (const twin of twins) {
      await tx.insertOptOut({
        descriptor: twin.descriptor,
        modelId: twin.modelId,
        reason: optOut.reason,
        createdBy: optOut.createdBy,
        derivedFrom: optOut.id,
      });
    }
    await tx.deleteOptedOutFaces(twins.map((twin) => twin.id));
  }

  async listOptOuts(page: { page: number; pageSize: number }): Promise<OptOutRow[]> {
    const rows = await this.webIndex.findOptOuts({
      limit: page.pageSize,
      offset: (page.page - 1) * page.pageSize,
    });
    return rows.map((row) => ({
      id: row.id,
      reason: row.reason,
      modelId: row.model_id,
      createdAt: row.created_at.toISOString(),
      createdBy: row.created_by_email,
    }));
  }

  private async detectFaces(engine: FaceEngine, image: CrawledImage): Promise<AnalyzedFace[]> {
    try {
      // In the background: an analyst's upload goes ahead of the crawl's queued images.
      return (await engine.analyze(image.bytes, { background: true })).faces;
    } catch (error) {
      // sharp read it for the thumbnail, but the face engine's stricter decoder refuses it (a format
      // it does not take, too many pixels): index the image without faces rather than retry forever.
      if (error instanceof ImageDecodeError) {
        this.log.warn({ url: image.url, err: error }, 'image not analysed for faces');
        return [];
      }
      throw error;
    }
  }

  /** Stores the thumbnail under its key (thumbnailKey) and returns the key, which images.thumbnail_path keeps. */
  private async writeThumbnail(sha256: string, thumbnail: Buffer): Promise<string> {
    const key = thumbnailKey(sha256);
    try {
      await this.blobs.put(key, thumbnail);
    } catch (error) {
      // Nothing is stored for the image, so the crawler retries it, and a later crawl indexes it (issue 8).
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Could not save the thumbnail ${key}: ${reason}`, { cause: error });
    }
    return key;
  }
}
