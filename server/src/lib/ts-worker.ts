import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread whose entry module is TypeScript. On Node 20 a worker's entry module is not seen by the
 * tsx loader, even when tsx's --import flags are passed on (tried: under the tsx CLI, `node --import tsx`
 * and vitest), so a tiny evaluated bootstrap registers tsx inside the worker and then imports the real
 * entry. Used by the face workers and the report workers.
 */
export function startTsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
