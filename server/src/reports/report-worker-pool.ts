import type { ResourceLimits, Worker } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue.ts';
import { startTsWorker } from '../lib/ts-worker.ts';
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

interface Job {
  id: number;
  tenant: string;
  request: RenderRequest;
  transfer: ArrayBuffer[];
  resolve(pdf: Buffer): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
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

export class ReportWorkerPool {
  private readonly slots: Slot[] = [];
  /** Workers still starting (at first use, or replacing a failed one). */
  private readonly starting = new Set<Worker>();
  private readonly queue: FairQueue<Job>;
  private started = false;
  private nextId = 1;
  private closing = false;
  private drained: (() => void) | null = null;

  constructor(private readonly options: ReportWorkerPoolOptions) {
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

  /** Lets queued and running renders finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.queue.size > 0 || this.slots.some((s) => s.job)) {
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
    const workers = [...this.slots.splice(0).map((s) => s.worker), ...this.starting];
    this.starting.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** Starts a worker; when none can start and none is left, what waits fails rather than hangs. */
  private spawnOrFail(): void {
    this.spawn().catch((err: Error) => {
      if (this.slots.length === 0 && this.starting.size === 0) {
        for (const job of this.queue.takeAll()) job.reject(err);
        // The next report tries to start workers again.
        this.started = false;
      }
      this.checkDrained();
    });
  }

  private spawn(): Promise<Slot> {
    const worker = startTsWorker(new URL('./report-worker.ts', import.meta.url), {
      resourceLimits: this.resourceLimits(),
    });
    const slot: Slot = { worker, job: null, timer: null };
    this.starting.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: ReportWorkerMessage) => {
        if (message.type === 'ready') {
          ready = true;
          this.starting.delete(worker);
          resolve(slot);
          // A replacement that comes up after close() has nothing to do unless renders still wait for it.
          if (this.closing && this.queue.size === 0) {
            void worker.terminate();
            return;
          }
          this.slots.push(slot);
          this.dispatch();
        } else if (message.type === 'init-error') {
          this.starting.delete(worker);
          reject(new ReportRenderError(`Report worker failed to start: ${message.message}`));
          void worker.terminate();
        } else {
          this.finish(slot, message);
        }
      });
      worker.on('error', (err) => {
        this.starting.delete(worker);
        if (!ready) reject(new ReportRenderError(`Report worker failed to start: ${err.message}`));
        else this.replace(slot, new ReportRenderError(`Report worker crashed: ${err.message}`));
      });
      worker.on('exit', (code) => {
        this.starting.delete(worker);
        if (!ready) reject(new ReportRenderError(`Report worker exited during start (code ${code})`));
        else if (this.slots.includes(slot))
          this.replace(slot, new ReportRenderError(`Report worker exited (code ${code})`));
      });
    });
  }

  private resourceLimits(): ResourceLimits {
    return { maxOldGenerationSizeMb: this.options.workerHeapMb };
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.take();
      if (!job) break;
      slot.job = job;
      slot.timer = setTimeout(
        () =>
          this.replace(
            slot,
            new ReportRenderError(`Report rendering timed out after ${this.options.renderTimeoutMs} ms`),
          ),
        this.options.renderTimeoutMs,
      );
      slot.worker.postMessage(job.request, job.transfer);
    }
    this.checkDrained();
  }

  private finish(slot: Slot, message: Extract<ReportWorkerMessage, { type: 'result' | 'error' }>): void {
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    this.release(slot);
    if (message.type === 'result') {
      job.resolve(Buffer.from(message.pdf.buffer, message.pdf.byteOffset, message.pdf.byteLength));
    } else job.reject(new ReportRenderError(`Report rendering failed: ${message.message}`));
    this.dispatch();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    if (job) this.queue.finished(job.tenant);
  }

  /** Fails the slot's render, stops its worker and starts a fresh one in its place. */
  private replace(slot: Slot, reason: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const job = slot.job;
    this.release(slot);
    job?.reject(reason);
    void slot.worker.terminate();
    if (this.closing && this.queue.size === 0) {
      this.checkDrained();
      return;
    }
    this.spawnOrFail();
  }

  private checkDrained(): void {
    if (this.drained && this.queue.size === 0 && this.slots.every((s) => !s.job)) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}
