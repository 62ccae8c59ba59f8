import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  cropFaceJpeg,
  decodeImage,
  ImageDecodeError,
  MAX_IMAGE_PIXELS,
  probeImage,
  sniffImageFormat,
} from '../../src/face/image-decode.ts';
import {
  bmp24,
  bmp32v5,
  bmp8,
  demoPhoto,
  gradient,
  pngDeclaring,
  rawRgb,
  type Rgb,
} from './image-fixtures.ts';

const asRgb = (img: Rgb) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });

async function expectDecodeError(promise: Promise<unknown>, code: ImageDecodeError['code']): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImageDecodeError);
  expect((err as ImageDecodeError).code).toBe(code);
}

describe('decodeImage', () => {
  // Odd sizes exercise BMP row padding.
  const source = gradient(37, 23);

  it.each([
    ['PNG', () => asRgb(source).png().toBuffer()],
    ['TIFF (LZW)', () => asRgb(source).tiff({ compression: 'lzw' }).toBuffer()],
    ['TIFF (deflate)', () => asRgb(source).tiff({ compression: 'deflate' }).toBuffer()],
    ['WebP (lossless)', () => asRgb(source).webp({ lossless: true }).toBuffer()],
    ['BMP 24-bit, bottom-up', async () => bmp24(source)],
    ['BMP 32-bit V5 header with bit fields, top-down', async () => bmp32v5(source)],
  ])('decodes lossless %s to exactly the original pixels', async (_name, encode) => {
    const decoded = await decodeImage(await encode());
    expect(decoded.width).toBe(37);
    expect(decoded.height).toBe(23);
    expect(Buffer.from(decoded.data).equals(Buffer.from(source.data))).toBe(true);
  });

  it('decodes an 8-bit palette BMP', async () => {
    const grey = gradient(37, 23);
    for (let i = 0; i < grey.data.length; i += 3) grey.data[i + 1] = grey.data[i + 2] = grey.data[i]!;
    const decoded = await decodeImage(bmp8(grey));
    expect(Buffer.from(decoded.data).equals(Buffer.from(grey.data))).toBe(true);
  });

  it('decodes a real photo saved as BMP like the JPEG it came from', async () => {
    const photo = await rawRgb(await sharp(demoPhoto(2)).resize(480).toBuffer());
    const decoded = await decodeImage(bmp24(photo));
    expect(decoded.format).toBe('bmp');
    expect([decoded.width, decoded.height]).toEqual([photo.width, photo.height]);
    expect(Buffer.from(decoded.data).equals(Buffer.from(photo.data))).toBe(true);
  });

  it('decodes JPEG and applies the EXIF orientation', async () => {
    const jpeg = await asRgb(source).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const decoded = await decodeImage(jpeg);
    // Orientation 6 = rotate 90° clockwise to display: width and height swap.
    expect([decoded.width, decoded.height]).toEqual([23, 37]);
    expect([decoded.sourceWidth, decoded.sourceHeight]).toEqual([23, 37]);
  });

  it('turns grey and transparent images into RGB (transparent areas white)', async () => {
    const rgba = await sharp({
      create: { width: 4, height: 4, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const decoded = await decodeImage(rgba);
    expect(decoded.data.length).toBe(4 * 4 * 3);
    expect([...decoded.data].every((v) => v === 255)).toBe(true);
    const grey = await asRgb(source).greyscale().png().toBuffer();
    expect((await decodeImage(grey)).data.length).toBe(37 * 23 * 3);
  });

  it('shrinks to maxSide but reports the full size', async () => {
    const decoded = await decodeImage(demoPhoto(1), { maxSide: 480 });
    expect(Math.max(decoded.width, decoded.height)).toBe(480);
    expect([decoded.sourceWidth, decoded.sourceHeight]).toEqual([1920, 1280]);
  });

  it('refuses a PNG declaring 30000×30000 pixels quickly, before decoding', async () => {
    const bomb = await pngDeclaring(30000, 30000);
    const t0 = performance.now();
    await expectDecodeError(decodeImage(bomb), 'TOO_MANY_PIXELS');
    await expectDecodeError(probeImage(bomb), 'TOO_MANY_PIXELS');
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('refuses a BMP declaring more than the pixel limit', async () => {
    const bmp = bmp24(gradient(4, 4));
    bmp.writeInt32LE(20000, 18);
    bmp.writeInt32LE(20000, 22);
    expect(20000 * 20000).toBeGreaterThan(MAX_IMAGE_PIXELS);
    await expectDecodeError(decodeImage(bmp), 'TOO_MANY_PIXELS');
    await expectDecodeError(probeImage(bmp), 'TOO_MANY_PIXELS');
  });

  it('refuses random bytes, text, SVG and empty input as unsupported', async () => {
    const t0 = performance.now();
    for (const input of [
      randomBytes(4096),
      Buffer.from('%PDF-1.7 not an image'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      Buffer.alloc(0),
    ]) {
      await expectDecodeError(decodeImage(input), 'UNSUPPORTED_FORMAT');
      await expectDecodeError(probeImage(input), 'UNSUPPORTED_FORMAT');
    }
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('reports truncated and damaged files as corrupt', async () => {
    const jpeg = demoPhoto(3);
    await expectDecodeError(decodeImage(jpeg.subarray(0, 2000)), 'CORRUPT');
    const bmp = bmp24(gradient(37, 23));
    await expectDecodeError(decodeImage(bmp.subarray(0, bmp.length - 100)), 'CORRUPT');
    const png = await asRgb(source).png().toBuffer();
    await expectDecodeError(decodeImage(Buffer.concat([png.subarray(0, 40), randomBytes(200)])), 'CORRUPT');
  });

  it('recognises formats by their bytes', () => {
    expect(sniffImageFormat(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
    expect(sniffImageFormat(Buffer.from('GIF89a......'))).toBe('gif');
    expect(sniffImageFormat(Buffer.from('II*\0......'))).toBe('tiff');
    expect(sniffImageFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(sniffImageFormat(Buffer.from('<html>'))).toBeNull();
    // ISO media files: AVIF by its major or a compatible brand; HEIC (HEVC, which sharp cannot decode) not.
    const ftyp = (...brands: string[]) => {
      const box = Buffer.alloc(8 + 4 * (brands.length + 1));
      box.writeUInt32BE(box.length, 0);
      box.write('ftyp', 4, 'latin1');
      box.write(brands[0]!, 8, 'latin1');
      brands.slice(1).forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
      return Buffer.concat([box, Buffer.alloc(16)]);
    };
    expect(sniffImageFormat(ftyp('avif', 'mif1', 'miaf'))).toBe('avif');
    expect(sniffImageFormat(ftyp('mif1', 'avif'))).toBe('avif');
    expect(sniffImageFormat(ftyp('heic', 'mif1', 'heic'))).toBeNull();
  });

  it('decodes AVIF, as image CDNs send it to a crawler that accepts it', async () => {
    const photo = await sharp(demoPhoto(2)).resize(480).toBuffer();
    const decoded = await decodeImage(await sharp(photo).avif({ quality: 90 }).toBuffer());
    expect(decoded.format).toBe('avif');
    const original = await rawRgb(photo);
    expect([decoded.width, decoded.height]).toEqual([original.width, original.height]);
    let difference = 0;
    for (let i = 0; i < original.data.length; i++)
      difference += Math.abs(decoded.data[i]! - original.data[i]!);
    expect(difference / original.data.length).toBeLessThan(6);
  });
});

describe('cropFaceJpeg', () => {
  it('returns a square JPEG of the requested size around the box', async () => {
    const jpeg = await cropFaceJpeg(demoPhoto(1), { x: 800, y: 300, width: 200, height: 200 }, 128);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 128, 128]);
  });

  it('keeps the crop inside the image for a face at the border, and reads BMP', async () => {
    const bmp = bmp24(await rawRgb(await sharp(demoPhoto(2)).resize(300).toBuffer()));
    const jpeg = await cropFaceJpeg(bmp, { x: -10, y: -10, width: 150, height: 150 });
    const meta = await sharp(jpeg).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);
  });

  it('refuses non-images with ImageDecodeError', async () => {
    await expectDecodeError(
      cropFaceJpeg(randomBytes(100), { x: 0, y: 0, width: 1, height: 1 }),
      'UNSUPPORTED_FORMAT',
    );
  });
});
