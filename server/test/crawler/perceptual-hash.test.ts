import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeImage, sha256Hex } from '../../src/crawler/image-process.ts';
import {
  NEAR_DUPLICATE_MAX_DISTANCE,
  hammingDistance,
  isNearDuplicate,
  perceptualHash,
} from '../../src/crawler/perceptual-hash.ts';

const SAMPLES = path.resolve(import.meta.dirname, '../../../node_modules/@vladmandic/face-api/demo');
const samplePath = (n: number) => path.join(SAMPLES, `sample${n}.jpg`);

interface Photo {
  name: string;
  hash: string;
  variants: Record<string, string>;
}

const photos: Photo[] = [];

/** The copies a photo gets when re-published by another site. */
async function variants(file: Buffer): Promise<Record<string, Buffer>> {
  const { width = 0, height = 0 } = await sharp(file).metadata();
  const crop = (left: number, top: number, right: number, bottom: number) =>
    sharp(file)
      .extract({
        left: Math.round(width * left),
        top: Math.round(height * top),
        width: Math.round(width * (1 - left - right)),
        height: Math.round(height * (1 - top - bottom)),
      })
      .jpeg()
      .toBuffer();
  return {
    'half size': await sharp(file)
      .resize(Math.round(width / 2))
      .jpeg({ quality: 80 })
      .toBuffer(),
    'JPEG q30': await sharp(file).jpeg({ quality: 30 }).toBuffer(),
    'WebP 70% q50': await sharp(file)
      .resize(Math.round(width * 0.7))
      .webp({ quality: 50 })
      .toBuffer(),
    'PNG 25%': await sharp(file)
      .resize(Math.round(width / 4))
      .png()
      .toBuffer(),
    'thumbnail 256': await sharp(file).resize(256).jpeg({ quality: 70 }).toBuffer(),
    'brightness +10%': await sharp(file).modulate({ brightness: 1.1 }).jpeg().toBuffer(),
    'crop 2% each side': await crop(0.02, 0.02, 0.02, 0.02),
    'crop 3% left+bottom': await crop(0.03, 0, 0, 0.03),
  };
}

beforeAll(async () => {
  // Originals at 1024 px keep the suite fast; distances at the full 1920 px are within a bit or two of these.
  const built = await Promise.all(
    [1, 2, 3, 4, 5, 6].map(async (n) => {
      const original = await sharp(samplePath(n)).resize(1024).jpeg({ quality: 90 }).toBuffer();
      const hashed: Record<string, string> = {};
      for (const [name, buffer] of Object.entries(await variants(original)))
        hashed[name] = await perceptualHash(buffer);
      return { name: `sample${n}`, hash: await perceptualHash(original), variants: hashed };
    }),
  );
  photos.push(...built);
});

describe('perceptual hash', () => {
  it('is a 64-bit hex string and hamming distance counts differing bits', async () => {
    expect(photos[0]!.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('00000000000000f0', '0000000000000010')).toBe(3);
  });

  it('keeps re-published copies (resized, recompressed, slightly cropped) within the threshold', () => {
    const worst: Record<string, number> = {};
    for (const photo of photos) {
      for (const [name, hash] of Object.entries(photo.variants)) {
        const distance = hammingDistance(photo.hash, hash);
        worst[name] = Math.max(worst[name] ?? 0, distance);
        expect(distance, `${photo.name} ${name}`).toBeLessThanOrEqual(NEAR_DUPLICATE_MAX_DISTANCE);
        expect(isNearDuplicate(photo.hash, hash)).toBe(true);
      }
    }
    console.info('worst near-duplicate distance per transformation', worst);
  });

  it('keeps different photos far apart', () => {
    let closest = 64;
    for (let i = 0; i < photos.length; i++) {
      for (let j = i + 1; j < photos.length; j++) {
        const distance = hammingDistance(photos[i]!.hash, photos[j]!.hash);
        closest = Math.min(closest, distance);
        expect(isNearDuplicate(photos[i]!.hash, photos[j]!.hash)).toBe(false);
        // Every variant of one photo stays far from every other photo too.
        for (const hash of Object.values(photos[j]!.variants)) {
          expect(hammingDistance(photos[i]!.hash, hash)).toBeGreaterThan(2 * NEAR_DUPLICATE_MAX_DISTANCE - 4);
        }
      }
    }
    console.info('closest distance between different photos', closest);
    expect(closest).toBeGreaterThanOrEqual(2 * NEAR_DUPLICATE_MAX_DISTANCE);
  });
});

describe('analyzeImage', () => {
  it('gives size, a 256-px JPEG thumbnail without EXIF, and the same hash as perceptualHash', async () => {
    const withExif = await sharp(samplePath(1))
      .resize(800)
      .withExif({ IFD0: { Copyright: 'Someone', Artist: 'Camera owner' } })
      .jpeg()
      .toBuffer();
    expect((await sharp(withExif).metadata()).exif).toBeDefined();
    const analysis = await analyzeImage(withExif);
    expect(analysis.width).toBe(800);
    expect(analysis.format).toBe('jpeg');
    expect(analysis.phash).toBe(await perceptualHash(withExif));
    const thumb = await sharp(analysis.thumbnail).metadata();
    expect(thumb.format).toBe('jpeg');
    expect(Math.max(thumb.width, thumb.height)).toBe(256);
    expect(thumb.exif).toBeUndefined();
    expect(sha256Hex(Buffer.from('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('applies EXIF orientation before measuring', async () => {
    const rotated = await sharp(samplePath(2)).resize(400).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const raw = await sharp(rotated).metadata();
    const analysis = await analyzeImage(rotated);
    expect(analysis.width).toBe(raw.height);
    expect(analysis.height).toBe(raw.width);
  });

  it('refuses images with more pixels than allowed and bytes that are no image', async () => {
    const big = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    await expect(analyzeImage(big, { maxPixels: 1_000_000 })).rejects.toThrow();
    await expect(analyzeImage(Buffer.from('<html>not an image</html>'))).rejects.toThrow();
  });
});
