import type { ResourceLimits, Worker } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue.ts';
import { startTsWorker } from '../lib/ts-worker.ts';
import { WorkerSlots } from '../lib/worker-slots.ts';
import {
  toWire,
  type RenderRequest,
  type ReportJob,
  type ReportWorkerMessage,
} from './report-worker-protocol.ts';

// A small set of report workers with a fair queue, on the pattern of the face worker pool: renders wait per
// organization and the organizations take turns (FairQueue), so one organization's reports delay
// another's by at most one render per worker. The workers start on the first report (a process that never
// draws one does not pay for them); a worker that crashes, runs out of its heap or exceeds the render
// timeout is replaced, failing only its own render.

type ReportAnswer = Extract<ReportWorkerMessage, { type: 'result' | 'error' }>;

interface Job {
  id: number;
  tenant: string;
  request: RenderRequest;
  transfer: ArrayBuffer[];
  resolve(pdf: Buffer): void;
  reject(err: Error): void;
}

export interface ReportWorkerPoolOptions {
  size: number;
  renderTimeoutMs: number;
  /** Renders of one organization running at once, however many workers are free. */
  maxRunningPerOrganization: number;
  /** The heap of each worker: a report too large for it fails alone instead of straining the API process. */
  workerHeapMb: number;
}

/** A render that failed in its worker (crash, heap, timeout or an error of the layout code). */
export class ReportRenderError extends Error {
  override readonly name = 'ReportRenderError';
}

export class ReportWorkerPool extends WorkerSlots<Job, ReportAnswer> {
  protected readonly workerName = 'Report worker';
  protected readonly jobName = 'Report rendering';
  protected readonly jobTimeoutMs: number;
  private readonly queue: FairQueue<Job>;
  private started = false;
  private nextId = 1;

  constructor(private readonly options: ReportWorkerPoolOptions) {
    super();
    this.jobTimeoutMs = options.renderTimeoutMs;
    this.queue = new FairQueue(options.maxRunningPerOrganization);
  }

  /** Queues a render for the organization; the first call starts the workers. */
  render(organizationId: number, job: ReportJob): Promise<Buffer> {
    if (this.closing) return Promise.reject(new ReportRenderError('Report workers are closed'));
    const transfer: ArrayBuffer[] = [];
    const id = this.nextId++;
    const request = { id, ...toWire(job, transfer) } as RenderRequest;
    return new Promise((resolve, reject) => {
      this.queue.push(String(organizationId), {
        id,
        tenant: String(organizationId),
        request,
        transfer,
        resolve,
        reject,
      });
      if (!this.started) this.start();
      this.dispatch();
    });
  }

  private start(): void {
    this.started = true;
    const count = Math.max(1, Math.floor(this.options.size));
    for (let i = 0; i < count; i++) this.spawnOrFail();
  }

  protected override onNoWorkers(): void {
    // The next report tries to start workers again.
    this.started = false;
  }

  protected override failure(message: string): Error {
    return new ReportRenderError(message);
  }

  protected get queuedCount(): number {
    return this.queue.size;
  }

  protected takeNext(): Job | undefined {
    return this.queue.take();
  }

  protected takeAllQueued(): Job[] {
    return this.queue.takeAll();
  }

  protected startWorker(): Worker {
    // The heap of each worker: a report too large for it fails alone instead of straining the API process.
    const resourceLimits: ResourceLimits = { maxOldGenerationSizeMb: this.options.workerHeapMb };
    return startTsWorker(new URL('./report-worker.ts', import.meta.url), { resourceLimits });
  }

  protected post(worker: Worker, job: Job): void {
    worker.postMessage(job.request, job.transfer);
  }

  protected settle(job: Job, answer: ReportAnswer): void {
    if (answer.type === 'result') {
      job.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
    } else job.reject(new ReportRenderError(`Report rendering failed: ${answer.message}`));
  }

  protected ended(job: Job): void {
    this.queue.finished(job.tenant);
  }
}
