/**
 * Waiting work of several organizations ("tenants") that take turns for a fixed set of workers: the next
 * job is one of the tenant with the fewest jobs running and, among equals, of the one served longest ago
 * (one never served goes first of all). So one tenant's flood delays another's job by at most one job
 * per worker. Shared by the face worker pool and the report worker pool; the pools own the workers, this
 * only decides whose job is next.
 */
export class FairQueue<Job> {
  /** Waiting jobs per tenant, each tenant's in arrival order. */
  private readonly waiting = new Map<string, Job[]>();
  /** Jobs taken and not yet finished, per tenant. */
  private readonly running = new Map<string, number>();
  /** When each tenant with work in the queue last got a worker (a counter, not a clock). */
  private readonly lastServed = new Map<string, number>();
  private serveCount = 0;

  /** @param maxRunningPerTenant a tenant at this many running jobs waits even when a worker is free. */
  constructor(private readonly maxRunningPerTenant = Infinity) {}

  get size(): number {
    let count = 0;
    for (const jobs of this.waiting.values()) count += jobs.length;
    return count;
  }

  push(tenant: string, job: Job): void {
    const jobs = this.waiting.get(tenant);
    if (jobs) jobs.push(job);
    else this.waiting.set(tenant, [job]);
  }

  /** The next job to start, counted as running for its tenant until `finished(tenant)`. */
  take(): Job | undefined {
    let chosen: string | undefined;
    let fewest = Infinity;
    let servedAt = Infinity;
    for (const tenant of this.waiting.keys()) {
      const running = this.running.get(tenant) ?? 0;
      if (running >= this.maxRunningPerTenant) continue;
      const served = this.lastServed.get(tenant) ?? -1;
      if (running < fewest || (running === fewest && served < servedAt)) {
        chosen = tenant;
        fewest = running;
        servedAt = served;
      }
    }
    if (chosen === undefined) return undefined;
    const jobs = this.waiting.get(chosen)!;
    const job = jobs.shift()!;
    if (jobs.length === 0) this.waiting.delete(chosen);
    this.running.set(chosen, fewest + 1);
    this.lastServed.set(chosen, this.serveCount++);
    return job;
  }

  /** A job `take()` gave out has ended (done, failed or abandoned). */
  finished(tenant: string): void {
    const running = (this.running.get(tenant) ?? 1) - 1;
    if (running > 0) this.running.set(tenant, running);
    else {
      this.running.delete(tenant);
      // Nothing of it left: forget it, so the maps hold only tenants with work.
      if (!this.waiting.has(tenant)) this.lastServed.delete(tenant);
    }
  }

  /** Every waiting job, removed from the queue (to fail them when no worker is left). */
  takeAll(): Job[] {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const tenant of this.lastServed.keys())
      if (!this.running.has(tenant)) this.lastServed.delete(tenant);
    return all;
  }
}
