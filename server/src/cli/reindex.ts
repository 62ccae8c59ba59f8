import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { FaceIndexPublication } from '../face/index/face-index-publication.ts';
import { FaceIndexPublicationRepository } from '../repositories/face-index-publication.repository.ts';
import { renderDemoPhotos } from '../demo/demo-site.ts';
import { createFaceEngine, defaultThreadCount } from '../face/face-engine.ts';
import { isPipelineName, PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../face/pipeline/pipeline-catalog.ts';
import { CrawlRepository } from '../repositories/crawl-frontier.repository.ts';
import { FaceModelRepository } from '../repositories/face-model.repository.ts';
import { WebIndexRepository } from '../repositories/web-index.repository.ts';
import { FaceModelService, modelOfPipeline } from '../services/face-model.service.ts';
import { FaceReindexService, type ReindexProgress } from '../services/face-reindex.service.ts';
import { IndexedImageFetcher } from '../services/indexed-image-fetcher.ts';
import { CliError, cliLogger, runCli, withDatabase } from './cli-bootstrap.ts';

/**
 * `npm run reindex`: moves the face index to the shipped descriptor model (or `--model <pipeline>`).
 * When the database already searches with that model, it rebuilds the index snapshot from the vectors in
 * the database (the source of truth) and publishes it; running processes switch to it on their next poll.
 * Otherwise every indexed image is analysed again with the new model beside the old faces (searches keep
 * using those until the switch), with a progress line; Ctrl-C (or a kill) stops it and the next run
 * continues where it stopped. With the embedded database the server must be stopped first; with
 * PostgreSQL it runs beside the API and worker processes.
 */

const SWITCH_WITHOUT_UNREACHABLE = '--switch-without-unreachable';

const USAGE = `Usage: npm run reindex [-- [--model <pipeline>] [${SWITCH_WITHOUT_UNREACHABLE}]]

Moves the face index in DATA_DIR's database (or DATABASE_URL's) to the descriptor model of <pipeline>
(default: ${SHIPPED_PIPELINE}, the shipped one), analysing every indexed image again; searches keep
using the current model until the switch. When the index already uses that model, the index snapshot
is rebuilt from the database. Ctrl-C stops; running the command again continues where it stopped.

Images whose site does not answer for now (server errors, time-outs) are fetched again at the end, and
the switch waits for them: run the command again later, or add ${SWITCH_WITHOUT_UNREACHABLE} to
switch now (the faces of those images then leave the index).

Pipelines: ${Object.keys(PIPELINE_CATALOG).join(', ')}`;

const isTty = process.stdout.isTTY === true;

function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

/** `images 120/4000 (3.0 %)  2.1/s  ETA 0:30:47  faces +312  opted out 2  unavailable 1` */
function progressText(p: ReindexProgress): string {
  const ranThisTime = p.done - p.doneBefore;
  const rate = p.elapsedMs > 0 ? (ranThisTime * 1000) / p.elapsedMs : 0;
  const left = p.total - p.done;
  const eta = rate > 0 ? formatDuration((left / rate) * 1000) : '—';
  const percent = p.total > 0 ? ((100 * p.done) / p.total).toFixed(1) : '100.0';
  const phase = p.phase === 'analysing' ? '' : `  [${p.phase}]`;
  return (
    `images ${p.done}/${p.total} (${percent} %)  ${rate.toFixed(1)}/s  ETA ${eta}  ` +
    `faces +${p.facesAdded}  opted out ${p.facesRefused}  unavailable ${p.unavailable}` +
    (p.unreachable > 0 ? `  not answering ${p.unreachable}` : '') +
    phase
  );
}

/** The progress line: redrawn in place on a terminal, printed every 5 s (and on a new phase) otherwise. */
class ProgressLine {
  private lastPrintedAt = 0;
  private lastPhase = '';

  update(progress: ReindexProgress): void {
    const text = progressText(progress);
    if (isTty) {
      process.stdout.write(`\r\x1b[2K${text}`);
      return;
    }
    const now = Date.now();
    if (progress.phase === this.lastPhase && now - this.lastPrintedAt < 5_000) return;
    console.log(text);
    this.lastPrintedAt = now;
    this.lastPhase = progress.phase;
  }

  note(message: string): void {
    if (isTty) process.stdout.write('\r\x1b[2K');
    console.log(message);
  }

  finish(): void {
    if (isTty) process.stdout.write('\n');
  }
}

/** The command that resumes this reindex: without its --model, a re-run would start one to the shipped model. */
function resumeCommand(pipeline: string): string {
  return pipeline === SHIPPED_PIPELINE ? 'npm run reindex' : `npm run reindex -- --model ${pipeline}`;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        model: { type: 'string' },
        'switch-without-unreachable': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const pipeline = values.model ?? SHIPPED_PIPELINE;
  if (!isPipelineName(pipeline)) throw new CliError(`Unknown pipeline "${pipeline}".\n\n${USAGE}`);
  const target = modelOfPipeline(pipeline);
  const config = loadConfig();
  const lockAs = {
    role: 'reindex',
    whenServerRuns:
      'stop it first (with the embedded database only one process can open it), or use PostgreSQL ' +
      '(DATABASE_URL) to reindex while it serves searches.',
  } as const;
  return withDatabase(config, lockAs, async ({ db }) => {
    const progress = new ProgressLine();
    const log = cliLogger(progress);
    const models = new FaceModelRepository(db);
    const faceModels = new FaceModelService(models);
    const service = new FaceReindexService({
      db,
      dataDir: config.dataDir,
      models,
      faceModels,
      webIndex: new WebIndexRepository(db),
      images: new IndexedImageFetcher(config, new CrawlRepository(db), log, renderDemoPhotos),
      createEngine: (model) => {
        if (!model.pipeline) throw new CliError(`No pipeline computes ${model.modelId}.`);
        return createFaceEngine({ pipeline: model.pipeline });
      },
      // As many images at once as the engine has worker threads.
      concurrency: defaultThreadCount(),
      log,
      // Processes on other machines find the new snapshot in the database, as the writer's.
      publication: config.faceIndexPublish
        ? new FaceIndexPublication(new FaceIndexPublicationRepository(db))
        : undefined,
    });
    const active = await faceModels.active();
    console.log(
      active.modelId === target.modelId
        ? `Face model ${target.modelId} is current: rebuilding the index snapshot from the database.`
        : `Moving the face index from ${active.modelId} to ${target.modelId} (${pipeline}); searches use ` +
            `${active.modelId} until the switch.`,
    );

    const abort = new AbortController();
    const onSignal = () => {
      if (abort.signal.aborted) process.exit(130); // a second Ctrl-C: do not wait
      progress.note('Stopping after the current image… (Ctrl-C again to quit at once)');
      abort.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);

    const started = performance.now();
    let last: ReindexProgress | undefined;
    const outcome = await service.run(target, {
      signal: abort.signal,
      switchWithoutUnreachable: values['switch-without-unreachable'] === true,
      onProgress: (p) => {
        if (!last && p.doneBefore > 0) progress.note(`Resuming: ${p.doneBefore} of ${p.total} images done.`);
        last = p;
        progress.update(p);
      },
    });
    progress.finish();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (outcome.status === 'rebuilt') {
      const { manifest } = outcome;
      console.log(
        `Face index rebuilt: ${manifest.count} faces (${manifest.model}, ${manifest.quantization}) up to change ${manifest.seq}, in ${seconds} s.` +
          (outcome.retiredFaces > 0 ? ` ${outcome.retiredFaces} faces of other models removed.` : ''),
      );
      return 0;
    }
    if (outcome.status === 'stopped') {
      console.log(
        `Stopped after ${outcome.progress.done} of ${outcome.progress.total} images; searches still use ` +
          `${outcome.from}. Run ${resumeCommand(pipeline)} to continue.`,
      );
      return 130;
    }
    if (outcome.status === 'waiting') {
      const resume = resumeCommand(pipeline);
      const flag =
        resume === 'npm run reindex' ? ` -- ${SWITCH_WITHOUT_UNREACHABLE}` : ` ${SWITCH_WITHOUT_UNREACHABLE}`;
      console.log(
        `Not switched: ${outcome.progress.unreachable} images could not be read again (their sites did not ` +
          `answer, with server errors or time-outs, or their analysis failed), so their faces could not be ` +
          `read with ${outcome.to}; searches still use ` +
          `${outcome.from}. Run ${resume} later to fetch them again, or ${resume}${flag} to switch ` +
          'now: their faces then leave the index.',
      );
      return 75;
    }
    const { progress: p, manifest } = outcome;
    console.log(
      `Switched to ${outcome.to}: ${p.done} images (${p.done - p.doneBefore} in this run), ` +
        `${manifest.count} faces indexed, ${p.facesRefused} opted ` +
        `out, ${p.unavailable} images no longer available; ${outcome.movedSearchResults} search results ` +
        `moved to the new faces, ${outcome.retiredFaces} faces of ${outcome.from} removed, in ${seconds} s.`,
    );
    if (outcome.optOutsNotCarried.length > 0) {
      console.log(
        `Warning: opt-outs ${outcome.optOutsNotCarried.join(', ')} of ${outcome.from} match no indexed face, so ` +
          `no descriptor of ${outcome.to} could be derived for them: they no longer stop later crawls. ` +
          'Opt the people out again from a photo (Admin → Opt-outs).',
      );
    }
    return 0;
  });
}

runCli(main);
