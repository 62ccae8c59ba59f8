import type { ExtractionSort, FlagEvidence } from '@osint/contract/data-extractor';
import { sql, type ExpressionBuilder } from 'kysely';
import { inTransaction, type Db } from '../db/database.ts';
import type { IndexedFaceRef } from '../extractor/analysis-types.ts';
import type { Database, ExtractionStateColumn } from '../db/schema.ts';
import { JobRepository, insertWithJob, type NewJob } from './job.repository.ts';
import { containing, pageWithTotal } from './list-query.ts';
import { SeatRepository } from './seat.repository.ts';
import { deleteSearchNoLongerNeeded, storedFaceVisible, storedResultVisible } from './search.repository.ts';
import {
  matchedFaceColumns,
  type FaceBox,
  type ImageSize,
  type MatchedFaceColumns,
} from './search.repository.ts';

/**
 * Which extractions a caller may see: one organization's (users), or every organization's (admins).
 * A query never runs without one, so an id of another organization is simply not found.
 */
export type ExtractionScope = { organizationId: number } | 'all-organizations';

export interface ExtractionListFilter {
  scope: ExtractionScope;
  /** PENDING; DONE also lists FAILED extractions (finished, without results). */
  state?: 'PENDING' | 'DONE' | undefined;
  /** Done extractions not yet opened (the menu alert). */
  onlyNew?: boolean;
  search?: string | undefined;
  /** The reader sees results flagged as possible minors (storedFaceVisible). */
  minorsAllowed: boolean;
  offset: number;
  limit: number;
}

export interface ResultFilter {
  politician?: boolean | undefined;
  sanctions?: boolean | undefined;
  criminal?: boolean | undefined;
  checked?: boolean | undefined;
  name?: string | undefined;
  seenWith?: string | undefined;
  sortBy: ExtractionSort;
  offset: number;
  limit: number;
  /** The reader sees results flagged as possible minors (storedFaceVisible). */
  minorsAllowed: boolean;
}

/** A search result the job analyses, with its crawled page (absent when the page is gone from the index). */
export interface SearchResultToAnalyse extends MatchedFaceColumns {
  record_hash: string;
  rank: number;
  face_id: number | null;
  gone_face_was_minor: boolean;
  image_id: number | null;
  similarity: number;
  score_model_id: string | null;
  image_url: string;
  source_url: string;
  source_title: string;
  crawled_at: Date;
  thumbnail_path: string | null;
  page_id: number | null;
  page_title: string | null;
  page_text: string | null;
  alt: string | null;
  caption: string | null;
  nearby_text: string | null;
}

export interface NewConnection {
  hashedId: string;
  name: string;
  /** The person's face on the result's page and its image, when the face index named it. */
  face: IndexedFaceRef | null;
  aboutUrl: string | null;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  evidence: FlagEvidence[];
}

export interface NewExtractionResult {
  hashedId: string;
  recordHash: string;
  rank: number;
  similarity: number;
  scoreModel: string | null;
  imageUrl: string;
  sourceUrl: string;
  sourceTitle: string;
  crawledAt: Date;
  thumbnail: Buffer | null;
  /** The indexed face the result shows, for the minors rule on every read. */
  faceId: number | null;
  /** Whether that face was a possible minor when it left the index (the rule's memory of it). */
  goneFaceWasMinor: boolean;
  faceBox: FaceBox | null;
  imageSize: ImageSize | null;
  personName: string;
  personDesc: string;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  alternativeNames: string[];
  evidence: FlagEvidence[];
  connections: NewConnection[];
}

export interface NewWikipediaResult {
  name: string;
  personDescription: string;
  politician: boolean;
  sanctions: boolean;
  criminal: boolean;
  url: string;
  evidence: FlagEvidence[];
}

const LIST_COLUMNS = [
  'data_extractions.id',
  'data_extractions.hashed_id',
  'data_extractions.organization_id',
  'data_extractions.user_id',
  'data_extractions.search_id',
  'data_extractions.name',
  'data_extractions.description',
  'data_extractions.state',
  'data_extractions.status',
  'data_extractions.result_count',
  'data_extractions.processed_count',
  'data_extractions.best_name',
  'data_extractions.names_found',
  'data_extractions.created_at',
  'data_extractions.completed_at',
] as const;

const RESULT_COLUMNS = [
  'data_extraction_results.id',
  'data_extraction_results.extraction_id',
  'data_extraction_results.hashed_id',
  'data_extraction_results.record_hash',
  'data_extraction_results.rank',
  'data_extraction_results.similarity',
  'data_extraction_results.score_model_id',
  'data_extraction_results.image_url',
  'data_extraction_results.source_url',
  'data_extraction_results.source_title',
  'data_extraction_results.crawled_at',
  'data_extraction_results.person_name',
  'data_extraction_results.person_desc',
  'data_extraction_results.politician',
  'data_extraction_results.sanctions',
  'data_extraction_results.criminal',
  'data_extraction_results.checked',
  'data_extraction_results.alternative_names',
  'data_extraction_results.evidence',
  'data_extraction_results.face_box_x',
  'data_extraction_results.face_box_y',
  'data_extraction_results.face_box_width',
  'data_extraction_results.face_box_height',
  'data_extraction_results.image_width',
  'data_extraction_results.image_height',
] as const;

