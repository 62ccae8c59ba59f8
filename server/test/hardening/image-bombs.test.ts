import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '@osint/contract/search';
import { decodeImage, ImageDecodeError, MAX_UPLOAD_PIXELS, probeImage } from '../../src/face/image-decode.ts';
import { demoPhoto, honestRle8Bmp, pngDeclaring, rle8Bmp } from '../face/image-fixtures.ts';
import { createUser, login } from '../support/fixtures.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Security round 2, item 1: images that are small on the wire but expensive to decode. An upload has a
// pixel budget that fits its 1.5 MB limit (a real photo of that size has at most ~16 MP), and a
// run-length encoded BMP must be long enough to encode the size it declares.

const TOO_MANY_PIXELS =
  'The image has too many pixels to be processed (at most 16.8 megapixels, such as 4096 × 4096). Please upload a smaller image.';
const CORRUPT = 'The image could not be read. It may be damaged; please upload a different one.';
/** A refusal from the header: far below the 1.3–1.5 s these images took to decode, even on a busy machine. */
const QUICK_MS = 1_000;

async function decodeErrorOf(promise: Promise<unknown>): Promise<ImageDecodeError['code'] | 'none'> {
  return promise.then(
    () => 'none' as const,
    (error: unknown) => (error instanceof ImageDecodeError ? error.code : 'none'),
  );
}

describe('image bombs: decoder', () => {
  it('refuses a run-length encoded BMP whose declared size cannot come from its bytes', async () => {
    // 2000×2000 is within the pixel budget: only the file's length gives it away (1,082 bytes).
    const bomb = rle8Bmp(2000, 2000);
    expect(bomb.length).toBe(1082);
    const t0 = performance.now();
    expect(await decodeErrorOf(probeImage(bomb))).toBe('CORRUPT');
    expect(await decodeErrorOf(decodeImage(bomb))).toBe('CORRUPT');
    expect(performance.now() - t0).toBeLessThan(QUICK_MS);
  });

  it('still decodes an honest run-length encoded BMP', async () => {
    const bmp = honestRle8Bmp(600, 400);
    const decoded = await decodeImage(bmp);
    expect([decoded.width, decoded.height]).toEqual([600, 400]);
    expect(decoded.data[0]).toBe(128);
  });

  it('has an upload pixel budget of about 16 MP', async () => {
    expect(MAX_UPLOAD_PIXELS).toBeGreaterThanOrEqual(16_000_000);
    expect(MAX_UPLOAD_PIXELS).toBeLessThan(17_000_000);
    expect(await decodeErrorOf(probeImage(await pngDeclaring(4096, 4097), MAX_UPLOAD_PIXELS))).toBe(
      'TOO_MANY_PIXELS',
    );
    expect(await decodeErrorOf(probeImage(await pngDeclaring(4096, 4096), MAX_UPLOAD_PIXELS))).toBe('none');
  });
});

describe('image bombs: uploads', () => {
  let t: TestApp;
  let cookie: string;

  const upload = async (image: Buffer) => {
    const started = performance.now();
    const response = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie,
      payload: { img: image.toString('base64') },
    });
    return { response, ms: performance.now() - started };
  };

  beforeAll(async () => {
    t = await createTestApp();
    const user = await createUser(t, { email: 'analyst@bombs.example.org' });
    await createPlan(t, user.organizationId, { seatLimit: 1 });
    cookie = await login(t, 'analyst@bombs.example.org');
    // Models load on first use; a real photo first, so that the timings below are the refusals' own.
    const { response } = await upload(demoPhoto(1));
    expect(response.statusCode, response.body).toBe(200);
  });
  afterAll(() => t.close());

  it.each([
    ['a 1,082-byte RLE8 BMP declaring 6300×6300', async () => rle8Bmp(6300, 6300)],
    [
      'a black 6300×6300 PNG',
      () =>
        sharp({ create: { width: 6300, height: 6300, channels: 3, background: '#000' } })
          .png({ compressionLevel: 9 })
          .toBuffer(),
    ],
    [
      'a 6300×6300 JPEG',
      () =>
        sharp({ create: { width: 6300, height: 6300, channels: 3, background: '#345' } })
          .jpeg({ quality: 50 })
          .toBuffer(),
    ],
  ])('refuses %s from its header, before any worker decodes it', async (_name, make) => {
    const bomb = await make();
    expect(bomb.length).toBeLessThan(MAX_UPLOAD_BYTES);
    const { response, ms } = await upload(bomb);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().message).toBe(TOO_MANY_PIXELS);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('refuses an RLE BMP too short for its size with the corrupt-image message', async () => {
    const { response } = await upload(rle8Bmp(2000, 2000));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().message).toBe(CORRUPT);
  });

  it('still analyses a real 16 MP photo that fits the upload limit', async () => {
    const photo = await sharp(demoPhoto(1))
      .resize(4096, 3072, { fit: 'fill' })
      .jpeg({ quality: 60 })
      .toBuffer();
    expect(photo.length).toBeLessThan(MAX_UPLOAD_BYTES);
    const { response } = await upload(photo);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().faces.length).toBeGreaterThan(0);
  });
});
