import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { openDatabase, type DatabaseHandle } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import {
  acquireDataDirLock,
  dataDirLockHolder,
  DataDirLockedError,
  type LockHolderRole,
} from '../lib/data-dir-lock.ts';
import { HttpError } from '../lib/http-error.ts';

/** A refusal of the command (bad arguments, database in use…): printed without a stack trace. */
export class CliError extends Error {}

/**
 * Opens DATA_DIR's database (or DATABASE_URL's), migrated, for `run`, and closes it afterwards. With the
 * embedded database the command first takes the DATA_DIR lock as `role`; when the server holds it, the
 * refusal names the server and ends with `whenServerRuns` (what to do instead).
 */
export async function withDatabase<T>(
  config: Config,
  lockAs: { role: LockHolderRole; whenServerRuns: string },
  run: (database: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir, lockAs);
  process.on('exit', () => lock?.release());
  let database: DatabaseHandle | undefined;
  try {
    if (!config.databaseUrl) console.log(`Opening the database in ${config.dataDir}…`);
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    await migrateToLatest(database.db);
    return await run(database);
  } finally {
    await database?.close();
    lock?.release();
  }
}

function lockDataDir(dataDir: string, lockAs: { role: LockHolderRole; whenServerRuns: string }) {
  const holder = dataDirLockHolder(dataDir);
  if (holder?.role === 'server') {
    throw new CliError(
      `The server is running on this DATA_DIR (${dataDir}, pid ${holder.pid}) and holds its database: ` +
        lockAs.whenServerRuns,
    );
  }
  try {
    return acquireDataDirLock(dataDir, lockAs.role);
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new CliError(error.message);
    throw error;
  }
}

/** Runs a command's main and exits with its code; errors are printed, with a stack only when unexpected. */
export function runCli(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      // Our own refusals (bad arguments, unknown crawl, database in use) need no stack trace.
      const expected = error instanceof CliError || error instanceof HttpError;
      console.error(error instanceof Error ? `Error: ${error.message}` : error);
      if (!expected && error instanceof Error && error.stack) console.error(error.stack);
      process.exit(1);
    },
  );
}

/**
 * A logger for the services a command runs: they log through pino's interface; this prints their few
 * messages above the command's progress line.
 */
export function cliLogger(progress: { note(message: string): void }): FastifyBaseLogger {
  const write =
    (level: string) =>
    (objectOrMessage: unknown, message?: string): void => {
      const detail = typeof objectOrMessage === 'string' ? objectOrMessage : message;
      const err = (objectOrMessage as { err?: unknown } | undefined)?.err;
      const reason = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
      const url = (objectOrMessage as { url?: string } | undefined)?.url;
      progress.note(`${level}: ${detail ?? ''}${url ? ` ${url}` : ''}${reason ? `: ${reason}` : ''}`);
    };
  return {
    info: write('info'),
    warn: write('warning'),
    error: write('error'),
  } as unknown as FastifyBaseLogger;
}