const CONNECTION_COLUMNS = [
  'data_extraction_connections.id',
  'data_extraction_connections.result_id',
  'data_extraction_connections.hashed_id',
  'data_extraction_connections.name',
  'data_extraction_connections.image_id',
  'data_extraction_connections.about_url',
  'data_extraction_connections.politician',
  'data_extraction_connections.sanctions',
  'data_extraction_connections.criminal',
  'data_extraction_connections.evidence',
] as const;

/** The detail page's filters that apply to the Wikipedia result as to results. */
export type WikipediaFilter = Pick<
  ResultFilter,
  'politician' | 'sanctions' | 'criminal' | 'checked' | 'name' | 'seenWith'
>;

/**
 * The flag filters that are on. They widen each other (politicians or sanctioned or criminal persons), for
 * results and the Wikipedia result alike.
 */
function flagsOn(filter: Pick<ResultFilter, 'politician' | 'sanctions' | 'criminal'>) {
  return (['politician', 'sanctions', 'criminal'] as const).filter((flag) => filter[flag]);
}

/** JSON columns come back parsed from PostgreSQL and PGlite; a string (other drivers) is parsed here. */
function parsed<T>(value: T | string): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}

/** A result row with its JSON columns read. */
function withJson<R extends { alternative_names: unknown; evidence: unknown }>(row: R) {
  return {
    ...row,
    alternative_names: parsed(row.alternative_names as string[] | string),
    evidence: parsed(row.evidence as FlagEvidence[] | string),
  };
}

/** Which copied results a reader may see: the minors rule of live results, applied on every read. */
const copiedResultVisible = (minorsAllowed: boolean) =>
  storedFaceVisible('data_extraction_results', minorsAllowed);

/**
 * Which connections a reader may see: one named through a face follows the minors rule on that face. A
 * connection kept before connections named their face (migration 0039) has only its photo: it is hidden
 * when any face of that photo is flagged as a possible minor.
 */
function connectionVisible(minorsAllowed: boolean, table = 'data_extraction_connections') {
  if (minorsAllowed) return sql<boolean>`true`;
  return sql<boolean>`${storedFaceVisible(table, false)} and not exists (
    select 1 from faces where ${sql.ref(`${table}.face_id`)} is null
      and faces.image_id = ${sql.ref(`${table}.image_id`)} and faces.possible_minor)`;
}

/**
 * The results' columns as their reader (`minorsAllowed`) may see them: "seen with" is whether the result has
 * a connection that reader may see (a result seen only with a hidden person is not marked).
 */
function resultColumns(minorsAllowed: boolean) {
  // A reader who sees every connection reads the stored mark (set with the connections).
  const seenWith = minorsAllowed
    ? sql<boolean>`${sql.ref('data_extraction_results.seen_with')}`
    : sql<boolean>`exists (
      select 1 from data_extraction_connections c
       where c.result_id = data_extraction_results.id and ${connectionVisible(minorsAllowed, 'c')})`;
  return [...RESULT_COLUMNS, seenWith.as('seen_with')] as const;
}

/**
 * Whether the extraction's stored best name may be shown to its reader: always to one who sees possible
 * minors; to another only while a result shown to them carries it (the name may come from hidden results).
 */
function bestNameShown(minorsAllowed: boolean) {
  return (eb: ExpressionBuilder<Database, 'data_extractions'>) =>
    minorsAllowed
      ? eb.val(true)
      : eb.exists(
          eb
            .selectFrom('data_extraction_results')
            .select('data_extraction_results.id')
            .whereRef('data_extraction_results.extraction_id', '=', 'data_extractions.id')
            .whereRef('data_extraction_results.person_name', '=', 'data_extractions.best_name')
            .where('data_extraction_results.removed', '=', false)
            .where(copiedResultVisible(false)),
        );
}

function inScope(scope: ExtractionScope) {
  return (eb: ExpressionBuilder<Database, 'data_extractions'>) =>
    scope === 'all-organizations'
      ? eb.val(true)
      : eb('data_extractions.organization_id', '=', scope.organizationId);
}

export type ExtractionRow = NonNullable<Awaited<ReturnType<DataExtractionRepository['findOne']>>>;
export type ExtractionResultRow = Awaited<ReturnType<DataExtractionRepository['findAllResults']>>[number];
export type ConnectionRow = Awaited<ReturnType<DataExtractionRepository['findConnections']>>[number];
export interface FaceOnPage {
  id: number;
  image_id: number;
  /** Its image is a figure with a caption on the page (not a teaser of a listing). */
  captioned: boolean;
  descriptor: Buffer;
  model_id: string;
  /** Flagged as a possible minor when indexed (null: indexed before the age estimate existed). */
  possible_minor: boolean | null;
}

