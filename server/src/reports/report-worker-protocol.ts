import type { ExtractionReportData } from './extraction-report.ts';
import type { InvoiceIssuer, InvoiceOrder } from './invoice-pdf.ts';
import type { SavedSearchReportData } from './saved-search-report.ts';

// Messages between the report pool (main thread) and a report worker.

/**
 * What a report worker draws: the data the services gathered, laid out by saved-search-report.ts,
 * extraction-report.ts or invoice-pdf.ts.
 */
export type ReportJob =
  | { kind: 'saved-search'; data: SavedSearchReportData }
  | { kind: 'extraction'; data: ExtractionReportData }
  | { kind: 'invoice'; data: { order: InvoiceOrder; issuer: InvoiceIssuer } };

/**
 * Plain data as it crosses to a worker: a Buffer arrives as a Uint8Array (structured cloning keeps the
 * bytes, not the Buffer class); dates, strings and numbers arrive as they are.
 */
export type Wire<T> = T extends Buffer
  ? Uint8Array
  : T extends Date
    ? Date
    : T extends ReadonlyArray<infer U>
      ? Wire<U>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

export type RenderRequest = { id: number } & Wire<ReportJob>;

export type ReportWorkerMessage =
  | { type: 'ready' }
  | { type: 'init-error'; message: string }
  /** The PDF; its buffer is transferred to the main thread. */
  | { type: 'result'; id: number; pdf: Uint8Array }
  | { type: 'error'; id: number; message: string };

/**
 * The job as a worker receives it, with each image copied into memory of its own, listed in `transfer`:
 * the copies are handed over rather than cloned a second time, and the caller's buffers (which may share
 * Node's buffer pool) stay untouched.
 */
export function toWire<T>(value: T, transfer: ArrayBuffer[]): Wire<T> {
  if (value instanceof Uint8Array) {
    const copy = new Uint8Array(value);
    transfer.push(copy.buffer);
    return copy as Wire<T>;
  }
  if (value === null || typeof value !== 'object' || value instanceof Date) return value as Wire<T>;
  if (Array.isArray(value)) return value.map((item: unknown) => toWire(item, transfer)) as Wire<T>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = toWire(item, transfer);
  return out as Wire<T>;
}

/**
 * The reverse in the worker: the layout code gets Buffers again (views of the received bytes, no copy),
 * the very input it had on the main thread, so the PDFs stay the same.
 */
export function fromWire<T>(value: Wire<T>): T {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength) as T;
  if (value === null || typeof value !== 'object' || value instanceof Date) return value as T;
  if (Array.isArray(value)) return value.map((item: unknown) => fromWire(item as Wire<unknown>)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = fromWire(item as Wire<unknown>);
  return out as T;
}
