import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { sniffImageFormat } from '../face/image-decode.ts';
import { SEARCH_MESSAGES } from '@osint/contract/search';
import { badRequest } from './http-error.ts';

const KEPT_FACE_PX = 256;
/**
 * The face sent back is the 256-px crop the upload answered with: anything declaring more than 1024²
 * pixels is not one, and is refused before a pixel is decoded.
 */
export const MAX_FACE_IMAGE_PIXELS = 1024 * 1024;
/** Re-encoding a 256-px crop takes milliseconds; a stuck or crafted one must not hold a thread. */
const FACE_IMAGE_TIMEOUT_SECONDS = 2;
export const FACE_IMAGE_UNREADABLE = 'The face image could not be read. Please run the search again.';

/** The bytes of a base64 image, with or without a data: URL prefix. */
function bytesOfBase64(base64: string): Buffer {
  return Buffer.from(base64.replace(/^data:[^,]*,/, ''), 'base64');
}

/** The digest sealed in a query-face token of the crop the upload answered with (base64, data: URL or not). */
export function cropDigest(base64: string): Buffer {
  return createHash('sha256').update(bytesOfBase64(base64)).digest();
}

/**
 * Whether `base64` is the crop the upload answered for this face: only then may it be kept as the searched
 * face's picture (saved searches, reports, watches, reviews show it as the face that was searched).
 */
export function isCropOf(face: { cropSha256?: Buffer | undefined }, base64: string): boolean {
  return face.cropSha256 !== undefined && face.cropSha256.equals(cropDigest(base64));
}

/** The digests of a search's face crops, kept with it as one value (none: null). */
export function joinCropDigests(digests: readonly (Buffer | undefined)[]): Buffer | null {
  const known = digests.filter((digest) => digest !== undefined);
  return known.length > 0 ? Buffer.concat(known) : null;
}

function isAmongDigests(digests: Buffer | null, digest: Buffer): boolean {
  for (let at = 0; digests && at + digest.length <= digests.length; at += digest.length) {
    if (digest.equals(digests.subarray(at, at + digest.length))) return true;
  }
  return false;
}

/**
 * The picture to keep as the searched face of a save or an extraction of `search`: `base64` must show the
 * face that was searched, i.e. be one of the crops the upload answered for the searched faces, or the
 * picture kept with the search (what a reopened search sends back). Anything else would put a face that
 * was never searched on the saved search's list and its reports.
 */
export async function searchedFacePicture(
  search: { cropDigests: Buffer | null; faceImage: Buffer | null },
  base64: string,
): Promise<Buffer> {
  if (search.faceImage?.equals(bytesOfBase64(base64))) {
    return search.faceImage;
  }
  // Read first: an unreadable picture gets its own message (and an SVG is refused unread).
  const picture = await normaliseFace(base64);
  if (!isAmongDigests(search.cropDigests, cropDigest(base64))) {
    throw badRequest(SEARCH_MESSAGES.faceImageMismatch);
  }
  return picture;
}

/**
 * The searched face sent with a save or an extraction, re-encoded as a small JPEG: nothing but pixels
 * is kept from the upload (saved searches and extractions show it in their lists and report covers).
 * Only JPEG and PNG, recognised from their bytes, are accepted: the crops the upload answered with are
 * JPEGs, and other formats (SVG above all, whose filters can take seconds to render) are refused unread.
 */
export async function normaliseFace(base64: string): Promise<Buffer> {
  const bytes = bytesOfBase64(base64);
  const format = sniffImageFormat(bytes);
  if (format !== 'jpeg' && format !== 'png') throw badRequest(FACE_IMAGE_UNREADABLE);
  try {
    return await sharp(bytes, { limitInputPixels: MAX_FACE_IMAGE_PIXELS, failOn: 'error' })
      .timeout({ seconds: FACE_IMAGE_TIMEOUT_SECONDS })
      .rotate()
      .resize(KEPT_FACE_PX, KEPT_FACE_PX, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 88 })
      .toBuffer();
  } catch {
    throw badRequest(FACE_IMAGE_UNREADABLE);
  }
}
