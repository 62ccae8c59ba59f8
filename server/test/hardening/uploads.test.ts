import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '@osint/contract/search';
import { UPLOAD_TOO_BIG_MESSAGE } from '../../src/services/search.service.ts';
import { demoPhoto } from '../face/image-fixtures.ts';
import { createUser, login } from '../support/fixtures.ts';
import { createPlan } from '../support/team-fixtures.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

// Hostile photos sent through the real upload route (spec 001 §7): each is refused with a clear 400 or 413
// in the error shape, from its header or its first bytes, without decoding pixels it should never decode.
// The plain decoder cases (PNG/BMP header bombs, random bytes, truncation) are in test/face/image-decode.

const NOT_SUPPORTED = 'This file is not a supported image. Please upload a JPG, PNG, BMP or TIFF photo.';
const TOO_MANY_PIXELS =
  'The image has too many pixels to be processed (at most 16.8 megapixels, such as 4096 × 4096). Please upload a smaller image.';
const CORRUPT = 'The image could not be read. It may be damaged; please upload a different one.';

/** A refusal must come well before a real analysis would: generous for a busy 2-core machine. */
const QUICK_MS = 3_000;

/** A baseline JPEG whose SOF0 frame header is rewritten to declare `width`×`height`. */
async function jpegDeclaring(width: number, height: number): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
  for (let i = 2; i < jpeg.length - 9;) {
    if (jpeg[i] !== 0xff) throw new Error('not a marker');
    const marker = jpeg[i + 1]!;
    const length = jpeg.readUInt16BE(i + 2);
    if (marker === 0xc0 || marker === 0xc2) {
      jpeg.writeUInt16BE(height, i + 5);
      jpeg.writeUInt16BE(width, i + 7);
      return jpeg;
    }
    i += 2 + length;
  }
  throw new Error('no SOF marker');
}

/** A JPEG with only its start, an EXIF block and its end: metadata, no picture. */
function exifOnlyJpeg(): Buffer {
  const tiff = Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0, 0, 0, 0]);
  const exif = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(exif.length + 2, 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, exif, Buffer.from([0xff, 0xd9])]);
}

/** A GIF whose logical screen and only frame declare 65535×65535 pixels. */
function gifDeclaring(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  return Buffer.concat([header, descriptor, Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00, 0x3b])]);
}

describe('uploads', () => {
  let t: TestApp;
  let cookie: string;

  const upload = async (image: Buffer | string) => {
    const started = performance.now();
    const response = await t.request({
      method: 'POST',
      url: '/api/upload-image',
      cookie,
      payload: { img: typeof image === 'string' ? image : image.toString('base64') },
    });
    return { response, ms: performance.now() - started };
  };

  async function expectRefused(image: Buffer | string, status: number, message: string) {
    const { response, ms } = await upload(image);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toEqual({
      statusCode: status,
      error: status === 413 ? 'Payload Too Large' : 'Bad Request',
      message,
    });
    expect(ms).toBeLessThan(QUICK_MS);
  }

  beforeAll(async () => {
    t = await createTestApp();
    const user = await createUser(t, { email: 'analyst@uploads.example.org' });
    await createPlan(t, user.organizationId, { seatLimit: 1 });
    cookie = await login(t, 'analyst@uploads.example.org');
    // The face engine loads its models on first use; a real photo first, so that timings below are the
    // refusals' own.
    const { response } = await upload(demoPhoto(1));
    expect(response.statusCode, response.body).toBe(200);
  });
  afterAll(() => t.close());

  it('refuses a real decompression bomb: a 60 KB PNG that would inflate to 64 million pixels', async () => {
    const bomb = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#000' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(MAX_UPLOAD_BYTES);
    await expectRefused(bomb, 400, TOO_MANY_PIXELS);
  });

  it('refuses huge declared dimensions in JPEG and TIFF headers, and a GIF as not a supported format', async () => {
    await expectRefused(await jpegDeclaring(65_000, 65_000), 400, TOO_MANY_PIXELS);
    // GIF is not among the accepted formats: refused by its kind before its size is looked at.
    await expectRefused(gifDeclaring(65_535, 65_535), 400, NOT_SUPPORTED);
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .tiff()
      .toBuffer();
    // Rewrites the ImageWidth (256) and ImageLength (257) entries of the first directory.
    const ifd = tiff.readUInt32LE(4);
    const entries = tiff.readUInt16LE(ifd);
    for (let e = 0; e < entries; e++) {
      const at = ifd + 2 + e * 12;
      const tag = tiff.readUInt16LE(at);
      if (tag === 256 || tag === 257) {
        tiff.writeUInt16LE(4, at + 2); // LONG
        tiff.writeUInt32LE(1, at + 4);
        tiff.writeUInt32LE(100_000, at + 8);
      }
    }
    const { response, ms } = await upload(tiff);
    expect(response.statusCode).toBe(400);
    expect([TOO_MANY_PIXELS, CORRUPT]).toContain(response.json().message);
    expect(ms).toBeLessThan(QUICK_MS);
  });

  it('goes by the bytes, not the declared type: wrong magic bytes are not an image', async () => {
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF');
    await expectRefused(pdf, 400, NOT_SUPPORTED);
    await expectRefused(`data:image/jpeg;base64,${pdf.toString('base64')}`, 400, NOT_SUPPORTED);
    await expectRefused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 400, NOT_SUPPORTED);
    await expectRefused(Buffer.from('<!doctype html><img src=x onerror=alert(1)>'), 400, NOT_SUPPORTED);
    // JPEG magic bytes in front of a PNG: sniffed as JPEG, then unreadable.
    const png = await sharp(demoPhoto(2)).resize(64).png().toBuffer();
    await expectRefused(
      Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), png.subarray(8)]),
      400,
      CORRUPT,
    );
  });

  it('refuses an EXIF-only JPEG and truncated photos as unreadable', async () => {
    await expectRefused(exifOnlyJpeg(), 400, CORRUPT);
    const photo = demoPhoto(3);
    await expectRefused(photo.subarray(0, 200), 400, CORRUPT);
    await expectRefused(photo.subarray(0, 3), 400, CORRUPT);
  });

  it('refuses text that is not base64, and an empty photo', async () => {
    await expectRefused('%%%% not base64 at all ****', 400, NOT_SUPPORTED);
    await expectRefused('data:image/png;base64,', 400, NOT_SUPPORTED);
  });

  it('answers 413 for a photo over 1.5 MB and for a body over the route limit, without decoding', async () => {
    const oversized = Buffer.concat([demoPhoto(1), Buffer.alloc(MAX_UPLOAD_BYTES)]);
    await expectRefused(oversized, 413, UPLOAD_TOO_BIG_MESSAGE);
    const { response, ms } = await upload('A'.repeat(6 * 1024 * 1024));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'The request is too large.',
    });
    expect(ms).toBeLessThan(QUICK_MS);
  });
});
