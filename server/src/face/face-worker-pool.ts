import type { Worker } from 'node:worker_threads';
import { FairQueue } from '../lib/fair-queue.ts';
import { startTsWorker } from '../lib/ts-worker.ts';
import { WorkerSlots } from '../lib/worker-slots.ts';
import type { ImageAnalysis } from './face-engine.ts';
import type { AnalyzeRequest, FaceWorkerData, FaceWorkerMessage } from './face-worker-protocol.ts';
import { ImageDecodeError } from './image-decode.ts';
import type { OnnxLayout } from './pipeline/onnx-session.ts';
import type { PipelineName } from './pipeline/pipeline-catalog.ts';

// A fixed set of face workers with a fair queue. Requests (uploads) are queued per organization and the
// organizations take turns (FairQueue): a free worker goes to the organization with the fewest analyses
// running, and among equals to the one served longest ago, so one organization's flood delays another's
// upload by at most one analysis. Background jobs (indexing) wait behind every request. Each worker loads
// the models once and runs one job at a time; a worker that crashes or exceeds the job timeout is
// replaced, failing only its own job (lib/worker-slots.ts).

/**
 * The kernel layouts face workers of this process have measured, by network: handed to every worker
 * started later, so that the layouts are timed once per process, not once per worker (pipeline/onnx-session.ts).
 */
const processKernelLayouts: Record<string, OnnxLayout> = {};

/** What the face workers of this process have measured so far (for tests and diagnostics). */
export function kernelLayoutsOfThisProcess(): Readonly<Record<string, OnnxLayout>> {
  return { ...processKernelLayouts };
}

type FaceAnswer = Extract<FaceWorkerMessage, { type: 'result' | 'error' }>;

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

export interface FaceWorkerPoolOptions {
  size: number;
  pipeline: PipelineName;
  jobTimeoutMs: number;
}

export class FaceWorkerPool extends WorkerSlots<Job, FaceAnswer> {
  protected readonly workerName = 'Face worker';
  protected readonly jobName = 'Face analysis';
  protected readonly jobTimeoutMs: number;
  /** Waiting requests, organizations taking turns. */
  private readonly requests = new FairQueue<Job>();
  private readonly background: Job[] = [];
  private nextId = 1;

  constructor(private readonly options: FaceWorkerPoolOptions) {
    super();
    this.jobTimeoutMs = options.jobTimeoutMs;
  }

  /** Starts all workers and waits until each has loaded its models. */
  start(): Promise<void> {
    return this.startWorkers(Math.max(1, Math.floor(this.options.size)));
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

  protected get queuedCount(): number {
    return this.requests.size + this.background.length;
  }

  /** The next job to start: a request of the least-served organization, else a background job. */
  protected takeNext(): Job | undefined {
    return this.requests.take() ?? this.background.shift();
  }

  protected takeAllQueued(): Job[] {
    return [...this.requests.takeAll(), ...this.background.splice(0)];
  }

  protected startWorker(): Worker {
    const data: FaceWorkerData = {
      pipeline: this.options.pipeline,
      kernelLayouts: { ...processKernelLayouts },
    };
    const worker = startTsWorker(new URL('./face-worker.ts', import.meta.url), { workerData: data });
    worker.on('message', (message: FaceWorkerMessage) => {
      if (message.type === 'ready') Object.assign(processKernelLayouts, message.kernelLayouts);
    });
    return worker;
  }

  protected post(worker: Worker, job: Job): void {
    const request: AnalyzeRequest = {
      id: job.id,
      image: job.image,
      minFaceSize: job.minFaceSize,
      maxPixels: job.maxPixels,
    };
    worker.postMessage(request, [job.image.buffer as ArrayBuffer]);
  }

  protected settle(job: Job, answer: FaceAnswer): void {
    if (answer.type === 'result') job.resolve(answer.analysis);
    else if (answer.decodeCode) job.reject(new ImageDecodeError(answer.decodeCode, answer.message));
    else job.reject(new Error(`Face analysis failed: ${answer.message}`));
  }

  protected ended(job: Job): void {
    if (!job.background) this.requests.finished(job.tenant);
  }
}
