import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { WATCHLIST_DEFAULT_NAME } from '@osint/contract/watchlist';
import { loadConfig } from '../config.ts';
import { importWatchlistFile } from '../extractor/watchlist-file.ts';
import { AuditRepository } from '../repositories/audit.repository.ts';
import { WatchlistRepository } from '../repositories/watchlist.repository.ts';
import { WatchlistService } from '../services/watchlist.service.ts';
import { CliError, runCli, withDatabase } from './cli-bootstrap.ts';

/**
 * `npm run watchlist:import -- <file> [--name <list>]`: imports an OpenSanctions file (FollowTheMoney
 * JSON lines `entities.ftm.json`, or `targets.simple.csv`) into DATA_DIR's database (or DATABASE_URL's),
 * replacing the list of that name. The file is streamed, so full exports work; there is no size limit
 * here (the admin upload has one). With the embedded database the server must not be running.
 */

const USAGE = `Usage: npm run watchlist:import -- <file> [--name <list name>]

Imports an OpenSanctions export (entities.ftm.json or targets.simple.csv; the format is detected from
the content) as the watch-list <list name> (default "${WATCHLIST_DEFAULT_NAME}"), replacing a list of the same name.`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { name: { type: 'string', short: 'n' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length !== 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const file = positionals[0]!;
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new CliError(`No such file: ${file}`);
  const config = loadConfig();
  const lockAs = {
    role: 'watchlist:import',
    whenServerRuns:
      'stop it first, or upload the file on the admin watch-list page (POST /api/admin/watchlists).',
  } as const;
  return withDatabase(config, lockAs, async (database) => {
    const service = new WatchlistService(
      new WatchlistRepository(database.db),
      new AuditRepository(database.db),
    );
    const started = Date.now();
    const listName = values.name ?? WATCHLIST_DEFAULT_NAME;
    console.log(`Importing ${file} as the watch-list "${listName}"…`);
    const result = await importWatchlistFile(service, file, listName);
    console.log(
      `Done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${result.entryCount} entries ` +
        `(${result.format === 'ftm' ? 'FollowTheMoney JSON lines' : 'simple CSV'}): ` +
        `${result.politicianCount} politically exposed, ${result.sanctionsCount} sanctioned, ` +
        `${result.criminalCount} criminal; ${result.skippedCount} lines skipped.`,
    );
    return 0;
  });
}

runCli(main);