export class DataExtractionRepository {
  constructor(private readonly db: Db) {}

  /** Runs `work` in one transaction (the caller's, when there is one) with a repository bound to it. */
  transaction<T>(work: (repository: DataExtractionRepository) => Promise<T>): Promise<T> {
    return inTransaction(this.db, (tx) => work(new DataExtractionRepository(tx)));
  }

  /**
   * Locks the extraction's row until the transaction ends, so that edits of its results and the counts
   * and names recomputed after them take turns; its best name, or undefined when it is gone.
   */
  lockForEdit(extractionId: number) {
    return this.db
      .selectFrom('data_extractions')
      .select(['id', 'best_name'])
      .where('id', '=', extractionId)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Inserts a PENDING extraction and, in the same transaction, the job `jobOf` makes of its id. */
  async insert(
    row: {
      hashedId: string;
      organizationId: number;
      userId: number;
      searchId: number;
      name: string;
      description: string;
      image: Buffer;
      resultCount: number;
    },
    jobOf: (id: number) => NewJob,
  ): Promise<number> {
    return insertWithJob(
      this.db,
      async (tx) => {
        const inserted = await tx
          .insertInto('data_extractions')
          .values({
            hashed_id: row.hashedId,
            organization_id: row.organizationId,
            user_id: row.userId,
            search_id: row.searchId,
            name: row.name,
            description: row.description,
            image: row.image,
            result_count: row.resultCount,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return inserted.id;
      },
      jobOf,
    );
  }

  async findPage(filter: ExtractionListFilter) {
    let query = this.db
      .selectFrom('data_extractions')
      .innerJoin('organizations', 'organizations.id', 'data_extractions.organization_id')
      .where(inScope(filter.scope));
    if (filter.state === 'PENDING') query = query.where('data_extractions.state', '=', 'PENDING');
    if (filter.state === 'DONE') query = query.where('data_extractions.state', 'in', ['DONE', 'FAILED']);
    if (filter.onlyNew) {
      query = query.where('data_extractions.state', '=', 'DONE').where('data_extractions.status', '=', 'NEW');
    }
    if (filter.search) {
      const pattern = containing(filter.search);
      query = query.where((eb) =>
        eb.or([
          eb('data_extractions.name', 'ilike', pattern),
          eb('data_extractions.description', 'ilike', pattern),
          // The best name, where the reader sees a result that carries it (shownAggregates in the service).
          eb.and([
            eb('data_extractions.best_name', 'ilike', pattern),
            bestNameShown(filter.minorsAllowed)(eb),
          ]),
        ]),
      );
    }
    return pageWithTotal(
      query,
      query
        .select([...LIST_COLUMNS, 'organizations.name as organization_name'])
        .orderBy('data_extractions.created_at', 'desc')
        .orderBy('data_extractions.id', 'desc')
        .offset(filter.offset)
        .limit(filter.limit)
        .execute(),
    );
  }

  /** One extraction by hashedId (users) or numeric id (admins), inside the scope. */
  findOne(key: { hashedId: string } | { id: number }, scope: ExtractionScope) {
    return this.db
      .selectFrom('data_extractions')
      .innerJoin('organizations', 'organizations.id', 'data_extractions.organization_id')
      .select([...LIST_COLUMNS, 'organizations.name as organization_name'])
      .where(inScope(scope))
      .where((eb) =>
        'id' in key
          ? eb('data_extractions.id', '=', key.id)
          : eb('data_extractions.hashed_id', '=', key.hashedId),
      )
      .executeTakeFirst();
  }

  async findImage(extractionId: number): Promise<Buffer | undefined> {
    const row = await this.db
      .selectFrom('data_extractions')
      .select('image')
      .where('id', '=', extractionId)
      .executeTakeFirst();
    return row?.image;
  }

  /** For the job, which runs outside any request: by id alone. */
  findForJob(id: number) {
    return this.db
      .selectFrom('data_extractions')
      .select(['id', 'organization_id', 'search_id', 'state', 'best_name'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Counts one more run of the job; returns the attempt number. */
  async startAttempt(id: number): Promise<number> {
    const row = await this.db
      .updateTable('data_extractions')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), processed_count: 0 }))
      .where('id', '=', id)
      .returning('attempts')
      .executeTakeFirstOrThrow();
    return row.attempts;
  }

  async setProgress(id: number, processed: number, total: number): Promise<void> {
    await this.db
      .updateTable('data_extractions')
      .set({ processed_count: processed, result_count: total })
      .where('id', '=', id)
      .where('state', '=', 'PENDING')
      .execute();
  }

  async markFailed(id: number, error: string): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      const failed = await tx
        .updateTable('data_extractions')
        .set({ state: 'FAILED' satisfies ExtractionStateColumn, last_error: error, completed_at: new Date() })
        .where('id', '=', id)
        .where('state', '=', 'PENDING')
        .returning('search_id')
        .executeTakeFirst();
      await deleteSearchNoLongerNeeded(tx, failed?.search_id ?? null);
    });
  }

  /**
   * Announces a done extraction once: `queueMails` gets what the e-mail says and the recipients and
   * queues the e-mails through the given job repository, inside the transaction that records the
   * announcement (notified_at). A worker killed before the commit leaves nothing half done, so the next
   * run announces it (issue 8); of two workers, the second waits on the row and finds it announced.
   * False when it was announced already, is not done, or is gone.
   */
  announce(
    id: number,
    queueMails: (
      row: {
        hashed_id: string;
        organization_id: number;
        user_id: number | null;
        name: string;
        result_count: number;
        best_name: string | null;
      },
      recipients: { id: number; email: string }[],
      jobs: JobRepository,
    ) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('data_extractions')
        .set({ notified_at: new Date() })
        .where('id', '=', id)
        .where('state', '=', 'DONE')
        .where('notified_at', 'is', null)
        .returning(['hashed_id', 'organization_id', 'user_id', 'name', 'result_count', 'best_name'])
        .executeTakeFirst();
      if (!row) return false;
      const recipients = await new DataExtractionRepository(tx).findRecipients(
        row.organization_id,
        row.user_id,
      );
      await queueMails(row, recipients, new JobRepository(tx));
      return true;
    });
  }

  /**
   * The search's results still shown (not removed), in rank order, with the page and image texts; only
   * the result `recordHash` when given.
   */
  findSearchResultsToAnalyse(
    searchId: number,
    minorsAllowed: boolean,
    recordHash?: string,
  ): Promise<SearchResultToAnalyse[]> {
    let query = this.db
      .selectFrom('search_results')
      .leftJoin('images', 'images.id', 'search_results.image_id')
      .leftJoin('pages', 'pages.url', 'search_results.source_url')
      .leftJoin('image_occurrences as occ', (join) =>
        join.onRef('occ.page_id', '=', 'pages.id').onRef('occ.image_url', '=', 'search_results.image_url'),
      )
      .select([
        'search_results.record_hash',
        'search_results.rank',
        'search_results.face_id',
        'search_results.gone_face_was_minor',
        'search_results.image_id',
        'search_results.similarity',
        'search_results.score_model_id',
        'search_results.image_url',
        'search_results.source_url',
        'search_results.source_title',
        'search_results.crawled_at',
        'search_results.face_box_x',
        'search_results.face_box_y',
        'search_results.face_box_width',
        'search_results.face_box_height',
        'search_results.image_width',
        'search_results.image_height',
        'images.thumbnail_path',
        'pages.id as page_id',
        'pages.title as page_title',
        'pages.text as page_text',
        'occ.alt',
        'occ.caption',
        'occ.nearby_text',
      ])
      .where('search_results.search_id', '=', searchId)
      .where('search_results.removed_at', 'is', null)
      .where(storedResultVisible(minorsAllowed));
    if (recordHash !== undefined) query = query.where('search_results.record_hash', '=', recordHash);
    return query.orderBy('search_results.rank').execute();
  }

  /** The boxes (left edge, width) of every face of one model in each of these images, by image. */
  async findFaceSpansOfImages(
    imageIds: readonly number[],
    modelId: string,
  ): Promise<Map<number, { x: number; width: number }[]>> {
    const byImage = new Map<number, { x: number; width: number }[]>();
    if (imageIds.length === 0) return byImage;
    const rows = await this.db
      .selectFrom('faces')
      .select(['image_id', 'box_x', 'box_width'])
      .where('image_id', 'in', [...imageIds])
      .where('model_id', '=', modelId)
      .execute();
    for (const row of rows) {
      const spans = byImage.get(row.image_id) ?? [];
      spans.push({ x: row.box_x, width: row.box_width });
      byImage.set(row.image_id, spans);
    }
    return byImage;
  }

  /** Descriptors of faces (for the face index), by id. */
  findFaceDescriptors(faceIds: readonly number[]) {
    if (faceIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('faces')
      .select(['id', 'image_id', 'descriptor', 'model_id'])
      .where('id', 'in', [...faceIds])
      .execute();
  }

  /**
   * The faces of one descriptor model in the images of each page, largest first, at most `perPage` a
   * page: one query for every page of an extraction.
   */
  async findFacesOnPages(
    pageIds: readonly number[],
    perPage: number,
    modelId: string,
  ): Promise<Map<number, FaceOnPage[]>> {
    const byPage = new Map<number, FaceOnPage[]>();
    if (pageIds.length === 0) return byPage;
    const ranked = this.db
      .selectFrom('faces')
      .innerJoin('image_occurrences as occ', 'occ.image_id', 'faces.image_id')
      .where('occ.page_id', 'in', [...pageIds])
      .where('faces.model_id', '=', modelId)
      .select([
        'occ.page_id',
        'faces.id',
        'faces.image_id',
        'faces.descriptor',
        'faces.model_id',
        'faces.possible_minor',
        sql<boolean>`occ.caption <> ''`.as('captioned'),
        sql<number>`row_number() over (partition by occ.page_id order by faces.box_width * faces.box_height desc, faces.id)`.as(
          'place',
        ),
      ])
      .as('ranked');
    const rows = await this.db
      .selectFrom(ranked)
      .selectAll()
      .where('place', '<=', perPage)
      .orderBy('page_id')
      .orderBy('place')
      .execute();
    for (const { page_id, place: _place, ...face } of rows) {
      const faces = byPage.get(page_id) ?? [];
      // An image at two addresses on one page shows its faces once.
      if (!faces.some((f) => f.id === face.id)) faces.push(face);
      byPage.set(page_id, faces);
    }
    return byPage;
  }

  /**
   * The captioned occurrence of each image (the photo on its own article page), longest caption first:
   * a listing shows the photo as a teaser without one.
   */
  async findCaptionedOccurrences(
    imageIds: readonly number[],
  ): Promise<Map<number, { page_id: number; page_url: string; alt: string; caption: string }>> {
    const byImage = new Map<number, { page_id: number; page_url: string; alt: string; caption: string }>();
    if (imageIds.length === 0) return byImage;
    const rows = await this.db
      .selectFrom('image_occurrences')
      .innerJoin('pages', 'pages.id', 'image_occurrences.page_id')
      .select([
        'image_occurrences.image_id',
        'image_occurrences.page_id',
        'pages.url as page_url',
        'image_occurrences.alt',
        'image_occurrences.caption',
      ])
      .where('image_occurrences.image_id', 'in', [...imageIds])
      .where('image_occurrences.caption', '<>', '')
      .orderBy('image_occurrences.image_id')
      .orderBy(sql`length(image_occurrences.caption)`, 'desc')
      .orderBy('image_occurrences.id')
      .execute();
    for (const { image_id, ...occurrence } of rows)
      if (!byImage.has(image_id)) byImage.set(image_id, occurrence);
    return byImage;
  }

  /**
   * The first `limit` pages (by id) that show one of the faces, each once, with the page text and the
   * texts around the image.
   */
  findFaceAppearances(faceIds: readonly number[], limit: number) {
    if (faceIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('faces')
      .innerJoin('image_occurrences as occ', 'occ.image_id', 'faces.image_id')
      .innerJoin('pages', 'pages.id', 'occ.page_id')
      .distinctOn('pages.id')
      .select([
        'pages.id as page_id',
        'pages.url',
        'pages.title',
        'pages.text',
        'occ.image_url',
        'occ.alt',
        'occ.caption',
        'occ.nearby_text',
      ])
      .where('faces.id', 'in', [...faceIds])
      .orderBy('pages.id')
      .orderBy('faces.id')
      .limit(limit)
      .execute();
  }

  /**
   * Marks a PENDING extraction DONE, replaces whatever an earlier attempt stored (a retried job starts
   * over) and stores the results, their connections and the Wikipedia summary. The state change comes
   * first and locks the row: of two workers finishing the same extraction, the second waits, finds it
   * DONE and stores nothing (false), so the results, their hashedIds and the analyst's edits stay.
   * False too when the extraction was deleted meanwhile.
   */
  async complete(
    extractionId: number,
    outcome: {
      results: NewExtractionResult[];
      wikipedia: NewWikipediaResult | null;
      bestName: string | null;
      namesFound: number;
    },
  ): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const claimed = await tx
        .updateTable('data_extractions')
        .set({
          state: 'DONE' satisfies ExtractionStateColumn,
          result_count: outcome.results.length,
          processed_count: outcome.results.length,
          best_name: outcome.bestName,
          names_found: outcome.namesFound,
          last_error: null,
          completed_at: new Date(),
        })
        .where('id', '=', extractionId)
        .where('state', '=', 'PENDING')
        .returning(['id', 'search_id'])
        .executeTakeFirst();
      if (!claimed) return false;
      await deleteSearchNoLongerNeeded(tx, claimed.search_id);
      await tx.deleteFrom('data_extraction_results').where('extraction_id', '=', extractionId).execute();
      await tx.deleteFrom('data_extraction_wikipedia').where('extraction_id', '=', extractionId).execute();
      // Batches keep statements (and their thumbnails) a reasonable size.
      for (let i = 0; i < outcome.results.length; i += 100) {
        const batch = outcome.results.slice(i, i + 100);
        const inserted = await tx
          .insertInto('data_extraction_results')
          .values(
            batch.map((r) => ({
              extraction_id: extractionId,
              hashed_id: r.hashedId,
              record_hash: r.recordHash,
              rank: r.rank,
              similarity: r.similarity,
              score_model_id: r.scoreModel,
              image_url: r.imageUrl,
              source_url: r.sourceUrl,
              source_title: r.sourceTitle,
              crawled_at: r.crawledAt,
              thumbnail: r.thumbnail,
              person_name: r.personName,
              person_desc: r.personDesc,
              politician: r.politician,
              sanctions: r.sanctions,
              criminal: r.criminal,
              seen_with: r.connections.length > 0,
              alternative_names: JSON.stringify(r.alternativeNames),
              evidence: JSON.stringify(r.evidence),
              face_id: r.faceId,
              gone_face_was_minor: r.goneFaceWasMinor,
              ...matchedFaceColumns(r),
            })),
          )
          .returning(['id', 'hashed_id'])
          .execute();
        const ids = new Map(inserted.map((row) => [row.hashed_id, row.id]));
        const connections = batch.flatMap((r) =>
          r.connections.map((c) => ({
            result_id: ids.get(r.hashedId)!,
            hashed_id: c.hashedId,
            name: c.name,
            face_id: c.face?.faceId ?? null,
            image_id: c.face?.imageId ?? null,
            about_url: c.aboutUrl,
            politician: c.politician,
            sanctions: c.sanctions,
            criminal: c.criminal,
            evidence: JSON.stringify(c.evidence),
          })),
        );
        if (connections.length > 0) {
          await tx.insertInto('data_extraction_connections').values(connections).execute();
        }
      }
      if (outcome.wikipedia) {
        await tx
          .insertInto('data_extraction_wikipedia')
          .values({
            extraction_id: extractionId,
            name: outcome.wikipedia.name,
            person_description: outcome.wikipedia.personDescription,
            politician: outcome.wikipedia.politician,
            sanctions: outcome.wikipedia.sanctions,
            criminal: outcome.wikipedia.criminal,
            url: outcome.wikipedia.url,
            evidence: JSON.stringify(outcome.wikipedia.evidence),
          })
          .execute();
      }
      return true;
    });
  }

  /**
   * The extraction's owner (when still a member) and the organization's newsletter subscribers, active
   * and still with access to the organization's work (a seat of the plan in force; nobody while the
   * organization is suspended): a member without a seat cannot open the extraction, so is not told of it.
   */
  async findRecipients(organizationId: number, ownerId: number | null) {
    const candidates = await this.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('organization_id', '=', organizationId)
      .where('status', '=', 'ACTIVE')
      .where('blocked_at', 'is', null)
      .where((eb) =>
        eb.or([eb('newsletter', '=', true), ...(ownerId === null ? [] : [eb('id', '=', ownerId)])]),
      )
      .orderBy('id')
      .execute();
    const withAccess = await new SeatRepository(this.db).withAccess(
      organizationId,
      candidates.map((user) => user.id),
    );
    return candidates.filter((user) => withAccess.has(user.id));
  }

  async markChecked(extractionId: number): Promise<void> {
    await this.db
      .updateTable('data_extractions')
      .set({ status: 'CHECKED' })
      .where('id', '=', extractionId)
      .where('state', '=', 'DONE')
      .where('status', '=', 'NEW')
      .execute();
  }

  async update(extractionId: number, name: string, description: string | undefined): Promise<void> {
    await this.db
      .updateTable('data_extractions')
      .set(description === undefined ? { name } : { name, description })
      .where('id', '=', extractionId)
      .execute();
  }

  async delete(extractionId: number): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      const deleted = await tx
        .deleteFrom('data_extractions')
        .where('id', '=', extractionId)
        .returning('search_id')
        .executeTakeFirst();
      await deleteSearchNoLongerNeeded(tx, deleted?.search_id ?? null);
    });
  }

  /** Every shown (not removed) result of an extraction its reader may see (`minorsAllowed`), in rank order. */
  findAllResults(extractionId: number, minorsAllowed: boolean) {
    return this.db
      .selectFrom('data_extraction_results')
      .select(resultColumns(minorsAllowed))
      .where('extraction_id', '=', extractionId)
      .where('removed', '=', false)
      .where(copiedResultVisible(minorsAllowed))
      .orderBy('rank')
      .execute()
      .then((rows) => rows.map(withJson));
  }

  /** The person name of every shown result of these extractions its reader may see (`minorsAllowed`). */
  findResultNames(extractionIds: readonly number[], minorsAllowed: boolean) {
    return this.db
      .selectFrom('data_extraction_results')
      .select(['extraction_id', 'person_name'])
      .where('extraction_id', 'in', [...extractionIds])
      .where('removed', '=', false)
      .where(copiedResultVisible(minorsAllowed))
      .execute();
  }

  /** One page of an extraction's results, filtered and sorted as the detail page asks. */
  async findResultPage(extractionId: number, filter: ResultFilter) {
    let query = this.db
      .selectFrom('data_extraction_results')
      .where('data_extraction_results.extraction_id', '=', extractionId)
      .where('data_extraction_results.removed', '=', false)
      .where(copiedResultVisible(filter.minorsAllowed));
    const flags = flagsOn(filter);
    if (flags.length > 0) {
      query = query.where((eb) =>
        eb.or(flags.map((flag) => eb(`data_extraction_results.${flag}`, '=', true))),
      );
    }
    if (filter.checked !== undefined)
      query = query.where('data_extraction_results.checked', '=', filter.checked);
    if (filter.name !== undefined)
      query = query.where('data_extraction_results.person_name', '=', filter.name);
    if (filter.seenWith !== undefined) {
      const seenWith = filter.seenWith;
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('data_extraction_connections as c')
            .select('c.id')
            .whereRef('c.result_id', '=', 'data_extraction_results.id')
            .where('c.name', '=', seenWith)
            .where(connectionVisible(filter.minorsAllowed, 'c')),
        ),
      );
    }
    let ordered = query.select(resultColumns(filter.minorsAllowed));
    if (filter.sortBy === 'date') {
      ordered = ordered.orderBy('data_extraction_results.crawled_at', 'asc');
    } else if (filter.sortBy === 'similarity') {
      ordered = ordered.orderBy('data_extraction_results.similarity', 'desc');
    } else {
      // Smart: flagged persons first, then named ones, then the closest faces.
      ordered = ordered
        .orderBy(
          sql`(data_extraction_results.politician or data_extraction_results.sanctions or data_extraction_results.criminal)`,
          'desc',
        )
        .orderBy(sql`(data_extraction_results.person_name <> '')`, 'desc')
        .orderBy('data_extraction_results.similarity', 'desc');
    }
    const page = await pageWithTotal(
      query,
      ordered.orderBy('data_extraction_results.rank').offset(filter.offset).limit(filter.limit).execute(),
    );
    return { rows: page.rows.map(withJson), total: page.total };
  }

  /**
   * Shown results, with their thumbnails, of extractions in the scope: by hashedId, by id, or every one
   * of an extraction.
   */
  findResults(
    keys: { hashedIds: readonly string[] } | { ids: readonly number[] } | { extractionId: number },
    scope: ExtractionScope,
    minorsAllowed: boolean,
  ) {
    if ('ids' in keys && keys.ids.length === 0) return Promise.resolve([]);
    if ('hashedIds' in keys && keys.hashedIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('data_extraction_results')
      .innerJoin('data_extractions', 'data_extractions.id', 'data_extraction_results.extraction_id')
      .select([...resultColumns(minorsAllowed), 'data_extraction_results.thumbnail'])
      .where(inScope(scope))
      .where('data_extraction_results.removed', '=', false)
      .where(copiedResultVisible(minorsAllowed))
      .where((eb) =>
        'ids' in keys
          ? eb('data_extraction_results.id', 'in', [...keys.ids])
          : 'hashedIds' in keys
            ? eb('data_extraction_results.hashed_id', 'in', [...keys.hashedIds])
            : eb('data_extraction_results.extraction_id', '=', keys.extractionId),
      )
      .orderBy('data_extraction_results.rank')
      .execute()
      .then((rows) => rows.map(withJson));
  }

  async findResultThumbnail(resultId: number): Promise<Buffer | null | undefined> {
    const row = await this.db
      .selectFrom('data_extraction_results')
      .select('thumbnail')
      .where('id', '=', resultId)
      .executeTakeFirst();
    return row?.thumbnail;
  }

  /**
   * The connections of the given results its reader may see (`minorsAllowed`: a connection named through a
   * face flagged as a possible minor is not, as for results), in the order the analysis gave them.
   */
  findConnections(resultIds: readonly number[], minorsAllowed: boolean) {
    if (resultIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('data_extraction_connections')
      .select(CONNECTION_COLUMNS)
      .where('result_id', 'in', [...resultIds])
      .where(connectionVisible(minorsAllowed))
      .orderBy('id')
      .execute()
      .then((rows) => rows.map((row) => ({ ...row, evidence: parsed(row.evidence) })));
  }

  /** Connection names of every shown result of an extraction its reader may see, with their result. */
  findConnectionNames(extractionId: number, minorsAllowed: boolean) {
    return this.db
      .selectFrom('data_extraction_connections')
      .innerJoin(
        'data_extraction_results',
        'data_extraction_results.id',
        'data_extraction_connections.result_id',
      )
      .select(['data_extraction_connections.result_id', 'data_extraction_connections.name'])
      .where('data_extraction_results.extraction_id', '=', extractionId)
      .where('data_extraction_results.removed', '=', false)
      .where(copiedResultVisible(minorsAllowed))
      .where(connectionVisible(minorsAllowed))
      .orderBy('data_extraction_connections.id')
      .execute();
  }

  /**
   * Where the photo of a connection named through the face index is kept (its image's thumbnail), for a
   * reader who may see the connection and its result; undefined otherwise.
   */
  async findConnectionThumbnailPath(
    key: { hashedId: string } | { id: number },
    scope: ExtractionScope,
    minorsAllowed: boolean,
  ): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('data_extraction_connections')
      .innerJoin(
        'data_extraction_results',
        'data_extraction_results.id',
        'data_extraction_connections.result_id',
      )
      .innerJoin('data_extractions', 'data_extractions.id', 'data_extraction_results.extraction_id')
      .innerJoin('images', 'images.id', 'data_extraction_connections.image_id')
      .select('images.thumbnail_path')
      .where(inScope(scope))
      .where('data_extraction_results.removed', '=', false)
      .where(copiedResultVisible(minorsAllowed))
      .where(connectionVisible(minorsAllowed))
      .where((eb) =>
        'id' in key
          ? eb('data_extraction_connections.id', '=', key.id)
          : eb('data_extraction_connections.hashed_id', '=', key.hashedId),
      )
      .executeTakeFirst();
    return row?.thumbnail_path ?? undefined;
  }

  /**
   * The extraction's Wikipedia result, for a reader who may see the best name it was looked up for
   * (`minorsAllowed`, as bestNameShown); with `filter`, only when it matches the detail page's filters as
   * a result would (its name, its checked mark, one of the flags asked for). It has no connections, so a
   * "Seen with" filter never matches it.
   */
  async findWikipedia(extractionId: number, minorsAllowed: boolean, filter?: WikipediaFilter) {
    let query = this.db
      .selectFrom('data_extraction_wikipedia')
      .innerJoin('data_extractions', 'data_extractions.id', 'data_extraction_wikipedia.extraction_id')
      .selectAll('data_extraction_wikipedia')
      .where('data_extraction_wikipedia.extraction_id', '=', extractionId)
      .where(bestNameShown(minorsAllowed));
    if (filter) {
      // An empty name or "Seen with" is no filter (ALL RESULTS, None).
      if (filter.seenWith) return undefined;
      const flags = flagsOn(filter);
      if (flags.length > 0) {
        query = query.where((eb) =>
          eb.or(flags.map((flag) => eb(`data_extraction_wikipedia.${flag}`, '=', true))),
        );
      }
      if (filter.checked !== undefined) {
        query = query.where('data_extraction_wikipedia.checked', '=', filter.checked);
      }
      if (filter.name) query = query.where('data_extraction_wikipedia.name', '=', filter.name);
    }
    const row = await query.executeTakeFirst();
    return row && { ...row, evidence: parsed(row.evidence) };
  }

  /** Marks a result checked (spec 001 §4: unchecked to checked only, so marking it again changes nothing). */
  async markResultChecked(resultId: number): Promise<void> {
    await this.db
      .updateTable('data_extraction_results')
      .set({ checked: true })
      .where('id', '=', resultId)
      .execute();
  }

  /**
   * Marks the extraction's Wikipedia result checked; false when the extraction has none, or none its editor
   * may see (`minorsAllowed`, as findWikipedia).
   */
  async markWikipediaChecked(extractionId: number, minorsAllowed: boolean): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('data_extraction_wikipedia')
      .set({ checked: true })
      .where('extraction_id', '=', extractionId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('data_extractions')
            .select('data_extractions.id')
            .whereRef('data_extractions.id', '=', 'data_extraction_wikipedia.extraction_id')
            .where(bestNameShown(minorsAllowed)),
        ),
      )
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async updateResult(
    resultId: number,
    change: {
      personName: string;
      personDesc?: string | undefined;
      alternativeNames: string[];
      /** The flags and their evidence for the name (a renamed result's are its new name's). */
      flags?: { politician: boolean; sanctions: boolean; criminal: boolean; evidence: FlagEvidence[] };
    },
  ): Promise<void> {
    await this.db
      .updateTable('data_extraction_results')
      .set({
        person_name: change.personName,
        ...(change.personDesc === undefined ? {} : { person_desc: change.personDesc }),
        alternative_names: JSON.stringify(change.alternativeNames),
        ...(change.flags === undefined
          ? {}
          : {
              politician: change.flags.politician,
              sanctions: change.flags.sanctions,
              criminal: change.flags.criminal,
              evidence: JSON.stringify(change.flags.evidence),
            }),
      })
      .where('id', '=', resultId)
      .execute();
  }

  async removeResult(resultId: number): Promise<void> {
    await this.db
      .updateTable('data_extraction_results')
      .set({ removed: true })
      .where('id', '=', resultId)
      .execute();
  }

  /** After an edit or a removal: the counts and names the list shows. */
  async updateAggregates(
    extractionId: number,
    aggregates: { resultCount: number; namesFound: number; bestName: string | null },
  ): Promise<void> {
    await this.db
      .updateTable('data_extractions')
      .set({
        result_count: aggregates.resultCount,
        processed_count: aggregates.resultCount,
        names_found: aggregates.namesFound,
        best_name: aggregates.bestName,
      })
      .where('id', '=', extractionId)
      .execute();
  }

  findOrganizationName(organizationId: number) {
    return this.db
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', organizationId)
      .executeTakeFirst();
  }
}
