import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsearchFaceIndex, graphSettings } from './usearch-face-index.ts';
import type { FaceVectorLookup } from './face-index.ts';
import type { FaceVectorCache } from './face-vector-cache.ts';
import type { FaceIndexQuantization, UsearchFaceIndexOptions } from './usearch-face-index.ts';

/** What a snapshot holds: a usearch file that reflects the change log up to `seq`. */
export interface FaceIndexManifest {
  format: 1;
  file: string;
  seq: number;
  count: number;
  dimensions: number;
  quantization: FaceIndexQuantization;
  connectivity: number;
  /** The descriptor model, so that a new model never meets an index of the old one. */
  model: string;
  savedAt: string;
}

const MANIFEST = 'face-index.json';

/** A folder name for a model id (`blazeface+dlib128-5pt@1` → `blazeface_dlib128-5pt_1`). */
export function modelFolderName(model: string): string {
  return model.replace(/[^\w.-]/g, '_');
}

/**
 * The index files in one folder (under DATA_DIR, shared by every process on the machine). A snapshot
 * is written under a new name and then published by renaming the manifest over the old one, so a
 * reader sees either the old snapshot or the new one, never half of one. Superseded files are
 * deleted; a process that still has one memory-mapped keeps its pages until it lets go.
 */
export class FaceIndexStore {
  readonly dir: string;
  /** Where snapshots lived before one folder per model (their manifest names their model). */
  private readonly legacy: { dir: string; model: string } | undefined;

  constructor(dir: string, legacy?: { dir: string; model: string }) {
    this.dir = dir;
    this.legacy = legacy;
  }

  /**
   * The snapshots of one descriptor model: `<root>/<model folder>/`. Each model has its own folder and
   * manifest, so the index of the model being built by a reindex is published beside the one searches
   * use, and each has its own single writer. A snapshot of that model saved directly in `root` (the
   * layout before) is still opened, until the first save in the model's folder replaces it.
   */
  static forModel(root: string, model: string): FaceIndexStore {
    return new FaceIndexStore(path.join(root, modelFolderName(model)), { dir: root, model });
  }

  /**
   * Deletes the snapshots of every model but `model` under `root` (model folders and the old layout's
   * files), once the index has moved to `model`. A process that still maps one keeps its pages.
   */
  static async removeModelsExcept(root: string, model: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(root, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const legacy = await readManifestIn(root);
    const keepLegacy = legacy?.model === model;
    for (const entry of entries) {
      const target = path.join(root, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== modelFolderName(model)) await fs.rm(target, { recursive: true, force: true });
      } else if (!keepLegacy && (entry.name === MANIFEST || /^face-index-.*\.usearch$/.test(entry.name))) {
        await fs.rm(target, { force: true });
      }
    }
  }

  async readManifest(): Promise<FaceIndexManifest | undefined> {
    const own = await readManifestIn(this.dir);
    if (own || !this.legacy) return own;
    const legacy = await readManifestIn(this.legacy.dir);
    if (!legacy || legacy.model !== this.legacy.model) return undefined;
    return { ...legacy, file: path.relative(this.dir, path.join(this.legacy.dir, legacy.file)) };
  }

  /**
   * True when the snapshot holds vectors as asked for now (else it must be rebuilt). Its connectivity may
   * differ: the graph keeps its own, and searches walk as wide as that connectivity needs, so a change of
   * the default does not send every reader into an hours-long rebuild at scale.
   */
  static fits(manifest: FaceIndexManifest, options: UsearchFaceIndexOptions, model: string): boolean {
    const settings = graphSettings(options);
    return (
      manifest.format === 1 &&
      manifest.dimensions === settings.dimensions &&
      manifest.quantization === settings.quantization &&
      manifest.model === model
    );
  }

  /** Where the snapshot file of `manifest` is. */
  pathOf(manifest: FaceIndexManifest): string {
    return path.join(this.dir, manifest.file);
  }

  open(
    manifest: FaceIndexManifest,
    options: UsearchFaceIndexOptions,
    vectors: FaceVectorLookup,
    mode: 'view' | 'load',
    vectorCache?: FaceVectorCache,
  ): UsearchFaceIndex {
    return UsearchFaceIndex.open(this.pathOf(manifest), options, vectors, mode, vectorCache);
  }

  async save(index: UsearchFaceIndex, seq: number, model: string): Promise<FaceIndexManifest> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = snapshotFileName(seq);
    index.saveTo(path.join(this.dir, file));
    const manifest: FaceIndexManifest = {
      format: 1,
      file,
      seq,
      count: index.size,
      dimensions: index.dimensions,
      quantization: index.quantization,
      connectivity: index.connectivity,
      model,
      savedAt: new Date().toISOString(),
    };
    await this.install(manifest);
    return manifest;
  }

  /**
   * Makes `manifest`, whose file is already complete in this folder (saved here, or downloaded from the
   * database), the current snapshot: the manifest is renamed over the old one, older files are pruned.
   */
  async install(manifest: FaceIndexManifest): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const temporary = path.join(this.dir, `${MANIFEST}.${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temporary, JSON.stringify(manifest, null, 2));
    await fs.rename(temporary, path.join(this.dir, MANIFEST));
    await this.prune(manifest.file);
    await this.removeLegacySnapshot();
  }

  /** The snapshot of this model in the old layout, now superseded (a reader that maps it keeps its pages). */
  private async removeLegacySnapshot(): Promise<void> {
    if (!this.legacy) return;
    const legacy = await readManifestIn(this.legacy.dir);
    if (!legacy || legacy.model !== this.legacy.model) return;
    await fs.rm(path.join(this.legacy.dir, MANIFEST), { force: true });
    await fs.rm(path.join(this.legacy.dir, path.basename(legacy.file)), { force: true });
  }

  /** Deletes snapshot files other than the current one and the one before it (a reader may be
   * between reading the old manifest and opening its file). */
  private async prune(current: string): Promise<void> {
    const files = (await fs.readdir(this.dir)).filter((name) => /^face-index-.*\.usearch$/.test(name)).sort();
    const keep = new Set([current, files.filter((name) => name < current).at(-1)]);
    for (const name of files) {
      if (!keep.has(name)) await fs.rm(path.join(this.dir, name), { force: true });
    }
  }
}

const SNAPSHOT_FILE = /^face-index-\d{12,}-[0-9a-f]{8}\.usearch$/;

/** A new snapshot file's name: its seq (so names sort by age) and a random part (two saves never collide). */
function snapshotFileName(seq: number): string {
  return `face-index-${String(seq).padStart(12, '0')}-${randomBytes(4).toString('hex')}.usearch`;
}

/** True for a name `save` gives a snapshot file (a name read from elsewhere must be one before it is a path). */
export function isSnapshotFileName(name: string): boolean {
  return SNAPSHOT_FILE.test(name);
}

async function readManifestIn(dir: string): Promise<FaceIndexManifest | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as FaceIndexManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
