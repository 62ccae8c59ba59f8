import path from 'node:path';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { FaceIndexStore } from '../face/index/face-index-store.ts';
import { rebuildFaceIndex } from '../face/index/face-index-sync.ts';
import { acquireDataDirLock, DataDirLockedError } from '../lib/data-dir-lock.ts';
import { FaceVectorRepository } from '../repositories/face-vector.repository.ts';
import { SHIPPED_MODEL } from '../services/face-index.service.ts';

/**
 * `npm run reindex`: rebuilds the face index file of DATA_DIR from the vectors in the database (the
 * source of truth) and publishes it as the current snapshot. Running API processes switch to it on
 * their next poll; with the embedded database the server must be stopped first.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir, 'reindex');
  process.on('exit', () => lock?.release());
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
    const started = performance.now();
    const manifest = await rebuildFaceIndex({
      source: new FaceVectorRepository(database.db, SHIPPED_MODEL.modelId),
      store: new FaceIndexStore(path.join(config.dataDir, 'face-index')),
      index: { dimensions: SHIPPED_MODEL.dimensions },
      model: SHIPPED_MODEL.modelId,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `Face index rebuilt: ${manifest.count} faces (${manifest.model}, ${manifest.quantization}) up to change ${manifest.seq}, in ${seconds} s.`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof DataDirLockedError ? error.message : error);
  process.exit(1);
});
