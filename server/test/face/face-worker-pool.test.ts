import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createFaceEngine } from '../../src/face/face-engine.ts';
import { FaceWorkerPool } from '../../src/face/face-worker-pool.ts';
import { MAX_IMAGE_PIXELS } from '../../src/face/image-decode.ts';
import { SHIPPED_PIPELINE } from '../../src/face/pipeline/pipeline-catalog.ts';
import { demoPhoto } from './image-fixtures.ts';

describe('face worker pool', () => {
  it('abandons a job that exceeds the timeout, replaces its worker and still closes promptly', async () => {
    const engine = await createFaceEngine({ threads: 1, jobTimeoutMs: 1 });
    try {
      await expect(engine.analyze(demoPhoto(1))).rejects.toThrow(/timed out after 1 ms/);
    } finally {
      // The replacement worker is still loading its models: close() must stop it, not wait or leak it.
      const t0 = performance.now();
      await engine.close();
      expect(performance.now() - t0).toBeLessThan(2000);
    }
  });

  it('runs a request ahead of queued background (indexing) jobs, and each kind in its own order', async () => {
    const pool = new FaceWorkerPool({ size: 1, pipeline: SHIPPED_PIPELINE, jobTimeoutMs: 60_000 });
    await pool.start();
    try {
      const photo = await sharp(demoPhoto(2)).resize(400).jpeg().toBuffer();
      const finished: string[] = [];
      const run = (name: string, background: boolean) =>
        pool.run(photo, { minFaceSize: 40, maxPixels: MAX_IMAGE_PIXELS, background }).then((analysis) => {
          finished.push(name);
          return analysis;
        });
      // crawl-1 starts at once on the only worker; the rest wait in the queue.
      const jobs = [
        run('crawl-1', true),
        run('crawl-2', true),
        run('crawl-3', true),
        run('upload-1', false),
        run('upload-2', false),
      ];
      const results = await Promise.all(jobs);
      expect(finished).toEqual(['crawl-1', 'upload-1', 'upload-2', 'crawl-2', 'crawl-3']);
      for (const result of results) expect(result.faces.length).toBe(results[0]!.faces.length);
    } finally {
      await pool.close();
    }
  });
});
