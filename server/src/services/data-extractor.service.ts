import type { BlobStore } from '../lib/blob-store.ts';
import { answeredSimilarity } from '@osint/contract/match-score';
import {
  EXTRACTION_ESTIMATE_MS,
  EXTRACTION_NAME_MAX_LENGTH,
  EXTRACTOR_MESSAGES,
  defaultExtractionName,
  type ExtractedResult,
  type ExtractionDetailsResponse,
  type ExtractionListItem,
  type ExtractionListResponse,
  type ExtractionSort,
  type ExtractionSummary,
  type FlagEvidence,
  type NameStatistic,
  type SeenWithConnection,
  type StartExtractionRequest,
  type WikipediaResult,
} from '@osint/contract/data-extractor';
import { QUEUES, type JobQueue } from '../jobs/job-queue.ts';
import { searchedFacePicture } from '../lib/face-image.ts';
import { badRequest, notFound } from '../lib/http-error.ts';
import { newPublicId } from '../lib/secure-token.ts';
import { extractionReportFileName, type ExtractionReportData } from '../reports/extraction-report.ts';
import type { ReportRenderer } from './report-renderer.ts';
import type { AuditRepository } from '../repositories/audit.repository.ts';
import type {
  DataExtractionRepository,
  ExtractionResultRow,
  ExtractionRow,
  ExtractionScope,
} from '../repositories/data-extraction.repository.ts';
import { matchedFaceForReport, type SearchRepository } from '../repositories/search.repository.ts';
import type { AccessService } from './access.service.ts';
import {
  EXTRACTION_MAX_ATTEMPTS,
  type ExtractionJobPayload,
  type ExtractionPipeline,
} from './extraction-pipeline.ts';
import type { MinorGateService } from './minor-gate.service.ts';
import type { AuthUser } from './session.service.ts';

/**
 * Who is asking: a user sees the organization's extractions by hashedId, with original sources withheld
 * when restricted; an admin sees every organization's by numeric id, read-only (spec 001 §2 Admin area).
 */
export type ExtractionViewer =
  | {
      kind: 'user';
      user: AuthUser;
      restricted: boolean;
      /** Sees results flagged as possible minors: verified law enforcement, now (not when copied). */
      minorsAllowed: boolean;
    }
  | { kind: 'admin'; user: AuthUser };

export interface ExtractionListQuery {
  pageNumber: number;
  pageSize: number;
  search?: string | undefined;
  status?: 'PENDING' | 'DONE' | undefined;
  checkedStatus?: 'NEW' | undefined;
}

export interface ExtractionDetailsQuery {
  pageNumber: number;
  pageSize: number;
  politician?: boolean | undefined;
  sanctions?: boolean | undefined;
  criminal?: boolean | undefined;
  checked?: boolean | undefined;
  sortBy: ExtractionSort;
  name?: string | undefined;
  seenWith?: string | undefined;
}

const ALL_RESULTS = 'ALL RESULTS';
const NAME_TOO_LONG = `Name cannot be longer than ${EXTRACTION_NAME_MAX_LENGTH} characters.`;

function scopeOf(viewer: ExtractionViewer): ExtractionScope {
  return viewer.kind === 'admin' ? 'all-organizations' : { organizationId: viewer.user.organizationId };
}

function prefixOf(viewer: ExtractionViewer): string {
  return viewer.kind === 'admin' ? '/api/admin/data-extractor' : '/api/data-extractor';
}

/** The id a viewer uses: hashedId for users, the numeric id (as a string) for admins. */
function publicId(viewer: ExtractionViewer, row: { id: number; hashed_id: string }): string {
  return viewer.kind === 'admin' ? String(row.id) : row.hashed_id;
}

/** Whether the viewer sees results flagged as possible minors (admins read every organization's work whole). */
function minorsAllowedFor(viewer: ExtractionViewer): boolean {
  return viewer.kind === 'admin' || viewer.minorsAllowed;
}

/** Connection names per result, in the order the analysis gave them. */
function connectionNamesByResult(connections: ReadonlyArray<{ result_id: number; name: string }>) {
  const byResult = new Map<number, string[]>();
  for (const c of connections) byResult.set(c.result_id, [...(byResult.get(c.result_id) ?? []), c.name]);
  return byResult;
}

