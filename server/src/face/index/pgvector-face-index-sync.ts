import { createHash } from 'node:crypto';
import { catchUpFaceIndex } from './face-index-sync.ts';
import type { FaceVectorSource } from './face-index.ts';
import { PgvectorFaceIndex } from './pgvector-face-index.ts';
import type { PgvectorFaceIndexOptions, SqlClient, SqlQueryable } from './pgvector-face-index.ts';

/** Any fixed number (not the change log's): the key of the lock under which pgvector tables are built and caught up. */
const PGVECTOR_INDEX_LOCK = 7_310_002;
/** The one bookkeeping table: which table holds each model's vectors, and how far the change log is applied to it. */
const STATE_TABLE = 'face_vector_tables';
const POSTGRES_IDENTIFIER_LENGTH = 63;
/** How soon a search looks again while another process is catching the table up. */
const CATCH_UP_RETRY_MS = 5;

/** The table of one descriptor model's vectors: `face_vectors_<model>`, e.g. `face_vectors_blazeface_dlib128_5pt_1`. */
export function pgvectorTableFor(model: string): string {
  const name = `face_vectors_${model.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.replace(/_+$/, '');
  if (name.length <= POSTGRES_IDENTIFIER_LENGTH) return name;
  // Two long model ids must not share a truncated name.
  const hash = createHash('sha256').update(model).digest('hex').slice(0, 8);
  return `${name.slice(0, POSTGRES_IDENTIFIER_LENGTH - 9)}_${hash}`;
}

/** A transaction's client as a SqlClient: statements run in the transaction, a nested transaction is the same one. */
function inTransaction(tx: SqlQueryable): SqlClient {
  return { query: (text, params) => tx.query(text, params), transaction: (run) => run(tx) };
}

/**
 * The extension and the bookkeeping table (what the schema migration creates when FACE_INDEX=pgvector;
 * also run at start, so a deployment that turns pgvector on later needs nothing else). Under the lock:
 * two processes starting at once would otherwise race on `create extension`.
 */
export async function createPgvectorFaceIndexSchema(db: SqlClient): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [PGVECTOR_INDEX_LOCK]);
    await tx.query('create extension if not exists vector');
    await tx.query(
      `create table if not exists ${STATE_TABLE} (model_id text primary key, table_name text not null, ` +
        'applied_seq bigint not null)',
    );
  });
}

/**
 * Drops the vector tables of every model but `keep`, with their bookkeeping rows, once those models are
 * retired (their faces deleted without change-log entries): a table kept would be reopened as it was if
 * the model became active again, its deleted faces still in it. Nothing to do where pgvector is not used.
 */
export async function dropPgvectorTablesExcept(db: SqlClient, keep: string): Promise<void> {
  await db.transaction(async (tx) => {
    const state = await tx.query<{ present: string | null }>('select to_regclass($1)::text as present', [
      STATE_TABLE,
    ]);
    if (!state.rows[0]?.present) return;
    await tx.query('select pg_advisory_xact_lock($1)', [PGVECTOR_INDEX_LOCK]);
    const others = await tx.query<{ model_id: string; table_name: string }>(
      `select model_id, table_name from ${STATE_TABLE} where model_id <> $1`,
      [keep],
    );
    for (const { model_id, table_name } of others.rows) {
      await tx.query(`drop table if exists ${table_name}`);
      await tx.query(`delete from ${STATE_TABLE} where model_id = $1`, [model_id]);
    }
  });
}

export interface PgvectorFaceIndexSyncOptions {
  db: SqlClient;
  source: FaceVectorSource;
  model: string;
  dimensions: number;
  index?: Omit<PgvectorFaceIndexOptions, 'dimensions' | 'table'>;
}

/**
 * The face index of one descriptor model in PostgreSQL, shared by every process over the database. Its
 * table follows the change log like a usearch index does, but once for all processes: whoever searches
 * first after a commit applies the new log entries under a transaction-level lock and records how far
 * it got, so every search sees every face committed before it, and no process keeps a copy.
 *
 * The first process to open a model builds its table from the faces (bulk load, then the HNSW index:
 * much faster than growing it row by row), replaying the log from the position read before the scan.
 */
export class PgvectorFaceIndexSync {
  readonly index: PgvectorFaceIndex;
  private readonly db: SqlClient;
  private readonly source: FaceVectorSource;
  private readonly model: string;
  private readonly table: string;
  private readonly indexOptions: PgvectorFaceIndexOptions;

  constructor(options: PgvectorFaceIndexSyncOptions) {
    this.db = options.db;
    this.source = options.source;
    this.model = options.model;
    this.table = pgvectorTableFor(options.model);
    this.indexOptions = { ...options.index, dimensions: options.dimensions, table: this.table };
    this.index = new PgvectorFaceIndex(this.db, this.indexOptions);
  }

  /** Creates the extension, and builds this model's table and HNSW index unless another process has. */
  async open(): Promise<void> {
    await createPgvectorFaceIndexSchema(this.db);
    await this.db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [PGVECTOR_INDEX_LOCK]);
      if ((await this.appliedSeq(tx)) !== undefined) return;
      const index = new PgvectorFaceIndex(inTransaction(tx), this.indexOptions);
      const startSeq = await this.source.latestSeq();
      // A table without a row here is a build that did not commit (a crash rolls back the whole build).
      await tx.query(`drop table if exists ${this.table}`);
      await index.createSchema();
      for await (const batch of this.source.allVectors(10_000)) await index.add(batch);
      await index.createIndex();
      const { seq } = await catchUpFaceIndex(index, this.source, startSeq);
      await tx.query(`insert into ${STATE_TABLE} (model_id, table_name, applied_seq) values ($1, $2, $3)`, [
        this.model,
        this.table,
        seq,
      ]);
    });
  }

  /** Nothing runs in the background: searches catch the table up (`refresh`). */
  start(): void {}

  async stop(): Promise<void> {}

  /**
   * Applies the log entries committed before this call that the table does not have yet; returns the seq
   * the table is caught up to. One process applies them while the others wait for it: they try the lock
   * and, when another holds it, look again shortly, so that no connection sits blocked on the lock while the
   * holder needs the pool to read the log (a small pool would otherwise run dry).
   */
  async refresh(): Promise<number> {
    const target = await this.source.latestSeq();
    for (;;) {
      const applied = (await this.appliedSeq(this.db)) ?? 0;
      if (target <= applied) return applied;
      const caughtUp = await this.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ locked: boolean }>(
          'select pg_try_advisory_xact_lock($1) as locked',
          [PGVECTOR_INDEX_LOCK],
        );
        if (!rows[0]?.locked) return undefined;
        // Another process may have caught up since the look above.
        const from = (await this.appliedSeq(tx)) ?? 0;
        const index = new PgvectorFaceIndex(inTransaction(tx), this.indexOptions);
        const { seq } = await catchUpFaceIndex(index, this.source, from);
        if (seq !== from) {
          await tx.query(`update ${STATE_TABLE} set applied_seq = $2 where model_id = $1`, [this.model, seq]);
        }
        return seq;
      });
      if (caughtUp !== undefined) return caughtUp;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_RETRY_MS));
    }
  }

  private async appliedSeq(db: SqlQueryable): Promise<number | undefined> {
    const { rows } = await db.query<{ applied_seq: number | string }>(
      `select applied_seq from ${STATE_TABLE} where model_id = $1`,
      [this.model],
    );
    return rows[0] ? Number(rows[0].applied_seq) : undefined;
  }
}
