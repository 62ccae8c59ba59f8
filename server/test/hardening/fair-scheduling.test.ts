import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaceWorkerPool, type PoolJobOptions } from '../../src/face/face-worker-pool.ts';
import { MAX_UPLOAD_PIXELS } from '../../src/face/image-decode.ts';
import { SHIPPED_PIPELINE } from '../../src/face/pipeline/pipeline-catalog.ts';
import { demoPhoto } from '../face/image-fixtures.ts';

// Security round 2, item 1: one organization's flood of uploads must not stall another's. Organizations
// take turns in the face workers' queue, so another organization's upload waits for at most one analysis
// per worker, however many the flood has queued.

describe('fair scheduling: face analysis queue', () => {
  let pool: FaceWorkerPool;
  let photo: Buffer;

  beforeAll(async () => {
    pool = new FaceWorkerPool({ size: 1, pipeline: SHIPPED_PIPELINE, jobTimeoutMs: 60_000 });
    await pool.start();
    photo = await sharp(demoPhoto(2)).resize(400).jpeg().toBuffer();
  });
  afterAll(() => pool.close());

  function runAll(jobs: { name: string; options: Partial<PoolJobOptions> }[]) {
    const finished: string[] = [];
    const all = jobs.map(({ name, options }) =>
      pool
        .run(photo, { minFaceSize: 40, maxPixels: MAX_UPLOAD_PIXELS, ...options })
        .then(() => finished.push(name)),
    );
    return Promise.all(all).then(() => finished);
  }

  it("runs another organization's upload after at most one of a flooding organization's", async () => {
    const flood = Array.from({ length: 8 }, (_, i) => ({
      name: `A${i + 1}`,
      options: { organizationId: 1 },
    }));
    const finished = await runAll([...flood, { name: 'B1', options: { organizationId: 2 } }]);
    // A1 had the only worker when B1 arrived; B1 is next, then the rest of A's flood.
    expect(finished.slice(0, 3)).toEqual(['A1', 'B1', 'A2']);
    expect(finished).toHaveLength(9);
  });

  it('lets three organizations take turns, each in its own order, with indexing last', async () => {
    const finished = await runAll([
      { name: 'A1', options: { organizationId: 1 } },
      { name: 'A2', options: { organizationId: 1 } },
      { name: 'A3', options: { organizationId: 1 } },
      { name: 'crawl', options: { background: true } },
      { name: 'B1', options: { organizationId: 2 } },
      { name: 'B2', options: { organizationId: 2 } },
      { name: 'C1', options: { organizationId: 3 } },
    ]);
    expect(finished).toEqual(['A1', 'B1', 'C1', 'A2', 'B2', 'A3', 'crawl']);
  });
});
