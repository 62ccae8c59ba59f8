import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_CATALOG, SHIPPED_PIPELINE } from '../../src/face/pipeline/pipeline-catalog.ts';
import { newPublicId } from '../../src/lib/secure-token.ts';
import { createAdmin, createUser, login } from '../support/fixtures.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Security round 2, item 4: GET /api/thumbnails/:id served any indexed image's thumbnail to any signed-in
// account (ids are sequential: the whole index could be walked), to members without a seat too, and kept
// serving a person's portrait after an opt-out removed her faces. Now: only users with search access,
// only images one of their organization's searches returned, and an opt-out deletes the thumbnails of
// the images it leaves without a face.

const { modelId, dimensions } = PIPELINE_CATALOG[SHIPPED_PIPELINE];

describe('thumbnails: who may see an indexed image', () => {
  let t: TestApp;
  let analyst: string;
  let seatless: string;
  let otherOrganization: string;
  let adminCookie: string;
  let portrait: { imageId: number; faceId: number; key: string; bytes: Buffer };
  let unreturned: number;
  let organizationOfAnalyst: number;

  /** An indexed image with one face and its thumbnail in the blob store (the database). */
  async function indexedImage(name: string, colour: string) {
    const bytes = await sharp({ create: { width: 64, height: 64, channels: 3, background: colour } })
      .jpeg()
      .toBuffer();
    const relative = path.posix.join('thumbnails', 'ab', `${name}.jpg`);
    await t.container.blobs.put(relative, bytes);
    const image = await t.db
      .insertInto('images')
      .values({ content_hash: name, thumbnail_path: relative, face_count: 1, analyzed_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const descriptor = new Float32Array(dimensions).map(() => Math.random() - 0.5);
    const norm = Math.hypot(...descriptor);
    const face = await t.db
      .insertInto('faces')
      .values({
        image_id: image.id,
        box_x: 0,
        box_y: 0,
        box_width: 64,
        box_height: 64,
        score: 0.9,
        quality: 0.8,
        descriptor: Buffer.from(descriptor.map((v) => v / norm).buffer),
        model_id: modelId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db.insertInto('face_index_log').values({ face_id: face.id, op: 'add' }).execute();
    return { imageId: image.id, faceId: face.id, key: relative, bytes };
  }

  /** A stored search of the organization that returned the image. */
  async function searchReturning(user: { id: number; organizationId: number }, imageId: number) {
    const search = await t.db
      .insertInto('searches')
      .values({
        hashed_id: newPublicId(),
        organization_id: user.organizationId,
        user_id: user.id,
        type: 'OSINT',
        duration_ms: 10,
        result_count: 1,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await t.db
      .insertInto('search_results')
      .values({
        search_id: search.id,
        record_hash: newPublicId(),
        rank: 0,
        image_id: imageId,
        group_key: 'g0',
        similarity: 0.9,
        image_url: 'https://news.example.org/portrait.jpg',
        source_url: 'https://news.example.org/',
        crawled_at: new Date(),
      })
      .execute();
  }

  const get = (imageId: number, cookie: string) =>
    t.request({ method: 'GET', url: `/api/thumbnails/${imageId}`, cookie });

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await createUser(t, { email: 'analyst@thumbs-a.example.org' });
    organizationOfAnalyst = owner.organizationId;
    await createPlan(t, owner.organizationId, { seatLimit: 1 });
    await createUser(t, {
      email: 'seatless@thumbs-a.example.org',
      role: 'USER',
      organizationId: owner.organizationId,
      hasAccess: false,
    });
    const other = await createUser(t, { email: 'analyst@thumbs-b.example.org' });
    await createPlan(t, other.organizationId, { seatLimit: 1 });
    analyst = await login(t, 'analyst@thumbs-a.example.org');
    seatless = await login(t, 'seatless@thumbs-a.example.org');
    otherOrganization = await login(t, 'analyst@thumbs-b.example.org');
    adminCookie = await createAdmin(t);
    portrait = await indexedImage('portrait', '#c08060');
    unreturned = (await indexedImage('elsewhere', '#406080')).imageId;
    await searchReturning(owner, portrait.imageId);
  });
  afterAll(() => t.close());

  it("serves an image one of the organization's searches returned to a member with a seat", async () => {
    const response = await get(portrait.imageId, analyst);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.rawPayload.equals(portrait.bytes)).toBe(true);
    // Never kept by the browser, whose cache does not know who is signed in.
    expect(response.headers['cache-control']).toBe('private, no-store');
  });

  it('refuses a member without a seat', async () => {
    expect((await get(portrait.imageId, seatless)).statusCode).toBe(403);
  });

  it("answers 404 to another organization with the same URL, and for images no search of one's own returned", async () => {
    expect((await get(portrait.imageId, otherOrganization)).statusCode).toBe(404);
    expect((await get(unreturned, analyst)).statusCode).toBe(404);
    expect((await get(unreturned + 1000, analyst)).statusCode).toBe(404);
  });

  it('stops serving, and deletes, the thumbnail of an image an opt-out left without a face', async () => {
    const optOut = await t.request({
      method: 'POST',
      url: '/api/admin/opt-outs',
      cookie: adminCookie,
      payload: { faceId: portrait.faceId, reason: 'asked to be removed' },
    });
    expect(optOut.statusCode, optOut.body).toBeLessThan(300);
    expect((await get(portrait.imageId, analyst)).statusCode).toBe(404);
    expect(await t.container.blobs.get(portrait.key)).toBeNull();
    const image = await t.db
      .selectFrom('images')
      .select('thumbnail_path')
      .where('id', '=', portrait.imageId)
      .executeTakeFirstOrThrow();
    expect(image.thumbnail_path).toBeNull();
    // The organization's search and its other data are untouched.
    const searches = await t.db
      .selectFrom('searches')
      .select('id')
      .where('organization_id', '=', organizationOfAnalyst)
      .execute();
    expect(searches).toHaveLength(1);
  });
});
