import sharp, { type Sharp } from 'sharp';

/**
 * 64-bit perceptual hash (a block-averaged difference hash) to spot the same photo re-published
 * elsewhere: resized, recompressed or slightly cropped copies land within a few bits, different photos
 * around 32 (random). The image is auto-oriented, flattened on white, turned greyscale and reduced to
 * a 72×64 grid; each 8×8 block is averaged into a 9×8 grid and each bit says whether a block is darker
 * than its right-hand neighbour. Averaging blocks (rather than resizing straight to 9×8) makes the
 * hash far less sensitive to resampling and JPEG/WebP noise.
 *
 * Measured on the six face-api sample photos (server/test/crawler/perceptual-hash.test.ts): half size,
 * JPEG q30, 70 % WebP q50, 25 % PNG, 256-px thumbnail, +10 % brightness: 0–1 bits; cropped 2 % on each
 * side: ≤ 8; cropped 3 % on two sides: ≤ 9 (≤ 11 on the 1920-px originals); different photos: 27–38.
 * Crops beyond ~5 % per side drift past the threshold (≈ 16): the hash is for copies, not for faces.
 */

/** Hamming distance at or below which two hashes are the same photo (resized, recompressed, slightly cropped). */
export const NEAR_DUPLICATE_MAX_DISTANCE = 12;

const GRID_W = 9;
const GRID_H = 8;
const BLOCK = 8;

/** Hash as 16 lowercase hex digits (fits a 64-bit column or a text column). */
export async function perceptualHash(input: Buffer | Sharp): Promise<string> {
  const pipeline = Buffer.isBuffer(input) ? sharp(input, { autoOrient: true }) : input;
  const width = GRID_W * BLOCK;
  const { data } = await pipeline
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize(width, GRID_H * BLOCK, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // raw() after greyscale yields one channel per pixel.
  const grid = new Float64Array(GRID_W * GRID_H);
  for (let y = 0; y < GRID_H * BLOCK; y++) {
    for (let x = 0; x < width; x++) {
      grid[Math.floor(y / BLOCK) * GRID_W + Math.floor(x / BLOCK)]! += data[y * width + x]!;
    }
  }
  let hash = 0n;
  for (let row = 0; row < GRID_H; row++) {
    for (let col = 0; col < GRID_W - 1; col++) {
      const bit = grid[row * GRID_W + col]! < grid[row * GRID_W + col + 1]! ? 1n : 0n;
      hash = (hash << 1n) | bit;
    }
  }
  return hash.toString(16).padStart(16, '0');
}

/** Number of differing bits between two hashes from perceptualHash. */
export function hammingDistance(a: string, b: string): number {
  let diff = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (diff) {
    count += Number(diff & 1n);
    diff >>= 1n;
  }
  return count;
}

export function isNearDuplicate(a: string, b: string, maxDistance = NEAR_DUPLICATE_MAX_DISTANCE): boolean {
  return hammingDistance(a, b) <= maxDistance;
}
