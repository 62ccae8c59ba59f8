import sharp from 'sharp';
import { badRequest } from './http-error.ts';

const KEPT_FACE_PX = 256;
export const FACE_IMAGE_UNREADABLE = 'The face image could not be read. Please run the search again.';

/**
 * The searched face sent with a save or an extraction, re-encoded as a small JPEG: nothing but pixels
 * is kept from the upload (saved searches and extractions show it in their lists and report covers).
 */
export async function normaliseFace(base64: string): Promise<Buffer> {
  const bytes = Buffer.from(base64.replace(/^data:[^,]*,/, ''), 'base64');
  if (bytes.length === 0) throw badRequest(FACE_IMAGE_UNREADABLE);
  try {
    return await sharp(bytes, { limitInputPixels: 4096 * 4096 })
      .rotate()
      .resize(KEPT_FACE_PX, KEPT_FACE_PX, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 88 })
      .toBuffer();
  } catch {
    throw badRequest(FACE_IMAGE_UNREADABLE);
  }
}
