import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

export interface WorkerProcess {
  child: ChildProcess;
  /** The JSON log lines the worker wrote so far (stdout), parsed. */
  logs: Record<string, unknown>[];
  /** SIGKILL (or the given signal), resolved once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * A real `npm run worker` process (server/src/worker.ts) over a shared DATABASE_URL and DATA_DIR, as
 * production runs it. `JOB_STALE_AFTER_MS` is short so that a killed worker's job is taken over in
 * seconds. `wrap` prefixes the command (e.g. `unshare …` to give the worker its own mounts).
 */
export function startWorkerProcess(
  env: Record<string, string>,
  options: { wrap?: string[] } = {},
): WorkerProcess {
  const command = [
    ...(options.wrap ?? []),
    process.execPath,
    '--import',
    'tsx',
    path.join(ROOT, 'server/src/worker.ts'),
  ];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    // MAIL_OUTBOX: the test reads the mail the workers send from the outbox of the DATA_DIR they share.
    env: {
      ...process.env,
      DEMO_DATA: '0',
      JOB_STALE_AFTER_MS: '3000',
      LOG_LEVEL: 'error',
      MAIL_OUTBOX: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const logs: Record<string, unknown>[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logs,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Reads until `ok` holds; fails with the last value after `ms`. */
export async function until<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  ms: number,
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
