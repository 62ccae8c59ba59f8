import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { indexingThreadCount } from '../face/face-engine.ts';
import { LazyFaceEngine } from '../face/lazy-face-engine.ts';
import { JobQueue } from '../jobs/job-queue.ts';
import { createBlobStore } from '../lib/blob-store.ts';
import { AuditRepository } from '../repositories/audit.repository.ts';
import { CrawlFrontierRepository, CrawlRepository } from '../repositories/crawl-frontier.repository.ts';
import { FaceModelRepository } from '../repositories/face-model.repository.ts';
import { JobRepository } from '../repositories/job.repository.ts';
import { WebIndexRepository } from '../repositories/web-index.repository.ts';
import { CrawlService, type CrawlCounts } from '../services/crawl.service.ts';
import { FaceModelService } from '../services/face-model.service.ts';
import { IndexerService } from '../services/indexer.service.ts';
import { CliError, cliLogger, runCli, withDatabase } from './cli-bootstrap.ts';

/**
 * `npm run crawl -- <url…>`: crawls into DATA_DIR's database (or DATABASE_URL's) in this process, with
 * a progress line. With the embedded database the server must not be running (one process per
 * PGlite folder); with PostgreSQL both can run, though the server can queue the crawl itself.
 */

const USAGE = `Usage: npm run crawl -- <url…>
       npm run crawl -- --resume <crawl id>

Crawls the given sites (http or https, at most 100 seeds) into the index in DATA_DIR.
Ctrl-C stops the crawl; --resume continues it from where it stopped. A crawl another
process is running (a worker, another npm run crawl) is not resumed until that one stops.
Private and loopback addresses are refused unless CRAWL_ALLOW_PRIVATE=1 (local testing only).`;

const isTty = process.stdout.isTTY === true;

function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

/** One status line: redrawn in place on a terminal, printed now and then when piped to a file. */
class ProgressLine {
  private counts: CrawlCounts = { pages: 0, images: 0, faces: 0, errors: 0 };
  private queued: number | undefined;
  private lastPrinted = '';
  private lastPrintedAt = 0;
  private readonly startedAt = Date.now();

  update(counts: CrawlCounts): void {
    this.counts = counts;
    this.draw();
  }

  setQueued(queued: number): void {
    this.queued = queued;
    this.draw();
  }

  /** A message above the progress line. */
  note(message: string): void {
    if (isTty) process.stdout.write('\r\x1b[2K');
    console.log(message);
    if (isTty) this.draw(true);
  }

  finish(): void {
    this.draw(true);
    if (isTty) process.stdout.write('\n');
  }

  private draw(force = false): void {
    const { pages, images, faces, errors } = this.counts;
    const queued = this.queued === undefined ? '' : `  queued ${this.queued}`;
    const body = `pages ${pages}  images ${images}  faces ${faces}  errors ${errors}${queued}`;
    if (isTty) {
      process.stdout.write(`\r\x1b[2K${body}  ${formatElapsed(Date.now() - this.startedAt)}`);
      return;
    }
    // Plain lines for logs: on change, at most every 5 s (and at the end).
    const now = Date.now();
    if (!force && (body === this.lastPrinted || now - this.lastPrintedAt < 5_000)) return;
    console.log(`${formatElapsed(now - this.startedAt)}  ${body}`);
    this.lastPrinted = body;
    this.lastPrintedAt = now;
  }
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { resume: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help || (positionals.length === 0 && !values.resume)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const config = loadConfig();
  const lockAs = {
    role: 'crawl',
    whenServerRuns: 'use POST /api/admin/crawl or the admin page instead.',
  } as const;
  return withDatabase(config, lockAs, async ({ db }) => {
    // Descriptors of the model the index searches with now (face_models), as the server computes them.
    // This process only indexes: its face engine takes every core, unlike the server's (cores − 1).
    const faceModels = new FaceModelService(new FaceModelRepository(db));
    const faceEngine = new LazyFaceEngine({
      pipeline: () => faceModels.activePipeline(),
      threads: config.faceThreads ?? indexingThreadCount(),
    });
    try {
      return await crawl(config, db, faceEngine, values.resume, positionals);
    } finally {
      await faceEngine.close().catch(() => undefined);
    }
  });
}

async function crawl(
  config: Config,
  db: Db,
  faceEngine: LazyFaceEngine,
  resume: string | undefined,
  urls: string[],
): Promise<number> {
  const progress = new ProgressLine();
  const log = cliLogger(progress);
  const crawls = new CrawlRepository(db);
  const audit = new AuditRepository(db);
  const indexer = new IndexerService(
    new WebIndexRepository(db),
    faceEngine,
    createBlobStore(config.objectStore, db),
    audit,
    log,
  );
  // No job runner here: this process runs the crawl itself and queues nothing.
  const queue = new JobQueue(new JobRepository(db), undefined);
  const service = new CrawlService(
    config,
    crawls,
    new CrawlFrontierRepository(db),
    indexer,
    queue,
    audit,
    log,
  );

  const crawlId = resume
    ? await service.resume(resume)
    : (await service.create({ urls, requestedBy: null })).id;
  const before = await crawls.findById(crawlId);
  const publicId = before!.public_id;
  console.log(
    `Crawl ${publicId}: ${before!.seeds.join(' ')}${config.crawlAllowPrivate ? '  (private addresses allowed)' : ''}`,
  );

  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130); // a second Ctrl-C: do not wait
    interrupted = true;
    progress.note('Stopping… (Ctrl-C again to quit at once)');
    void service.stop(crawlId);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const ticker = setInterval(() => {
    service
      .get(publicId)
      .then((detail) => progress.setQueued(detail.frontier.page.queued + detail.frontier.image.queued))
      .catch(() => undefined);
  }, 1_000);

  let outcome;
  try {
    outcome = await service.run(crawlId, {
      onProgress: (counts) => progress.update(counts),
      endStopped: true,
    });
  } finally {
    clearInterval(ticker);
  }
  if (outcome === 'busy') {
    // Refused at the start (the lease was taken between the check in resume() and the run), or taken
    // over during the run after this process went silent past its lease: either way another runs it.
    if (isTty) process.stdout.write('\n');
    const elsewhere = await service.runningElsewhere(crawlId);
    throw new CliError(elsewhere ?? `Crawl ${publicId} was taken over by another process.`);
  }
  const detail = await service.get(publicId);
  progress.update(detail);
  progress.setQueued(detail.frontier.page.queued + detail.frontier.image.queued);
  progress.finish();
  for (const failure of detail.failures) console.log(`  failed: ${failure.url}  ${failure.error ?? ''}`);
  if (outcome === 'stopped') {
    // Marked STOPPED by run() as it gave the crawl up (endStopped).
    console.log(`Stopped. Continue with: npm run crawl -- --resume ${publicId}`);
    return 130;
  }
  if (outcome === 'skipped') throw new CliError(`Crawl ${publicId} has already finished.`);
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  console.log(
    `Done: ${count(detail.pages, 'page')}, ${count(detail.images, 'image')}, ` +
      `${count(detail.faces, 'face')} indexed, ${count(detail.errors, 'error')}.`,
  );
  if (
    detail.pages === 0 &&
    !config.crawlAllowPrivate &&
    detail.failures.some((f) => /resolves to/.test(f.error ?? ''))
  ) {
    console.log(
      'Private and loopback addresses are refused; CRAWL_ALLOW_PRIVATE=1 lifts this for local testing.',
    );
  }
  return 0;
}

runCli(main);
