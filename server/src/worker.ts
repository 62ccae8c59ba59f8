import { buildApp } from './app.ts';
import { loadConfig, productionModeProblem } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { indexingThreadCount } from './face/face-engine.ts';
import { importLegacyThumbnails } from './services/legacy-thumbnail-import.ts';

/**
 * `npm run worker`: a process that only runs jobs (crawls, indexing, mail…) against a shared PostgreSQL
 * database (DATABASE_URL); API processes then run with WORKERS=0. It builds the same application but
 * never listens for HTTP.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, { runWorkers: true });
  // No API to keep responsive here: the face engine takes every core (FACE_THREADS still decides).
  config.faceThreads ??= indexingThreadCount();
  if (!config.databaseUrl) {
    throw new Error(
      'npm run worker needs DATABASE_URL: the embedded database admits only one process (npm start).',
    );
  }
  const problem = productionModeProblem(config);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database.db);
  const { app, container } = await buildApp(config, database.db);
  const imported = await importLegacyThumbnails(
    config.dataDir,
    container.blobs,
    container.repositories.webIndex,
  );
  if (imported > 0) app.log.info(`${imported} thumbnails moved from ${config.dataDir} into the blob store.`);
  await app.ready();
  container.jobRunner.start();
  // The scheduled chains, as `npm start` starts them when it runs jobs (API processes with WORKERS=0 do not).
  await container.services.billing.startPlanSweep();
  await container.services.retention.startSweep();
  // Face alerts follow the index's change log from their own cursor (workers take turns on it).
  container.services.faceAlerts.start();
  await container.services.faceIndex.start();
  app.log.info('worker started');

  const shutdown = async () => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
