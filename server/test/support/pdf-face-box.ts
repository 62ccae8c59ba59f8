import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { MARGIN } from '../../src/reports/pdf-parts.ts';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The outline of the matched face as a report draws it, found on a page rendered by pdftoppm at 72 dpi
 * (one pixel per point): the bounding box of the pixels of the outline's colour (#ffd400), or null.
 */
export async function drawnFaceBox(pdf: Buffer, page: number): Promise<Box | null> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'report-page-'));
  try {
    const file = path.join(folder, 'report.pdf');
    fs.writeFileSync(file, pdf);
    execFileSync('pdftoppm', [
      '-f',
      String(page),
      '-l',
      String(page),
      '-r',
      '72',
      '-png',
      '-singlefile',
      file,
      path.join(folder, 'page'),
    ]);
    const { data, info } = await sharp(path.join(folder, 'page.png'))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const i = (y * info.width + x) * 3;
        // Saturated yellow only: photos rarely have it, the anti-aliased stroke's middle always does.
        if (data[i]! > 235 && data[i + 1]! > 190 && data[i + 1]! < 230 && data[i + 2]! < 60) {
          left = Math.min(left, x);
          right = Math.max(right, x);
          top = Math.min(top, y);
          bottom = Math.max(bottom, y);
        }
      }
    }
    return left === Infinity ? null : { x: left, y: top, width: right - left + 1, height: bottom - top + 1 };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Where the face box of a result lands in the thumbnail square (side `size` points, at the left margin)
 * of a report entry: left edge and size in points, the top left to the caller (it depends on the page).
 */
export function expectedFaceBox(
  face: { faceBox: Box; imageSize: { width: number; height: number } },
  size: number,
): { x: number; width: number; height: number } {
  const scale = Math.min(size / face.imageSize.width, size / face.imageSize.height);
  return {
    x: MARGIN + (size - face.imageSize.width * scale) / 2 + face.faceBox.x * scale,
    width: face.faceBox.width * scale,
    height: face.faceBox.height * scale,
  };
}
