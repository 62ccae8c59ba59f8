import { describe, expect, it } from 'vitest';
import { createFaceEngine } from '../../src/face/face-engine.ts';
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
});
