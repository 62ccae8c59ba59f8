import fs from 'node:fs';
import path from 'node:path';

/**
 * PGlite's files cannot be opened by two processes (each would run its own Postgres over them and
 * corrupt them), and PGlite itself does not refuse it. Whoever opens the embedded database (the
 * server, `npm run crawl`) first writes its pid here, and whoever finds a live pid stays away.
 */
export const DATA_DIR_LOCK_FILE = 'pglite.pid';

export type LockHolderRole = 'server' | 'crawl' | 'reindex' | 'watchlist:import';

export interface LockHolder {
  pid: number;
  role: LockHolderRole;
  since: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly lockFile: string,
  ) {
    const who = holder.role === 'server' ? 'the server' : `\`npm run ${holder.role}\``;
    super(
      `The database in ${path.dirname(lockFile)} is in use by ${who} (pid ${holder.pid}, since ${holder.since}). ` +
        `If that process no longer runs, delete ${lockFile}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  /** Removes the file if it is still ours; synchronous so it can run in an 'exit' handler. */
  release(): void;
}

/** Whether a process with this id runs on this machine (as any user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding DATA_DIR's database, if any. */
export function dataDirLockHolder(dataDir: string): LockHolder | undefined {
  const holder = readHolder(path.join(dataDir, DATA_DIR_LOCK_FILE));
  return holder && holder.pid !== process.pid && isProcessAlive(holder.pid) ? holder : undefined;
}

/** Takes the lock or throws DataDirLockedError; a file left by a dead process is taken over. */
export function acquireDataDirLock(dataDir: string, role: LockHolderRole): DataDirLock {
  const file = path.join(dataDir, DATA_DIR_LOCK_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  const mine: LockHolder = { pid: process.pid, role, since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      // 'wx' fails when the file exists: two processes starting at once cannot both win.
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && isProcessAlive(holder.pid))
        throw new DataDirLockedError(holder, file);
      if (attempt > 0) throw error; // another process took it over at the same moment
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  return {
    release() {
      if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}
