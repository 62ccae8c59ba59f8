import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import type { FaceBox } from './face-engine.ts';

// Every image that reaches a model goes through here: the format is recognised from its bytes (never from
// a name or a declared type), the declared size is checked before any pixel is decoded, and failures
// become an ImageDecodeError with a code the API can map to a message.

export type ImageDecodeErrorCode = 'UNSUPPORTED_FORMAT' | 'TOO_MANY_PIXELS' | 'CORRUPT';

export class ImageDecodeError extends Error {
  override readonly name = 'ImageDecodeError';

  constructor(
    readonly code: ImageDecodeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Images declaring more pixels than this are refused before decoding (decompression bombs). The crawler
 * takes images up to the same size, so what it fetches the face engine reads (a 48 MP phone photo too).
 */
export const MAX_IMAGE_PIXELS = 50_000_000;
/**
 * The pixel budget of a query upload. A real photo that fits the 1.5 MB upload limit has at most about
 * 16 MP (a 4:3 16 MP JPEG at ordinary quality is already 3–5 MB); anything declaring more within 1.5 MB is
 * a compression trick that would only buy its sender seconds of a face worker.
 */
export { MAX_UPLOAD_PIXELS } from '@osint/contract/search';
/**
 * Run-length encoded BMPs: a run of at most 255 pixels takes 2 bytes. A file whose pixel data is too short
 * to encode its declared size that way relies on end-of-line/end-of-bitmap/delta codes to leave almost all
 * pixels undefined, which no real BMP writer does for a photo: it is a decompression bomb.
 */
const RLE_MAX_PIXELS_PER_BYTE = 255 / 2;
/** A stuck decode must not hold a worker forever. */
const DECODE_TIMEOUT_SECONDS = 20;

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'bmp' | 'avif';

export interface RgbImage {
  /** Interleaved RGB, 3 bytes per pixel, rows top to bottom. */
  data: Uint8Array;
  width: number;
  height: number;
}

export interface DecodedImage extends RgbImage {
  format: ImageFormat;
  /** Size of the full image after EXIF rotation; width/height above are smaller when maxSide shrank it. */
  sourceWidth: number;
  sourceHeight: number;
}

export interface DecodeOptions {
  maxPixels?: number;
  /** Downscale (never upscale) so the longer side is at most this many pixels. */
  maxSide?: number;
}

const startsWith = (buf: Uint8Array, bytes: number[], at = 0) => bytes.every((b, i) => buf[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/**
 * An ISO media file (HEIF family) whose `ftyp` box names AVIF as its brand or a compatible one. HEIC, the
 * same container around HEVC, is not: sharp cannot decode it.
 */
function isAvif(buf: Uint8Array): boolean {
  if (!startsWith(buf, ascii('ftyp'), 4)) return false;
  const boxEnd = Math.min(buf.length, new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(0));
  // The major brand at 8, the minor version at 12, then compatible brands.
  for (let at = 8; at + 4 <= boxEnd; at += at === 8 ? 8 : 4) {
    if (startsWith(buf, ascii('avif'), at) || startsWith(buf, ascii('avis'), at)) return true;
  }
  return false;
}

/** The format, from the file's magic bytes; null for anything we do not accept (SVG, PDF, HEIC, text…). */
export function sniffImageFormat(buf: Uint8Array): ImageFormat | null {
  if (buf.length >= 12 && isAvif(buf)) return 'avif';
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(buf, ascii('RIFF')) && startsWith(buf, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(buf, ascii('GIF87a')) || startsWith(buf, ascii('GIF89a'))) return 'gif';
  if (startsWith(buf, [0x49, 0x49, 0x2a, 0x00]) || startsWith(buf, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(buf, ascii('BM')) && buf.length >= 26) return 'bmp';
  return null;
}

function checkPixels(width: number, height: number, maxPixels: number): void {
  if (width * height > maxPixels) {
    throw new ImageDecodeError(
      'TOO_MANY_PIXELS',
      `Image declares ${width}×${height} pixels; at most ${maxPixels.toLocaleString('en')} pixels are accepted`,
    );
  }
}

// ---------------------------------------------------------------------------------------------- BMP

interface BmpJsImage {
  width: number;
  height: number;
  /** 4 bytes per pixel in the order A, B, G, R. */
  data: Buffer;
}
const bmpJs = createRequire(import.meta.url)('bmp-js') as { decode(buffer: Buffer): BmpJsImage };

/**
 * Decodes a BMP with bmp-js. bmp-js only understands the 40-byte BITMAPINFOHEADER and ignores the
 * pixel-data offset, and reads 32-bit bit-field images in a fixed byte order; Windows and most editors
 * write the 108/124-byte V4/V5 headers with bit fields. So the file is first rewritten to the layout
 * bmp-js reads correctly, and 32-bit bit fields are applied here.
 */
interface BmpHeader {
  pixelOffset: number;
  headerSize: number;
  width: number;
  height: number;
  bitsPerPixel: number;
  compression: number;
}

/**
 * Reads and checks a BMP's headers (sizes, the pixel budget, and whether the file is long enough for what
 * it declares) without decoding a pixel: used both to refuse early and before decoding.
 */
function readBmpHeader(buf: Buffer, maxPixels: number): BmpHeader {
  if (buf.length < 54) throw new ImageDecodeError('CORRUPT', 'BMP header is truncated');
  const pixelOffset = buf.readUInt32LE(10);
  const headerSize = buf.readUInt32LE(14);
  if (![40, 52, 56, 108, 124].includes(headerSize)) {
    throw new ImageDecodeError('UNSUPPORTED_FORMAT', `BMP with a ${headerSize}-byte header is not supported`);
  }
  const width = buf.readInt32LE(18);
  const signedHeight = buf.readInt32LE(22);
  const height = Math.abs(signedHeight);
  const bitsPerPixel = buf.readUInt16LE(28);
  const compression = buf.readUInt32LE(30);
  if (width <= 0 || height === 0 || width > 1 << 16 || height > 1 << 16) {
    throw new ImageDecodeError('CORRUPT', `BMP declares an invalid size ${width}×${signedHeight}`);
  }
  checkPixels(width, height, maxPixels);
  const dataBytes = Math.max(0, buf.length - pixelOffset);
  if (compression === 0 || compression === 3) {
    const stride = Math.ceil((width * bitsPerPixel) / 32) * 4;
    if (pixelOffset + stride * height > buf.length)
      throw new ImageDecodeError('CORRUPT', 'BMP data is truncated');
  } else if (
    (compression === 1 || compression === 2) &&
    width * height > dataBytes * RLE_MAX_PIXELS_PER_BYTE
  ) {
    throw new ImageDecodeError(
      'CORRUPT',
      `Run-length encoded BMP declares ${width}×${height} pixels but has only ${dataBytes} bytes of data`,
    );
  }
  return { pixelOffset, headerSize, width, height, bitsPerPixel, compression };
}

function decodeBmp(buf: Buffer, maxPixels: number): RgbImage {
  const { pixelOffset, headerSize, width, height, bitsPerPixel, compression } = readBmpHeader(buf, maxPixels);
  const paletteSize = buf.readUInt32LE(46) || (bitsPerPixel <= 8 ? 2 ** bitsPerPixel : 0);
  const supported =
    (compression === 0 && [1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) ||
    (compression === 1 && bitsPerPixel === 8) ||
    (compression === 2 && bitsPerPixel === 4) ||
    (compression === 3 && (bitsPerPixel === 16 || bitsPerPixel === 32));
  if (!supported) {
    throw new ImageDecodeError(
      'UNSUPPORTED_FORMAT',
      `BMP with ${bitsPerPixel} bits per pixel and compression ${compression} is not supported`,
    );
  }

  const masks =
    compression === 3
      ? [buf.readUInt32LE(54), buf.readUInt32LE(58), buf.readUInt32LE(62)] // red, green, blue
      : null;
  // Only images of up to 8 bits per pixel use their colour table; bmp-js reads none for the others.
  const paletteStart = 14 + headerSize;
  const palette =
    bitsPerPixel <= 8
      ? buf.subarray(paletteStart, Math.min(paletteStart + paletteSize * 4, pixelOffset))
      : Buffer.alloc(0);

  // Rebuilt file: 14-byte file header, 40-byte info header, [16-bit masks | palette], pixel data.
  const extra = bitsPerPixel === 16 && masks ? Buffer.alloc(16) : palette;
  if (bitsPerPixel === 16 && masks) masks.forEach((m, i) => extra.writeUInt32LE(m, i * 4));
  const header = Buffer.alloc(54);
  buf.copy(header, 0, 0, 54);
  header.writeUInt32LE(54 + extra.length, 10);
  header.writeUInt32LE(40, 14);
  // 32-bit bit fields are unpacked below from the raw bytes, so bmp-js is told they are plain BGRA.
  if (bitsPerPixel === 32) header.writeUInt32LE(0, 30);
  const normalised = Buffer.concat([header, extra, buf.subarray(pixelOffset)]);

  let decoded: BmpJsImage;
  try {
    decoded = bmpJs.decode(normalised);
  } catch (err) {
    throw new ImageDecodeError('CORRUPT', `BMP could not be decoded: ${(err as Error).message}`);
  }
  const rgb = new Uint8Array(width * height * 3);
  const src = decoded.data;
  const shiftOf = (mask: number) => (mask === 0 ? 0 : Math.log2(mask & -mask));
  const bitsOf = (mask: number) => mask.toString(2).replaceAll('0', '').length;
  for (let i = 0, o = 0; o < rgb.length; i += 4, o += 3) {
    if (bitsPerPixel === 32 && masks) {
      // Bytes in the file were B0 B1 B2 B3; bmp-js stored them as [B3, B0, B1, B2].
      const value = (src[i + 1]! | (src[i + 2]! << 8) | (src[i + 3]! << 16) | (src[i]! << 24)) >>> 0;
      for (let c = 0; c < 3; c++) {
        const mask = masks[c]!;
        const max = 2 ** bitsOf(mask) - 1;
        rgb[o + c] = max ? Math.round((((value & mask) >>> 0) / 2 ** shiftOf(mask) / max) * 255) : 0;
      }
    } else {
      rgb[o] = src[i + 3]!;
      rgb[o + 1] = src[i + 2]!;
      rgb[o + 2] = src[i + 1]!;
    }
  }
  return { data: rgb, width, height };
}

// ---------------------------------------------------------------------------------------------- decode

function sharpInput(buf: Buffer, maxPixels: number): { image: Sharp; format: ImageFormat } {
  const format = sniffImageFormat(buf);
  if (!format) {
    throw new ImageDecodeError(
      'UNSUPPORTED_FORMAT',
      'Not a supported image; use JPEG, PNG, BMP, TIFF, WebP, GIF or AVIF',
    );
  }
  if (format === 'bmp') {
    const { data, width, height } = decodeBmp(buf, maxPixels);
    return { image: sharp(data, { raw: { width, height, channels: 3 } }), format };
  }
  // autoOrient applies the EXIF orientation at input, so sizes and crops below refer to the upright image.
  const options = { limitInputPixels: maxPixels, failOn: 'error', autoOrient: true } as const;
  return { image: sharp(buf, options).timeout({ seconds: DECODE_TIMEOUT_SECONDS }), format };
}

function asDecodeError(err: unknown): ImageDecodeError {
  if (err instanceof ImageDecodeError) return err;
  const message = (err as Error).message ?? String(err);
  if (/pixel limit/i.test(message)) return new ImageDecodeError('TOO_MANY_PIXELS', message);
  return new ImageDecodeError('CORRUPT', `Image could not be decoded: ${message}`);
}

async function uprightSize(image: Sharp, maxPixels: number): Promise<{ width: number; height: number }> {
  const meta = await image.metadata();
  if (!meta.width || !meta.height) throw new ImageDecodeError('CORRUPT', 'Image has no dimensions');
  checkPixels(meta.width, meta.height, maxPixels);
  return { width: meta.autoOrient.width, height: meta.autoOrient.height };
}

/**
 * Checks the format and the declared size from the header only (fast, decodes no pixels), so bad input is
 * refused before it takes a worker. Throws ImageDecodeError.
 */
export async function probeImage(
  buf: Buffer,
  maxPixels = MAX_IMAGE_PIXELS,
): Promise<{ format: ImageFormat; width: number; height: number }> {
  try {
    const format = sniffImageFormat(buf);
    if (format === 'bmp') {
      const { width, height } = readBmpHeader(buf, maxPixels);
      return { format, width, height };
    }
    const { image } = sharpInput(buf, maxPixels);
    return { format: format!, ...(await uprightSize(image, maxPixels)) };
  } catch (err) {
    throw asDecodeError(err);
  }
}

/** Decodes JPEG, PNG, WebP, GIF (first frame), TIFF (first page), AVIF or BMP to upright 8-bit RGB. */
export async function decodeImage(buf: Buffer, options: DecodeOptions = {}): Promise<DecodedImage> {
  const maxPixels = options.maxPixels ?? MAX_IMAGE_PIXELS;
  try {
    const { image, format } = sharpInput(buf, maxPixels);
    const { width: sourceWidth, height: sourceHeight } = await uprightSize(image, maxPixels);
    let pipeline = image
      // Transparent areas become white rather than whatever colour hides under alpha 0.
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb');
    if (options.maxSide && Math.max(sourceWidth, sourceHeight) > options.maxSide) {
      pipeline = pipeline.resize(options.maxSide, options.maxSide, { fit: 'inside' });
    }
    const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new ImageDecodeError('CORRUPT', `Unexpected ${info.channels} channels`);
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
      format,
      sourceWidth,
      sourceHeight,
    };
  } catch (err) {
    throw asDecodeError(err);
  }
}

/**
 * Square JPEGs of faces with a margin around each, cut from the original image bytes (for the upload
 * response and thumbnails). The image is decoded once for all faces; each square is kept inside the
 * image, so it never shows padding.
 */
export async function cropFacesJpeg(image: Buffer, boxes: readonly FaceBox[], size = 256): Promise<Buffer[]> {
  if (boxes.length === 0) return [];
  try {
    const { image: input } = sharpInput(image, MAX_IMAGE_PIXELS);
    const { data, info } = await input
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width, height, channels } = info;
    return await Promise.all(
      boxes.map((box) => {
        const side = Math.max(1, Math.round(Math.min(Math.max(box.width, box.height) * 1.6, width, height)));
        const cx = box.x + box.width / 2;
        const cy = box.y + box.height / 2;
        const left = Math.round(Math.min(Math.max(cx - side / 2, 0), width - side));
        const top = Math.round(Math.min(Math.max(cy - side / 2, 0), height - side));
        return sharp(data, { raw: { width, height, channels } })
          .extract({ left, top, width: side, height: side })
          .resize(size, size)
          .jpeg({ quality: 85, mozjpeg: true })
          .toBuffer();
      }),
    );
  } catch (err) {
    throw asDecodeError(err);
  }
}

/** One face's square JPEG: see cropFacesJpeg. */
export async function cropFaceJpeg(image: Buffer, box: FaceBox, size = 256): Promise<Buffer> {
  const [jpeg] = await cropFacesJpeg(image, [box], size);
  return jpeg!;
}
