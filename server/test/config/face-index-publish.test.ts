import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

// FACE_INDEX_PUBLISH: face-index snapshots go through the database when processes have DATA_DIRs of their
// own (production mode, DATABASE_URL); the embedded mode keeps them in its one DATA_DIR only.

describe('FACE_INDEX_PUBLISH', () => {
  const server = { DATABASE_URL: 'postgres://db.example.org/osint' };

  it('is on with DATABASE_URL and off in the embedded mode, unless set', () => {
    expect(loadConfig(server).faceIndexPublish).toBe(true);
    expect(loadConfig({}).faceIndexPublish).toBe(false);
    expect(loadConfig({ ...server, FACE_INDEX_PUBLISH: '0' }).faceIndexPublish).toBe(false);
    expect(loadConfig({ FACE_INDEX_PUBLISH: '1' }).faceIndexPublish).toBe(true);
  });
});
