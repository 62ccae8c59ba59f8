import type { Worker } from 'node:worker_threads';

// The life of a set of worker threads that each run one job at a time: starting them and waiting for
// "ready", handing the next job to a free one with a time limit, settling the job from the worker's
// answer, replacing a worker that crashes, exits or runs out of time (failing only its own job), and
// closing once every queued and running job has finished. The face and report worker pools share it;
// each says which job comes next (its queue), how a job is posted and how an answer settles it.

/** What a pooled worker sends: `ready` once loaded, `init-error` when it cannot load, then its answers. */
export type SlotWorkerMessage =
  { type: 'ready' } | { type: 'init-error'; message: string } | { type: 'result' | 'error'; id: number };

export interface SlotJob {
  id: number;
  reject(err: Error): void;
}

interface Slot<J> {
  worker: Worker;
  job: J | null;
  timer: NodeJS.Timeout | null;
}

export abstract class WorkerSlots<
  J extends SlotJob,
  Answer extends { type: 'result' | 'error'; id: number },
> {
  private readonly slots: Slot<J>[] = [];
  /** Workers still loading (at start, or replacing a failed one). */
  private readonly starting = new Set<Worker>();
  private drained: (() => void) | null = null;
  protected closing = false;

  /** Who the workers are, for errors: "Face worker", "Report worker". */
  protected abstract readonly workerName: string;
  protected abstract readonly jobTimeoutMs: number;
  /** What a job is, for the time-out error: "Face analysis", "Report rendering". */
  protected abstract readonly jobName: string;

  protected abstract startWorker(): Worker;
  /** The next queued job to run (and count as running in its queue), if any may start now. */
  protected abstract takeNext(): J | undefined;
  /** Every queued job, removed from the queue (to fail them when no worker is left). */
  protected abstract takeAllQueued(): J[];
  protected abstract get queuedCount(): number;
  protected abstract post(worker: Worker, job: J): void;
  /** Resolves or rejects the job from its worker's answer. */
  protected abstract settle(job: J, answer: Answer): void;
  /** The job left its worker (answered, failed or abandoned): its queue stops counting it as running. */
  protected abstract ended(job: J): void;
  /** The error a failed worker gives its job (a pool may use its own class). */
  protected failure(message: string): Error {
    return new Error(message);
  }
  /** When the last worker is gone and none can start (the pool may then start afresh on its next job). */
  protected onNoWorkers(): void {}

  protected get workerCount(): number {
    return this.slots.length + this.starting.size;
  }

  /** Starts `count` workers; the promise settles when all have loaded (or one failed to). */
  protected async startWorkers(count: number): Promise<void> {
    try {
      await Promise.all(Array.from({ length: count }, () => this.spawn()));
    } catch (err) {
      await this.terminateAll();
      throw err;
    }
  }

  /** Lets queued and running jobs finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.queuedCount > 0 || this.slots.some((s) => s.job)) {
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
    await this.terminateAll();
  }

  /** Starts a worker; when none can start and none is left, what waits fails rather than hangs. */
  protected spawnOrFail(): void {
    this.spawn().catch((err: Error) => {
      if (this.workerCount === 0) {
        for (const job of this.takeAllQueued()) job.reject(err);
        this.onNoWorkers();
      }
      this.checkDrained();
    });
  }

  /** Gives each free worker the next job, with its time limit. */
  protected dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.takeNext();
      if (!job) break;
      slot.job = job;
      slot.timer = setTimeout(
        () => this.replace(slot, this.failure(`${this.jobName} timed out after ${this.jobTimeoutMs} ms`)),
        this.jobTimeoutMs,
      );
      this.post(slot.worker, job);
    }
    this.checkDrained();
  }

  private async terminateAll(): Promise<void> {
    const workers = [...this.slots.splice(0).map((s) => s.worker), ...this.starting];
    this.starting.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private spawn(): Promise<Slot<J>> {
    const worker = this.startWorker();
    const slot: Slot<J> = { worker, job: null, timer: null };
    this.starting.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: SlotWorkerMessage) => {
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
          reject(this.failure(`${this.workerName} failed to start: ${message.message}`));
          void worker.terminate();
        } else {
          this.finish(slot, message as unknown as Answer);
        }
      });
      worker.on('error', (err) => {
        this.starting.delete(worker);
        if (!ready) reject(this.failure(`${this.workerName} failed to start: ${err.message}`));
        else this.replace(slot, this.failure(`${this.workerName} crashed: ${err.message}`));
      });
      worker.on('exit', (code) => {
        this.starting.delete(worker);
        if (!ready) reject(this.failure(`${this.workerName} exited during start (code ${code})`));
        else if (this.slots.includes(slot))
          this.replace(slot, this.failure(`${this.workerName} exited (code ${code})`));
      });
    });
  }

  private finish(slot: Slot<J>, answer: Answer): void {
    const job = slot.job;
    if (!job || job.id !== answer.id) return;
    this.release(slot);
    this.settle(job, answer);
    this.dispatch();
  }

  private release(slot: Slot<J>): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    if (job) this.ended(job);
  }

  /** Fails the slot's job, stops its worker and starts a fresh one in its place (while work remains). */
  private replace(slot: Slot<J>, reason: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const job = slot.job;
    this.release(slot);
    job?.reject(reason);
    void slot.worker.terminate();
    if (this.closing && this.queuedCount === 0) {
      this.checkDrained();
      return;
    }
    this.spawnOrFail();
  }

  private checkDrained(): void {
    if (this.drained && this.queuedCount === 0 && this.slots.every((s) => !s.job)) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }
}
