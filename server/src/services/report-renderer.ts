import type { FastifyBaseLogger } from 'fastify';
import { REPORT_FAILED_MESSAGE, REPORTS_BUSY_MESSAGE } from '@osint/contract/constants';
import { HttpError } from '../lib/http-error.ts';
import type { ExtractionReportData } from '../reports/extraction-report.ts';
import type { InvoiceIssuer, InvoiceOrder } from '../reports/invoice-pdf.ts';
import { ReportRenderError, ReportWorkerPool } from '../reports/report-worker-pool.ts';
import type { ReportJob } from '../reports/report-worker-protocol.ts';
import type { SavedSearchReportData } from '../reports/saved-search-report.ts';

/**
 * Reports of one organization in progress at once (gathering their data, waiting for a worker or being
 * drawn), per API process: `running` may be drawn at the same time, `queued` more wait. The per-user limit
 * (20 a minute) does not stop an organization of many users; this does, so that its reports cannot fill
 * the queue in front of another organization's.
 */
export const REPORTS_PER_ORGANIZATION = { running: 2, queued: 3 } as const;
/** What a refused report is told to wait: a report takes seconds. */
const BUSY_RETRY_AFTER_SECONDS = 5;

export interface ReportRendererOptions {
  /** Report worker threads (REPORT_WORKERS). */
  workers: number;
  renderTimeoutMs: number;
  workerHeapMb: number;
}

/** Draws a report of the organization that holds the place (see ReportRenderer.admit). */
export interface ReportDrawing {
  savedSearch(data: SavedSearchReportData): Promise<Buffer>;
  extraction(data: ExtractionReportData): Promise<Buffer>;
  invoice(order: InvoiceOrder, issuer: InvoiceIssuer): Promise<Buffer>;
}

/**
 * The PDF reports and invoices of every service: each one holds one of its organization's places from the first read
 * of its data to the PDF, and is drawn in a report worker thread, organizations taking turns for them.
 */
export class ReportRenderer {
  private readonly inProgress = new Map<number, number>();
  private readonly pool: ReportWorkerPool;

  constructor(
    options: ReportRendererOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.pool = new ReportWorkerPool({
      size: options.workers,
      renderTimeoutMs: options.renderTimeoutMs,
      workerHeapMb: options.workerHeapMb,
      maxRunningPerOrganization: REPORTS_PER_ORGANIZATION.running,
    });
  }

  /**
   * Runs `work` (gather the data, draw, record) holding one of the organization's places, or answers 429
   * before any of it when all are taken. `organizationId` is the requester's: an admin's reports of any
   * organization count for the admin's own.
   */
  async admit<T>(organizationId: number, work: (draw: ReportDrawing) => Promise<T>): Promise<T> {
    const taken = this.inProgress.get(organizationId) ?? 0;
    if (taken >= REPORTS_PER_ORGANIZATION.running + REPORTS_PER_ORGANIZATION.queued) {
      throw Object.assign(new HttpError(429, REPORTS_BUSY_MESSAGE), {
        retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
      });
    }
    this.inProgress.set(organizationId, taken + 1);
    try {
      return await work({
        savedSearch: (data) => this.draw(organizationId, { kind: 'saved-search', data }),
        extraction: (data) => this.draw(organizationId, { kind: 'extraction', data }),
        invoice: (order, issuer) => this.draw(organizationId, { kind: 'invoice', data: { order, issuer } }),
      });
    } finally {
      const left = (this.inProgress.get(organizationId) ?? 1) - 1;
      if (left > 0) this.inProgress.set(organizationId, left);
      else this.inProgress.delete(organizationId);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async draw(organizationId: number, job: ReportJob): Promise<Buffer> {
    try {
      return await this.pool.render(organizationId, job);
    } catch (err) {
      if (!(err instanceof ReportRenderError)) throw err;
      // The cause (crash, heap, timeout) is for the logs; the user learns that this report failed.
      this.log.error({ err, organizationId, kind: job.kind }, 'report rendering failed');
      throw new HttpError(500, REPORT_FAILED_MESSAGE);
    }
  }
}