function keyOf(viewer: ExtractionViewer, ref: string): { hashedId: string } | { id: number } | undefined {
  if (viewer.kind === 'user') return { hashedId: ref };
  return /^\d{1,9}$/.test(ref) ? { id: Number(ref) } : undefined;
}

function trimmedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) {
    throw badRequest(EXTRACTOR_MESSAGES.nameEmpty, [
      { field: 'name', message: EXTRACTOR_MESSAGES.nameEmpty },
    ]);
  }
  if (trimmed.length > EXTRACTION_NAME_MAX_LENGTH) {
    throw badRequest(NAME_TOO_LONG, [{ field: 'name', message: NAME_TOO_LONG }]);
  }
  return trimmed;
}

/** Per-name counts over results (spec 001 §3): links, flags and "seen with". */
function statisticOf(name: string, rows: readonly ExtractionResultRow[]): NameStatistic {
  return {
    name,
    linkCount: rows.length,
    politicianCount: rows.filter((r) => r.politician).length,
    criminalCount: rows.filter((r) => r.criminal).length,
    sanctionsCount: rows.filter((r) => r.sanctions).length,
    seenWithCount: rows.filter((r) => r.seen_with).length,
  };
}

/** Distinct person names, most links first (then alphabetical). */
function nameGroups(rows: readonly ExtractionResultRow[]): Array<[string, ExtractionResultRow[]]> {
  const groups = new Map<string, ExtractionResultRow[]>();
  for (const row of rows) {
    if (!row.person_name) continue;
    const group = groups.get(row.person_name) ?? [];
    group.push(row);
    groups.set(row.person_name, group);
  }
  return [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

/** An extraction's counts and best name, as the list, the summary and the report's cover show them. */
interface ExtractionAggregates {
  resultCount: number;
  namesFound: number;
  bestName: string | null;
}

/**
 * The counts and best name of these results: the best name stays while a result still carries it;
 * otherwise the name with most links.
 */
function aggregatesOf(
  results: ReadonlyArray<Pick<ExtractionResultRow, 'person_name'>>,
  bestName: string | null,
): ExtractionAggregates {
  const names = byFrequency(results.flatMap((r) => (r.person_name ? [r.person_name] : [])));
  return {
    resultCount: results.length,
    namesFound: names.length,
    bestName: bestName !== null && names.includes(bestName) ? bestName : (names[0] ?? null),
  };
}

/** Names most often given, once each. */
function byFrequency(names: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name);
}

/**
 * The AI data extractor's calls (spec 001 §2, §7 Data extractor): an extraction is started from a search
 * (the job, services/extraction-pipeline.ts, does the reading and the analysis), then listed, read,
 * filtered, edited and reported. Every call is bounded to the caller's organization (admins: all
 * organizations, read-only).
 */
export class DataExtractorService {
  constructor(
    private readonly extractions: DataExtractionRepository,
    private readonly searches: SearchRepository,
    private readonly access: AccessService,
    private readonly queue: JobQueue,
    private readonly audit: AuditRepository,
    private readonly names: Pick<ExtractionPipeline, 'assessName'>,
    private readonly minorGate: Pick<MinorGateService, 'isLawEnforcement'>,
    private readonly blobs: Pick<BlobStore, 'get'>,
    private readonly reports: ReportRenderer,
  ) {}

  /** The viewer of a user request: access decides whether original sources are shown. */
  async userViewer(user: AuthUser): Promise<ExtractionViewer> {
    const access = await this.access.require(user);
    return {
      kind: 'user',
      user,
      restricted: access.restricted,
      minorsAllowed: await this.minorGate.isLawEnforcement(user.organizationId),
    };
  }

  /**
   * A user changing the organization's extractions: edits never show original sources, and reach only
   * the results the user may see.
   */
  private async editor(user: AuthUser): Promise<ExtractionViewer> {
    return {
      kind: 'user',
      user,
      restricted: true,
      minorsAllowed: await this.minorGate.isLawEnforcement(user.organizationId),
    };
  }

  /** POST /api/data-extractor: records the extraction as PENDING and queues the job. */
  async start(user: AuthUser, request: StartExtractionRequest): Promise<ExtractionListItem> {
    await this.access.require(user);
    const name = request.name?.trim() ? trimmedName(request.name) : defaultExtractionName(new Date());
    const search = await this.searches.findByHashedId(request.searchHash, user.organizationId);
    if (!search) throw notFound('Search not found.');
    const searched = await this.searches.findSearchedFace(search.id);
    if (!searched) throw notFound('Search not found.');
    const image = await searchedFacePicture(searched, request.image);
    const hashedId = newPublicId();
    const id = await this.extractions.insert(
      {
        hashedId,
        organizationId: user.organizationId,
        userId: user.id,
        searchId: search.id,
        name,
        description: request.description?.trim() ?? '',
        image,
        // The results the extraction will read: those still shown (removed ones are left out).
        resultCount: await this.searches.countShownResults(
          search.id,
          await this.minorGate.isLawEnforcement(user.organizationId),
        ),
      },
      // The job, in the row's transaction: an extraction is never left PENDING without one.
      (extractionId) => ({
        queue: QUEUES.runExtraction,
        payload: { extractionId } satisfies ExtractionJobPayload,
        uniqueKey: `data-extractor:${extractionId}`,
        maxAttempts: EXTRACTION_MAX_ATTEMPTS,
        organizationId: user.organizationId,
      }),
    );
    this.queue.wake();
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'data-extractor.started',
      target: `data-extractor:${id}`,
      detail: { name, searchHash: request.searchHash },
    });
    const row = (await this.extractions.findOne({ id }, { organizationId: user.organizationId }))!;
    const editor = await this.editor(user);
    return this.toListItem(editor, row, (await this.shownAggregates(editor, [row])).get(row.id)!);
  }

  /**
   * The counts and best name of done extractions as their reader may see them. The stored ones count the
   * organization's whole list; a reader who may not see possible minors gets them recomputed from the
   * results shown to them, so that a result withdrawn from them is not counted or named either.
   */
  private async shownAggregates(
    viewer: ExtractionViewer,
    rows: readonly ExtractionRow[],
  ): Promise<Map<number, ExtractionAggregates>> {
    const shown = new Map<number, ExtractionAggregates>();
    for (const row of rows) {
      shown.set(row.id, {
        resultCount: row.result_count,
        namesFound: row.names_found,
        bestName: row.best_name,
      });
    }
    const done = rows.filter((row) => row.state === 'DONE');
    if (minorsAllowedFor(viewer) || done.length === 0) return shown;
    const names = await this.extractions.findResultNames(
      done.map((row) => row.id),
      false,
    );
    for (const row of done) {
      shown.set(
        row.id,
        aggregatesOf(
          names.filter((n) => n.extraction_id === row.id),
          row.best_name,
        ),
      );
    }
    return shown;
  }

  private toListItem(
    viewer: ExtractionViewer,
    row: ExtractionRow,
    aggregates: ExtractionAggregates,
  ): ExtractionListItem {
    const id = publicId(viewer, row);
    return {
      id,
      name: row.name,
      description: row.description,
      state: row.state,
      status: row.status,
      createdAt: row.created_at.toISOString(),
      completedAt: row.completed_at?.toISOString() ?? null,
      estimatedEndAt: new Date(row.created_at.getTime() + EXTRACTION_ESTIMATE_MS).toISOString(),
      imagePath: `${prefixOf(viewer)}/image/${id}`,
      // A done extraction has processed every result, as many as its reader may see.
      processedCount: row.state === 'DONE' ? aggregates.resultCount : row.processed_count,
      resultCount: aggregates.resultCount,
      bestName: aggregates.bestName,
      ...(viewer.kind === 'admin' ? { organizationName: row.organization_name } : {}),
    };
  }

  async list(viewer: ExtractionViewer, query: ExtractionListQuery): Promise<ExtractionListResponse> {
    const { rows, total } = await this.extractions.findPage({
      scope: scopeOf(viewer),
      state: query.status,
      onlyNew: query.checkedStatus === 'NEW',
      search: query.search?.trim() || undefined,
      minorsAllowed: minorsAllowedFor(viewer),
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
    });
    const aggregates = await this.shownAggregates(viewer, rows);
    return {
      dataExtractorListItemList: rows.map((row) => this.toListItem(viewer, row, aggregates.get(row.id)!)),
      totalResultCount: total,
    };
  }

  private async find(viewer: ExtractionViewer, ref: string): Promise<ExtractionRow> {
    const key = keyOf(viewer, ref);
    const row = key && (await this.extractions.findOne(key, scopeOf(viewer)));
    if (!row) throw notFound('Extraction not found.');
    return row;
  }

  /**
   * An admin reading an organization's work is recorded, filed under that organization (its owner sees it
   * in the Account page's activity), as opening a saved search is: the names summary and each page of
   * results read.
   */
  private async auditAdminRead(
    viewer: ExtractionViewer,
    row: ExtractionRow,
    part: 'summary' | 'results',
  ): Promise<void> {
    if (viewer.kind !== 'admin') return;
    await this.audit.insert({
      actorUserId: viewer.user.id,
      organizationId: row.organization_id,
      action: 'admin.data_extraction.viewed',
      target: `data-extractor:${row.id}`,
      detail: { name: row.name, part },
    });
  }

  /** Opening a done extraction's detail page marks it CHECKED for its organization (not for admins). */
  private async opened(viewer: ExtractionViewer, row: ExtractionRow): Promise<void> {
    if (viewer.kind === 'user' && row.state === 'DONE' && row.status === 'NEW') {
      await this.extractions.markChecked(row.id);
    }
  }

  async image(viewer: ExtractionViewer, ref: string): Promise<Buffer> {
    const row = await this.find(viewer, ref);
    const image = await this.extractions.findImage(row.id);
    if (!image) throw notFound('Image not found.');
    return image;
  }

  /** GET …/results/{extractionId}: the names summary. */
  async summary(viewer: ExtractionViewer, ref: string): Promise<ExtractionSummary> {
    const row = await this.find(viewer, ref);
    await this.opened(viewer, row);
    await this.auditAdminRead(viewer, row, 'summary');
    const results = await this.extractions.findAllResults(row.id, minorsAllowedFor(viewer));
    const connections = await this.extractions.findConnectionNames(row.id, minorsAllowedFor(viewer));
    // Names as the reader may see them (shownAggregates), from the results already read.
    const shown = minorsAllowedFor(viewer)
      ? { bestName: row.best_name, namesFound: row.names_found }
      : aggregatesOf(results, row.best_name);
    return {
      id: publicId(viewer, row),
      name: row.name,
      description: row.description,
      createdAt: row.created_at.toISOString(),
      state: row.state,
      nameStatistic: statisticOf(ALL_RESULTS, results),
      nameList: nameGroups(results).map(([name, rows]) => statisticOf(name, rows)),
      bestName: shown.bestName,
      namesFound: shown.namesFound,
      seenWithNames: byFrequency(connections.map((c) => c.name)),
    };
  }

  /** GET …/results/details/{extractionId}: one page of results, filtered and sorted. */
  async details(
    viewer: ExtractionViewer,
    ref: string,
    query: ExtractionDetailsQuery,
  ): Promise<ExtractionDetailsResponse> {
    const row = await this.find(viewer, ref);
    await this.opened(viewer, row);
    await this.auditAdminRead(viewer, row, 'results');
    const filter = {
      politician: query.politician,
      sanctions: query.sanctions,
      criminal: query.criminal,
      checked: query.checked,
      // An empty name or "Seen with" is no filter (ALL RESULTS, None), for results and Wikipedia alike.
      name: query.name || undefined,
      seenWith: query.seenWith || undefined,
    };
    const { rows, total } = await this.extractions.findResultPage(row.id, {
      ...filter,
      sortBy: query.sortBy,
      offset: (query.pageNumber - 1) * query.pageSize,
      limit: query.pageSize,
      minorsAllowed: minorsAllowedFor(viewer),
    });
    // The Wikipedia result is shown under the filters it matches, as every result.
    const wikipedia = await this.extractions.findWikipedia(row.id, minorsAllowedFor(viewer), filter);
    return {
      responses: await this.toResults(viewer, rows),
      wikipediaResult: wikipedia ? toWikipedia(wikipedia, isRestricted(viewer)) : null,
      totalResultCount: total,
    };
  }

  private async toResults(viewer: ExtractionViewer, rows: ExtractionResultRow[]): Promise<ExtractedResult[]> {
    const restricted = isRestricted(viewer);
    const connections = connectionNamesByResult(
      await this.extractions.findConnections(
        rows.map((r) => r.id),
        minorsAllowedFor(viewer),
      ),
    );
    return rows.map((row) => {
      const id = publicId(viewer, row);
      return {
        hashedId: id,
        personName: row.person_name,
        personDesc: row.person_desc,
        politician: row.politician,
        sanctions: row.sanctions,
        criminal: row.criminal,
        seenWith: row.seen_with,
        checked: row.checked,
        // Trial plans see where a face was found, not the original sources (spec 001 §6).
        sourceUrl: restricted ? null : row.source_url,
        imageUrl: restricted ? null : row.image_url,
        sourceTitle: row.source_title,
        thumbnailUrl: `${prefixOf(viewer)}/results/image/${id}`,
        similarity: answeredSimilarity(row.similarity),
        scoreModel: row.score_model_id,
        crawledAt: row.crawled_at.toISOString(),
        alternativeNames: row.alternative_names,
        evidence: evidenceFor(row.evidence, restricted),
        seenWithNames: [...new Set(connections.get(row.id))],
      };
    });
  }

  private async findResult(viewer: ExtractionViewer, ref: string): Promise<ExtractionResultRow> {
    const key = keyOf(viewer, ref);
    const rows = key
      ? await this.extractions.findResults(
          'id' in key ? { ids: [key.id] } : { hashedIds: [key.hashedId] },
          scopeOf(viewer),
          minorsAllowedFor(viewer),
        )
      : [];
    if (!rows[0]) throw notFound('Result not found.');
    return rows[0];
  }

  /** GET …/results/{resultId}/connections */
  async connections(viewer: ExtractionViewer, ref: string): Promise<SeenWithConnection[]> {
    const result = await this.findResult(viewer, ref);
    const restricted = isRestricted(viewer);
    return (await this.extractions.findConnections([result.id], minorsAllowedFor(viewer))).map((c) => ({
      id: publicId(viewer, c),
      name: c.name,
      imgUrl:
        c.image_id === null ? null : `${prefixOf(viewer)}/results/connections/image/${publicId(viewer, c)}`,
      aboutUrl: restricted ? null : c.about_url,
      politician: c.politician,
      sanctions: c.sanctions,
      criminal: c.criminal,
      evidence: evidenceFor(c.evidence, restricted),
    }));
  }

  /** The photo of a connection named through the face index (the image the person's face is in). */
  async connectionImage(viewer: ExtractionViewer, ref: string): Promise<Buffer> {
    const key = keyOf(viewer, ref);
    const path = key
      ? await this.extractions.findConnectionThumbnailPath(key, scopeOf(viewer), minorsAllowedFor(viewer))
      : undefined;
    // A thumbnail gone from the index since (re-crawl, opt-out) is not found either.
    const thumbnail = path ? await this.blobs.get(path) : null;
    if (!thumbnail) throw notFound('Image not found.');
    return thumbnail;
  }

  async resultImage(viewer: ExtractionViewer, ref: string): Promise<Buffer> {
    const result = await this.findResult(viewer, ref);
    const thumbnail = await this.extractions.findResultThumbnail(result.id);
    if (!thumbnail) throw notFound('Image not found.');
    return thumbnail;
  }

  async markChecked(user: AuthUser, ref: string): Promise<{ checked: true }> {
    const result = await this.findResult(await this.editor(user), ref);
    await this.extractions.markResultChecked(result.id);
    return { checked: true };
  }

  async markWikipediaChecked(user: AuthUser, ref: string): Promise<{ checked: true }> {
    const editor = await this.editor(user);
    const row = await this.find(editor, ref);
    if (!(await this.extractions.markWikipediaChecked(row.id, minorsAllowedFor(editor))))
      throw notFound('Wikipedia result not found.');
    return { checked: true };
  }

  /**
   * PATCH …/results/{id}: the person's name (one of the alternatives, or any non-blank name). A new name
   * gets its own flags, evidence and (unless the description was edited too) description, from the page
   * and the watch-lists: the old name's would otherwise be shown, and printed in the report, under it.
   */
  async updateResult(user: AuthUser, ref: string, name: string, description: string | undefined) {
    const personName = trimmedName(name);
    const result = await this.findResult(await this.editor(user), ref);
    // The name replaced stays a choice; the chosen one is no longer an alternative.
    const alternatives = [result.person_name, ...result.alternative_names].filter(
      (n, i, all) => n && n !== personName && all.indexOf(n) === i,
    );
    let flags;
    let personDesc = description?.trim();
    if (personName !== result.person_name) {
      const extraction = await this.extractions.findForJob(result.extraction_id);
      const assessed = await this.names.assessName(extraction?.search_id ?? null, result, personName, {
        similarity: result.similarity,
        crawledAt: result.crawled_at,
      });
      flags = {
        politician: assessed.politician,
        sanctions: assessed.sanctions,
        criminal: assessed.criminal,
        evidence: assessed.evidence,
      };
      // A description left as it was describes the old name's person: the new name's replaces it.
      if (personDesc === undefined || personDesc === result.person_desc) personDesc = assessed.personDesc;
    }
    // The change and the counts and names recomputed after it, in one transaction that first locks the
    // extraction: edits and removals at the same time take turns, each recomputing from what the one
    // before left (side by side, the last to write could store what it read before another's change).
    const change = { personName, personDesc, alternativeNames: alternatives, flags };
    await this.extractions.transaction(async (extractions) => {
      const locked = await extractions.lockForEdit(result.extraction_id);
      await extractions.updateResult(result.id, change);
      await refreshAggregates(extractions, result.extraction_id, locked?.best_name ?? null);
    });
  }

  async removeResult(user: AuthUser, ref: string): Promise<{ remaining: number }> {
    const editor = await this.editor(user);
    const result = await this.findResult(editor, ref);
    // In one transaction behind the extraction's lock, as an edit (updateResult).
    const remaining = await this.extractions.transaction(async (extractions) => {
      const locked = await extractions.lockForEdit(result.extraction_id);
      await extractions.removeResult(result.id);
      await refreshAggregates(extractions, result.extraction_id, locked?.best_name ?? null);
      // The results left as the editor sees them (the stored count includes any hidden from them).
      return (await extractions.findResultNames([result.extraction_id], minorsAllowedFor(editor))).length;
    });
    return { remaining };
  }

  async update(user: AuthUser, ref: string, name: string, description: string | undefined): Promise<void> {
    const trimmed = trimmedName(name);
    const row = await this.find(await this.editor(user), ref);
    await this.extractions.update(row.id, trimmed, description?.trim());
  }

  async remove(user: AuthUser, ref: string): Promise<void> {
    const row = await this.find(await this.editor(user), ref);
    await this.extractions.delete(row.id);
    await this.audit.insert({
      actorUserId: user.id,
      organizationId: user.organizationId,
      action: 'data-extractor.deleted',
      target: `data-extractor:${row.id}`,
      detail: { name: row.name },
    });
  }

  /**
   * A PDF of an extraction: every shown result (`resultRefs` undefined) or the chosen ones, all of this
   * extraction (an id of another extraction or organization makes the whole report not found).
   */
  async report(
    viewer: ExtractionViewer,
    ref: string,
    resultRefs: string[] | undefined,
    withWikipedia: boolean,
  ): Promise<{ pdf: Buffer; fileName: string }> {
    // One of the requester's organization's report places from the first read to the PDF (429 when none
    // is free): an admin's reports of other organizations count for the admin's own.
    return this.reports.admit(viewer.user.organizationId, async (draw) => {
      const row = await this.find(viewer, ref);
      const results =
        resultRefs === undefined
          ? await this.extractions.findResults(
              { extractionId: row.id },
              scopeOf(viewer),
              minorsAllowedFor(viewer),
            )
          : await this.chosenResults(viewer, row.id, resultRefs);
      const connections = connectionNamesByResult(
        await this.extractions.findConnections(
          results.map((r) => r.id),
          minorsAllowedFor(viewer),
        ),
      );
      const wikipedia = withWikipedia
        ? await this.extractions.findWikipedia(row.id, minorsAllowedFor(viewer))
        : undefined;
      if (resultRefs && results.length === 0 && !wikipedia) throw badRequest(EXTRACTOR_MESSAGES.reportEmpty);
      const organization = await this.extractions.findOrganizationName(row.organization_id);
      const cover = (await this.shownAggregates(viewer, [row])).get(row.id)!;
      const generatedAt = new Date();
      const data: ExtractionReportData = {
        organizationName: organization?.name ?? '',
        preparedBy: viewer.user.email,
        generatedAt,
        restricted: isRestricted(viewer),
        extraction: {
          name: row.name,
          description: row.description,
          createdAt: row.created_at,
          image: (await this.extractions.findImage(row.id)) ?? null,
          resultCount: cover.resultCount,
          bestName: cover.bestName,
        },
        names: nameGroups(results).map(([name, rows]) => ({
          ...statisticOf(name, rows),
          evidence: distinctEvidence(rows.flatMap((r) => r.evidence)),
          seenWith: byFrequency(rows.flatMap((r) => connections.get(r.id) ?? [])),
        })),
        results: results.map((r) => ({
          personName: r.person_name,
          personDesc: r.person_desc,
          politician: r.politician,
          sanctions: r.sanctions,
          criminal: r.criminal,
          similarity: r.similarity,
          scoreModel: r.score_model_id,
          crawledAt: r.crawled_at,
          sourceTitle: r.source_title,
          sourceUrl: r.source_url,
          imageUrl: r.image_url,
          thumbnail: r.thumbnail,
          face: matchedFaceForReport(r),
          evidence: r.evidence,
          seenWith: [...new Set(connections.get(r.id))],
        })),
        wikipedia: wikipedia ? toWikipedia(wikipedia, isRestricted(viewer)) : null,
      };
      const pdf = await draw.extraction(data);
      await this.audit.insert({
        actorUserId: viewer.user.id,
        // Filed under the organization whose work it is, also when an admin prints it.
        organizationId: row.organization_id,
        action: 'data-extractor.report',
        target: `data-extractor:${row.id}`,
        detail: { results: results.length, wikipedia: data.wikipedia !== null },
      });
      return { pdf, fileName: extractionReportFileName(row.name, generatedAt) };
    });
  }

  /** The results a report names, all of one extraction: any other id makes the report not found. */
  private async chosenResults(viewer: ExtractionViewer, extractionId: number, refs: string[]) {
    const distinct = [...new Set(refs)];
    const keys = distinct.map((r) => keyOf(viewer, r));
    const ids = keys.flatMap((k) => (k && 'id' in k ? [k.id] : []));
    const hashedIds = keys.flatMap((k) => (k && 'hashedId' in k ? [k.hashedId] : []));
    const results = (
      await this.extractions.findResults(
        viewer.kind === 'admin' ? { ids } : { hashedIds },
        scopeOf(viewer),
        minorsAllowedFor(viewer),
      )
    ).filter((r) => r.extraction_id === extractionId);
    if (results.length !== distinct.length) throw notFound('Extraction results not found.');
    return results;
  }
}

