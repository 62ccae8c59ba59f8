import crypto from 'node:crypto';
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS } from '../face/image-decode.ts';
import { perceptualHash } from './perceptual-hash.ts';

/** What the crawler computes once per distinct image content (same bytes are never analysed twice). */
export interface ImageAnalysis {
  /** Pixel size after EXIF orientation. */
  width: number;
  height: number;
  /** Decoder's format name (jpeg, png, webp, gif, avif, tiff…). */
  format: string;
  /** 64-bit perceptual hash, 16 hex digits; compare with hammingDistance. */
  phash: string;
  /** JPEG, longest side at most thumbnailSize, auto-oriented, no EXIF/ICC/XMP metadata. */
  thumbnail: Buffer;
  thumbnailWidth: number;
  thumbnailHeight: number;
}

export interface AnalyzeImageOptions {
  thumbnailSize?: number;
  /** Refuse images with more pixels than this (decompression bombs: a tiny PNG can claim 100k×100k). */
  maxPixels?: number;
}

export function sha256Hex(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export async function analyzeImage(bytes: Buffer, options: AnalyzeImageOptions = {}): Promise<ImageAnalysis> {
  const size = options.thumbnailSize ?? 256;
  // animated: false → first frame only; autoOrient applies EXIF rotation before anything is measured.
  const source = sharp(bytes, {
    autoOrient: true,
    animated: false,
    limitInputPixels: options.maxPixels ?? MAX_IMAGE_PIXELS,
    failOn: 'error',
  });
  const metadata = await source.metadata();
  if (metadata.format === 'svg') throw new Error('vector images are not analysed');
  const [phash, thumb] = await Promise.all([
    perceptualHash(source.clone()),
    source
      .clone()
      .resize(size, size, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      // sharp writes no metadata unless asked (withMetadata/keepExif): the thumbnail carries no EXIF.
      .jpeg({ quality: 80 })
      .toBuffer({ resolveWithObject: true }),
  ]);
  return {
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    format: metadata.format,
    phash,
    thumbnail: thumb.data,
    thumbnailWidth: thumb.info.width,
    thumbnailHeight: thumb.info.height,
  };
}
