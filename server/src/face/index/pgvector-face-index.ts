import { searchWithOverfetch } from './exact-rerank.ts';
import type { OverfetchOptions } from './exact-rerank.ts';
import type { FaceIndex, FaceIndexHit, FaceSearchOptions, FaceVectorEntry } from './face-index.ts';
import { MAX_WALKED_CANDIDATES, walkedCandidates } from './search-width.ts';

/** The little of a Postgres client this needs. PGlite fits as is; wrap a `pg` pool in ten lines. */
export interface SqlQueryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface SqlClient extends SqlQueryable {
  transaction<T>(run: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

export interface PgvectorFaceIndexOptions {
  dimensions: number;
  /** Table of (face_id bigint primary key, embedding vector(dimensions)). */
  table?: string;
  /**
   * What the HNSW index stores. 'f16' indexes `embedding::halfvec` (half the index size) and the
   * same query re-scores candidates with the full-precision column, as the usearch index does.
   */
  quantization?: 'f32' | 'f16';
  /** HNSW m of a new index (default 32); an existing index keeps the m it was built with. */
  connectivity?: number;
  /** HNSW ef_construction. */
  expansionAdd?: number;
  /** `minCandidates` fixes the width; by default it follows the table's size and its index's m. */
  search?: Partial<OverfetchOptions>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const ROWS_PER_INSERT = 500;
// pgvector caps hnsw.ef_search at 1000; wider searches rely on its iterative scan.
const MAX_EF_SEARCH = 1000;

/**
 * How a search widens (exact-rerank.ts); `approximationMargin` follows the quantisation. `minCandidates`
 * is the floor of the width a table's size asks for (search-width.ts).
 */
const PGVECTOR_SEARCH_DEFAULTS = {
  minCandidates: 100,
  minFilteredCandidates: 50,
  overfetch: 2,
  maxCandidates: MAX_WALKED_CANDIDATES,
} as const;

/** How long a process trusts its count of a table's faces and its index's m (a count reads the table). */
const GRAPH_FACTS_TTL_MS = 5 * 60_000;

function vectorLiteral(vector: Float32Array): string {
  // A float32 printed as the shortest double that round-trips parses back to the same float32.
  return `[${Array.from(vector).join(',')}]`;
}

/** A Postgres array literal of numbers or vector literals. Drivers differ in how (and whether) they
 * serialise JS arrays as parameters; a text literal cast in SQL works with every one. */
function arrayLiteral(items: readonly (number | string)[]): string {
  return `{${items.map((item) => `"${item}"`).join(',')}}`;
}

/**
 * The face index inside PostgreSQL with pgvector, for deployments on a PostgreSQL server (and
 * tested on PGlite with @electric-sql/pglite-pgvector). The table is the index: there is nothing to
 * keep in step, every process sees every commit.
 */
export class PgvectorFaceIndex implements FaceIndex {
  readonly dimensions: number;
  private readonly db: SqlClient;
  private readonly table: string;
  private readonly quantization: 'f32' | 'f16';
  private readonly connectivity: number;
  private readonly expansionAdd: number;
  private readonly overfetch: OverfetchOptions;
  private readonly fixedWidth: boolean;
  private graphFacts?: { size: number; connectivity: number; readAt: number };

  constructor(db: SqlClient, options: PgvectorFaceIndexOptions) {
    const table = options.table ?? 'face_vector';
    if (!IDENTIFIER.test(table)) throw new Error(`invalid table name ${table}`);
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
      throw new Error(`invalid dimensions ${options.dimensions}`);
    }
    this.db = db;
    this.table = table;
    this.dimensions = options.dimensions;
    this.quantization = options.quantization ?? 'f32';
    this.connectivity = options.connectivity ?? 32;
    this.expansionAdd = options.expansionAdd ?? 64;
    this.overfetch = {
      ...PGVECTOR_SEARCH_DEFAULTS,
      approximationMargin: this.quantization === 'f16' ? 0.01 : 0.001,
      ...options.search,
    };
    this.fixedWidth = options.search?.minCandidates !== undefined;
  }

  /**
   * The candidates a search walks at least: a share of the table by its index's m (search-width.ts),
   * from a count and the index's options read at most every GRAPH_FACTS_TTL_MS.
   */
  async minCandidates(now = Date.now()): Promise<number> {
    if (this.fixedWidth) return this.overfetch.minCandidates;
    if (!this.graphFacts || now - this.graphFacts.readAt > GRAPH_FACTS_TTL_MS) {
      const { rows } = await this.db.query<{ size: number | string; m: string | null }>(
        // The HNSW index found by its table, not by its name (PostgreSQL shortens names over 63 bytes).
        `select (select count(*) from ${this.table}) as size, ` +
          `(select substring(option from '^m=([0-9]+)$') from pg_index ` +
          `join pg_class as i on i.oid = pg_index.indexrelid join pg_am on pg_am.oid = i.relam, ` +
          `unnest(i.reloptions) as option where pg_index.indrelid = '${this.table}'::regclass ` +
          `and pg_am.amname = 'hnsw' and option like 'm=%' limit 1) as m`,
      );
      // An index built without the option has pgvector's default m.
      const connectivity = Number(rows[0]?.m ?? 16);
      this.graphFacts = { size: Number(rows[0]?.size ?? 0), connectivity, readAt: now };
    }
    const { size, connectivity } = this.graphFacts;
    return walkedCandidates(size, connectivity, PGVECTOR_SEARCH_DEFAULTS.minCandidates);
  }

  /** The expression the HNSW index is built on and searches order by. */
  private get indexed(): { column: string; query: string; ops: string } {
    return this.quantization === 'f16'
      ? {
          column: `(embedding::halfvec(${this.dimensions}))`,
          query: `$1::halfvec(${this.dimensions})`,
          ops: 'halfvec_cosine_ops',
        }
      : { column: 'embedding', query: '$1::vector', ops: 'vector_cosine_ops' };
  }

  /** Creates the extension and the table when missing (a migration can run the same SQL). */
  async createSchema(): Promise<void> {
    await this.db.query('create extension if not exists vector');
    await this.db.query(
      `create table if not exists ${this.table} (face_id bigint primary key, embedding vector(${this.dimensions}) not null)`,
    );
  }

  /**
   * Builds the HNSW index when missing. Building once over loaded rows is much faster than growing
   * it row by row (in PGlite's WASM, 2,000 × 128-d half vectors: 3 s against 21 s), so a bulk load
   * runs before this; later adds update it as they come.
   */
  async createIndex(): Promise<void> {
    const { column, ops } = this.indexed;
    await this.db.query(
      `create index if not exists ${this.table}_hnsw on ${this.table} using hnsw (${column} ${ops}) ` +
        `with (m = ${this.connectivity}, ef_construction = ${this.expansionAdd})`,
    );
  }

  async count(): Promise<number> {
    const { rows } = await this.db.query<{ count: number | string }>(
      `select count(*) as count from ${this.table}`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  async add(entries: readonly FaceVectorEntry[]): Promise<void> {
    const latest = new Map<number, Float32Array>();
    for (const { faceId, vector } of entries) {
      if (vector.length !== this.dimensions) {
        throw new Error(`face ${faceId}: ${vector.length}-d vector, index is ${this.dimensions}-d`);
      }
      latest.set(faceId, vector);
    }
    const rows = [...latest];
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + ROWS_PER_INSERT);
      await this.db.query(
        `insert into ${this.table} (face_id, embedding) select * from unnest($1::bigint[], $2::vector[]) ` +
          'on conflict (face_id) do update set embedding = excluded.embedding',
        [
          arrayLiteral(chunk.map(([faceId]) => faceId)),
          arrayLiteral(chunk.map(([, vector]) => vectorLiteral(vector))),
        ],
      );
    }
  }

  async remove(faceIds: readonly number[]): Promise<void> {
    if (faceIds.length === 0) return;
    await this.db.query(`delete from ${this.table} where face_id = any($1::bigint[])`, [
      arrayLiteral(faceIds),
    ]);
  }

  private candidateSql(): string {
    const { column, query } = this.indexed;
    return (
      `select face_id, 1 - (${column} <=> ${query}) as approximate, 1 - (embedding <=> $1::vector) as exact ` +
      `from ${this.table} order by ${column} <=> ${query} limit $2`
    );
  }

  async search(query: Float32Array, options: FaceSearchOptions): Promise<FaceIndexHit[]> {
    if (query.length !== this.dimensions) {
      throw new Error(`query is ${query.length}-d, index is ${this.dimensions}-d`);
    }
    const literal = vectorLiteral(query);
    const minCandidates = await this.minCandidates();
    // The candidate query returns the exact score with each candidate; re-scoring reads it here.
    const exact = new Map<number, number>();
    return searchWithOverfetch(
      async (count) => {
        const rows = await this.db.transaction(async (tx) => {
          await tx.query("select set_config('hnsw.ef_search', $1, true)", [
            String(Math.min(count, MAX_EF_SEARCH)),
          ]);
          await tx.query("select set_config('hnsw.iterative_scan', 'relaxed_order', true)");
          const result = await tx.query<{ face_id: number | string; approximate: number; exact: number }>(
            this.candidateSql(),
            [literal, count],
          );
          return result.rows;
        });
        const candidates = rows.map((row) => {
          const faceId = Number(row.face_id);
          exact.set(faceId, Number(row.exact));
          return { faceId, similarity: Number(row.approximate) };
        });
        // Iterative scans are relaxed: put the candidates in order before the loop looks at the worst.
        candidates.sort((a, b) => b.similarity - a.similarity);
        return { candidates, exhausted: candidates.length < count };
      },
      async (faceIds) => new Map(faceIds.map((faceId) => [faceId, exact.get(faceId)!])),
      { ...this.overfetch, minCandidates, ...options },
    );
  }

  /** The plan of the candidate query, to check that it uses the HNSW index. */
  async explainSearch(query: Float32Array, count: number): Promise<string> {
    const { rows } = await this.db.query<{ 'QUERY PLAN': string }>(`explain ${this.candidateSql()}`, [
      vectorLiteral(query),
      count,
    ]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }
}