/**
 * Counts and names of the list after an edit or a removal, recomputed from the results shown, through
 * `extractions` (bound to the edit's transaction).
 */
async function refreshAggregates(
  extractions: DataExtractionRepository,
  extractionId: number,
  bestName: string | null,
): Promise<void> {
  // The stored counts are the organization's whole list, whoever may see which of it (shownAggregates).
  const results = await extractions.findResultNames([extractionId], true);
  await extractions.updateAggregates(extractionId, aggregatesOf(results, bestName));
}

/** A trial plan's user: sees where a face was found, not the sources (spec 001 §6). Admins are never. */
function isRestricted(viewer: ExtractionViewer): boolean {
  return viewer.kind === 'user' && viewer.restricted;
}

/** Evidence as a viewer may see it: a trial plan's user gets the sentences, not the pages (spec 001 §6). */
function evidenceFor(evidence: FlagEvidence[], restricted: boolean): FlagEvidence[] {
  return restricted ? evidence.map((e) => ({ ...e, url: null })) : evidence;
}

function toWikipedia(
  row: {
    name: string;
    person_description: string;
    politician: boolean;
    sanctions: boolean;
    criminal: boolean;
    checked: boolean;
    url: string;
    evidence: FlagEvidence[];
  },
  restricted: boolean,
): WikipediaResult {
  return {
    name: row.name,
    personDescription: row.person_description,
    politician: row.politician,
    sanctions: row.sanctions,
    criminal: row.criminal,
    checked: row.checked,
    url: restricted ? null : row.url,
    evidence: evidenceFor(row.evidence, restricted),
  };
}

/** The same sentence or list entry found on several results is shown once. */
function distinctEvidence(evidence: FlagEvidence[]): FlagEvidence[] {
  const seen = new Set<string>();
  return evidence.filter((e) => {
    const key = `${e.flag}\u0000${e.source}\u0000${e.text}\u0000${e.url ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
