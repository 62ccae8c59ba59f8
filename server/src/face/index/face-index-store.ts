import { randomBytes } from 'node:crypto';
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

/**
 * The index files in one folder (under DATA_DIR, shared by every process on the machine). A snapshot
 * is written under a new name and then published by renaming the manifest over the old one, so a
 * reader sees either the old snapshot or the new one, never half of one. Superseded files are
 * deleted; a process that still has one memory-mapped keeps its pages until it lets go.
 */
export class FaceIndexStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async readManifest(): Promise<FaceIndexManifest | undefined> {
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir, MANIFEST), 'utf8')) as FaceIndexManifest;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** True when the snapshot was built with the settings asked for now (else it must be rebuilt). */
  static fits(manifest: FaceIndexManifest, options: UsearchFaceIndexOptions, model: string): boolean {
    const settings = graphSettings(options);
    return (
      manifest.format === 1 &&
      manifest.dimensions === settings.dimensions &&
      manifest.quantization === settings.quantization &&
      manifest.connectivity === settings.connectivity &&
      manifest.model === model
    );
  }

  open(
    manifest: FaceIndexManifest,
    options: UsearchFaceIndexOptions,
    vectors: FaceVectorLookup,
    mode: 'view' | 'load',
    vectorCache?: FaceVectorCache,
  ): UsearchFaceIndex {
    return UsearchFaceIndex.open(path.join(this.dir, manifest.file), options, vectors, mode, vectorCache);
  }

  async save(index: UsearchFaceIndex, seq: number, model: string): Promise<FaceIndexManifest> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = `face-index-${String(seq).padStart(12, '0')}-${randomBytes(4).toString('hex')}.usearch`;
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
    const temporary = path.join(this.dir, `${MANIFEST}.${randomBytes(4).toString('hex')}.tmp`);
    await fs.writeFile(temporary, JSON.stringify(manifest, null, 2));
    await fs.rename(temporary, path.join(this.dir, MANIFEST));
    await this.prune(file);
    return manifest;
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
