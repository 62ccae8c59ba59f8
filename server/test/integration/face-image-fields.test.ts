import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MESSAGES } from '@osint/contract/search';
import { FACE_IMAGE_UNREADABLE } from '../../src/lib/face-image.ts';
import { createUser, login } from '../support/fixtures.ts';
import { createPlan, createSearch } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Security round 2, item 2: the face crop sent with POST /api/search/save and POST /api/data-extractor
// is the 256-px JPEG the upload answered with (or the picture kept with the search). Anything else (an SVG filter bomb above all, which took
// 10 s per request to render) is refused from its bytes, before it is decoded, and nothing is stored.

/** Generous for a busy 2-core machine; the SVG below takes seconds to render. */
const QUICK_MS = 1_000;

/** 4 KB of SVG whose turbulence filter over 4000×4000 pixels keeps a renderer busy for seconds. */
const SVG_FILTER_BOMB = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">` +
    `<filter id="f" x="0" y="0" width="100%" height="100%">` +
    `<feTurbulence baseFrequency="0.9" numOctaves="10"/>` +
    `<feGaussianBlur stdDeviation="40"/><feMorphology operator="dilate" radius="30"/></filter>` +
    `<rect width="4000" height="4000" filter="url(#f)"/>${' '.repeat(3800)}</svg>`,
);

describe('face images: the crop sent with a save or an extraction', () => {
  let t: TestApp;
  let cookie: string;
  let searchHash: string;
  let organizationId: number;
  let crop: string;

  const post = (url: string, image: string) => {
    const payload =
      url === '/api/search/save'
        ? { name: 'Harbour', description: '', hash: searchHash, image }
        : { name: 'Harbour', searchHash, image };
    return t.request({ method: 'POST', url, cookie, payload });
  };
  const storedCount = async () => {
    const saved = await t.db
      .selectFrom('saved_searches')
      .where('organization_id', '=', organizationId)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const extractions = await t.db
      .selectFrom('data_extractions')
      .where('organization_id', '=', organizationId)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(saved.n) + Number(extractions.n);
  };

  beforeAll(async () => {
    t = await createTestApp();
    const user = await createUser(t, { email: 'analyst@crops.example.org' });
    organizationId = user.organizationId;
    await createPlan(t, user.organizationId, { seatLimit: 1 });
    cookie = await login(t, 'analyst@crops.example.org');
    const search = await createSearch(t, user);
    searchHash = search.hashed_id;
    crop = search.face;
  });
  afterAll(() => t.close());

  describe.each(['/api/search/save', '/api/data-extractor'])('%s', (url) => {
    it('refuses an SVG filter bomb at once and stores nothing', async () => {
      expect(SVG_FILTER_BOMB.length).toBeLessThan(4300);
      const before = await storedCount();
      for (const image of [
        SVG_FILTER_BOMB.toString('base64'),
        `data:image/png;base64,${SVG_FILTER_BOMB.toString('base64')}`,
      ]) {
        const started = performance.now();
        const response = await post(url, image);
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().message).toBe(FACE_IMAGE_UNREADABLE);
        expect(performance.now() - started).toBeLessThan(QUICK_MS);
      }
      expect(await storedCount()).toBe(before);
    });

    it('refuses formats other than JPEG and PNG, and images far larger than a crop', async () => {
      const before = await storedCount();
      const flat = (side: number) =>
        sharp({ create: { width: side, height: side, channels: 3, background: '#000' } });
      for (const image of [
        await flat(64).gif().toBuffer(),
        await flat(64).webp().toBuffer(),
        await flat(64).tiff().toBuffer(),
        await flat(4000).png({ compressionLevel: 9 }).toBuffer(),
      ]) {
        const response = await post(url, image.toString('base64'));
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().message).toBe(FACE_IMAGE_UNREADABLE);
      }
      expect(await storedCount()).toBe(before);
    });

    it('refuses a readable picture that is not the searched face', async () => {
      const before = await storedCount();
      const other = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#78a' } })
        .jpeg()
        .toBuffer();
      const response = await post(url, other.toString('base64'));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().message).toBe(SEARCH_MESSAGES.faceImageMismatch);
      expect(await storedCount()).toBe(before);
    });

    it('takes the picture kept with the search', async () => {
      const before = await storedCount();
      const response = await post(url, crop);
      expect(response.statusCode, response.body).toBe(201);
      expect(await storedCount()).toBe(before + 1);
    });
  });
});
