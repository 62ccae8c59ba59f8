import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thumbnailKey } from '../../src/lib/blob-store.ts';
import { importLegacyThumbnails } from '../../src/services/legacy-thumbnail-import.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { TEST_DATABASE_KIND } from '../support/test-database.ts';

// No shared disk between machines (issue 18): thumbnails live in the database (stored_blobs), keyed by
// what images.thumbnail_path holds; an old DATA_DIR's thumbnail files are moved in once at start-up.

describe(`blob store in the database (${TEST_DATABASE_KIND})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reads back what was written, keeps the first bytes of a key, deletes, and knows no other key', async () => {
    const blobs = t.container.blobs;
    const key = thumbnailKey('c0ffee'.padEnd(64, '0'));
    expect(key).toBe(`thumbnails/c0/${'c0ffee'.padEnd(64, '0')}.jpg`);
    const bytes = Buffer.from([0xff, 0xd8, 0x00, 0x01, 0x02, 0xff, 0xd9]);
    await blobs.put(key, bytes);
    await blobs.put(key, Buffer.from('other bytes'));
    expect((await blobs.get(key))?.equals(bytes)).toBe(true);
    expect(await blobs.get('thumbnails/c0/absent.jpg')).toBeNull();
    await blobs.put('thumbnails/aa/second.jpg', Buffer.from('second'));
    await blobs.delete([key, 'thumbnails/aa/never-stored.jpg']);
    expect(await blobs.get(key)).toBeNull();
    expect((await blobs.get('thumbnails/aa/second.jpg'))?.toString()).toBe('second');
    await blobs.delete([]);
  });

  it('moves an old DATA_DIR’s thumbnails that images name into the database, once, and drops the rest', async () => {
    const named = thumbnailKey('ab'.repeat(32));
    const orphan = thumbnailKey('cd'.repeat(32));
    for (const [key, text] of [
      [named, 'named thumbnail'],
      [orphan, 'left behind by an opt-out'],
    ] as const) {
      await fs.mkdir(path.dirname(path.join(t.config.dataDir, key)), { recursive: true });
      await fs.writeFile(path.join(t.config.dataDir, key), text);
    }
    await t.db
      .insertInto('images')
      .values({ content_hash: 'ab'.repeat(32), thumbnail_path: named, face_count: 0 })
      .execute();

    const { blobs, repositories } = t.container;
    expect(await importLegacyThumbnails(t.config.dataDir, blobs, repositories.webIndex)).toBe(1);
    expect((await blobs.get(named))?.toString()).toBe('named thumbnail');
    expect(await blobs.get(orphan)).toBeNull();
    await expect(fs.access(path.join(t.config.dataDir, 'thumbnails'))).rejects.toThrow();
    // A second start finds nothing to do.
    expect(await importLegacyThumbnails(t.config.dataDir, blobs, repositories.webIndex)).toBe(0);
    expect((await blobs.get(named))?.toString()).toBe('named thumbnail');
  });
});
