import { loadConfig, productionModeProblem } from './config.ts';
import { buildApp } from './app.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { startDemoData } from './demo/demo-site.ts';
import { importDemoWatchlistIfNone } from './extractor/watchlist-file.ts';
import { acquireDataDirLock } from './lib/data-dir-lock.ts';
import { importLegacyThumbnails } from './services/legacy-thumbnail-import.ts';

/** Starts the product: migrate, seed start-up accounts, serve the API and web app, run the workers. */
async function main(): Promise<void> {
  const config = loadConfig();
  const problem = productionModeProblem(config);
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  // The embedded database admits one process; `npm run crawl` checks this file before opening it.
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir, 'server');
  process.on('exit', () => lock?.release());
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database.db);
  const { app, container } = await buildApp(config, database.db);
  const imported = await importLegacyThumbnails(
    config.dataDir,
    container.blobs,
    container.repositories.webIndex,
  );
  if (imported > 0) app.log.info(`${imported} thumbnails moved from ${config.dataDir} into the blob store.`);

  const seeded = await container.services.seed.run();
  if (seeded.length > 0) {
    const lines = seeded.map((a) => `  ${a.label.padEnd(36)} ${a.email}  /  ${a.password}`);
    console.log(
      [
        '',
        '  First start: sign in with these accounts (shown only this once; change the passwords):',
        ...lines,
        '',
      ].join('\n'),
    );
  }
  if (config.runWorkers) {
    container.jobRunner.start();
    await container.services.billing.startPlanSweep();
    await container.services.retention.startSweep();
    // Face alerts follow the index's change log from their own cursor (workers take turns on it).
    container.services.faceAlerts.start();
  }
  // Open the face index now rather than on the first search; a failure is logged, not fatal.
  container.services.faceIndex
    .start()
    .catch((error: unknown) => app.log.error({ err: error }, 'face index not opened'));
  const demoSite = config.demoData
    ? await startDemoData(container.services.crawl, config.demoSitePort, app.log)
    : undefined;
  if (config.demoData) {
    // The demo's fictional watch-list (first start only) and wiki: a first extraction shows flags and a
    // Wikipedia card without anything leaving this machine.
    await importDemoWatchlistIfNone(container.services.watchlists).then(
      (imported) => imported && app.log.info(`Demo watch-list imported (${imported.entryCount} entries).`),
      (error: unknown) => app.log.error({ err: error }, 'demo watch-list not imported'),
    );
    if (!config.wikipediaUrl) container.services.wikipedia.setBaseUrl(demoSite?.wikiUrl ?? 'off');
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await demoSite?.close();
    await database.close();
    lock?.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  console.log(`\n  OSINT Platform is running on ${config.publicUrl}  (data in ${config.dataDir})\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
