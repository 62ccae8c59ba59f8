import type { Worker } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue.ts';
import { startTsWorker } from '../lib/ts-worker.ts';
import type { ImageAnalysis } from './face-engine.ts';
import type { AnalyzeRequest, FaceWorkerData, FaceWorkerMessage } from './face-worker-protocol.ts';
import { ImageDecodeError } from './image-decode.ts';
import type { PipelineName } from './pipeline/pipeline-catalog.ts';

// A fixed set of face workers with a fair queue. Requests (uploads) are queued per organization and the
// organizations take turns (FairQueue): a free worker goes to the organization with the fewest analyses
// running, and among equals to the one served longest ago, so one organization's flood delays another's
// upload by at most one analysis. Background jobs (indexing) wait behind every request. Each worker loads
// the models once and runs one job at a time; a worker that crashes or exceeds the job timeout is
// replaced, failing only its own job.

interface Job {
  id: number;
  image: Uint8Array;
  minFaceSize: number;
  maxPixels: number;
  /** The organization's turn in the queue; requests without one share a turn. */
  tenant: string;
  background: boolean;
  resolve(analysis: ImageAnalysis): void;
  reject(err: Error): void;
}

export interface PoolJobOptions {
  minFaceSize: number;
  maxPixels: number;
  /** Indexing work: runs only when no request waits. */
  background?: boolean;
  organizationId?: number | undefined;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

export interface FaceWorkerPoolOptions {
  size: number;
  pipeline: PipelineName;
  jobTimeoutMs: number;
}

export class FaceWorkerPool {
  private readonly slots: Slot[] = [];
  /** Workers still loading their models (at start, or replacing a failed one). */
  private readonly starting = new Set<Worker>();
  /** Waiting requests, organizations taking turns. */
  private readonly requests = new FairQueue<Job>();
  private readonly background: Job[] = [];
  private nextId = 1;
  private closing = false;
  private drained: (() => void) | null = null;

  constructor(private readonly options: FaceWorkerPoolOptions) {}

  /** Starts all workers and waits until each has loaded its models. */
  async start(): Promise<void> {
    const count = Math.max(1, Math.floor(this.options.size));
    try {
      await Promise.all(Array.from({ length: count }, () => this.spawn()));
    } catch (err) {
      const workers = [...this.slots.splice(0).map((s) => s.worker), ...this.starting];
      this.starting.clear();
      await Promise.all(workers.map((w) => w.terminate()));
      throw err;
    }
  }

  /**
   * Queues an analysis. A background job (a crawl's image) waits behind every request, so that an upload
   * is analysed next even while a crawl keeps many images queued; requests of different organizations
   * take turns (see the top of this file).
   */
  run(image: Buffer, options: PoolJobOptions): Promise<ImageAnalysis> {
    if (this.closing) return Promise.reject(new Error('Face engine is closed'));
    // A private copy whose memory can be handed over to the worker without touching the caller's buffer.
    const copy = new Uint8Array(image);
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        image: copy,
        minFaceSize: options.minFaceSize,
        maxPixels: options.maxPixels,
        tenant: options.organizationId === undefined ? '' : String(options.organizationId),
        background: options.background ?? false,
        resolve,
        reject,
      };
      if (job.background) this.background.push(job);
      else this.requests.push(job.tenant, job);
      this.dispatch();
    });
  }

  private get queuedCount(): number {
    return this.requests.size + this.background.length;
  }

  /** The next job to start: a request of the least-served organization, else a background job. */
  private takeNext(): Job | undefined {
    return this.requests.take() ?? this.background.shift();
  }

  /** Every queued job, removed from the queue (to fail them when no worker is left). */
  private takeAll(): Job[] {
    return [...this.requests.takeAll(), ...this.background.splice(0)];
  }

  /** Lets queued and running jobs finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.queuedCount > 0 || this.slots.some((s) => s.job)) {
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
    const workers = [...this.slots.splice(0).map((s) => s.worker), ...this.starting];
    this.starting.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private spawn(): Promise<Slot> {
    const data: FaceWorkerData = { pipeline: this.options.pipeline };
    const worker = startTsWorker(new URL('./face-worker.ts', import.meta.url), { workerData: data });
    const slot: Slot = { worker, job: null, timer: null };
    this.starting.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: FaceWorkerMessage) => {
        if (message.type === 'ready') {
          ready = true;
          this.starting.delete(worker);
          resolve(slot);
          // A replacement that comes up after close() has nothing to do unless jobs still wait for it.
          if (this.closing && this.queuedCount === 0) {
            void worker.terminate();
            return;
          }
          this.slots.push(slot);
          this.dispatch();
        } else if (message.type === 'init-error') {
          this.starting.delete(worker);
          reject(new Error(`Face worker failed to load models: ${message.message}`));
          void worker.terminate();
        } else {
          this.finish(slot, message);
        }
      });
      worker.on('error', (err) => {
        this.starting.delete(worker);
        if (!ready) reject(err);
        else this.replace(slot, new Error(`Face worker crashed: ${err.message}`));
      });
      worker.on('exit', (code) => {
        this.starting.delete(worker);
        if (!ready) reject(new Error(`Face worker exited during start (code ${code})`));
        else if (this.slots.includes(slot))
          this.replace(slot, new Error(`Face worker exited (code ${code})`));
      });
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.takeNext();
      if (!job) break;
      slot.job = job;
      slot.timer = setTimeout(
        () => this.replace(slot, new Error(`Face analysis timed out after ${this.options.jobTimeoutMs} ms`)),
        this.options.jobTimeoutMs,
      );
      const request: AnalyzeRequest = {
        id: job.id,
        image: job.image,
        minFaceSize: job.minFaceSize,
        maxPixels: job.maxPixels,
      };
      slot.worker.postMessage(request, [job.image.buffer as ArrayBuffer]);
    }
    this.checkDrained();
  }

  private finish(slot: Slot, message: Extract<FaceWorkerMessage, { type: 'result' | 'error' }>): void {
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    this.release(slot);
    if (message.type === 'result') job.resolve(message.analysis);
    else if (message.decodeCode) job.reject(new ImageDecodeError(message.decodeCode, message.message));
    else job.reject(new Error(`Face analysis failed: ${message.message}`));
    this.dispatch();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    if (job && !job.background) this.requests.finished(job.tenant);
  }

  /** Fails the slot's job, stops its worker and starts a fresh one in its place. */
  private replace(slot: Slot, reason: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const job = slot.job;
    this.release(slot);
    job?.reject(reason);
    void slot.worker.terminate();
    if (this.closing) {
      // Queued jobs still need a worker when the last one died while closing.
      if (this.slots.length === 0) for (const queued of this.takeAll()) queued.reject(reason);
      this.checkDrained();
      return;
    }
    this.spawn().catch((err: Error) => {
      // Without any worker left nothing can run: fail what waits rather than hang.
      if (this.slots.length === 0) for (const queued of this.takeAll()) queued.reject(err);
      this.checkDrained();
    });
  }

  private checkDrained(): void {
    if (this.drained && this.queuedCount === 0 && this.slots.every((s) => !s.job)) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}
