import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

// Test images: face-api's demo photos (shipped in node_modules, so tests run on a fresh clone) and
// BMP files written here byte by byte, independently of the decoder under test.

const require = createRequire(import.meta.url);
const faceApiDir = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..');

/** sample1…sample6.jpg: 1920-px photos of 3 to 5 people. */
export function demoPhoto(n: 1 | 2 | 3 | 4 | 5 | 6): Buffer {
  return readFileSync(path.join(faceApiDir, 'demo', `sample${n}.jpg`));
}

export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

export async function rawRgb(image: Buffer): Promise<Rgb> {
  const { data, info } = await sharp(image)
    .autoOrient()
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** A small image with distinct values in every pixel, so any misplaced byte shows. */
export function gradient(width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = (x * 7) % 256;
      data[i + 1] = (y * 11) % 256;
      data[i + 2] = (x * 3 + y * 5) % 256;
    }
  }
  return { data, width, height };
}

function fileHeader(fileSize: number, pixelOffset: number): Buffer {
  const h = Buffer.alloc(14);
  h.write('BM', 0, 'latin1');
  h.writeUInt32LE(fileSize, 2);
  h.writeUInt32LE(pixelOffset, 10);
  return h;
}

/** 24-bit BMP with the classic 40-byte header, bottom-up rows padded to 4 bytes. */
export function bmp24(img: Rgb): Buffer {
  const stride = Math.ceil((img.width * 3) / 4) * 4;
  const pixels = Buffer.alloc(stride * img.height);
  for (let y = 0; y < img.height; y++) {
    const row = (img.height - 1 - y) * stride;
    for (let x = 0; x < img.width; x++) {
      const s = (y * img.width + x) * 3;
      pixels[row + x * 3] = img.data[s + 2]!;
      pixels[row + x * 3 + 1] = img.data[s + 1]!;
      pixels[row + x * 3 + 2] = img.data[s]!;
    }
  }
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(img.width, 4);
  info.writeInt32LE(img.height, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(24, 14);
  info.writeUInt32LE(pixels.length, 20);
  return Buffer.concat([fileHeader(54 + pixels.length, 54), info, pixels]);
}

/**
 * 32-bit BMP with a 124-byte V5 header and BI_BITFIELDS masks (X8R8G8B8 with alpha 255), top-down:
 * the layout Windows and most editors write.
 */
export function bmp32v5(img: Rgb): Buffer {
  const pixels = Buffer.alloc(img.width * img.height * 4);
  for (let i = 0; i < img.width * img.height; i++) {
    pixels[i * 4] = img.data[i * 3 + 2]!;
    pixels[i * 4 + 1] = img.data[i * 3 + 1]!;
    pixels[i * 4 + 2] = img.data[i * 3]!;
    pixels[i * 4 + 3] = 255;
  }
  const info = Buffer.alloc(124);
  info.writeUInt32LE(124, 0);
  info.writeInt32LE(img.width, 4);
  info.writeInt32LE(-img.height, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(3, 16); // BI_BITFIELDS
  info.writeUInt32LE(pixels.length, 20);
  info.writeUInt32LE(0x00ff0000, 40); // red mask
  info.writeUInt32LE(0x0000ff00, 44); // green mask
  info.writeUInt32LE(0x000000ff, 48); // blue mask
  info.writeUInt32LE(0xff000000, 52); // alpha mask
  info.write('BGRs', 56, 'latin1'); // colour space: sRGB
  return Buffer.concat([fileHeader(138 + pixels.length, 138), info, pixels]);
}

/** 8-bit grey BMP with a 256-entry palette, bottom-up rows padded to 4 bytes. */
export function bmp8(img: Rgb): Buffer {
  const stride = Math.ceil(img.width / 4) * 4;
  const pixels = Buffer.alloc(stride * img.height);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++)
      pixels[(img.height - 1 - y) * stride + x] = img.data[(y * img.width + x) * 3]!;
  }
  const palette = Buffer.alloc(256 * 4);
  for (let i = 0; i < 256; i++) palette.fill(i, i * 4, i * 4 + 3);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(img.width, 4);
  info.writeInt32LE(img.height, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(8, 14);
  info.writeUInt32LE(256, 32);
  const offset = 54 + palette.length;
  return Buffer.concat([fileHeader(offset + pixels.length, offset), info, palette, pixels]);
}

/** A valid PNG whose header claims width × height pixels (a decompression bomb's calling card). */
export async function pngDeclaring(width: number, height: number): Promise<Buffer> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  const bomb = Buffer.from(png);
  bomb.writeUInt32BE(width, 16);
  bomb.writeUInt32BE(height, 20);
  // Keep the header chunk valid (its CRC covers type and data), as a real bomb's would be.
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29);
  return bomb;
}

/**
 * An 8-bit run-length encoded BMP declaring width×height whose pixel data is only the given RLE codes
 * (by default end-of-bitmap at once: every pixel left to the decoder's imagination).
 */
export function rle8Bmp(width: number, height: number, codes = [0x00, 0x01, 0x00, 0x00]): Buffer {
  const palette = Buffer.alloc(256 * 4);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(width, 4);
  info.writeInt32LE(height, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(8, 14);
  info.writeUInt32LE(1, 16); // BI_RLE8
  info.writeUInt32LE(codes.length, 20);
  info.writeUInt32LE(256, 32);
  const offset = 14 + 40 + palette.length;
  const header = Buffer.alloc(14);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(offset + codes.length, 2);
  header.writeUInt32LE(offset, 10);
  return Buffer.concat([header, info, palette, Buffer.from(codes)]);
}

/** A real RLE8 BMP of a flat grey image: each row is runs of up to 255 pixels, then end-of-line. */
export function honestRle8Bmp(width: number, height: number): Buffer {
  const codes: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let left = width; left > 0; left -= 255) codes.push(Math.min(255, left), 128);
    codes.push(0x00, 0x00);
  }
  codes.push(0x00, 0x01);
  const bmp = rle8Bmp(width, height, codes);
  const palette = bmp.subarray(54, 54 + 1024);
  for (let i = 0; i < 256; i++) palette.fill(i, i * 4, i * 4 + 3);
  return bmp;
}
